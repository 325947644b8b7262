//! PageRank.
//!
//! * [`power`] — power iteration, pull-based (push with exact fixed-point sums without in-arcs).
//!
//! [`verify`] checks that an output is a fixpoint within the tolerance.

pub mod power;

pub use power::{run, Output, Params};

use weald_graph::Graph;

/// Check PageRank ranks: `n` finite, non-negative values summing to 1 within 1e-9, and one more
/// power iteration from them (computed here sequentially, by pushing along out-arcs) changes them
/// by less than `params.tol` in L1 (plus `4 n ε` of rounding slack): the fixpoint residual.
/// After [`run`] converged this always holds, as an iteration contracts the L1 change by `d`.
pub fn verify<G: Graph>(g: &G, out: &Output, params: &Params) -> Result<(), String> {
    let n = g.num_vertices();
    let r = &out.rank;
    if r.len() != n {
        return Err(format!("{} ranks for {n} vertices", r.len()));
    }
    if let Some(v) = (0..n).find(|&v| !(r[v].is_finite() && r[v] >= 0.0)) {
        return Err(format!(
            "vertex {v}: rank {} is not finite and non-negative",
            r[v]
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let sum: f64 = r.iter().sum();
    if (sum - 1.0).abs() > 1e-9 {
        return Err(format!("ranks sum to {sum}, not 1"));
    }
    let d = params.damping;
    let nf = n as f64;
    let mut next = vec![0.0; n];
    let mut dangling = 0.0;
    for (u, &ru) in r.iter().enumerate() {
        let deg = g.out_degree(u as u32);
        if deg == 0 {
            dangling += ru;
            continue;
        }
        let c = ru / deg as f64;
        g.for_each_out(u as u32, |v, _| {
            next[v as usize] += c;
            true
        });
    }
    let base = (1.0 - d) / nf + d * dangling / nf;
    let residual: f64 = (0..n).map(|v| (base + d * next[v] - r[v]).abs()).sum();
    if residual >= params.tol + 4.0 * nf * f64::EPSILON {
        return Err(format!(
            "not a fixpoint: one more iteration changes the ranks by {residual:e} in L1 (tolerance {:e})",
            params.tol
        ));
    }
    Ok(())
}
