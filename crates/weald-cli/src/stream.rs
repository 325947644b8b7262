//! The streaming commands: `stream`, `recover`, `versions`, `export`, and the `--data` side of
//! `info` and `run`.

use crate::commands::LoadArgs;
use crate::progress::Spinner;
use clap::Args;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use weald::graph::batch::Combine;
use weald::runner::{self, percentile, Algorithm, RunParams};
use weald::storage::ctree::{CTreeGraph, FlatSnapshot};
use weald::storage::{AnyCsr, Csr};
use weald::stream::{
    duration_arg, format_time_ns, parse_time_ns, AnyStore, At, Commit, Event, Fsync, Layout,
    Manifest, RecoveryReport, Retention, Store, StoreOptions, Update,
};
use weald::{AnyFlat, AnyGraph, Result, Vertex, WealdError, Weight};

/// Where a stored graph is read from (`--data DIR [--version V | --at-time T]`).
#[derive(Args, Debug, Clone)]
pub struct DataArgs {
    /// A Weald data directory (written by `weald stream`).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The version to read (default: the newest); it must be retained or pinned.
    #[arg(long, requires = "data", conflicts_with = "at_time")]
    pub version: Option<u64>,
    /// Read the graph as it was at this time: the newest retained version committed at or
    /// before it. A UTC time (`2026-12-01T10:00:00Z`, `2026-12-01 10:00:00.25`) or
    /// nanoseconds since the Unix epoch (as `weald versions --json` lists them).
    #[arg(long, requires = "data")]
    pub at_time: Option<String>,
}

impl DataArgs {
    /// `--version` and `--at-time` belong to `--data` (clap's `requires` does not hold them
    /// in a flattened group: `info FILE --version 3` read FILE and ignored it); a time must
    /// parse.
    pub fn check(&self) -> Result<()> {
        for (given, name) in [
            (self.version.is_some(), "--version"),
            (self.at_time.is_some(), "--at-time"),
        ] {
            if given && self.data.is_none() {
                return Err(WealdError::Invalid(format!(
                    "{name} picks a version of a data directory: it needs --data DIR"
                )));
            }
        }
        self.at().map(|_| ())
    }

    /// The version these options pick.
    fn at(&self) -> Result<At> {
        Ok(match (&self.version, &self.at_time) {
            (Some(v), _) => At::Version(*v),
            (None, Some(t)) => At::TimeNs(parse_time_ns(t).ok_or_else(|| {
                WealdError::Invalid(format!(
                    "--at-time `{t}`: expected a UTC time such as 2026-12-01T10:00:00Z or \
                     2026-12-01 10:00:00.25 (no offset), or nanoseconds since the Unix epoch"
                ))
            })?),
            (None, None) => At::Newest,
        })
    }

    /// Open the directory and take the graph of the chosen version.
    pub fn graph(&self, dir: &Path, quiet: bool) -> Result<(u64, AnyGraph, f64)> {
        let t = Instant::now();
        let spin = Spinner::new(quiet, "recovering");
        let store = AnyStore::open(dir, StoreOptions::default())?;
        drop(spin);
        warn_dropped(dir, store.recovery());
        let (v, g) = store.graph(self.at()?)?;
        store.close()?;
        Ok((v, g, t.elapsed().as_secs_f64()))
    }
}

/// Say on stderr what opening `dir` cut from its log (a torn or damaged tail: the library
/// reports it in the recovery report; `weald recover` prints the report in full). Every
/// command that opens a data directory calls this, so that no cut goes unmentioned.
fn warn_dropped(dir: &Path, rec: &RecoveryReport) {
    if let Some(d) = &rec.dropped {
        let aside: Vec<String> = d
            .set_aside
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "warning: {}: the log was cut at byte {} of {} ({}): {} byte(s) dropped, recovered up to version {}{}",
            dir.display(),
            d.offset,
            d.segment.display(),
            d.reason,
            d.bytes,
            rec.version,
            if aside.is_empty() {
                String::new()
            } else {
                format!("; a copy is in {}", aside.join(", "))
            }
        );
    }
}

