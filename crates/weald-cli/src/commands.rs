//! The subcommands of `weald`.

use crate::progress::{bytes_callback, Spinner};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use weald::graph::batch::Combine;
use weald::io::{gen, Format, LoadOptions};
use weald::runner::{self, Algorithm, RunParams};
use weald::storage::{AnyCsr, BuildOptions, Csr};
use weald::{AnyGraph, Backend, EdgeList, Result, WealdError};

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a synthetic graph and write it to a file.
    Generate(GenerateArgs),
    /// Read a graph in one format and write it in another.
    Convert(ConvertArgs),
    /// Print a graph's statistics.
    Info(InfoArgs),
    /// Run an algorithm on a graph.
    Run(RunArgs),
    /// Benchmark experiments (`weald bench updates FILE`).
    #[command(subcommand)]
    Bench(BenchCommand),
    /// The main job on an embedded default: generate an RMAT graph, build it, print its
    /// statistics, run every algorithm with verification.
    Demo(DemoArgs),
    /// Ingest a stream of updates into a data directory (write-ahead log, checkpoints) while
    /// optionally querying it; reports throughput, visibility and query latency.
    Stream(crate::stream::StreamArgs),
    /// Open a data directory, recover it, print what was recovered.
    Recover(crate::stream::RecoverArgs),
    /// List (and pin) the retained versions of a data directory.
    Versions(crate::stream::VersionsArgs),
    /// Write a version of a data directory to a file.
    Export(crate::stream::ExportArgs),
}

impl Command {
    /// Commands that apply batches or repeat work from their start (see
    /// [`crate::purge::keep_freed_memory`]); the others load or write a file once (`run`
    /// loads first and keeps freed memory afterwards).
    pub fn repeats_work(&self) -> bool {
        !matches!(
            self,
            Command::Generate(_) | Command::Convert(_) | Command::Info(_) | Command::Run(_)
        )
    }

    /// Commands whose parallel work all starts on the main thread: it can be a worker of their
    /// pool (see `main`). Not the ones that open a data directory or stream, whose store
    /// starts threads of its own that use the pool while the main thread waits on them.
    pub fn drives_all_parallel_work(&self) -> bool {
        match self {
            Command::Generate(_) | Command::Convert(_) => true,
            Command::Info(a) => a.data.data.is_none(),
            Command::Run(a) => a.data.data.is_none(),
            Command::Bench(BenchCommand::Updates(_)) => true,
            _ => false,
        }
    }
}

pub fn dispatch(cmd: Command, quiet: bool) -> Result<ExitCode> {
    match cmd {
        Command::Generate(a) => generate(a, quiet),
        Command::Convert(a) => convert(a, quiet),
        Command::Info(a) => info(a, quiet),
        Command::Run(a) => run(a, quiet),
        Command::Demo(a) => demo(a, quiet),
        Command::Bench(BenchCommand::Updates(a)) => bench_updates(a, quiet),
        Command::Bench(BenchCommand::Stream(a)) => crate::stream::bench_stream(a, quiet),
        Command::Stream(a) => crate::stream::stream(a, quiet),
        Command::Recover(a) => crate::stream::recover(a, quiet),
        Command::Versions(a) => crate::stream::versions(a, quiet),
        Command::Export(a) => crate::stream::export(a, quiet),
    }
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Aspen's batch-update experiment: batches of RMAT-sampled edges inserted (both
    /// directions) into the C-tree graph, then deleted; edges per second at each batch size.
    Updates(UpdatesArgs),
    /// Aspen's concurrent update-and-query experiment on the durable store (visibility latency,
    /// BFS under ingest), the log's cost on batch ingest, and recovery time of a long log.
    Stream(crate::stream::BenchStreamArgs),
}

#[derive(Args, Debug)]
pub struct UpdatesArgs {
    file: PathBuf,
    /// Batch sizes, comma-separated.
    #[arg(long, default_value = "10,1000,100000,1000000", value_delimiter = ',')]
    batch_sizes: Vec<usize>,
    /// Trials per batch size (the median is reported).
    #[arg(long, default_value_t = 3)]
    trials: usize,
    /// Seed of the batches' RMAT stream (its vertex permutation is independent of the graph's,
    /// as in Aspen's experiment).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Draw the batches instead from the stream that generated the graph with `weald generate
    /// rmat --seed S` (same scale), after the graph's own arcs: updates land on its hubs
    /// (implies --keep-ids).
    #[arg(long, value_name = "S")]
    graph_seed: Option<u64>,
    /// Run the protocol of Aspen's own tool (`run_batch_updates`) instead, to compare with its
    /// published figures: each batch's arcs inserted as given, one direction each (the graph
    /// taken as its stored arcs); one batch per size, repeated in every trial, the first (cold)
    /// trial timed too; arcs drawn from an unpermuted RMAT over the lower half of the ids, as
    /// its sampler draws them. Use --trials 20 as it does. It reports the mean of its trials,
    /// which the output gives beside the median.
    #[arg(long, conflicts_with = "graph_seed")]
    aspen_tool: bool,
    /// Update the loaded graph itself, in place, instead of making each batch a new version
    /// (a copy of the paths it touches, the replaced version freed, as in Aspen): each batch
    /// is inserted into the graph and then deleted from it, and nothing else holds a version
    /// (what a `DynamicGraph` with no snapshot taken sees).
    #[arg(long)]
    in_place: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    load: LoadArgs,
}

