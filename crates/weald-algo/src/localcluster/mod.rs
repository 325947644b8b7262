//! Local graph clustering: a low-conductance cluster around a seed vertex, found by work
//! proportional to the cluster, not the graph.
//!
//! * [`nibble`] — Nibble-Serial (truncated lazy random walk + sweep cut), as in Aspen's
//!   local-query experiment (ε = 1e-6, T = 10).
//!
//! [`verify`] re-runs the walk with dense arrays (same arithmetic order, so the mass must
//! match to the last bit, up to 1e-12 relative), re-checks the truncation invariant, and
//! recomputes the sweep with a dense position array: the reported cluster must be the best
//! prefix, and its cut, volume and conductance must be what a direct count gives.

pub mod nibble;

pub use nibble::{run, Output, Params};

use weald_graph::{Graph, Vertex};

/// The sweep: shared by [`nibble::run`] (with a sparse position map) and [`verify`] (with a
/// dense one) — the position lookup is the parameter, so the two differ in their data
/// structure while the definition of the sweep order and of conductance is written once.
pub(crate) mod sweep {
    use super::*;

    pub(crate) struct Best {
        pub(crate) cluster: Vec<Vertex>,
        pub(crate) conductance: f64,
        pub(crate) volume: u64,
        pub(crate) cut: u64,
    }

    /// The sweep order: `mass / degree` decreasing, ties by id.
    pub(crate) fn order<G: Graph>(g: &G, mass: &[(Vertex, f64)]) -> Vec<Vertex> {
        let mut keyed: Vec<(f64, Vertex)> = mass
            .iter()
            .map(|&(u, x)| (x / g.out_degree(u).max(1) as f64, u))
            .collect();
        keyed.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|e| e.1).collect()
    }

    /// The least-conductance prefix of the sweep order (the first of equal ones). `index`
    /// builds a position lookup from the order; `pos` answers "where is `w` in the order".
    pub(crate) fn best_prefix<G: Graph, S>(
        g: &G,
        mass: &[(Vertex, f64)],
        index: impl FnOnce(&[Vertex]) -> S,
        pos: impl Fn(&S, Vertex) -> Option<usize>,
    ) -> Best {
        let total = g.num_arcs() as u64;
        let ord = order(g, mass);
        let set = index(&ord);
        let (mut vol, mut cut) = (0u64, 0i64);
        let mut best: Option<(f64, usize, u64, u64)> = None;
        for (j, &u) in ord.iter().enumerate() {
            vol += g.out_degree(u) as u64;
            g.for_each_out(u, |w, _| {
                if w != u {
                    match pos(&set, w) {
                        Some(i) if i < j => cut -= 1,
                        _ => cut += 1,
                    }
                }
                true
            });
            let denom = vol.min(total - vol);
            if denom > 0 {
                let phi = cut as f64 / denom as f64;
                if best.is_none_or(|b| phi < b.0) {
                    best = Some((phi, j, vol, cut as u64));
                }
            }
        }
        match best {
            None => Best {
                cluster: Vec::new(),
                conductance: f64::NAN,
                volume: 0,
                cut: 0,
            },
            Some((phi, j, volume, cut)) => {
                let mut cluster = ord[..=j].to_vec();
                cluster.sort_unstable();
                Best {
                    cluster,
                    conductance: phi,
                    volume,
                    cut,
                }
            }
        }
    }
}

/// Check `out` (see the module docs for what is checked).
pub fn verify<G: Graph>(g: &G, seed: Vertex, p: &Params, out: &Output) -> Result<(), String> {
    nibble::check_args(g, seed, p).map_err(|e| e.to_string())?;
    let n = g.num_vertices();
    // The walk, dense.
    let mut r = vec![0.0f64; n];
    r[seed as usize] = 1.0;
    let mut alive = true;
    let mut steps = 0;
    for _ in 0..p.iterations {
        if !alive {
            break;
        }
        steps += 1;
        let mut q = vec![0.0f64; n];
        for u in 0..n as Vertex {
            let x = r[u as usize];
            if x == 0.0 {
                continue;
            }
            let d = g.out_degree(u);
            if d == 0 {
                q[u as usize] += x;
                continue;
            }
            q[u as usize] += x / 2.0;
            let share = x / (2.0 * d as f64);
            g.for_each_out(u, |w, _| {
                q[w as usize] += share;
                true
            });
        }
        alive = false;
        for (u, x) in q.iter_mut().enumerate() {
            if *x < p.epsilon * g.out_degree(u as Vertex) as f64 {
                *x = 0.0;
            }
            alive |= *x > 0.0;
        }
        r = q;
    }
    if steps != out.iterations {
        return Err(format!(
            "{} steps reported, the walk takes {steps}",
            out.iterations
        ));
    }
    let expected: Vec<(Vertex, f64)> = (0..n as Vertex)
        .filter(|&u| r[u as usize] > 0.0)
        .map(|u| (u, r[u as usize]))
        .collect();
    if expected.len() != out.mass.len() {
        return Err(format!(
            "mass on {} vertices, the walk leaves it on {}",
            out.mass.len(),
            expected.len()
        ));
    }
    let mut total = 0.0;
    for (&(u, x), &(eu, ex)) in out.mass.iter().zip(&expected) {
        if u != eu || (x - ex).abs() > 1e-12 * ex.max(1e-300) {
            return Err(format!("mass ({u}, {x}) where the walk gives ({eu}, {ex})"));
        }
        if x < p.epsilon * g.out_degree(u) as f64 {
            return Err(format!("vertex {u} keeps mass {x} below epsilon·degree"));
        }
        total += x;
    }
    if total > 1.0 + 1e-9 {
        return Err(format!("total mass {total} exceeds 1"));
    }
    // The sweep, dense; then the cluster's cut and volume by direct count.
    let dense = |ord: &[Vertex]| {
        let mut at = vec![usize::MAX; n];
        for (i, &u) in ord.iter().enumerate() {
            at[u as usize] = i;
        }
        at
    };
    let best = sweep::best_prefix(g, &out.mass, dense, |at: &Vec<usize>, w| {
        let i = at[w as usize];
        (i != usize::MAX).then_some(i)
    });
    if best.cluster != out.cluster {
        return Err(format!(
            "cluster of {} vertices reported, the best sweep prefix has {}",
            out.cluster.len(),
            best.cluster.len()
        ));
    }
    let mut inside = vec![false; n];
    for &u in &out.cluster {
        inside[u as usize] = true;
    }
    let (mut vol, mut cut) = (0u64, 0u64);
    for &u in &out.cluster {
        vol += g.out_degree(u) as u64;
        g.for_each_out(u, |w, _| {
            cut += (!inside[w as usize]) as u64;
            true
        });
    }
    if vol != out.volume || cut != out.cut {
        return Err(format!(
            "volume {} and cut {} reported, counted {vol} and {cut}",
            out.volume, out.cut
        ));
    }
    if !out.cluster.is_empty() {
        let denom = vol.min(g.num_arcs() as u64 - vol) as f64;
        let phi = cut as f64 / denom;
        if (phi - out.conductance).abs() > 1e-12 {
            return Err(format!(
                "conductance {} reported, {phi} counted",
                out.conductance
            ));
        }
    } else if !out.conductance.is_nan() {
        return Err("an empty cluster must have conductance NaN".into());
    }
    Ok(())
}