#[derive(Args, Debug)]
pub struct StreamArgs {
    /// The data directory (created if it does not exist or is empty).
    #[arg(long)]
    data: PathBuf,
    /// A graph file to start a new data directory from (its ids are kept as they are).
    #[arg(long)]
    base: Option<PathBuf>,
    /// Update lines: `+ u v [w]`, `- u v`, `+v u`, `-v u` (`-` reads stdin).
    #[arg(
        long,
        conflicts_with = "temporal",
        required_unless_present = "temporal"
    )]
    updates: Option<PathBuf>,
    /// Replay a timestamped edge list (`u v t` or `u v w t`) in time order as insertions.
    #[arg(long)]
    temporal: Option<PathBuf>,
    /// With --temporal: delete each edge once it is older than this (a sliding window, in the
    /// file's time units).
    #[arg(long, requires = "temporal")]
    window: Option<f64>,
    /// Seal a batch at this many updates.
    #[arg(long, default_value_t = 100_000)]
    batch: usize,
    /// Seal a batch this many milliseconds after its first update (default 0: as soon as no
    /// more updates are waiting).
    #[arg(long, default_value_t = 0.0)]
    max_wait: f64,
    /// When the log is flushed: always (before each acknowledgement), interval (every 10 ms),
    /// never.
    #[arg(long, default_value = "interval")]
    fsync: String,
    /// Send at most this many updates per second (default: as fast as they are read).
    #[arg(long)]
    rate: Option<f64>,
    /// Run this algorithm on the newest version while ingesting (e.g. bfs).
    #[arg(long)]
    query: Option<String>,
    /// Milliseconds between queries (0: back to back).
    #[arg(long, default_value_t = 0.0)]
    query_every: f64,
    /// Append the input line number of the last update of each acknowledged batch here.
    #[arg(long)]
    ack_out: Option<PathBuf>,
    /// Checkpoint after this many updates (0: only at the end with --checkpoint-at-end).
    #[arg(long, default_value_t = 10_000_000)]
    checkpoint_every: u64,
    /// Write a checkpoint when the input ends.
    #[arg(long)]
    checkpoint_at_end: bool,
    /// Rotate log segments at this many bytes.
    #[arg(long, default_value_t = 64 << 20)]
    segment_bytes: u64,
    /// Keep the newest this many versions for historical queries.
    #[arg(long, default_value_t = 16)]
    keep_last: usize,
    /// Also keep every version newer than this many seconds.
    #[arg(long)]
    keep_seconds: Option<f64>,
    /// New directories: the weight type (none, i32, f64; default: the base graph's, or none).
    #[arg(long)]
    weight_type: Option<String>,
    /// New directories: how a re-inserted edge combines its weight (default last).
    #[arg(long, default_value = "last")]
    combine: String,
    /// Print checkpoint and log-rotation events on stderr.
    #[arg(long)]
    events: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Testing only: checkpoints pause this many milliseconds before being installed.
    #[arg(long, hide = true)]
    test_checkpoint_pause_ms: Option<u64>,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn stream(a: StreamArgs, quiet: bool) -> Result<ExitCode> {
    let fsync: Fsync = a.fsync.parse()?;
    let query = match &a.query {
        Some(q) => Some(q.parse::<Algorithm>()?),
        None => None,
    };
    if a.batch == 0 {
        return Err(WealdError::Invalid("--batch must be at least 1".into()));
    }
    a.load.check_chunk_b()?;
    a.load.refuse(
        &["backend"],
        "does not apply to a data directory, which always holds C-trees",
    )?;
    if a.base.is_none() {
        a.load.refuse(
            &LoadArgs::FILE_OPTIONS,
            "says how to read the --base file, and none is given",
        )?;
    }
    // Every number is checked before the data directory is opened or created.
    let max_wait = duration_arg("--max-wait", a.max_wait, 1e3, "milliseconds")?;
    let query_every = duration_arg("--query-every", a.query_every, 1e3, "milliseconds")?;
    let keep_seconds = a
        .keep_seconds
        .map(|x| duration_arg("--keep-seconds", x, 1.0, "seconds"))
        .transpose()?;
    if let Some(r) = a.rate.filter(|r| !(r.is_finite() && *r >= MIN_RATE)) {
        return Err(WealdError::Invalid(format!(
            "--rate must be a finite number of updates per second, at least {MIN_RATE:?} (got {r:?})"
        )));
    }
    if a.window.is_some() && a.temporal.is_none() {
        // clap's `requires` does not hold it against --updates (it conflicts with --temporal).
        return Err(WealdError::Invalid(
            "--window slides over a --temporal file's times; update lines have none".into(),
        ));
    }
    if let Some(w) = a.window.filter(|w| !(w.is_finite() && *w >= 0.0)) {
        return Err(WealdError::Invalid(format!(
            "--window must be a finite time >= 0 in the file's units (got {w:?})"
        )));
    }
    // The input must be readable before a new data directory is created for it.
    for p in [&a.updates, &a.temporal].into_iter().flatten() {
        if p != Path::new("-") {
            let meta = std::fs::metadata(p).map_err(|e| WealdError::io(p, e))?;
            if meta.is_dir() {
                return Err(WealdError::Invalid(format!(
                    "{}: a directory, not an update file",
                    p.display()
                )));
            }
        }
    }
    let ack_out = match &a.ack_out {
        Some(p) => Some(Arc::new(Mutex::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| WealdError::io(p, e))?,
        ))),
        None => None,
    };
    let opts = StoreOptions {
        fsync,
        batch_size: a.batch,
        max_wait,
        segment_bytes: a.segment_bytes,
        checkpoint_every: a.checkpoint_every,
        retention: Retention {
            last: a.keep_last.max(1),
            newer_than: keep_seconds,
        },
        on_commit: ack_out.map(|f| {
            Arc::new(move |c: &Commit| {
                // One write per batch, after it is durable under the policy and visible.
                let line = format!("{}\n", c.tag);
                let _ = f.lock().unwrap().write_all(line.as_bytes());
            }) as weald::stream::Callback<Commit>
        }),
        on_event: a.events.then(|| {
            Arc::new(|e: &Event| match e {
                Event::CheckpointStarted(v) => eprintln!("event: checkpoint started {v}"),
                Event::CheckpointInstalled(v, p) => {
                    eprintln!("event: checkpoint installed {v} {}", p.display())
                }
                Event::CheckpointFailed(v, why) => {
                    eprintln!("event: checkpoint failed {v}: {why}")
                }
                Event::SegmentRotated(v) => eprintln!("event: segment rotated {v}"),
            }) as weald::stream::Callback<Event>
        }),
        checkpoint_pause: a.test_checkpoint_pause_ms.map(Duration::from_millis),
        ..StoreOptions::default()
    };
    // A directory this command creates is removed again if the input then fails before any
    // update is sent (a `--temporal` file is read whole first): a rerun with the input fixed
    // would otherwise find a graph there and refuse `--base`.
    let created = AnyStore::is_fresh(&a.data)?.then(|| a.data.exists());
    let store = open_or_create(&a, opts, query, quiet)?;
    weald::with_store!(store, s => {
        warn_dropped(&a.data, s.recovery());
        match source(&a, s.manifest().layout.directed) {
            Ok(src) => drive(s, src, &a, query, query_every, quiet),
            Err(e) => {
                if let Some(existed) = created {
                    drop(s);
                    discard_new_dir(&a.data, existed);
                }
                Err(e)
            }
        }
    })
}

