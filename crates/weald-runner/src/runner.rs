//! Run an algorithm by name on an [`AnyGraph`]: trials, timing, verification, per-vertex output.
//!
//! This is the "thin runner" of GBBS/GAPBS: the algorithms in `weald-algo` know nothing about
//! timing or output; the runner repeats them, checks the answer with the problem's verifier,
//! and converts per-vertex values into the user's vertex ids.

use crate::{with_graph, AnyGraph};
use std::time::Instant;
use weald_algo as algo;
use weald_graph::{DistValue, Graph, InGraph, Result, Vertex, WealdError};

/// The algorithms the runner knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Bfs,
    Bc,
    PageRank,
    Cc,
    Sssp,
    BellmanFord,
    Tc,
    KCore,
    Mis,
    TwoHop,
    LocalCluster,
}

impl Algorithm {
    /// Every algorithm, in the order `weald run --list` shows them.
    pub const ALL: [Algorithm; 11] = [
        Algorithm::Bfs,
        Algorithm::Bc,
        Algorithm::PageRank,
        Algorithm::Cc,
        Algorithm::Sssp,
        Algorithm::BellmanFord,
        Algorithm::Tc,
        Algorithm::KCore,
        Algorithm::Mis,
        Algorithm::TwoHop,
        Algorithm::LocalCluster,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::Bc => "bc",
            Algorithm::PageRank => "pagerank",
            Algorithm::Cc => "cc",
            Algorithm::Sssp => "sssp",
            Algorithm::BellmanFord => "bellman-ford",
            Algorithm::Tc => "tc",
            Algorithm::KCore => "kcore",
            Algorithm::Mis => "mis",
            Algorithm::TwoHop => "twohop",
            Algorithm::LocalCluster => "nibble",
        }
    }

    /// What the run's single-number result counts (`Report::result`), for the reports that
    /// print it; `None` for an algorithm without one.
    pub fn result_name(self) -> Option<&'static str> {
        Some(match self {
            Algorithm::Bfs | Algorithm::Sssp | Algorithm::BellmanFord => "vertices reached",
            Algorithm::Bc => return None,
            Algorithm::PageRank => "iterations",
            Algorithm::Cc => "components",
            Algorithm::Tc => "triangles",
            Algorithm::KCore => "max core",
            Algorithm::Mis => "set size",
            Algorithm::TwoHop => "vertices within two hops",
            Algorithm::LocalCluster => "conductance",
        })
    }

    /// One line for `weald run --list`.
    pub fn description(self) -> &'static str {
        match self {
            Algorithm::Bfs => "breadth-first search, direction-optimising; value = hop distance (-1 unreachable), result = vertices reached",
            Algorithm::Bc => "single-source betweenness (Brandes dependencies); value = dependency score",
            Algorithm::PageRank => "PageRank by power iteration (damping 0.85); value = rank (ranks sum to 1), result = iterations",
            Algorithm::Cc => "connected components (weak, for directed graphs), Afforest; value = smallest id in the component, result = components",
            Algorithm::Sssp => "single-source shortest paths, delta-stepping (non-negative weights); value = distance (inf unreachable), result = vertices reached",
            Algorithm::BellmanFord => "single-source shortest paths, Bellman-Ford (negative weights, detects negative cycles); value = distance, result = vertices reached",
            Algorithm::Tc => "triangle counting, degree-ordered intersection; value = triangles at the vertex, result = total",
            Algorithm::KCore => "k-core decomposition by bucketed peeling; value = coreness, result = max core",
            Algorithm::Mis => "maximal independent set, deterministic for a seed; value = 1 in the set, result = size",
            Algorithm::TwoHop => "two-hop neighbourhood of the source (out-edges); value = 1 within two hops, result = count",
            Algorithm::LocalCluster => "local cluster around the source, Nibble-Serial (--epsilon, --steps; undirected); value = 1 in the cluster, result = conductance",
        }
    }

    /// The options of `weald run` the algorithm reads, by their long names (without `--`),
    /// besides those of every run (`--trials`, `--verify`, `--out`, `--json`). `seed` picks
    /// random sources when no `source` is given, and MIS's priorities.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Algorithm::Bfs | Algorithm::Bc | Algorithm::BellmanFord | Algorithm::TwoHop => {
                &["source", "seed"]
            }
            Algorithm::Sssp => &["source", "seed", "delta"],
            Algorithm::LocalCluster => &["source", "seed", "epsilon", "steps"],
            Algorithm::PageRank => &["tol", "max-iter", "damping"],
            Algorithm::Mis => &["seed"],
            Algorithm::Cc | Algorithm::Tc | Algorithm::KCore => &[],
        }
    }

    /// Refuse options given for a run of this algorithm that it would not read (`given`:
    /// long names without `--`), so that a mistyped command line is not answered as if it
    /// had been obeyed. `--seed` with `--source` is refused too, except for MIS, whose
    /// priorities it seeds: the source leaves nothing random to seed.
    pub fn check_options(self, given: &[&str]) -> Result<()> {
        for &opt in given {
            if !self.options().contains(&opt) {
                let readers: Vec<&str> = Algorithm::ALL
                    .iter()
                    .filter(|a| a.options().contains(&opt))
                    .map(|a| a.name())
                    .collect();
                return Err(WealdError::Invalid(format!(
                    "--{opt} does not apply to {} (it is read by {})",
                    self.name(),
                    readers.join(", ")
                )));
            }
        }
        if self != Algorithm::Mis && given.contains(&"seed") && given.contains(&"source") {
            return Err(WealdError::Invalid(format!(
                "--seed picks random sources for {}, and --source gives one: drop one of them",
                self.name()
            )));
        }
        Ok(())
    }

    /// Whether the algorithm starts from a source vertex.
    pub fn needs_source(self) -> bool {
        matches!(
            self,
            Algorithm::Bfs
                | Algorithm::Bc
                | Algorithm::Sssp
                | Algorithm::BellmanFord
                | Algorithm::TwoHop
                | Algorithm::LocalCluster
        )
    }
}

