//! # weald-io — graph readers, writers, the binary snapshot format and generators
//!
//! * [`load`] parses a file and builds a [`weald_storage::Csr`] (as an [`AnyCsr`]);
//!   [`read_edges`] only parses, returning the raw edge records ([`RawEdges`]).
//! * [`save`] writes a graph as an edge list, a Ligra adjacency graph, or Weald's binary
//!   format ([`binary`]).
//! * [`gen`] generates graphs: RMAT/Kronecker, uniform random, and small shapes.
//!
//! ## Formats
//!
//! | [`Format`] | extensions (also with `.gz`) | module |
//! |---|---|---|
//! | `edgelist` | `.txt .edgelist .el .tsv .edges .konect .wel .snap` | [`text::edgelist`] |
//! | `csv` | `.csv` | [`text::edgelist`] |
//! | `temporal` | only by name | [`text::edgelist`] |
//! | `mtx` | `.mtx .mm` | [`text::mtx`] |
//! | `dimacs` | `.gr` | [`text::dimacs`] |
//! | `metis` | `.graph .metis` | [`text::metis`] |
//! | `ligra` | `.adj` | [`text::ligra`] |
//! | `binary` | `.wgb` | [`binary`] |
//!
//! Text files are read in large blocks and parsed in parallel ([`text`]); gzip input is
//! recognised by its magic bytes and decompressed as a stream. Each format module documents
//! its quirks. Errors are always a [`WealdError`]: `Parse` with the file, the 1-based line and
//! the field at fault; `Io` (keeping the [`std::io::ErrorKind`]) when a file cannot be read;
//! `Format` for a damaged binary file; `Unsupported` for a format that cannot be written.
//! Nothing here prints, exits or panics on bad input.

pub mod binary;
pub mod gen;
pub mod text;
pub mod write;

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;
use weald_graph::batch::Combine;
use weald_graph::{EdgeList, Result, WealdError};
use weald_storage::{AnyCsr, BuildOptions, BuildStats, Csr};

/// A progress callback: `(bytes done, bytes total)`.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// A graph file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// SNAP / plain edge lists `u v [w]` (also TSV, KONECT).
    EdgeList,
    /// Comma-separated `u,v[,w]` with an optional header line.
    Csv,
    /// Timestamped edge lists `u v t` or `u v w t`.
    Temporal,
    /// Matrix Market coordinate.
    MatrixMarket,
    /// DIMACS-9 shortest-path `.gr`.
    Dimacs,
    /// METIS / DIMACS-10 adjacency `.graph`.
    Metis,
    /// Ligra `AdjacencyGraph` / `WeightedAdjacencyGraph`.
    Ligra,
    /// Weald's binary snapshot `.wgb`.
    Binary,
}

impl Format {
    /// All formats.
    pub const ALL: [Format; 8] = [
        Format::EdgeList,
        Format::Csv,
        Format::Temporal,
        Format::MatrixMarket,
        Format::Dimacs,
        Format::Metis,
        Format::Ligra,
        Format::Binary,
    ];

    /// The format implied by the file name (a trailing `.gz` is stripped first). `temporal` is
    /// never inferred.
    pub fn from_path(p: &Path) -> Option<Format> {
        let name = p.file_name()?.to_str()?.to_ascii_lowercase();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        let ext = name.rsplit_once('.')?.1;
        Some(match ext {
            "txt" | "edgelist" | "el" | "tsv" | "edges" | "konect" | "wel" | "snap" => {
                Format::EdgeList
            }
            "csv" => Format::Csv,
            "mtx" | "mm" => Format::MatrixMarket,
            "gr" => Format::Dimacs,
            "graph" | "metis" => Format::Metis,
            "adj" => Format::Ligra,
            "wgb" => Format::Binary,
            _ => return None,
        })
    }