/// The updates of `--updates` or `--temporal`, for a store of the given direction.
fn source<W: Weight>(a: &StreamArgs, directed: bool) -> Result<Source<W>> {
    match (&a.updates, &a.temporal) {
        (Some(p), _) => update_lines(p),
        (None, Some(p)) => temporal_updates(p, a.window, directed),
        (None, None) => unreachable!("clap requires one"),
    }
}

/// Remove a data directory this command created and nothing was sent to: the directory itself
/// if it did not exist before, else what the store put in it (it was empty).
fn discard_new_dir(dir: &Path, existed: bool) {
    let r = if existed {
        std::fs::read_dir(dir).and_then(|entries| {
            entries.into_iter().try_for_each(|e| {
                let p = e?.path();
                if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                }
            })
        })
    } else {
        std::fs::remove_dir_all(dir)
    };
    if let Err(e) = r {
        eprintln!(
            "warning: {}: the data directory made for this stream could not be removed: {e}",
            dir.display()
        );
    }
}

/// The slowest `--rate` (updates per second): one update about every 11.6 days.
const MIN_RATE: f64 = 1e-6;

/// Open the data directory, or create it (from `--base` if given). Before either, `--query`
/// is tried on the kind of graph the directory holds or will hold ([`check_query`]).
fn open_or_create(
    a: &StreamArgs,
    opts: StoreOptions,
    query: Option<Algorithm>,
    quiet: bool,
) -> Result<AnyStore> {
    if !AnyStore::is_fresh(&a.data)? {
        if a.base.is_some() {
            return Err(WealdError::Invalid(format!(
                "{}: the data directory already holds a graph; --base only starts a new one",
                a.data.display()
            )));
        }
        // The options that shape a new directory must not contradict the one that exists.
        let m = Manifest::read(&a.data)?;
        let kind = if m.layout.directed {
            "a directed"
        } else {
            "an undirected"
        };
        let contradiction = if a.load.is_directed() && !m.layout.directed {
            Some("--directed".to_string())
        } else if a.load.is_undirected() && m.layout.directed {
            Some("--undirected".to_string())
        } else if a.load.is_weighted() && m.weight == "none" {
            Some("--weighted".to_string())
        } else if a.load.is_unweighted() && m.weight != "none" {
            Some("--unweighted".to_string())
        } else if let Some(b) = a.load.chunk_b_given().filter(|&b| b != m.layout.b) {
            Some(format!("--chunk-b {b}"))
        } else if a.combine != "last" && a.combine.parse::<Combine>().ok() != Some(m.layout.combine)
        {
            Some(format!("--combine {}", a.combine))
        } else {
            a.weight_type
                .as_ref()
                .filter(|w| **w != m.weight)
                .map(|w| format!("--weight-type {w}"))
        };
        if let Some(opt) = contradiction {
            return Err(WealdError::Invalid(format!(
                "{}: {opt} contradicts the data directory, which holds {kind} graph with weights `{}`",
                a.data.display(),
                m.weight
            )));
        }
        if let Some(alg) = query {
            check_query(alg, m.layout.directed, &m.weight)?;
        }
        return AnyStore::open(&a.data, opts);
    }
    let combine: Combine = a.combine.parse().map_err(WealdError::Invalid)?;
    let layout = Layout {
        directed: a.load.is_directed(),
        in_edges: true,
        b: a.load.chunk_b(),
        combine,
    };
    let base = match &a.base {
        // A relabelled base (an edge list without --keep-ids, a binary file with an id map)
        // is stored in its file's ids: only the ids it uses become vertices.
        Some(p) => Some(a.load.load(p, quiet)?.0.graph),
        None => None,
    };
    let weight = match (&a.weight_type, &base) {
        (Some(w), _) => Some(w.as_str()),
        (None, None) if a.load.is_weighted() => Some("i32"),
        (None, _) => None,
    };
    if let Some(alg) = query {
        // As `AnyStore::create` settles them: the base's direction, the weights asked for,
        // else the base's, else none.
        let directed = base.as_ref().map_or(layout.directed, |b| b.is_directed());
        let w = weight.unwrap_or_else(|| base.as_ref().map_or("none", |g| g.weight_name()));
        check_query(alg, directed, w)?;
    }
    AnyStore::create(&a.data, layout, weight, base.as_ref(), true, opts)
}

