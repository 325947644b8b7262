//! Generators are deterministic across thread counts and seeds matter.

use weald_graph::EdgeList;
use weald_io::gen::{self, RmatParams};

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn rmat(scale: u32, seed: u64) -> EdgeList<()> {
    gen::rmat(&RmatParams {
        scale,
        seed,
        ..Default::default()
    })
}

#[test]
fn rmat_same_seed_same_graph_at_any_thread_count() {
    let a = in_pool(1, || rmat(12, 42));
    let b = in_pool(2, || rmat(12, 42));
    assert_eq!(a, b);
    let c = in_pool(2, || rmat(12, 43));
    assert_ne!(a, c);
}

#[test]
fn rmat_shape() {
    let g = rmat(10, 1);
    assert_eq!(g.num_vertices, 1 << 10);
    assert_eq!(g.len(), (1 << 10) * 16);
    assert!(g.src.iter().chain(&g.dst).all(|&v| v < 1 << 10));
    // Skewed: the most frequent vertex has far more than the average degree (32).
    let mut deg = vec![0usize; 1 << 10];
    for (&u, &v) in g.src.iter().zip(&g.dst) {
        deg[u as usize] += 1;
        deg[v as usize] += 1;
    }
    assert!(*deg.iter().max().unwrap() > 200);
    // The id scramble spreads the hubs: the top vertex is not vertex 0.
    assert_ne!(deg.iter().enumerate().max_by_key(|p| p.1).unwrap().0, 0);
    assert_eq!(RmatParams::default().a, 0.57);
    assert_eq!(RmatParams::default().edge_factor, 16);
}

#[test]
fn rmat_arc_ranges_continue_the_graphs_stream() {
    let p = RmatParams {
        scale: 10,
        seed: 5,
        ..Default::default()
    };
    let g = gen::rmat(&p);
    // A range is the same arcs as the prefix of the whole sequence...
    let mid = gen::rmat_arcs_from(&p, 1000, 500);
    assert_eq!(mid.src, g.src[1000..1500]);
    assert_eq!(mid.dst, g.dst[1000..1500]);
    assert_eq!(gen::rmat_arcs(&p, 700).src, g.src[..700]);
    // ...and past the graph's arcs it keeps its hubs: the graph's top vertex is also the
    // continuation's most frequent endpoint (the permutation is the same).
    let top = |src: &[u32], dst: &[u32]| {
        let mut deg = vec![0usize; 1 << 10];
        for &v in src.iter().chain(dst) {
            deg[v as usize] += 1;
        }
        deg.iter().enumerate().max_by_key(|p| p.1).unwrap().0
    };
    let next = gen::rmat_arcs_from(&p, 64 << 10, 20_000);
    assert_eq!(top(&g.src, &g.dst), top(&next.src, &next.dst));
    assert_ne!(next.src[..100], g.src[..100]);
}

#[test]
fn uniform_and_weights_are_deterministic() {
    let a = in_pool(1, || gen::uniform(1000, 50_000, 7));
    let b = in_pool(2, || gen::uniform(1000, 50_000, 7));
    assert_eq!(a, b);
    assert_ne!(a, gen::uniform(1000, 50_000, 8));
    assert_eq!(a.len(), 50_000);
    assert!(a.src.iter().chain(&a.dst).all(|&v| v < 1000));
    assert_eq!(gen::uniform(0, 10, 1).len(), 0);

    let wi1 = in_pool(1, || gen::add_weights_int(&a, -3, 10, 5));
    let wi2 = in_pool(2, || gen::add_weights_int(&a, -3, 10, 5));
    assert_eq!(wi1, wi2);
    assert!(wi1.weights.iter().all(|&w| (-3..=10).contains(&w)));
    assert!(wi1.weights.contains(&-3) && wi1.weights.contains(&10));
    assert_ne!(wi1.weights, gen::add_weights_int(&a, -3, 10, 6).weights);
    let wf1 = in_pool(1, || gen::add_weights_float(&a, 0.5, 2.0, 5));
    let wf2 = in_pool(2, || gen::add_weights_float(&a, 0.5, 2.0, 5));
    assert_eq!(wf1, wf2);
    assert!(wf1.weights.iter().all(|&w| (0.5..2.0).contains(&w)));
}

#[test]
fn shapes_emit_each_edge_once() {
    let p = gen::path(5);
    assert_eq!(
        p.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        vec![(0, 1), (1, 2), (2, 3), (3, 4)]
    );
    let s = gen::star(4);
    assert_eq!(
        s.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        vec![(0, 1), (0, 2), (0, 3)]
    );
    //  0 - 1 - 2
    //  |   |   |
    //  3 - 4 - 5
    let g = gen::grid(2, 3);
    assert_eq!(g.num_vertices, 6);
    let mut e: Vec<_> = g.iter().map(|e| (e.0, e.1)).collect();
    e.sort();
    assert_eq!(
        e,
        vec![(0, 1), (0, 3), (1, 2), (1, 4), (2, 5), (3, 4), (4, 5)]
    );
    let k = gen::complete(6);
    assert_eq!(k.len(), 15);
    assert!(k.iter().all(|e| e.0 < e.1));
}