    /// The canonical name (as accepted by [`FromStr`]).
    pub fn name(&self) -> &'static str {
        match self {
            Format::EdgeList => "edgelist",
            Format::Csv => "csv",
            Format::Temporal => "temporal",
            Format::MatrixMarket => "mtx",
            Format::Dimacs => "dimacs",
            Format::Metis => "metis",
            Format::Ligra => "ligra",
            Format::Binary => "binary",
        }
    }

    /// `true` for formats whose vertex ids are arbitrary (relabelled by default).
    pub fn is_edge_list_like(&self) -> bool {
        matches!(self, Format::EdgeList | Format::Csv | Format::Temporal)
    }

    /// `true` if [`save`] can write this format.
    pub fn is_writable(&self) -> bool {
        matches!(self, Format::EdgeList | Format::Ligra | Format::Binary)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "edgelist" | "snap" | "el" | "txt" | "tsv" => Format::EdgeList,
            "csv" => Format::Csv,
            "temporal" => Format::Temporal,
            "mtx" | "mm" | "matrixmarket" => Format::MatrixMarket,
            "dimacs" | "gr" => Format::Dimacs,
            "metis" | "graph" => Format::Metis,
            "ligra" | "adj" => Format::Ligra,
            "binary" | "weald" | "wgb" => Format::Binary,
            _ => {
                return Err(format!(
                    "unknown format `{s}` (expected edgelist, csv, temporal, mtx, dimacs, metis, ligra or binary)"
                ))
            }
        })
    }
}

/// How to read a file.
#[derive(Clone)]
pub struct LoadOptions {
    /// `None`: by extension (a trailing `.gz` is stripped first).
    pub format: Option<Format>,
    /// `None`: what the format declares (edge lists: undirected unless a KONECT `% asym`
    /// header; Matrix Market: `general` is directed; DIMACS and Ligra: directed; METIS:
    /// undirected).
    pub directed: Option<bool>,
    /// `None`: what the format declares (edge lists: unweighted unless a KONECT weight tag).
    pub weighted: Option<bool>,
    /// Remove self loops when building.
    pub drop_self_loops: bool,
    /// Merge duplicate arcs by this rule (`None`: keep a multigraph).
    pub dedup: Option<Combine>,
    /// Renumber ids to `0..n`. `None`: `true` for edge-list-like formats, `false` for formats
    /// that declare `n`.
    pub relabel: Option<bool>,
    /// Directed graphs also store in-arcs.
    pub in_edges: bool,
    /// Called once per block read with `(bytes done, bytes total)`.
    pub progress: Option<Progress>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            directed: None,
            weighted: None,
            drop_self_loops: false,
            dedup: Some(Combine::Min),
            relabel: None,
            in_edges: true,
            progress: None,
        }
    }
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("format", &self.format)
            .field("directed", &self.directed)
            .field("weighted", &self.weighted)
            .field("drop_self_loops", &self.drop_self_loops)
            .field("dedup", &self.dedup)
            .field("relabel", &self.relabel)
            .field("in_edges", &self.in_edges)
            .field("progress", &self.progress.as_ref().map(|_| "<callback>"))
            .finish()
    }
}

/// A loaded graph and what it took.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub graph: AnyCsr,
    pub stats: BuildStats,
    pub format: Format,
    /// Seconds spent reading and parsing.
    pub parse_seconds: f64,
    /// Seconds spent building the CSR.
    pub build_seconds: f64,
}

/// Parsed edge records, before building.
#[derive(Clone, Debug, PartialEq)]
pub struct RawEdges {
    pub edges: Edges,
    /// Directedness resolved from the options and the format.
    pub directed: bool,
    /// One time per record, for the temporal format.
    pub times: Option<Vec<f64>>,
}

/// An edge list of the weight type found in the file.
#[derive(Clone, Debug, PartialEq)]
pub enum Edges {
    Unweighted(EdgeList<()>),
    Int(EdgeList<i32>),
    Float(EdgeList<f64>),
}