impl std::str::FromStr for Algorithm {
    type Err = WealdError;
    fn from_str(s: &str) -> Result<Self> {
        let s = s.to_ascii_lowercase();
        Algorithm::ALL
            .into_iter()
            .find(|a| {
                a.name() == s
                    || (s == "pr" && *a == Algorithm::PageRank)
                    || (s == "bf" && *a == Algorithm::BellmanFord)
                    || (s == "2hop" && *a == Algorithm::TwoHop)
                    || (s == "local-cluster" && *a == Algorithm::LocalCluster)
            })
            .ok_or_else(|| {
                let names: Vec<_> = Algorithm::ALL.iter().map(|a| a.name()).collect();
                WealdError::Invalid(format!(
                    "unknown algorithm `{s}` (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// Parameters of a run (each algorithm reads the ones it uses).
#[derive(Clone, Debug)]
pub struct RunParams {
    /// Source vertex in the user's ids; `None` picks random non-isolated sources (fixed seed).
    pub source: Option<u64>,
    pub trials: usize,
    pub verify: bool,
    /// Seed for MIS priorities and for picking sources.
    pub seed: u64,
    pub tol: f64,
    pub max_iter: usize,
    pub damping: f64,
    /// Delta of delta-stepping; `None` picks one from the weights.
    pub delta: Option<f64>,
    /// Nibble's truncation threshold.
    pub epsilon: f64,
    /// Nibble's walk steps.
    pub walk_steps: usize,
}

impl Default for RunParams {
    fn default() -> Self {
        let pr = algo::pagerank::Params::default();
        let nb = algo::localcluster::Params::default();
        RunParams {
            source: None,
            trials: 1,
            verify: false,
            seed: 1,
            tol: pr.tol,
            max_iter: pr.max_iter,
            damping: pr.damping,
            delta: None,
            epsilon: nb.epsilon,
            walk_steps: nb.iterations,
        }
    }
}

/// Per-vertex results, indexed by internal vertex id.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of vertex `v` as text (`inf` for an unreachable distance).
    pub fn format(&self, v: usize) -> String {
        match self {
            Values::Int(x) => x[v].to_string(),
            Values::Float(x) => x[v].to_string(),
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Report {
    pub algorithm: Algorithm,
    /// Seconds of each trial.
    pub trials: Vec<f64>,
    /// The source of each trial (internal ids), for source-based algorithms.
    pub sources: Vec<Vertex>,
    /// Per-vertex values of the last trial; labels and ids already in the user's ids.
    pub values: Values,
    /// The single-number result, for algorithms that have one.
    pub result: Option<f64>,
    /// `None` when not verified; `Some(Err(reason))` when verification failed.
    pub verified: Option<std::result::Result<(), String>>,
    /// Why the values may not be the answer asked for, though the run completed: PageRank
    /// stopped by `max_iter` before its L1 change fell below `tol`.
    pub not_converged: Option<String>,
}

impl Report {
    /// Median trial time in seconds.
    pub fn median(&self) -> f64 {
        median(&self.trials)
    }
}

/// The `p`-quantile (0..=1) of an ascending list by nearest rank; NaN if it is empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p.clamp(0.0, 1.0)).round() as usize]
}

/// Median of a list of numbers (the mean of the middle two for even lengths).
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let k = s.len();
    if k % 2 == 1 {
        s[k / 2]
    } else {
        (s[k / 2 - 1] + s[k / 2]) / 2.0
    }
}

/// Run `alg` on `graph` `params.trials` times (at least once), verify if asked.
pub fn run(graph: &AnyGraph, alg: Algorithm, params: &RunParams) -> Result<Report> {
    let sources = pick_sources(graph, alg, params)?;
    let mut report = with_graph!(graph, g => run_typed(g, alg, params, &sources))?;
    // Report labels in the user's ids (relabelling preserves order, so the smallest internal
    // id of a component is also its smallest user id).
    if alg == Algorithm::Cc {
        if let (Some(ids), Values::Int(labels)) = (graph.original_ids(), &mut report.values) {
            for l in labels.iter_mut() {
                *l = ids[*l as usize] as i64;
            }
        }
    }
    Ok(report)
}

/// Sources for each trial: the given one, or random vertices with out-degree > 0.
fn pick_sources(graph: &AnyGraph, alg: Algorithm, params: &RunParams) -> Result<Vec<Vertex>> {
    let trials = params.trials.max(1);
    if !alg.needs_source() {
        return Ok(Vec::new());
    }
    if let Some(s) = params.source {
        let v = graph.internal_id(s)?;
        return Ok(vec![v; trials]);
    }
    let n = graph.num_vertices();
    if n == 0 {
        return Err(WealdError::Invalid(
            "the graph has no vertices to start from".into(),
        ));
    }
    let mut state = params.seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(trials);
    with_graph!(graph, g => {
        for _ in 0..trials {
            // Up to 100 draws for a non-isolated vertex, as GAPBS's SourcePicker does.
            let mut v = 0;
            for _ in 0..100 {
                v = (splitmix(&mut state) % n as u64) as Vertex;
                if g.out_degree(v) > 0 {
                    break;
                }
            }
            out.push(v);
        }
    });
    Ok(out)
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 1 for the listed vertices, 0 for the others.
fn membership(n: usize, vs: &[Vertex]) -> Values {
    let mut x = vec![0i64; n];
    for &v in vs {
        x[v as usize] = 1;
    }
    Values::Int(x)
}

fn dist_values<D: DistValue>(d: &[D]) -> Values {
    Values::Float(d.iter().map(|x| x.to_f64()).collect())
}

/// Run `f(trial)` `trials` times, recording each trial's seconds; return the last output.
fn repeat<T>(
    trials: usize,
    times: &mut Vec<f64>,
    mut f: impl FnMut(usize) -> Result<T>,
) -> Result<T> {
    let mut last = None;
    for i in 0..trials {
        let t = Instant::now();
        last = Some(f(i)?);
        times.push(t.elapsed().as_secs_f64());
    }
    last.ok_or_else(|| WealdError::Invalid("at least one trial is needed".into()))
}

/// Verify shortest-path distances from `source` through the tree of their tight arcs
/// (`strict_first`: non-negative weights, see [`algo::sssp::shortest_path_parents`]).
fn verify_distances<G: InGraph>(
    g: &G,
    source: Vertex,
    dist: Vec<algo::sssp::DistOf<G>>,
    strict_first: bool,
) -> std::result::Result<(), String> {
    let parent = algo::sssp::shortest_path_parents(g, source, &dist, strict_first);
    algo::sssp::verify(g, source, &algo::sssp::Output { dist, parent })
}

fn run_typed<G: InGraph>(
    g: &G,
    alg: Algorithm,
    p: &RunParams,
    sources: &[Vertex],
) -> Result<Report> {
    let trials = p.trials.max(1);
    let mut times = Vec::with_capacity(trials);
    let mut not_converged = None;
    let (values, result, verified) = match alg {
        // The trials compute what is reported, the hop distances; the tree the verifier checks
        // them with is built afterwards, untimed (as for sssp below).
        Algorithm::Bfs => {
            let prm = algo::bfs::Params::default();
            let depth = repeat(trials, &mut times, |i| {
                algo::bfs::depths(g, sources[i], &prm)
            })?;
            let ver = p.verify.then(|| {
                let s = sources[trials - 1];
                let out = algo::bfs::Output {
                    parent: algo::bfs::tree_parents(g, s, &depth),
                    depth: depth.clone(),
                };
                algo::bfs::verify(g, s, &out)
            });
            let reached = depth.iter().filter(|&&d| d != algo::bfs::UNREACHED).count();
            let depth = algo::bfs::signed_depths(&depth);
            (Values::Int(depth), Some(reached as f64), ver)
        }
        Algorithm::Bc => {
            let prm = algo::bc::Params::default();
            let out = repeat(trials, &mut times, |i| algo::bc::run(g, sources[i], &prm))?;
            let ver = p
                .verify
                .then(|| algo::bc::verify(g, sources[trials - 1], &out));
            (Values::Float(out.dependency), None, ver)
        }
        Algorithm::PageRank => {
            let prm = algo::pagerank::Params {
                damping: p.damping,
                tol: p.tol,
                max_iter: p.max_iter,
            };
            let out = repeat(trials, &mut times, |_| algo::pagerank::run(g, &prm))?;
            let ver = p.verify.then(|| algo::pagerank::verify(g, &out, &prm));
            not_converged = out
                .not_converged(prm.tol)
                .map(|why| format!("{why} (raise the iteration limit or the tolerance)"));
            let iters = out.iterations as f64;
            (Values::Float(out.rank), Some(iters), ver)
        }
        Algorithm::Cc => {
            let prm = algo::cc::Params::default();
            let out = repeat(trials, &mut times, |_| algo::cc::run(g, &prm))?;
            let ver = p.verify.then(|| algo::cc::verify(g, &out));
            let k = out.num_components as f64;
            (
                Values::Int(out.label.iter().map(|&l| l as i64).collect()),
                Some(k),
                ver,
            )
        }
        Algorithm::Sssp => {
            let prm = algo::sssp::delta_stepping::Params { delta: p.delta };
            let dist = repeat(trials, &mut times, |i| {
                algo::sssp::delta_stepping::distances(g, sources[i], &prm)
            })?;
            let ver = p
                .verify
                .then(|| verify_distances(g, sources[trials - 1], dist.clone(), true));
            let reached = dist.iter().filter(|d| d.to_f64().is_finite()).count() as f64;
            (dist_values(&dist), Some(reached), ver)
        }
        Algorithm::BellmanFord => {
            let prm = algo::sssp::bellman_ford::Params::default();
            let dist = repeat(trials, &mut times, |i| {
                algo::sssp::bellman_ford::distances(g, sources[i], &prm)
            })?;
            let ver = p
                .verify
                .then(|| verify_distances(g, sources[trials - 1], dist.clone(), false));
            let reached = dist.iter().filter(|d| d.to_f64().is_finite()).count() as f64;
            (dist_values(&dist), Some(reached), ver)
        }
        Algorithm::Tc => {
            let prm = algo::tc::Params::default();
            let out = repeat(trials, &mut times, |_| algo::tc::run(g, &prm))?;
            let ver = p.verify.then(|| algo::tc::verify(g, &out));
            let total = out.total as f64;
            (
                Values::Int(out.per_vertex.iter().map(|&x| x as i64).collect()),
                Some(total),
                ver,
            )
        }
        Algorithm::KCore => {
            let prm = algo::kcore::Params::default();
            let out = repeat(trials, &mut times, |_| algo::kcore::run(g, &prm))?;
            let ver = p.verify.then(|| algo::kcore::verify(g, &out));
            let k = out.max_core as f64;
            (
                Values::Int(out.coreness.iter().map(|&x| x as i64).collect()),
                Some(k),
                ver,
            )
        }
        Algorithm::Mis => {
            let prm = algo::mis::Params { seed: p.seed };
            let out = repeat(trials, &mut times, |_| algo::mis::run(g, &prm))?;
            let ver = p.verify.then(|| algo::mis::verify(g, &out));
            let size = out.size as f64;
            (
                Values::Int(out.in_set.iter().map(|&b| b as i64).collect()),
                Some(size),
                ver,
            )
        }
        Algorithm::TwoHop => {
            let prm = algo::twohop::Params::default();
            let out = repeat(trials, &mut times, |i| {
                algo::twohop::run(g, sources[i], &prm)
            })?;
            let ver = p
                .verify
                .then(|| algo::twohop::verify(g, sources[trials - 1], &out));
            let count = out.vertices.len() as f64;
            (
                membership(g.num_vertices(), &out.vertices),
                Some(count),
                ver,
            )
        }
        Algorithm::LocalCluster => {
            let prm = algo::localcluster::Params {
                epsilon: p.epsilon,
                iterations: p.walk_steps,
            };
            let out = repeat(trials, &mut times, |i| {
                algo::localcluster::run(g, sources[i], &prm)
            })?;
            let ver = p
                .verify
                .then(|| algo::localcluster::verify(g, sources[trials - 1], &prm, &out));
            let phi = out.conductance;
            (membership(g.num_vertices(), &out.cluster), Some(phi), ver)
        }
    };
    Ok(Report {
        algorithm: alg,
        trials: times,
        sources: sources.to_vec(),
        values,
        result,
        verified,
        not_converged,
    })
}