/// A source of `(input line, update)` pairs.
type Source<W> = Box<dyn Iterator<Item = Result<(u64, Update<W>)>>>;

/// The lines of an input file numbered from 1, without their `\n` or `\r\n`: decompressed if
/// gzip (as every graph reader does), standard input for `-`. A line that is not UTF-8 is an
/// error naming it.
fn numbered_lines(path: &Path) -> Result<impl Iterator<Item = Result<(u64, String)>>> {
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let src = weald::io::text::Source::open(path)?;
        Box::new(BufReader::with_capacity(1 << 20, src.into_reader()))
    };
    let path = path.to_path_buf();
    Ok(reader.split(b'\n').enumerate().map(move |(i, l)| {
        let line = i as u64 + 1;
        let mut bytes = l.map_err(|e| WealdError::io(&path, e))?;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        String::from_utf8(bytes).map(|s| (line, s)).map_err(|e| {
            let at = e.utf8_error().valid_up_to() + 1;
            WealdError::parse(
                &path,
                line,
                format!("byte {at} of the line is not UTF-8 text"),
            )
        })
    }))
}

fn update_lines<W: Weight>(path: &Path) -> Result<Source<W>> {
    let path_buf = path.to_path_buf();
    Ok(Box::new(numbered_lines(path)?.filter_map(move |l| {
        let (line, text) = match l {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        match Update::<W>::parse(&text) {
            Ok(Some(u)) => Some(Ok((line, u))),
            Ok(None) => None,
            Err(m) => Some(Err(WealdError::parse(&path_buf, line, m))),
        }
    })))
}

/// A timestamped edge list in time order (stable for equal times), as insertions, with
/// deletions of edges that leave the window. In an undirected store `u v` and `v u` are one
/// edge: either insertion renews it.
fn temporal_updates<W: Weight>(
    path: &Path,
    window: Option<f64>,
    directed: bool,
) -> Result<Source<W>> {
    let mut rows: Vec<(f64, u64, Vertex, Vertex, W)> = Vec::new();
    for l in numbered_lines(path)? {
        let (line, text) = l?;
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let fields: Vec<&str> = t
            .split(|c: char| c == ',' || c.is_ascii_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        if rows.is_empty() && fields.first().is_some_and(|f| f.parse::<f64>().is_err()) {
            continue; // a header line
        }
        let bad = |m: String| WealdError::parse(path, line, m);
        let (u, v, w, time) = match fields.len() {
            3 => (fields[0], fields[1], None, fields[2]),
            4 => (fields[0], fields[1], Some(fields[2]), fields[3]),
            k => {
                return Err(bad(format!(
                    "expected `u v t` or `u v w t`, found {k} field(s)"
                )))
            }
        };
        let id = |s: &str| weald::stream::parse_vertex(s).map_err(bad);
        let time: f64 = time
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| bad(format!("`{time}` is not a time")))?;
        let w = match w {
            Some(x) if W::WEIGHTED => W::parse(x).ok_or_else(|| {
                let hint = if W::NAME == "i32" && <f64 as Weight>::parse(x).is_some() {
                    " (the store's weights are i32; a new store takes --weight-type f64)"
                } else {
                    ""
                };
                bad(format!("`{x}` is not an {} weight{hint}", W::NAME))
            })?,
            _ if W::WEIGHTED => W::parse("1").unwrap_or_default(),
            _ => W::default(),
        };
        rows.push((time, line, id(u)?, id(v)?, w));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let Some(window) = window else {
        return Ok(Box::new(rows.into_iter().map(|(_, line, u, v, w)| {
            Ok((line, Update::InsertEdge(u, v, w)))
        })));
    };
    // Sliding window: before each insertion at time t, delete the edges whose newest insertion
    // is older than t - window.
    let mut out = Vec::with_capacity(rows.len() * 2);
    let mut live: VecDeque<(f64, Vertex, Vertex)> = VecDeque::new();
    let mut newest: HashMap<(Vertex, Vertex), f64> = HashMap::new();
    for (t, line, u, v, w) in rows {
        let key = if directed {
            (u, v)
        } else {
            (u.min(v), u.max(v))
        };
        while let Some(&(t0, a, b)) = live.front() {
            if t0 >= t - window {
                break;
            }
            live.pop_front();
            if newest.get(&(a, b)) == Some(&t0) {
                newest.remove(&(a, b));
                out.push(Ok((line, Update::DeleteEdge(a, b))));
            }
        }
        live.push_back((t, key.0, key.1));
        newest.insert(key, t);
        out.push(Ok((line, Update::InsertEdge(u, v, w))));
    }
    Ok(Box::new(out.into_iter()))
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    (!xs.is_empty()).then(|| percentile(&xs, 0.5))
}

/// Run `alg` once on a one-edge graph of the store's kind (`directed` or not, weights
/// `weight`: none, i32 or f64), so that a query the store's graphs cannot answer (SSSP on an
/// unweighted graph, triangle counting on a directed one) is refused before the data
/// directory is created or any update is sent.
fn check_query(alg: Algorithm, directed: bool, weight: &str) -> Result<()> {
    fn one_edge<W: Weight>(directed: bool) -> AnyGraph
    where
        AnyFlat: From<FlatSnapshot<W>>,
    {
        let mut g = CTreeGraph::<W>::new(weald::storage::ctree::CTreeOptions {
            directed,
            ..Default::default()
        });
        g.insert_edges_mut(&[(0, 1, W::parse("1").unwrap_or_default())], Combine::Last);
        AnyGraph::CTree(AnyFlat::from(FlatSnapshot::new(&g)), None)
    }
    let g = match weight {
        "i32" => one_edge::<i32>(directed),
        "f64" => one_edge::<f64>(directed),
        _ => one_edge::<()>(directed),
    };
    runner::run(&g, alg, &RunParams::default())
        .map(|_| ())
        .map_err(|e| WealdError::Invalid(format!("--query {}: {e}", alg.name())))
}

/// One query on a snapshot of the newest version; returns its seconds (flattening included),
/// or `None` when the version has no edge and nothing was run (a version before the first
/// insertion, or one a window emptied): such a query is counted apart, not timed as zero.
fn query_once<W: Weight>(
    snap: &weald::storage::ctree::Snapshot<W>,
    alg: Algorithm,
    seed: u64,
) -> Result<Option<f64>>
where
    AnyFlat: From<FlatSnapshot<W>>,
{
    let t = Instant::now();
    // The querying thread is not a pool worker: enter the pool once per query, not once per
    // parallel loop (`in_pool`).
    let (g, ran) = weald::graph::parallel::in_pool(|| -> Result<(AnyGraph, bool)> {
        let g = AnyGraph::of_version(snap.graph())?;
        if g.num_arcs() == 0 {
            return Ok((g, false));
        }
        let params = RunParams {
            seed,
            ..RunParams::default()
        };
        runner::run(&g, alg, &params)?;
        Ok((g, true))
    })?;
    let secs = ran.then(|| t.elapsed().as_secs_f64());
    drop(g); // freeing the flat snapshot is not timed, as before
    Ok(secs)
}

/// The queries of one phase: the seconds of those that ran, and how many found the version
/// without an edge (not run, not timed).
#[derive(Default)]
struct Queries {
    secs: Vec<f64>,
    on_empty: usize,
}

impl Queries {
    fn add(&mut self, secs: Option<f64>) {
        match secs {
            Some(s) => self.secs.push(s),
            None => self.on_empty += 1,
        }
    }
}

fn drive<W: Weight>(
    store: Store<W>,
    source: Source<W>,
    a: &StreamArgs,
    query: Option<Algorithm>,
    query_every: Duration,
    quiet: bool,
) -> Result<ExitCode>
where
    AnyCsr: From<Csr<W>>,
    AnyFlat: From<FlatSnapshot<W>>,
{
    let rec = store.recovery().clone();
    let producer = store.producer();
    let done = AtomicBool::new(false);
    let start = Instant::now();
    let spin = Spinner::new(quiet, "streaming");
    // Ingest starts once the first query has its snapshot, so at least one query runs
    // concurrently with ingest however short the stream.
    let first_query = std::sync::Barrier::new(2);
    let (sent, input_error, concurrent) = std::thread::scope(|sc| {
        let querier = query.map(|alg| {
            let (store, done, first_query) = (&store, &done, &first_query);
            sc.spawn(move || -> Result<Queries> {
                let mut q = Queries::default();
                let mut seed = 1;
                let mut snap = store.acquire();
                first_query.wait();
                loop {
                    q.add(query_once(&snap, alg, seed)?);
                    drop(snap);
                    seed += 1;
                    if !query_every.is_zero() {
                        std::thread::sleep(query_every);
                    }
                    if done.load(Ordering::Acquire) {
                        break;
                    }
                    snap = store.acquire();
                }
                Ok(q)
            })
        });
        if querier.is_some() {
            first_query.wait();
        }
        let mut sent = 0u64;
        let mut input_error = None;
        for item in source {
            match item {
                Ok((line, u)) => {
                    if let Some(r) = a.rate {
                        let due = start + Duration::from_secs_f64(sent as f64 / r);
                        let now = Instant::now();
                        if due > now {
                            std::thread::sleep(due - now);
                        }
                    }
                    if let Err(e) = producer.send_tagged(vec![u], line, false) {
                        input_error = Some(e);
                        break;
                    }
                    sent += 1;
                }
                Err(e) => {
                    input_error = Some(e);
                    break;
                }
            }
        }
        // Wait until everything sent is visible, then stop the querier.
        let flushed = producer.flush().and_then(|t| t.wait());
        done.store(true, Ordering::Release);
        let concurrent = querier.map(|q| q.join().expect("query thread panicked"));
        (sent, input_error.or(flushed.err()), concurrent)
    });
    let ingest_s = start.elapsed().as_secs_f64();
    drop(spin);
    if a.checkpoint_at_end && input_error.is_none() {
        store.checkpoint()?.wait()?;
    }
    let concurrent = concurrent.transpose()?;
    // The same number of queries (at most 20) on the final version with nothing else running.
    let isolated = match (&concurrent, query) {
        (Some(c), Some(alg)) => {
            let snap = store.acquire();
            let mut q = Queries::default();
            for i in 0..c.secs.len().clamp(1, 20) {
                q.add(query_once(&snap, alg, i as u64 + 1)?);
            }
            Some(q)
        }
        _ => None,
    };
    let version = store.version();
    let final_graph = store.acquire();
    let (arcs, edges) = (
        weald::Graph::num_arcs(final_graph.graph()),
        weald::Graph::num_edges(final_graph.graph()),
    );
    drop(final_graph);
    let failure = store.failure();
    let stats = store.close();
    let stats = match (stats, input_error) {
        (_, Some(e)) => {
            return Err(WealdError::Invalid(format!(
                "{e} (updates before it were committed: the store is at version {version})"
            )))
        }
        (Err(e), None) => return Err(e),
        (Ok(s), None) => s,
    };
    debug_assert!(failure.is_none());
    let vis = stats.visibility_us();
    let obj = json!({
        "data": a.data,
        "created": rec.created,
        "recovered_version": rec.version,
        "version": version,
        "updates": sent,
        "batches": stats.batches,
        "checkpoints": stats.checkpoints,
        "fsync": a.fsync,
        "threads": rayon::current_num_threads(),
        "ingest_s": ingest_s,
        "updates_per_s": if ingest_s > 0.0 { sent as f64 / ingest_s } else { 0.0 },
        "visibility_latency_us": {"p50": percentile(&vis, 0.5), "p99": percentile(&vis, 0.99),
                                  "max": vis.last()},
        "query": a.query,
        "queries": concurrent.as_ref().map(|c| c.secs.len()),
        "queries_on_empty": concurrent.as_ref().map(|c| c.on_empty),
        "query_latency_s": {"concurrent": concurrent.and_then(|c| median(c.secs)),
                            "isolated": isolated.and_then(|c| median(c.secs))},
        "edges": edges,
        "arcs": arcs,
    });
    print_obj(&obj, a.json);
    Ok(ExitCode::SUCCESS)
}

fn print_obj(obj: &Value, as_json: bool) {
    if as_json {
        println!("{obj}");
        return;
    }
    fn flat(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    flat(&key, x, out);
                }
            }
            Value::Null => out.push((prefix.to_string(), "-".into())),
            _ => out.push((
                prefix.to_string(),
                v.to_string().trim_matches('"').to_string(),
            )),
        }
    }
    let mut rows = Vec::new();
    flat("", obj, &mut rows);
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, v) in rows {
        println!("{k:<w$}  {v}");
    }
}