impl Edges {
    /// Number of records.
    pub fn len(&self) -> usize {
        match self {
            Edges::Unweighted(e) => e.len(),
            Edges::Int(e) => e.len(),
            Edges::Float(e) => e.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `num_vertices` of the list (declared `n`, or the largest id plus one).
    pub fn num_vertices(&self) -> usize {
        match self {
            Edges::Unweighted(e) => e.num_vertices,
            Edges::Int(e) => e.num_vertices,
            Edges::Float(e) => e.num_vertices,
        }
    }

    /// The weight type's name: `none`, `i32` or `f64`.
    pub fn weight_name(&self) -> &'static str {
        match self {
            Edges::Unweighted(_) => "none",
            Edges::Int(_) => "i32",
            Edges::Float(_) => "f64",
        }
    }

    /// The source and target columns.
    pub fn endpoints(&self) -> (&[u32], &[u32]) {
        match self {
            Edges::Unweighted(e) => (&e.src, &e.dst),
            Edges::Int(e) => (&e.src, &e.dst),
            Edges::Float(e) => (&e.src, &e.dst),
        }
    }
}

/// The format to use for `path` under `opts`.
fn resolve_format(path: &Path, opts: &LoadOptions) -> Result<Format> {
    match opts.format.or_else(|| Format::from_path(path)) {
        Some(f) => Ok(f),
        None => Err(WealdError::Unsupported(format!(
            "{}: cannot tell the format from the file name; name it explicitly (edgelist, csv, temporal, mtx, dimacs, metis, ligra or binary)",
            path.display()
        ))),
    }
}

/// Parse a file into edge records (no CSR is built). A binary file yields the stored arcs
/// (each undirected edge once, `u <= v`, for a symmetric graph).
pub fn read_edges(path: &Path, opts: &LoadOptions) -> Result<RawEdges> {
    let format = resolve_format(path, opts)?;
    read_edges_as(path, opts, format)
}

fn read_edges_as(path: &Path, opts: &LoadOptions, format: Format) -> Result<RawEdges> {
    let raw = read_edges_unchecked(path, opts, format)?;
    if matches!(
        format,
        Format::MatrixMarket | Format::Dimacs | Format::Metis | Format::Ligra
    ) {
        check_declared_vertices(path, &raw)?;
    }
    Ok(raw)
}

/// A header may declare isolated vertices, but not more than a file of its size can
/// plausibly describe: building a CSR costs 8 bytes per declared vertex, so a tiny file that
/// declares billions of vertices must not make Weald allocate gigabytes.
fn check_declared_vertices(path: &Path, raw: &RawEdges) -> Result<()> {
    use rayon::prelude::*;
    let n = raw.edges.num_vertices() as u64;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (src, dst) = raw.edges.endpoints();
    let used = src
        .par_iter()
        .chain(dst.par_iter())
        .max()
        .map_or(0, |&v| v as u64 + 1);
    let limit = (64 * bytes + 4096).max(used);
    if n > limit {
        return Err(WealdError::format(
            path,
            format!(
                "the header declares {n} vertices, more than a file of {bytes} bytes can describe \
                 (at most {limit}: 64 per byte of input)"
            ),
        ));
    }
    Ok(())
}

fn read_edges_unchecked(path: &Path, opts: &LoadOptions, format: Format) -> Result<RawEdges> {
    match format {
        Format::EdgeList | Format::Csv | Format::Temporal => {
            text::edgelist::read(path, opts, format)
        }
        Format::MatrixMarket => text::mtx::read(path, opts),
        Format::Dimacs => text::dimacs::read(path, opts),
        Format::Metis => text::metis::read(path, opts),
        Format::Ligra => text::ligra::read(path, opts),
        Format::Binary => {
            let g = binary::read(path, opts.progress.clone())?;
            Ok(binary::to_raw_edges(&g))
        }
    }
}

/// Parse a file and build its CSR. A binary file is loaded as stored (`build_seconds` 0)
/// unless `directed`, `weighted` or `drop_self_loops` ask for a graph it is not: it is then
/// rebuilt from its arcs, its id map kept (`directed: Some(false)` symmetrises, merging the
/// two directions of an edge by `dedup`; `Some(true)` makes each undirected edge two arcs;
/// `weighted: Some(false)` drops the weights; `Some(true)` on an unweighted file is an
/// error). `dedup` and `relabel` alone rebuild nothing.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Loaded> {
    let format = resolve_format(path, opts)?;
    let t0 = Instant::now();
    if format == Format::Binary {
        let graph = binary::read(path, opts.progress.clone())?;
        let parse_seconds = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let (graph, stats, build_seconds) = match reshape_binary(path, &graph, opts)? {
            Some((g, s)) => (g, s, t1.elapsed().as_secs_f64()),
            None => {
                let stats = BuildStats {
                    input_arcs: graph.num_arcs() as u64,
                    ..Default::default()
                };
                (graph, stats, 0.0)
            }
        };
        return Ok(Loaded {
            graph,
            stats,
            format,
            parse_seconds,
            build_seconds,
        });
    }
    let raw = read_edges_as(path, opts, format)?;
    let parse_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let bo = BuildOptions {
        directed: raw.directed,
        in_edges: opts.in_edges,
        drop_self_loops: opts.drop_self_loops,
        dedup: opts.dedup,
        relabel: opts.relabel.unwrap_or(format.is_edge_list_like()),
    };
    let (graph, stats) = build(raw.edges, &bo)?;
    Ok(Loaded {
        graph,
        stats,
        format,
        parse_seconds,
        build_seconds: t1.elapsed().as_secs_f64(),
    })
}

