//! Helpers shared by the unit tests of the traversal layer and the algorithms.

use proptest::prelude::*;
use weald_graph::{EdgeList, Vertex};
use weald_storage::{BuildOptions, Csr};

fn build<W: weald_graph::Weight>(
    n: usize,
    arcs: impl IntoIterator<Item = (Vertex, Vertex, W)>,
    directed: bool,
    in_edges: bool,
) -> Csr<W> {
    let mut el = EdgeList::from_triples(arcs);
    el.num_vertices = n;
    let opts = BuildOptions {
        directed,
        in_edges,
        ..Default::default()
    };
    Csr::build(el, &opts).unwrap().0
}

/// An unweighted CSR on `0..n` (directed graphs also store in-arcs).
pub fn csr(n: usize, arcs: &[(Vertex, Vertex)], directed: bool) -> Csr<()> {
    build(n, arcs.iter().map(|&(u, v)| (u, v, ())), directed, true)
}

/// A directed unweighted CSR without in-arcs (pull impossible).
pub fn csr_no_in(n: usize, arcs: &[(Vertex, Vertex)]) -> Csr<()> {
    build(n, arcs.iter().map(|&(u, v)| (u, v, ())), true, false)
}

/// A weighted CSR whose arc `u→v` weighs `(u * 7 + v * 3) % 11 - 5`.
pub fn csr_weighted(n: usize, arcs: &[(Vertex, Vertex)], directed: bool) -> Csr<i32> {
    build(
        n,
        arcs.iter()
            .map(|&(u, v)| (u, v, ((u.min(v) * 7 + u.max(v) * 3) % 11) as i32 - 5)),
        directed,
        true,
    )
}

/// Random graphs with `1..=max_n` vertices and up to `4 n` arcs (self loops and duplicates
/// included), sometimes denser.
pub fn arb_graph(max_n: usize) -> impl Strategy<Value = (usize, Vec<(Vertex, Vertex)>)> {
    (1..=max_n, 0usize..5).prop_flat_map(|(n, density)| {
        let m = n * [0, 1, 2, 4, 8][density] / 2;
        let arc = (0..n as Vertex, 0..n as Vertex);
        (Just(n), proptest::collection::vec(arc, 0..=m.max(1)))
    })
}

/// Run `f` in a rayon pool of `threads` threads.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}