/// The batch-update experiment on the graph of `f`, and the median time to take a flat
/// snapshot of it. The flat view is dropped first, so that the graph is held by nothing else.
fn updates_and_flat<W: weald::Weight>(
    f: weald::storage::ctree::FlatSnapshot<W>,
    a: &UpdatesArgs,
    sampling: weald::experiments::Sampling,
) -> Result<(Vec<weald::experiments::BatchTiming>, f64)> {
    const FLAT_TRIALS: usize = 5;
    let flat_s = weald::experiments::flat_snapshot_seconds(f.graph(), FLAT_TRIALS);
    // The graph alone, held by nothing else: updated in place, or version 0 of a line of
    // versions that frees what each batch replaces (Aspen's setting).
    let mut g = f.graph().clone();
    drop(f);
    let rows = if a.in_place {
        weald::experiments::batch_updates_in_place(&mut g, &a.batch_sizes, a.trials, sampling)?
    } else {
        weald::experiments::batch_updates(g, &a.batch_sizes, a.trials, sampling)?
    };
    Ok((rows, flat_s))
}

fn bench_updates(mut a: UpdatesArgs, quiet: bool) -> Result<ExitCode> {
    check_trials(a.trials)?;
    // Batches that continue the graph's stream must meet the generator's ids, not compacted ones.
    a.load.keep_ids |= a.graph_seed.is_some();
    let lg = a.load.load_ctree(&a.file, quiet)?;
    let (g, build_s) = (lg.graph, lg.convert_s);
    let (n, m, arcs, memory) = (
        g.num_vertices(),
        g.num_edges(),
        g.num_arcs(),
        g.memory_bytes(),
    );
    let spin = Spinner::new(quiet, "batch updates");
    let sampling = match a.graph_seed {
        Some(s) => weald::experiments::Sampling::GraphStream(s),
        None if a.aspen_tool => weald::experiments::Sampling::AspenTool(a.seed),
        None => weald::experiments::Sampling::Independent(a.seed),
    };
    let (rows, flat_s) = match g {
        AnyGraph::CTree(weald::AnyFlat::Unweighted(f), _) => updates_and_flat(f, &a, sampling)?,
        AnyGraph::CTree(weald::AnyFlat::Int(f), _) => updates_and_flat(f, &a, sampling)?,
        AnyGraph::CTree(weald::AnyFlat::Float(f), _) => updates_and_flat(f, &a, sampling)?,
        AnyGraph::Csr(_) => unreachable!("converted to ctree above"),
    };
    drop(spin);
    let batches: Vec<_> = rows
        .iter()
        .map(|r| {
            json!({"size": r.size, "insert_eps": r.insert_eps, "delete_eps": r.delete_eps,
                        "insert_eps_mean": r.insert_eps_mean, "delete_eps_mean": r.delete_eps_mean,
                        "insert_s": r.insert_seconds, "delete_s": r.delete_seconds,
                        "held_bytes": r.held_bytes})
        })
        .collect();
    if a.json {
        println!(
            "{}",
            json!({"file": a.file, "backend": "ctree", "vertices": n, "edges": m,
                   "threads": rayon::current_num_threads(), "trials": a.trials, "ctree_build_s": build_s,
                   "sampling": sampling.name(),
                   "in_place": a.in_place, "memory_bytes": memory, "flat_snapshot_s": flat_s,
                   "batches": batches})
        );
    } else {
        println!(
            "{}: {} vertices, {} edges in C-trees ({:.2} bytes/arc, flat snapshot {:.1} ms), {} threads, median of {} trials, {}{}",
            a.file.display(),
            n,
            m,
            if arcs == 0 {
                0.0
            } else {
                memory as f64 / arcs as f64
            },
            flat_s * 1e3,
            rayon::current_num_threads(),
            a.trials,
            match sampling {
                weald::experiments::Sampling::GraphStream(s) =>
                    format!("batches continue the graph's RMAT stream (seed {s})"),
                weald::experiments::Sampling::AspenTool(_) =>
                    "Aspen's tool: one batch of arcs per size, repeated, one direction each".into(),
                weald::experiments::Sampling::Independent(_) =>
                    "batches independent of the graph's ids".into(),
            },
            if a.in_place {
                ", updated in place"
            } else {
                ""
            }
        );
        println!(
            "{:>10} {:>16} {:>16} {:>16} {:>16}",
            "batch", "insert edges/s", "delete edges/s", "(mean) insert", "(mean) delete"
        );
        for r in &rows {
            println!(
                "{:>10} {:>16.3e} {:>16.3e} {:>16.3e} {:>16.3e}",
                r.size, r.insert_eps, r.delete_eps, r.insert_eps_mean, r.delete_eps_mean
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Options shared by every command that reads a graph.
#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// Input format (default: by extension): edgelist, csv, temporal, mtx, dimacs, metis, ligra, binary.
    #[arg(long)]
    format: Option<String>,
    /// Read as a directed graph.
    #[arg(long, conflicts_with = "undirected")]
    directed: bool,
    /// Read as an undirected graph (store both directions).
    #[arg(long)]
    undirected: bool,
    /// Read the third column (or the format's weights) as edge weights.
    #[arg(long, conflicts_with = "unweighted")]
    weighted: bool,
    /// Ignore weights.
    #[arg(long)]
    unweighted: bool,
    /// Remove self loops.
    #[arg(long)]
    drop_self_loops: bool,
    /// Merge duplicate edges, combining weights by: min (default), max, sum, first, last, or
    /// keep them all with `none`.
    #[arg(long)]
    dedup: Option<String>,
    /// Keep the file's vertex ids as they are (no compaction of unused ids).
    #[arg(long)]
    pub(crate) keep_ids: bool,
    /// Storage backend to load into: csr (static; the default) or ctree (Aspen-style C-trees,
    /// a snapshot).
    #[arg(long)]
    backend: Option<String>,
    /// C-tree chunking: an element starts a chunk with probability 1/b (default 256, Aspen's).
    /// A larger b (512, 1024) takes a few per cent less memory and scans faster, and makes
    /// small batches into high-degree vertices a few per cent slower.
    #[arg(long)]
    chunk_b: Option<u32>,
}

impl LoadArgs {
    /// The options of this group given on the command line, by long name.
    fn given(&self) -> Vec<&'static str> {
        given_names([
            ("format", self.format.is_some()),
            ("directed", self.directed),
            ("undirected", self.undirected),
            ("weighted", self.weighted),
            ("unweighted", self.unweighted),
            ("drop-self-loops", self.drop_self_loops),
            ("dedup", self.dedup.is_some()),
            ("keep-ids", self.keep_ids),
            ("backend", self.backend.is_some()),
            ("chunk-b", self.chunk_b.is_some()),
        ])
    }

    /// An error naming the first of `names` given on the command line (`--NAME {why}`), so
    /// that an option the command would not read is refused instead of ignored. `names`
    /// empty: every option of the group.
    pub(crate) fn refuse(&self, names: &[&str], why: &str) -> Result<()> {
        match self
            .given()
            .into_iter()
            .find(|g| names.is_empty() || names.contains(g))
        {
            Some(name) => Err(WealdError::Invalid(format!("--{name} {why}"))),
            None => Ok(()),
        }
    }

    /// The options that say how a graph file is read, which mean nothing without one.
    pub(crate) const FILE_OPTIONS: [&'static str; 4] =
        ["format", "drop-self-loops", "dedup", "keep-ids"];

    /// Why the group's options are refused with `--data`.
    pub(crate) const NOT_WITH_DATA: &'static str =
        "says how to read a graph file: --data reads the stored graph as it was stored";

    /// `--backend`, csr when not given.
    fn backend(&self) -> Result<Backend> {
        self.backend.as_deref().unwrap_or("csr").parse()
    }

    /// `--directed` was given.
    pub(crate) fn is_directed(&self) -> bool {
        self.directed
    }

    /// `--undirected` was given.
    pub(crate) fn is_undirected(&self) -> bool {
        self.undirected
    }

    /// `--weighted` was given.
    pub(crate) fn is_weighted(&self) -> bool {
        self.weighted
    }

    /// `--unweighted` was given.
    pub(crate) fn is_unweighted(&self) -> bool {
        self.unweighted
    }

    /// `--chunk-b`, or the default.
    pub(crate) fn chunk_b(&self) -> u32 {
        self.chunk_b.unwrap_or(weald::storage::ctree::DEFAULT_B)
    }

    /// `--chunk-b` as given.
    pub(crate) fn chunk_b_given(&self) -> Option<u32> {
        self.chunk_b
    }

    /// `--chunk-b` is usable: at least 2.
    pub(crate) fn check_chunk_b(&self) -> Result<()> {
        if self.chunk_b() < 2 {
            return Err(WealdError::Invalid("--chunk-b must be at least 2".into()));
        }
        Ok(())
    }

    fn options(&self, quiet: bool, path: &Path) -> Result<LoadOptions> {
        let format = match &self.format {
            Some(f) => Some(f.parse::<Format>().map_err(WealdError::Invalid)?),
            None => None,
        };
        let dedup = match self.dedup.as_deref().unwrap_or("min") {
            "none" => None,
            s => Some(s.parse::<Combine>().map_err(|_| {
                WealdError::Invalid(format!(
                    "unknown --dedup rule `{s}` (expected none, min, max, sum, first or last)"
                ))
            })?),
        };
        Ok(LoadOptions {
            format,
            directed: flag(self.directed, self.undirected),
            weighted: flag(self.weighted, self.unweighted),
            drop_self_loops: self.drop_self_loops,
            dedup,
            relabel: self.keep_ids.then_some(false),
            progress: bytes_callback(quiet, &format!("reading {}", path.display())),
            ..LoadOptions::default()
        })
    }

    pub(crate) fn load(&self, path: &Path, quiet: bool) -> Result<(weald::io::Loaded, f64)> {
        if path.is_dir() {
            return Err(WealdError::Invalid(format!(
                "{}: a directory, not a graph file (a data directory is read with --data)",
                path.display()
            )));
        }
        let opts = self.options(quiet, path)?;
        let t = Instant::now();
        let loaded = weald::io::load(path, &opts)?;
        Ok((loaded, t.elapsed().as_secs_f64()))
    }

    /// Load into the C-tree backend (for experiments that update the graph: the static CSR
    /// cannot be updated); `--backend csr` is refused, not ignored.
    pub(crate) fn load_ctree(&self, path: &Path, quiet: bool) -> Result<LoadedGraph> {
        if self.backend.is_some() && self.backend()? != Backend::CTree {
            return Err(WealdError::Invalid(
                "--backend csr: this command updates the graph, which only the C-tree backend \
                 can do"
                    .into(),
            ));
        }
        let mut a = self.clone();
        a.backend = Some("ctree".into());
        a.load_graph(path, quiet)
    }

    /// Load, then move the graph into the chosen backend.
    pub(crate) fn load_graph(&self, path: &Path, quiet: bool) -> Result<LoadedGraph> {
        let backend = self.backend()?;
        self.check_chunk_b()?;
        if backend != Backend::CTree {
            self.refuse(&["chunk-b"], "shapes C-trees: it needs --backend ctree")?;
        }
        let (loaded, load_s) = self.load(path, quiet)?;
        let weald::io::Loaded {
            graph,
            stats,
            format,
            parse_seconds,
            build_seconds,
        } = loaded;
        let t = Instant::now();
        let spin = (backend == Backend::CTree).then(|| Spinner::new(quiet, "building C-trees"));
        let graph = AnyGraph::from(graph).into_backend(backend, self.chunk_b())?;
        drop(spin);
        Ok(LoadedGraph {
            graph,
            stats,
            format,
            parse_s: parse_seconds,
            build_s: build_seconds,
            load_s,
            convert_s: t.elapsed().as_secs_f64(),
        })
    }
}

/// A graph loaded by a command, with what loading it took.
pub(crate) struct LoadedGraph {
    pub(crate) graph: AnyGraph,
    stats: weald::storage::BuildStats,
    format: Format,
    parse_s: f64,
    build_s: f64,
    load_s: f64,
    /// Seconds spent moving the CSR into another backend.
    convert_s: f64,
}

/// `--trials` of the commands that report a median: at least one.
pub(crate) fn check_trials(trials: usize) -> Result<()> {
    if trials == 0 {
        return Err(WealdError::Invalid("--trials must be at least 1".into()));
    }
    Ok(())
}

fn flag(yes: bool, no: bool) -> Option<bool> {
    match (yes, no) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum Generator {
    /// RMAT/Kronecker (Graph500 parameters a=0.57, b=0.19, c=0.19).
    Rmat,
    /// Uniform random (Erdős–Rényi G(n, m)).
    Uniform,
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Which generator.
    kind: Generator,
    /// 2^scale vertices.
    #[arg(long, default_value_t = 16)]
    scale: u32,
    /// Edges generated per vertex.
    #[arg(long, default_value_t = 16)]
    edge_factor: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Uniform random weights LO..HI: i32 weights if both ends are integers (within i32), else
    /// f64 weights in [LO, HI) (finite ends and width); LO must not exceed HI.
    #[arg(long)]
    weights: Option<String>,
    /// Keep the generated arcs directed (default: undirected, both directions written).
    #[arg(long)]
    directed: bool,
    /// Output file; the format follows the extension unless --format is given.
    #[arg(long)]
    out: PathBuf,
    /// Output format: edgelist, ligra, binary.
    #[arg(long)]
    format: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

fn generate(a: GenerateArgs, quiet: bool) -> Result<ExitCode> {
    if a.scale > 31 {
        return Err(WealdError::Invalid(format!(
            "--scale {} is too large (at most 31)",
            a.scale
        )));
    }
    let format = out_format(&a.out, a.format.as_deref(), "--format")?;
    // Refuse up front what cannot fit, rather than be killed part way (scale 31 with no edges
    // at all needs 24 GiB), and a bad weight range before any work.
    let weights = a
        .weights
        .as_deref()
        .map(|s| {
            gen::WeightRange::parse(s)
                .map_err(|e| WealdError::Invalid(format!("--weights `{s}`: {e}")))
        })
        .transpose()?;
    let n = 1u64 << a.scale;
    gen::ensure_fits(n, n * a.edge_factor as u64, weights.is_some(), a.directed)?;
    let t = Instant::now();
    let spin = Spinner::new(quiet, "generating");
    let el = match a.kind {
        Generator::Rmat => gen::rmat(&gen::RmatParams {
            scale: a.scale,
            edge_factor: a.edge_factor,
            seed: a.seed,
            ..Default::default()
        }),
        Generator::Uniform => {
            let n = 1usize << a.scale;
            gen::uniform(n, n * a.edge_factor as usize, a.seed)
        }
    };
    let opts = BuildOptions {
        directed: a.directed,
        drop_self_loops: true,
        ..Default::default()
    };
    let graph = weald::io::build(gen::with_weights(el, weights, a.seed), &opts)?.0;
    drop(spin);
    let spin = Spinner::new(quiet, "writing");
    weald::io::save(&graph, &a.out, Some(format))?;
    drop(spin);
    let secs = t.elapsed().as_secs_f64();
    if a.json {
        println!(
            "{}",
            json!({"out": a.out, "format": format.name(), "vertices": graph.num_vertices(),
                   "edges": graph.num_edges(), "arcs": graph.num_arcs(), "seconds": secs})
        );
    } else if !quiet {
        eprintln!(
            "wrote {} ({}): {} vertices, {} edges, {} arcs in {:.2} s",
            a.out.display(),
            format.name(),
            graph.num_vertices(),
            graph.num_edges(),
            graph.num_arcs(),
            secs
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The output format: `given` (the command's `flag`), else by `path`'s extension.
pub(crate) fn out_format(path: &Path, given: Option<&str>, flag: &str) -> Result<Format> {
    match given {
        Some(f) => f.parse::<Format>().map_err(WealdError::Invalid),
        None => Format::from_path(path).ok_or_else(|| {
            WealdError::Invalid(format!(
                "{}: cannot tell the output format from the extension (.txt, .el, .adj, .wgb, \
                 with .gz for text); name it with {flag}",
                path.display()
            ))
        }),
    }
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    input: PathBuf,
    output: PathBuf,
    /// Store every edge in both directions (an undirected graph).
    #[arg(long)]
    symmetrize: bool,
    /// Output format (default: by extension).
    #[arg(long)]
    to: Option<String>,
    #[command(flatten)]
    load: LoadArgs,
}

fn convert(mut a: ConvertArgs, quiet: bool) -> Result<ExitCode> {
    if a.symmetrize {
        a.load.undirected = true;
        a.load.directed = false;
    }
    a.load.refuse(
        &["backend", "chunk-b"],
        "does not apply to convert, which writes the graph as it reads it",
    )?;
    let format = out_format(&a.output, a.to.as_deref(), "--to")?;
    let (loaded, _) = a.load.load(&a.input, quiet)?;
    if let (Format::Ligra, Some(ids)) = (format, loaded.graph.original_ids()) {
        // Not silenced by --quiet: the output no longer says which vertex is which.
        eprintln!(
            "warning: {}: a Ligra file has no id map, so its {} vertices are numbered 0 to {} \
             instead of the input's ids ({} to {}); --keep-ids writes the input's ids (the \
             unused ones as isolated vertices), an edge list or .wgb keeps them as they are",
            a.output.display(),
            ids.len(),
            ids.len().saturating_sub(1),
            ids.first().copied().unwrap_or(0),
            ids.last().copied().unwrap_or(0)
        );
    }
    let spin = Spinner::new(quiet, "writing");
    weald::io::save(&loaded.graph, &a.output, Some(format))?;
    drop(spin);
    if !quiet {
        eprintln!(
            "wrote {} ({}): {} vertices, {} edges",
            a.output.display(),
            format.name(),
            loaded.graph.num_vertices(),
            loaded.graph.num_edges()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The graph file (or use --data).
    #[arg(required_unless_present = "data", conflicts_with = "data")]
    file: Option<PathBuf>,
    #[command(flatten)]
    data: crate::stream::DataArgs,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    load: LoadArgs,
}

fn info(a: InfoArgs, quiet: bool) -> Result<ExitCode> {
    a.data.check()?;
    if let Some(dir) = &a.data.data {
        a.load.refuse(&[], LoadArgs::NOT_WITH_DATA)?;
        let (version, g, secs) = a.data.graph(dir, quiet)?;
        let mut obj = graph_stats(&g);
        obj["data"] = json!(dir);
        obj["version"] = json!(version);
        obj["load_time_s"] = json!(secs);
        print_stats(&obj, a.json);
        return Ok(ExitCode::SUCCESS);
    }
    let file = a.file.clone().unwrap_or_default();
    let lg = a.load.load_graph(&file, quiet)?;
    let (g, stats, secs, convert_secs) = (lg.graph, lg.stats, lg.load_s, lg.convert_s);
    let mut obj = graph_stats(&g);
    obj["file"] = json!(file);
    obj["format"] = json!(lg.format.name());
    obj["self_loops_dropped"] = json!(stats.self_loops_dropped);
    obj["duplicates_removed"] = json!(stats.duplicates_merged);
    obj["input_records"] = json!(stats.input_arcs);
    obj["load_time_s"] = json!(secs);
    obj["parse_time_s"] = json!(lg.parse_s);
    obj["build_time_s"] = json!(lg.build_s);
    if g.ctree_memory().is_some() {
        obj["ctree_build_time_s"] = json!(convert_secs);
        obj["chunk_b"] = json!(a.load.chunk_b());
    }
    print_stats(&obj, a.json);
    Ok(ExitCode::SUCCESS)
}

fn print_stats(obj: &serde_json::Value, as_json: bool) {
    if as_json {
        println!("{obj}");
    } else {
        for (k, v) in obj.as_object().unwrap() {
            println!("{k:<20} {}", v.to_string().trim_matches('"'));
        }
    }
}

/// The statistics `weald info` prints for any graph.
fn graph_stats(g: &AnyGraph) -> serde_json::Value {
    let degrees = g.degrees();
    let n = g.num_vertices();
    let (min_d, max_d) = degrees
        .iter()
        .fold((usize::MAX, 0), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    let min_d = if n == 0 { 0 } else { min_d };
    let mean_d = if n == 0 {
        0.0
    } else {
        g.num_arcs() as f64 / n as f64
    };
    let mem = g.memory_bytes();
    let mut obj = json!({
        "backend": g.backend(),
        "vertices": n,
        "present_vertices": g.num_present_vertices(),
        "edges": g.num_edges(),
        "arcs": g.num_arcs(),
        "directed": g.is_directed(),
        "weighted": g.is_weighted(),
        "weight_type": g.weight_name(),
        "self_loops": g.num_self_loops(),
        "ids_relabelled": g.original_ids().is_some(),
        // The user's largest id (relabelling keeps the ids' order): with relabelled ids,
        // `vertices` counts the ids present, so the id space's extent is here.
        "max_id": (n > 0).then(|| g.original_id((n - 1) as weald::graph::Vertex)),
        "min_degree": min_d,
        "max_degree": max_d,
        "mean_degree": mean_d,
        "memory_bytes": mem,
        "bytes_per_edge": if g.num_arcs() == 0 { 0.0 } else { mem as f64 / g.num_arcs() as f64 },
    });
    if let Some(m) = g.ctree_memory() {
        obj["memory_vertex_tree"] = json!(m.vertex_tree);
        obj["memory_edge_tree_nodes"] = json!(m.edge_tree_nodes);
        obj["memory_chunk_bytes"] = json!(m.chunk_bytes);
    }
    obj
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The algorithm (see --list).
    #[arg(required_unless_present = "list")]
    algorithm: Option<String>,
    /// The graph file (or use --data).
    #[arg(required_unless_present_any = ["list", "data"], conflicts_with = "data")]
    file: Option<PathBuf>,
    #[command(flatten)]
    data: crate::stream::DataArgs,
    /// List the algorithms.
    #[arg(long)]
    list: bool,
    /// Source vertex, in the file's ids (default: random non-isolated vertices, fixed seed).
    #[arg(long)]
    source: Option<u64>,
    /// How many times to run (the median is reported).
    #[arg(long, default_value_t = 1)]
    trials: usize,
    /// Check the answer with the problem's verifier.
    #[arg(long)]
    verify: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Write `vertex<TAB>value` lines (in the file's ids) to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// PageRank: stop when the L1 change is below this.
    #[arg(long)]
    tol: Option<f64>,
    /// PageRank: at most this many iterations.
    #[arg(long)]
    max_iter: Option<usize>,
    /// PageRank damping factor.
    #[arg(long)]
    damping: Option<f64>,
    /// Delta-stepping bucket width.
    #[arg(long)]
    delta: Option<f64>,
    /// Nibble: truncation threshold (mass below epsilon x degree is dropped).
    #[arg(long)]
    epsilon: Option<f64>,
    /// Nibble: random-walk steps.
    #[arg(long)]
    steps: Option<usize>,
    /// Seed (MIS priorities, random sources; default 1).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    load: LoadArgs,
}

impl RunArgs {
    /// The algorithm options given on the command line, by long name.
    fn given(&self) -> Vec<&'static str> {
        given_names([
            ("source", self.source.is_some()),
            ("seed", self.seed.is_some()),
            ("tol", self.tol.is_some()),
            ("max-iter", self.max_iter.is_some()),
            ("damping", self.damping.is_some()),
            ("delta", self.delta.is_some()),
            ("epsilon", self.epsilon.is_some()),
            ("steps", self.steps.is_some()),
        ])
    }
}

/// The names of the options given, from `(long name, given)` pairs.
fn given_names<const N: usize>(options: [(&'static str, bool); N]) -> Vec<&'static str> {
    options
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect()
}

fn run(a: RunArgs, quiet: bool) -> Result<ExitCode> {
    if a.list {
        for alg in Algorithm::ALL {
            println!("{:<14} {}", alg.name(), alg.description());
        }
        return Ok(ExitCode::SUCCESS);
    }
    check_trials(a.trials)?;
    let alg: Algorithm = a.algorithm.as_deref().unwrap_or_default().parse()?;
    alg.check_options(&a.given())?;
    let file = a.file.clone().unwrap_or_default();
    let mut params = RunParams {
        source: a.source,
        trials: a.trials,
        verify: a.verify,
        delta: a.delta,
        ..RunParams::default()
    };
    if let Some(s) = a.seed {
        params.seed = s;
    }
    if let Some(t) = a.tol {
        params.tol = t;
    }
    if let Some(m) = a.max_iter {
        params.max_iter = m;
    }
    if let Some(d) = a.damping {
        params.damping = d;
    }
    if let Some(e) = a.epsilon {
        params.epsilon = e;
    }
    if let Some(t) = a.steps {
        params.walk_steps = t;
    }
    if !(params.damping > 0.0 && params.damping < 1.0) {
        return Err(WealdError::Invalid(format!(
            "--damping must be in (0, 1) (got {})",
            params.damping
        )));
    }
    if !(params.tol > 0.0 && params.tol.is_finite()) {
        return Err(WealdError::Invalid(format!(
            "--tol must be a finite number above 0 (got {})",
            params.tol
        )));
    }
    a.data.check()?;
    // The stored version read, with --data (reported: --at-time picks it by time).
    let (g, load_secs, file, version) = match &a.data.data {
        Some(dir) => {
            a.load.refuse(&[], LoadArgs::NOT_WITH_DATA)?;
            let (v, g, secs) = a.data.graph(dir, quiet)?;
            (g, secs, dir.clone(), Some(v))
        }
        None => {
            let lg = a.load.load_graph(&file, quiet)?;
            (lg.graph, lg.load_s + lg.convert_s, file, None)
        }
    };
    crate::purge::keep_freed_memory();
    let spin = Spinner::new(quiet, alg.name());
    let report = runner::run(&g, alg, &params)?;
    drop(spin);
    if let Some(path) = &a.out {
        write_values(path, &g, &report.values)?;
    }
    let verified = report.verified.as_ref().map(|r| r.is_ok());
    let sources: Vec<u64> = report.sources.iter().map(|&s| g.original_id(s)).collect();
    if a.json {
        let mut obj = json!({
            "algorithm": alg.name(),
            "file": file,
            "backend": g.backend(),
            "vertices": g.num_vertices(),
            "edges": g.num_edges(),
            "threads": rayon::current_num_threads(),
            "load_time_s": load_secs,
            "trials": report.trials,
            "median_s": report.median(),
            "verified": verified,
            "result": report.result,
            "result_name": alg.result_name(),
        });
        if let Some(v) = version {
            obj["version"] = json!(v);
        }
        if alg.needs_source() {
            obj["sources"] = json!(sources);
        }
        if let Some(Err(reason)) = &report.verified {
            obj["verification_error"] = json!(reason);
        }
        if alg == Algorithm::PageRank {
            obj["converged"] = json!(report.not_converged.is_none());
        }
        println!("{obj}");
    } else {
        println!(
            "{}{}: {} vertices, {} edges, loaded in {:.3} s, {} threads",
            file.display(),
            version.map_or(String::new(), |v| format!(" (version {v})")),
            g.num_vertices(),
            g.num_edges(),
            load_secs,
            rayon::current_num_threads()
        );
        for (i, t) in report.trials.iter().enumerate() {
            match sources.get(i) {
                Some(s) => println!("trial {:>3}: {:.6} s (source {s})", i + 1, t),
                None => println!("trial {:>3}: {:.6} s", i + 1, t),
            }
        }
        println!("median: {:.6} s", report.median());
        if let Some(r) = report.result {
            println!("result: {r} ({})", alg.result_name().unwrap_or("result"));
        }
        match &report.verified {
            None => {}
            Some(Ok(())) => println!("verification: PASS"),
            Some(Err(reason)) => println!("verification: FAIL ({reason})"),
        }
    }
    // Values that are not the answer asked for (written to --out all the same, as a
    // verification failure's are) fail the command.
    if let Some(why) = &report.not_converged {
        eprintln!("error: {why}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(match verified {
        Some(false) => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

fn write_values(path: &Path, g: &AnyGraph, values: &runner::Values) -> Result<()> {
    let f = std::fs::File::create(path).map_err(|e| WealdError::io(path, e))?;
    let mut w = std::io::BufWriter::new(f);
    for v in 0..values.len() {
        writeln!(w, "{}\t{}", g.original_id(v as u32), values.format(v))
            .map_err(|e| WealdError::io(path, e))?;
    }
    w.flush().map_err(|e| WealdError::io(path, e))
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// 2^scale vertices.
    #[arg(long, default_value_t = 16)]
    scale: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

fn demo(a: DemoArgs, quiet: bool) -> Result<ExitCode> {
    if a.scale > 24 {
        return Err(WealdError::Invalid("demo: --scale at most 24".into()));
    }
    let t = Instant::now();
    let el: EdgeList<()> = gen::rmat(&gen::RmatParams {
        scale: a.scale,
        seed: a.seed,
        ..Default::default()
    });
    let gen_s = t.elapsed().as_secs_f64();
    let weighted = gen::add_weights_int(&el, 1, 255, a.seed);
    let opts = BuildOptions {
        drop_self_loops: true,
        ..Default::default()
    };
    let t = Instant::now();
    let g: AnyGraph = AnyCsr::from(Csr::build(el, &opts)?.0).into();
    let build_s = t.elapsed().as_secs_f64();
    let gw: AnyGraph = AnyCsr::from(Csr::build(weighted, &opts)?.0).into();
    let degrees = g.degrees();
    let max_d = degrees.iter().copied().max().unwrap_or(0);
    let isolated = degrees.iter().filter(|&&d| d == 0).count();
    let mut rows = Vec::new();
    let mut all_ok = true;
    for alg in Algorithm::ALL {
        let graph = if matches!(alg, Algorithm::Sssp | Algorithm::BellmanFord) {
            &gw
        } else {
            &g
        };
        let spin = Spinner::new(quiet, alg.name());
        let p = RunParams {
            verify: true,
            seed: a.seed,
            trials: 1,
            ..Default::default()
        };
        let r = runner::run(graph, alg, &p)?;
        drop(spin);
        let ok = matches!(r.verified, Some(Ok(()))) && r.not_converged.is_none();
        all_ok &= ok;
        rows.push(json!({
            "algorithm": alg.name(),
            "seconds": r.median(),
            "result": r.result,
            "result_name": alg.result_name(),
            "verified": ok,
            "verification_error": r.verified.and_then(|v| v.err()).or(r.not_converged),
        }));
    }
    let spin = Spinner::new(quiet, "streaming");
    let stream = demo_stream(&g, a.seed)?;
    drop(spin);
    all_ok &= stream["recovered_matches"] == json!(true);
    let summary = json!({
        "graph": format!("rmat scale {} edge factor 16 seed {}", a.scale, a.seed),
        "vertices": g.num_vertices(),
        "edges": g.num_edges(),
        "arcs": g.num_arcs(),
        "isolated_vertices": isolated,
        "max_degree": max_d,
        "memory_bytes": g.memory_bytes(),
        "generate_s": gen_s,
        "build_s": build_s,
        "threads": rayon::current_num_threads(),
        "algorithms": rows,
        "stream": stream,
    });
    if a.json {
        println!("{summary}");
    } else {
        println!("Weald demo: {}", summary["graph"].as_str().unwrap());
        println!(
            "  {} vertices ({} isolated), {} undirected edges, {} arcs, max degree {}",
            g.num_vertices(),
            isolated,
            g.num_edges(),
            g.num_arcs(),
            max_d
        );
        println!(
            "  generated in {:.3} s, CSR built in {:.3} s, {:.1} MiB, {} threads",
            gen_s,
            build_s,
            g.memory_bytes() as f64 / (1 << 20) as f64,
            rayon::current_num_threads()
        );
        println!(
            "  {:<14} {:>10}  {:<34}  verification",
            "algorithm", "seconds", "result"
        );
        for r in &rows {
            // What the number counts, then the number: counts as integers, a fraction (the
            // conductance) to 4 places.
            let res = match (r["result"].as_f64(), r["result_name"].as_str()) {
                (Some(x), Some(name)) if x.fract() == 0.0 => format!("{name} = {x}"),
                (Some(x), Some(name)) => format!("{name} = {x:.4}"),
                _ => "-".into(),
            };
            let ver = if r["verified"].as_bool() == Some(true) {
                "PASS".to_string()
            } else {
                format!("FAIL ({})", r["verification_error"].as_str().unwrap_or("?"))
            };
            println!(
                "  {:<14} {:>10.4}  {:<34}  {ver}",
                r["algorithm"].as_str().unwrap(),
                r["seconds"].as_f64().unwrap(),
                res
            );
        }
        let st = &summary["stream"];
        println!(
            "  stream: {} updates one at a time into a durable store (fsync {}) with BFS running:",
            st["updates"],
            st["fsync"].as_str().unwrap_or("?")
        );
        println!(
            "    visible after {:.1} µs (median), {:.1} µs (p99); BFS {:.1} ms during ingest, {:.1} ms alone",
            st["visibility_p50_us"].as_f64().unwrap_or(f64::NAN),
            st["visibility_p99_us"].as_f64().unwrap_or(f64::NAN),
            st["bfs_concurrent_ms"].as_f64().unwrap_or(f64::NAN),
            st["bfs_isolated_ms"].as_f64().unwrap_or(f64::NAN)
        );
        println!(
            "    reopened in {:.3} s ({} log records replayed): recovered graph {}",
            st["recovery_s"].as_f64().unwrap_or(f64::NAN),
            st["records_replayed"],
            if st["recovered_matches"] == json!(true) {
                "matches the stream: PASS"
            } else {
                "DIFFERS from the stream: FAIL"
            }
        );
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The demo's streaming step: Aspen's update stream (a sample of the graph's edges deleted, then
/// re-inserted one at a time, with deletions mixed in) into a durable store in a temporary
/// directory while BFS runs; then the store is reopened and the recovered graph compared with
/// the stream applied directly.
fn demo_stream(g: &AnyGraph, seed: u64) -> Result<serde_json::Value> {
    use weald::experiments::stream as exp;
    use weald::storage::ctree::CTreeGraph;
    use weald::stream::{Fsync, Store, StoreOptions, Update};
    let csr = match g {
        AnyGraph::Csr(AnyCsr::Unweighted(c)) => c,
        _ => {
            return Err(WealdError::Invalid(
                "demo: expected an unweighted CSR".into(),
            ))
        }
    };
    let base = CTreeGraph::from_csr(csr, 256);
    let sample = (weald::Graph::num_edges(&base) / 20).clamp(1, 100_000);
    let w = exp::Workload::aspen(&base, sample, seed)?;
    let limit = 20_000.min(w.updates.len());
    let dir = std::env::temp_dir().join(format!("weald-demo-{}", std::process::id()));
    let fsync = Fsync::default();
    let run = (|| -> Result<serde_json::Value> {
        let r = exp::concurrent(&w, &dir, fsync, limit, true, seed)?;
        let t = Instant::now();
        let store = Store::<()>::open(&dir, StoreOptions::default())?;
        let recovery_s = t.elapsed().as_secs_f64();
        let rec = store.recovery().clone();
        let got = store.acquire().graph().arcs();
        store.close()?;
        // The stream's updates are distinct edges, so their order does not matter here.
        let (mut ins, mut del) = (Vec::new(), Vec::new());
        for u in &w.updates[..limit] {
            match *u {
                Update::InsertEdge(a, b, ()) => ins.push((a, b, ())),
                Update::DeleteEdge(a, b) => del.push((a, b)),
                _ => {}
            }
        }
        let (want, _) = w
            .start
            .insert_edges(&ins, weald::graph::batch::Combine::Last);
        let (want, _) = want.delete_edges(&del);
        let med = |xs: &[f64]| weald::runner::median(xs) * 1e3;
        Ok(json!({
            "updates": r.updates,
            "fsync": "interval",
            "updates_per_s": r.updates as f64 / r.seconds,
            "visibility_p50_us": r.visibility_p50_us,
            "visibility_p99_us": r.visibility_p99_us,
            "bfs_concurrent_ms": med(&r.bfs_concurrent_s),
            "bfs_isolated_ms": med(&r.bfs_isolated_s),
            "recovery_s": recovery_s,
            "records_replayed": rec.records_replayed,
            "recovered_matches": rec.updates_replayed == limit as u64 && got == want.arcs(),
        }))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    run
}