fn report_json(dir: &Path, r: &RecoveryReport, m: &Manifest) -> Value {
    json!({
        "data": dir,
        "weight_type": m.weight,
        "directed": m.layout.directed,
        "chunk_b": m.layout.b,
        "version": r.version,
        "tag": r.tag,
        "arcs": r.arcs,
        "checkpoint_version": r.checkpoint_version,
        "checkpoint": r.checkpoint,
        "bad_checkpoints": r.bad_checkpoints.iter().map(|(p, why)| json!({"file": p, "reason": why})).collect::<Vec<_>>(),
        "records_replayed": r.records_replayed,
        "updates_replayed": r.updates_replayed,
        "batches_applied": r.batches_applied,
        "log_segments": r.log_segments,
        "dropped": r.dropped.as_ref().map(|d| json!({
            "segment": d.segment, "offset": d.offset, "bytes": d.bytes, "reason": d.reason,
            "inside": d.inside, "set_aside": d.set_aside})),
        "recovery_s": r.elapsed.as_secs_f64(),
    })
}

#[derive(Args, Debug)]
pub struct RecoverArgs {
    #[arg(long)]
    data: PathBuf,
    /// Keep the valid prefix of a log damaged inside (not just at its tail) and set the rest
    /// aside (as *.wal.damaged files) instead of refusing.
    #[arg(long)]
    salvage: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

pub fn recover(a: RecoverArgs, quiet: bool) -> Result<ExitCode> {
    let spin = Spinner::new(quiet, "recovering");
    let store = AnyStore::open(
        &a.data,
        StoreOptions {
            salvage: a.salvage,
            ..StoreOptions::default()
        },
    )?;
    drop(spin);
    let obj = report_json(&a.data, store.recovery(), store.manifest());
    store.close()?;
    print_obj(&obj, a.json);
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct VersionsArgs {
    #[arg(long)]
    data: PathBuf,
    /// Pin a version by name: `NAME=VERSION` (kept on disk until unpinned).
    #[arg(long)]
    pin: Option<String>,
    /// Remove a pin.
    #[arg(long)]
    unpin: Option<String>,
    /// One JSON array on stdout.
    #[arg(long)]
    json: bool,
}

pub fn versions(a: VersionsArgs, _quiet: bool) -> Result<ExitCode> {
    let store = AnyStore::open(&a.data, StoreOptions::default())?;
    warn_dropped(&a.data, store.recovery());
    if let Some(p) = &a.pin {
        let (name, v) = p
            .split_once('=')
            .and_then(|(n, v)| Some((n, v.parse::<u64>().ok()?)))
            .ok_or_else(|| WealdError::Invalid(format!("--pin `{p}`: expected NAME=VERSION")))?;
        weald::with_store!(&store, s => s.pin(name, v))?;
    }
    if let Some(n) = &a.unpin {
        weald::with_store!(&store, s => s.unpin(n))?;
    }
    let vs = store.versions()?;
    store.close()?;
    if a.json {
        let arr: Vec<Value> = vs
            .iter()
            .map(|v| {
                json!({"version": v.version, "time_ns": v.time_ns, "time": format_time_ns(v.time_ns),
                       "tag": v.tag, "arcs": v.arcs,
                       "edges": v.edges, "pins": v.pins, "in_memory": v.in_memory, "on_disk": v.on_disk})
            })
            .collect();
        println!("{}", Value::Array(arr));
    } else {
        println!(
            "{:>10}  {:<30} {:>12} {:>12} {:>10}  pins",
            "version", "commit time (UTC)", "edges", "tag", "on disk"
        );
        for v in vs {
            println!(
                "{:>10}  {:<30} {:>12} {:>12} {:>10}  {}",
                v.version,
                format_time_ns(v.time_ns),
                v.edges,
                v.tag,
                v.on_disk,
                v.pins.join(",")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The output file.
    #[arg(long)]
    out: PathBuf,
    /// Output format (default: by extension): edgelist, ligra, binary.
    #[arg(long)]
    format: Option<String>,
}

pub fn export(a: ExportArgs, quiet: bool) -> Result<ExitCode> {
    let dir = a
        .data
        .data
        .clone()
        .ok_or_else(|| WealdError::Invalid("--data is required".into()))?;
    let (_, g, _) = a.data.graph(&dir, quiet)?;
    let format = crate::commands::out_format(&a.out, a.format.as_deref(), "--format")?;
    weald::io::save(&g.to_csr(), &a.out, Some(format))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct BenchStreamArgs {
    /// The graph (loaded into C-trees; Aspen used RMAT scale 20 symmetrised).
    file: PathBuf,
    /// concurrent (visibility latency and BFS under ingest), ingest (batches through the log
    /// vs. no log), or recovery (reopen a store whose log holds --log-updates updates).
    #[arg(long, default_value = "concurrent")]
    experiment: String,
    /// Log policy of the store: always, interval, never; `none` (ingest only): no log at all.
    #[arg(long, default_value = "never")]
    fsync: String,
    /// Edges sampled for the update stream (90% re-inserted, 10% deleted).
    #[arg(long, default_value_t = 2_000_000)]
    sample: usize,
    /// concurrent: stream only the first this many updates (each is acknowledged before the
    /// next is sent).
    #[arg(long)]
    limit: Option<usize>,
    /// concurrent: no BFS thread (visibility latency alone).
    #[arg(long)]
    no_query: bool,
    /// ingest and recovery: updates per batch.
    #[arg(long, default_value_t = 100_000)]
    batch: usize,
    /// recovery: updates in the log.
    #[arg(long, default_value_t = 10_000_000)]
    log_updates: usize,
    /// Where the experiment's data directory goes (removed afterwards).
    #[arg(long)]
    dir: Option<PathBuf>,
    #[arg(long, default_value_t = 3)]
    trials: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn bench_stream(a: BenchStreamArgs, quiet: bool) -> Result<ExitCode> {
    crate::commands::check_trials(a.trials)?;
    let lg = a.load.load_ctree(&a.file, quiet)?;
    let dir = a.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("weald-bench-stream-{}", std::process::id()))
    });
    let out = match &lg.graph {
        AnyGraph::CTree(AnyFlat::Unweighted(f), _) => {
            bench_stream_typed(f.graph(), &a, &dir, quiet)
        }
        AnyGraph::CTree(AnyFlat::Int(f), _) => bench_stream_typed(f.graph(), &a, &dir, quiet),
        AnyGraph::CTree(AnyFlat::Float(f), _) => bench_stream_typed(f.graph(), &a, &dir, quiet),
        AnyGraph::Csr(_) => unreachable!("loaded into C-trees"),
    };
    if dir.exists() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let mut obj = out?;
    obj["file"] = json!(a.file);
    obj["vertices"] = json!(lg.graph.num_vertices());
    obj["edges"] = json!(lg.graph.num_edges());
    obj["threads"] = json!(rayon::current_num_threads());
    print_obj(&obj, a.json);
    Ok(ExitCode::SUCCESS)
}

fn bench_stream_typed<W: Weight>(
    g: &CTreeGraph<W>,
    a: &BenchStreamArgs,
    dir: &Path,
    quiet: bool,
) -> Result<Value>
where
    AnyCsr: From<Csr<W>>,
{
    use weald::experiments::stream as exp;
    let spin = Spinner::new(quiet, "preparing the update stream");
    let w = exp::Workload::aspen(g, a.sample, a.seed)?;
    drop(spin);
    let trials = a.trials;
    let fsync = || a.fsync.parse::<Fsync>();
    let spin = Spinner::new(quiet, &format!("{} experiment", a.experiment));
    let obj = match a.experiment.as_str() {
        "concurrent" => {
            let limit = a.limit.unwrap_or(usize::MAX);
            let mut runs = Vec::new();
            for t in 0..trials {
                let seed = a.seed + t as u64;
                runs.push(exp::concurrent(
                    &w,
                    dir,
                    fsync()?,
                    limit,
                    !a.no_query,
                    seed,
                )?);
            }
            let p50: Vec<f64> = runs.iter().map(|r| r.visibility_p50_us / 1e6).collect();
            let (conc, iso): (Vec<f64>, Vec<f64>) = (
                runs.iter()
                    .flat_map(|r| r.bfs_concurrent_s.clone())
                    .collect(),
                runs.iter().flat_map(|r| r.bfs_isolated_s.clone()).collect(),
            );
            let (mc, mi) = (median(conc.clone()), median(iso.clone()));
            // The slowdown is paired: each concurrent run against the isolated runs from its
            // source (sources differ by several times); the ratio of the two medians is kept
            // for comparison with earlier runs.
            let ratios: Vec<f64> = runs.iter().flat_map(|r| r.bfs_ratios.clone()).collect();
            let slowdown = median(ratios.clone()).map(|r| r - 1.0);
            let unpaired = mc.zip(mi).map(|(c, i)| c / i - 1.0);
            let ups = runs[0].updates as f64;
            let per_s = median(runs.iter().map(|r| ups / r.seconds).collect());
            let note = format!(
                "{} updates one at a time; visibility p50 {:.1} µs, p99 {:.1} µs, mean {:.1} µs; {}",
                runs[0].updates,
                median(runs.iter().map(|r| r.visibility_p50_us).collect()).unwrap_or(f64::NAN),
                median(runs.iter().map(|r| r.visibility_p99_us).collect()).unwrap_or(f64::NAN),
                median(runs.iter().map(|r| r.visibility_mean_us).collect()).unwrap_or(f64::NAN),
                match (mc, mi, slowdown, unpaired) {
                    (Some(c), Some(i), Some(s), Some(u)) => format!(
                        "BFS {:.1} ms concurrent ({} runs) vs {:.1} ms isolated ({} runs); \
                         slowdown {:+.1}% paired by source ({:+.1}% as the ratio of the medians)",
                        c * 1e3,
                        conc.len(),
                        i * 1e3,
                        iso.len(),
                        s * 1e2,
                        u * 1e2
                    ),
                    _ => "no BFS".into(),
                }
            );
            json!({
                "experiment": "concurrent", "fsync": a.fsync, "updates": runs[0].updates,
                "times": p50,
                "updates_per_s": per_s,
                "visibility_latency_us": {
                    "p50": runs.iter().map(|r| r.visibility_p50_us).collect::<Vec<_>>(),
                    "p99": runs.iter().map(|r| r.visibility_p99_us).collect::<Vec<_>>(),
                    "mean": runs.iter().map(|r| r.visibility_mean_us).collect::<Vec<_>>(),
                    "max": runs.iter().map(|r| r.visibility_max_us).collect::<Vec<_>>()},
                "bfs_s": {"concurrent": conc, "isolated": iso, "paired_ratios": ratios,
                          "concurrent_median": mc, "isolated_median": mi, "slowdown": slowdown,
                          "slowdown_of_medians": unpaired},
                "check": {"note": note},
            })
        }
        "ingest" => {
            let log = match a.fsync.as_str() {
                "none" => None,
                _ => Some(fsync()?),
            };
            let mut secs = Vec::new();
            for _ in 0..trials {
                secs.push(exp::ingest(&w, log.map(|f| (dir, f)), a.batch)?);
            }
            let n = w.updates.len();
            json!({
                "experiment": "ingest", "fsync": a.fsync, "batch": a.batch, "updates": n,
                "times": secs,
                "updates_per_s": median(secs.iter().map(|s| n as f64 / s).collect()),
                "check": {"size": n, "note": format!("{n} updates in batches of {}", a.batch)},
            })
        }
        "recovery" => {
            let mut runs = Vec::new();
            for t in 0..trials {
                runs.push(exp::recovery(
                    &w,
                    dir,
                    a.log_updates,
                    a.batch,
                    a.seed + t as u64,
                )?);
            }
            let r = &runs[0];
            json!({
                "experiment": "recovery", "updates": r.updates, "log_bytes": r.log_bytes,
                "records_replayed": r.records_replayed, "updates_replayed": r.updates_replayed,
                "batches_applied": r.batches_applied,
                "times": runs.iter().map(|r| r.recover_s).collect::<Vec<_>>(),
                "write_s": runs.iter().map(|r| r.write_s).collect::<Vec<_>>(),
                "check": {"note": format!(
                    "checkpoint of the base graph + a log of {} updates ({:.0} MiB, {} records) replayed in {} batches; recovered arc count = written arc count",
                    r.updates_replayed, r.log_bytes as f64 / (1 << 20) as f64, r.records_replayed, r.batches_applied)},
            })
        }
        x => {
            return Err(WealdError::Invalid(format!(
                "unknown experiment `{x}` (expected concurrent, ingest or recovery)"
            )))
        }
    };
    drop(spin);
    Ok(obj)
}