/// A binary file holds a graph built already; the options that shape a graph as a file is
/// read apply to it too, by rebuilding it from its arcs when they ask for what it is not:
/// `directed: Some(false)` on a directed graph symmetrises it (merging the two directions of
/// an edge by `dedup`, as for an edge list that lists both), `Some(true)` on an undirected one
/// makes each edge two arcs, `weighted: Some(false)` drops the weights, `drop_self_loops`
/// removes the loops. The id map is kept. `weighted: Some(true)` on an unweighted file is an
/// error (there is nothing to read). `dedup` and `relabel` alone rebuild nothing: the file was
/// built with its own. `None`: nothing to change.
fn reshape_binary(
    path: &Path,
    g: &AnyCsr,
    opts: &LoadOptions,
) -> Result<Option<(AnyCsr, BuildStats)>> {
    use rayon::prelude::*;
    use weald_graph::{Graph, Weight};
    fn has_loops<W: Weight>(g: &Csr<W>) -> bool {
        (0..g.num_vertices() as u32)
            .into_par_iter()
            .with_min_len(4096)
            .any(|v| {
                g.out_neighbors_slice(v)
                    .is_some_and(|s| s.binary_search(&v).is_ok())
            })
    }
    let directed = g.is_directed();
    let weighted = g.weight_name() != "none";
    let want_directed = opts.directed.unwrap_or(directed);
    let want_weights = opts.weighted.unwrap_or(weighted);
    if want_weights && !weighted {
        return Err(WealdError::format(
            path,
            "the file holds an unweighted graph, so there are no weights to read",
        ));
    }
    let loops = opts.drop_self_loops && weald_storage::with_csr!(g, c => has_loops(c));
    if want_directed == directed && want_weights == weighted && !loops {
        return Ok(None);
    }
    let all = directed || want_directed;
    let edges = match g {
        AnyCsr::Unweighted(c) => Edges::Unweighted(arc_records(c, all, |_| ())),
        AnyCsr::Int(c) if want_weights => Edges::Int(arc_records(c, all, |x| x)),
        AnyCsr::Float(c) if want_weights => Edges::Float(arc_records(c, all, |x| x)),
        AnyCsr::Int(c) => Edges::Unweighted(arc_records(c, all, |_| ())),
        AnyCsr::Float(c) => Edges::Unweighted(arc_records(c, all, |_| ())),
    };
    let bo = BuildOptions {
        directed: want_directed,
        in_edges: opts.in_edges,
        drop_self_loops: opts.drop_self_loops,
        dedup: opts.dedup,
        relabel: false,
    };
    let (mut graph, stats) = build(edges, &bo)?;
    if let Some(ids) = g.original_ids() {
        graph
            .set_original_ids(ids.to_vec())
            .map_err(|m| WealdError::format(path, m))?;
    }
    Ok(Some((graph, stats)))
}

/// The arcs of `g` as records, in order of source then target, with weights mapped by `w`:
/// every arc when `all` (a directed result, or a directed source), else each undirected edge
/// once (the arc to a neighbour at or after its source; the adjacency is sorted). In
/// parallel: each vertex's count of kept arcs, their prefix sums, then each vertex writes its
/// records at its offset, so the order is the sequential one (a rebuild that merges
/// duplicates by `dedup` sees them in the same order).
fn arc_records<W: weald_graph::Weight, X: weald_graph::Weight>(
    g: &Csr<W>,
    all: bool,
    w: impl Fn(W) -> X + Sync,
) -> EdgeList<X> {
    use rayon::prelude::*;
    use weald_graph::parallel::{scan_exclusive, SendPtr};
    let a = g.out_adjacency();
    let n = a.offsets.len() - 1;
    // The kept arcs of `u`: the indices into `targets` and `weights`.
    let kept = |u: usize| {
        let (lo, hi) = (a.offsets[u] as usize, a.offsets[u + 1] as usize);
        let skip = if all {
            0
        } else {
            a.targets[lo..hi].partition_point(|&v| (v as usize) < u)
        };
        lo + skip..hi
    };
    let mut at: Vec<usize> = (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map(|u| kept(u).len())
        .collect();
    let total = scan_exclusive(&mut at);
    let mut e: EdgeList<X> = EdgeList {
        num_vertices: n,
        src: Vec::with_capacity(total),
        dst: Vec::with_capacity(total),
        weights: Vec::with_capacity(total),
    };
    let (ps, pd, pw) = (
        SendPtr(e.src.as_mut_ptr()),
        SendPtr(e.dst.as_mut_ptr()),
        SendPtr(e.weights.as_mut_ptr()),
    );
    (0..n).into_par_iter().with_min_len(1024).for_each(|u| {
        let (ps, pd, pw) = (&ps, &pd, &pw);
        for (k, i) in kept(u).enumerate() {
            let x = w(if W::WEIGHTED {
                a.weights[i]
            } else {
                W::default()
            });
            // SAFETY: vertex u's kept arcs go to at[u] .. at[u] + their count, which the
            // exclusive prefix sums of the counts make disjoint across vertices and below
            // `total`, the capacity of all three.
            unsafe {
                let o = at[u] + k;
                ps.0.add(o).write(u as weald_graph::Vertex);
                pd.0.add(o).write(a.targets[i]);
                pw.0.add(o).write(x);
            }
        }
    });
    // SAFETY: every index below `total` was written above (the counts sum to it).
    unsafe {
        e.src.set_len(total);
        e.dst.set_len(total);
        e.weights.set_len(total);
    }
    e
}

/// Build a CSR of the right weight type from parsed edges.
pub fn build(edges: Edges, opts: &BuildOptions) -> Result<(AnyCsr, BuildStats)> {
    Ok(match edges {
        Edges::Unweighted(e) => {
            let (g, s) = Csr::build(e, opts)?;
            (AnyCsr::Unweighted(g), s)
        }
        Edges::Int(e) => {
            let (g, s) = Csr::build(e, opts)?;
            (AnyCsr::Int(g), s)
        }
        Edges::Float(e) => {
            let (g, s) = Csr::build(e, opts)?;
            (AnyCsr::Float(g), s)
        }
    })
}

/// Write `graph` to `path` in `format` (`None`: by extension). Edge lists, Ligra adjacency
/// and binary can be written; a `.gz` name compresses text output. Other formats give
/// `WealdError::Unsupported`.
pub fn save(graph: &AnyCsr, path: &Path, format: Option<Format>) -> Result<()> {
    let format = match format.or_else(|| Format::from_path(path)) {
        Some(f) => f,
        None => {
            return Err(WealdError::Unsupported(format!(
                "{}: cannot tell the output format from the file name (use .txt, .adj or .wgb, or name the format)",
                path.display()
            )))
        }
    };
    match format {
        Format::EdgeList => write::edgelist(graph, path),
        Format::Ligra => write::ligra(graph, path),
        Format::Binary => binary::write(graph, path),
        other => Err(WealdError::Unsupported(format!(
            "writing the {other} format (writable: edgelist, ligra, binary)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use weald_graph::Graph;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// The parallel records are the sequential ones: every arc, or each undirected edge
        /// once, in order of source then target, with the weights, whichever thread wrote
        /// them (a few thousand vertices, so the parallel loops split).
        #[test]
        fn arc_records_are_the_arcs_in_order(
            n in 1usize..6000,
            raw in proptest::collection::vec((any::<u32>(), any::<u32>(), -50i32..50), 0..20_000),
            directed in any::<bool>(),
            multi in any::<bool>(),
        ) {
            let mut e = EdgeList::new(n);
            for &(u, v, w) in &raw {
                e.push(u % n as u32, v % n as u32, w);
            }
            let opts = BuildOptions {
                directed,
                dedup: (!multi).then_some(Combine::Sum),
                ..BuildOptions::default()
            };
            let (g, _) = Csr::build(e, &opts).unwrap();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            for all in [true, false] {
                let want: Vec<_> = g.arcs().filter(|&(u, v, _)| all || u <= v).collect();
                let got = pool.install(|| arc_records(&g, all, |x| x));
                prop_assert_eq!(got.num_vertices, g.num_vertices());
                prop_assert_eq!(got.iter().collect::<Vec<_>>(), want.clone());
                let plain = pool.install(|| arc_records(&g, all, |_| ()));
                let want: Vec<_> = want.iter().map(|&(u, v, _)| (u, v, ())).collect();
                prop_assert_eq!(plain.iter().collect::<Vec<_>>(), want);
            }
        }
    }
}
