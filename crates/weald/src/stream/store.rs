//! [`Store`]: a durable, versioned C-tree graph in a data directory, fed by producers.

use super::checkpoint::{self, CheckpointMeta};
use super::history::{format_time_ns, History, Kept, Retention, VersionInfo};
use super::replay::Replay;
use super::update::{BatchBuilder, Update};
use super::wal::{self, Fsync, Wal, WalOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use weald_graph::batch::Combine;
use weald_graph::{BatchResult, Graph, Result, WealdError, Weight};
use weald_storage::csr::{AnyCsr, Csr};
use weald_storage::ctree::{CTreeGraph, CTreeOptions, Snapshot, VersionedGraph};

/// The data directory's format version (the `WEALD` manifest).
pub const DATA_FORMAT: u32 = 1;
const MANIFEST: &str = "WEALD";
const MANIFEST_HEAD: &str = "weald data directory";

/// What a data directory holds; fixed when it is created.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub directed: bool,
    /// Directed graphs also keep in-edges.
    pub in_edges: bool,
    /// The C-tree chunk parameter.
    pub b: u32,
    /// How an inserted edge that is already present combines its weight with the old one.
    pub combine: Combine,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            directed: false,
            in_edges: true,
            b: weald_storage::ctree::DEFAULT_B,
            combine: Combine::Last,
        }
    }
}

fn combine_name(c: Combine) -> &'static str {
    match c {
        Combine::Min => "min",
        Combine::Max => "max",
        Combine::Sum => "sum",
        Combine::First => "first",
        Combine::Last => "last",
    }
}

/// The manifest of a data directory: its layout and weight type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub layout: Layout,
    /// `none`, `i32` or `f64`.
    pub weight: String,
}

impl Manifest {
    fn render(&self) -> String {
        let l = &self.layout;
        format!(
            "{MANIFEST_HEAD}\nformat {DATA_FORMAT}\nweight {}\ndirected {}\nin_edges {}\nb {}\ncombine {}\n",
            self.weight,
            l.directed,
            l.in_edges,
            l.b,
            combine_name(l.combine)
        )
    }

    /// Read the manifest of `dir`, with a clear error for a directory that is not Weald's or
    /// was written by a newer Weald.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST);
        if !dir.is_dir() {
            return Err(WealdError::Invalid(format!(
                "{}: {}",
                dir.display(),
                if dir.exists() {
                    "a file, not a data directory (one written by `weald stream`)"
                } else {
                    "no such data directory"
                }
            )));
        }
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(WealdError::Format {
                    path: dir.to_path_buf(),
                    message: format!("not a Weald data directory (it has no {MANIFEST} file)"),
                })
            }
            Err(e) => return Err(WealdError::io(&path, e)),
        };
        let ferr = |m: String| WealdError::Format {
            path: path.clone(),
            message: m,
        };
        let mut lines = text.lines();
        if lines.next() != Some(MANIFEST_HEAD) {
            return Err(ferr("not a Weald data directory manifest".into()));
        }
        let mut kv = BTreeMap::new();
        for l in lines {
            if let Some((k, v)) = l.split_once(' ') {
                kv.insert(k.to_string(), v.to_string());
            }
        }
        let get = |k: &str| {
            kv.get(k)
                .ok_or_else(|| ferr(format!("missing field `{k}`")))
        };
        let format: u32 = get("format")?
            .parse()
            .map_err(|_| ferr("bad `format`".into()))?;
        if format > DATA_FORMAT {
            return Err(ferr(format!(
                "data directory format {format} is newer than this build of Weald reads (up to {DATA_FORMAT}); upgrade Weald"
            )));
        }
        let flag = |k: &str| -> Result<bool> {
            get(k)?
                .parse()
                .map_err(|_| ferr(format!("`{k}` must be true or false")))
        };
        let weight = get("weight")?.clone();
        if !["none", "i32", "f64"].contains(&weight.as_str()) {
            return Err(ferr(format!("unknown weight type `{weight}`")));
        }
        Ok(Manifest {
            layout: Layout {
                directed: flag("directed")?,
                in_edges: flag("in_edges")?,
                b: get("b")?
                    .parse()
                    .ok()
                    .filter(|&b| b >= 1)
                    .ok_or_else(|| ferr("bad `b`".into()))?,
                combine: get("combine")?.parse().map_err(ferr)?,
            },
            weight,
        })
    }
}

/// A function the writer calls (from its own thread).
pub type Callback<T> = Arc<dyn Fn(&T) + Send + Sync>;

/// How a store runs; none of these is fixed on disk.
#[derive(Clone)]
pub struct StoreOptions {
    pub fsync: Fsync,
    /// A batch is sealed once it holds this many updates (a message is never split, so a
    /// larger message makes a larger batch)...
    pub batch_size: usize,
    /// ...or this long after its first update arrived; `Duration::ZERO` (the default) seals it
    /// as soon as no further update is waiting (adaptive group commit: lowest latency, and
    /// batches grow by themselves when producers are faster than the writer).
    pub max_wait: Duration,
    /// Rotate to a new log segment once the active one reaches this many bytes.
    pub segment_bytes: u64,
    /// Start a background checkpoint after this many updates since the last one (0: only on
    /// request).
    pub checkpoint_every: u64,
    pub retention: Retention,
    /// At open, keep the valid prefix of a log that is damaged *inside* (not just a torn tail)
    /// and set the rest aside, instead of refusing to open.
    pub salvage: bool,
    /// Called by the writer after each batch is visible and acknowledged.
    pub on_commit: Option<Callback<Commit>>,
    /// Called on checkpoints and log rotations.
    pub on_event: Option<Callback<Event>>,
    /// Testing only: every log write fails (as on a full disk) once this many record bytes
    /// were written by this process.
    #[doc(hidden)]
    pub fail_after_bytes: Option<u64>,
    /// Testing only: with `Fsync::Interval`, every background `fsync` fails.
    #[doc(hidden)]
    pub fail_background_sync: bool,
    /// Testing only: background checkpoints sleep this long between writing their temporary
    /// file and installing it (so a crash test can kill the process in that window).
    #[doc(hidden)]
    pub checkpoint_pause: Option<Duration>,
    /// Testing only: a log record limit below the format's 1 GiB (a batch is sealed before its
    /// record would exceed it; a larger message is refused).
    #[doc(hidden)]
    pub max_record_bytes: Option<u32>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            fsync: Fsync::default(),
            batch_size: 100_000,
            max_wait: Duration::ZERO,
            segment_bytes: 64 << 20,
            checkpoint_every: 10_000_000,
            retention: Retention::default(),
            salvage: false,
            on_commit: None,
            on_event: None,
            fail_after_bytes: None,
            fail_background_sync: false,
            checkpoint_pause: None,
            max_record_bytes: None,
        }
    }
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOptions")
            .field("fsync", &self.fsync)
            .field("batch_size", &self.batch_size)
            .field("max_wait", &self.max_wait)
            .field("segment_bytes", &self.segment_bytes)
            .field("checkpoint_every", &self.checkpoint_every)
            .field("retention", &self.retention)
            .field("salvage", &self.salvage)
            .finish_non_exhaustive()
    }
}

/// One committed batch.
#[derive(Clone, Debug)]
pub struct Commit {
    pub version: u64,
    pub time_ns: u64,
    /// The largest tag among the batch's messages (carried over from the batch before if none
    /// is tagged). Messages are never split between batches.
    pub tag: u64,
    pub updates: u64,
    pub result: BatchResult,
}

/// Something the store did in the background.
#[derive(Clone, Debug)]
pub enum Event {
    CheckpointStarted(u64),
    CheckpointInstalled(u64, PathBuf),
    CheckpointFailed(u64, String),
    SegmentRotated(u64),
}

/// Log damage found at open.
#[derive(Clone, Debug, Default)]
pub struct Dropped {
    pub segment: PathBuf,
    /// Byte offset of the first bad record in `segment`.
    pub offset: u64,
    /// Bytes cut from the log (the torn tail, or everything set aside by `salvage`).
    pub bytes: u64,
    pub reason: String,
    /// Whether the damage was inside the log (with valid records after it) rather than a torn
    /// tail; only opened with `salvage`.
    pub inside: bool,
    /// Files set aside: with `salvage`, a copy of the damaged segment (whose valid prefix
    /// stays in the log) and the later segments, renamed, all `*.wal.damaged`; for a torn
    /// tail, a copy of the bytes cut (`*.wal.tail-OFFSET.damaged`).
    pub set_aside: Vec<PathBuf>,
}

/// What opening a data directory did.
#[derive(Clone, Debug, Default)]
pub struct RecoveryReport {
    /// The directory was created by this open.
    pub created: bool,
    /// The checkpoint recovery started from.
    pub checkpoint_version: u64,
    pub checkpoint: Option<PathBuf>,
    /// Newer checkpoints that could not be read, with the reason.
    pub bad_checkpoints: Vec<(PathBuf, String)>,
    pub records_replayed: u64,
    pub updates_replayed: u64,
    /// C-tree batches the replay applied: records that no retention clause keeps are merged
    /// into large batches, so this is usually far below `records_replayed`.
    pub batches_applied: u64,
    /// The version (and its tag) the store holds after recovery.
    pub version: u64,
    pub tag: u64,
    pub arcs: u64,
    pub log_segments: usize,
    pub dropped: Option<Dropped>,
    pub elapsed: Duration,
}

/// Counters of a running store.
#[derive(Clone, Debug, Default)]
pub struct StreamStats {
    pub updates: u64,
    pub batches: u64,
    pub checkpoints: u64,
    /// Arrival → visible latency of each acknowledged message, in nanoseconds (the first
    /// 16 Mi messages).
    pub visibility_ns: Vec<u64>,
}

impl StreamStats {
    /// The visibility latencies in microseconds, ascending (for percentiles).
    pub fn visibility_us(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.visibility_ns.iter().map(|&x| x as f64 / 1e3).collect();
        v.sort_by(f64::total_cmp);
        v
    }
}

const MAX_LATENCY_SAMPLES: usize = 1 << 24;

/// How long a thread waiting for the writer (or the writer waiting for work) polls, yielding
/// its core between polls, before it sleeps: waking a sleeping thread on another core costs
/// tens of microseconds on a virtual machine — more than applying a small batch.
const SPIN: Duration = Duration::from_micros(50);

/// Call `f` until it gives a value or `spin` has passed (at least once), yielding the core
/// between calls.
fn poll_for<T>(spin: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let t0 = Instant::now();
    loop {
        if let Some(x) = f() {
            return Some(x);
        }
        if t0.elapsed() >= spin {
            return None;
        }
        std::thread::yield_now();
    }
}

/// Receive a command: at once if `wait` is zero, else poll for up to [`SPIN`], then block
/// until one arrives or `wait` (`None`: no limit) has passed.
fn recv_spinning<T>(rx: &Receiver<T>, wait: Option<Duration>) -> Result<T, RecvTimeoutError> {
    // One look: a command, the end of the channel, or nothing yet (`None`).
    let look = || match rx.try_recv() {
        Ok(c) => Some(Ok(c)),
        Err(mpsc::TryRecvError::Disconnected) => Some(Err(RecvTimeoutError::Disconnected)),
        Err(mpsc::TryRecvError::Empty) => None,
    };
    if wait == Some(Duration::ZERO) {
        // The writer's "anything more for this batch?" after each message (max_wait 0): one
        // look, no clock (the timed path below reads it four times).
        return look().unwrap_or(Err(RecvTimeoutError::Timeout));
    }
    let t0 = Instant::now();
    let got = poll_for(wait.map_or(SPIN, |d| d.min(SPIN)), look);
    if let Some(r) = got {
        return r;
    }
    match wait {
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(d) => match d.checked_sub(t0.elapsed()) {
            Some(left) if !left.is_zero() => rx.recv_timeout(left),
            _ => Err(RecvTimeoutError::Timeout),
        },
    }
}

struct Slot {
    done: Mutex<Option<std::result::Result<u64, String>>>,
    cv: Condvar,
}

impl Slot {
    fn new() -> Arc<Slot> {
        Arc::new(Slot {
            done: Mutex::new(None),
            cv: Condvar::new(),
        })
    }
    fn finish(&self, r: std::result::Result<u64, String>) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        self.cv.notify_all();
    }
}

/// An acknowledgement to wait for.
pub struct Ticket(Arc<Slot>);

impl Ticket {
    /// Block until acknowledged: the version that contains the updates (they are in the log
    /// under the fsync policy and visible to every reader that acquires from now on).
    pub fn wait(&self) -> Result<u64> {
        if let Some(r) = poll_for(SPIN, || self.try_get()) {
            return r;
        }
        let mut g = self.0.done.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(r) = g.as_ref() {
                return r.clone().map_err(WealdError::Unavailable);
            }
            g = self.0.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The acknowledgement if it has arrived.
    pub fn try_get(&self) -> Option<Result<u64>> {
        let g = self.0.done.lock().unwrap_or_else(|e| e.into_inner());
        g.as_ref()
            .map(|r| r.clone().map_err(WealdError::Unavailable))
    }
}

struct Msg<W: Weight> {
    updates: Vec<Update<W>>,
    /// The updates' encoded size in the log.
    bytes: usize,
    tag: u64,
    sent: Instant,
    ack: Option<Arc<Slot>>,
}

enum Cmd<W: Weight> {
    Updates(Msg<W>),
    /// Acknowledge once everything sent before is committed.
    Flush(Arc<Slot>),
    Checkpoint(Arc<Slot>),
    CheckpointDone(u64, std::result::Result<PathBuf, String>),
    Stop,
}

/// A handle for sending updates; clone it for every producer thread.
pub struct Producer<W: Weight> {
    tx: Sender<Cmd<W>>,
    /// The most update bytes one log record holds.
    max_bytes: usize,
}

impl<W: Weight> Clone for Producer<W> {
    fn clone(&self) -> Self {
        Producer {
            tx: self.tx.clone(),
            max_bytes: self.max_bytes,
        }
    }
}

fn closed() -> WealdError {
    WealdError::Unavailable("the store is closed".into())
}

impl<W: Weight> Producer<W> {
    /// Send one update without waiting (see [`Producer::flush`]).
    pub fn send(&self, u: Update<W>) -> Result<()> {
        self.send_tagged(vec![u], 0, false).map(|_| ())
    }

    /// Send updates and get a ticket for their acknowledgement.
    pub fn send_all(&self, us: Vec<Update<W>>) -> Result<Ticket> {
        self.send_tagged(us, 0, true).map(|t| t.unwrap())
    }

    /// Send updates labelled with `tag` (e.g. the position in an input file; commits report the
    /// largest tag they contain, and recovery reports the tag of the last recovered batch).
    /// With `ack`, returns a ticket.
    ///
    /// A message is committed whole, in one log record; one whose record would exceed the
    /// log's limit (1 GiB, at least 50 million updates) is refused here, and nothing of it is
    /// applied. Split such a message into several. So is a message naming a vertex id above
    /// [`weald_graph::MAX_VERTEX`].
    pub fn send_tagged(&self, us: Vec<Update<W>>, tag: u64, ack: bool) -> Result<Option<Ticket>> {
        if let Some(u) = us.iter().find(|u| u.max_id() > weald_graph::MAX_VERTEX) {
            return Err(WealdError::Invalid(format!(
                "vertex id {} is above the largest supported id {} (a message is committed \
                 whole: nothing of it was applied)",
                u.max_id(),
                weald_graph::MAX_VERTEX
            )));
        }
        let bytes: usize = us.iter().map(Update::encoded_len).sum();
        if bytes > self.max_bytes {
            return Err(WealdError::Invalid(format!(
                "a message of {} updates takes {bytes} bytes in the log, above the {} bytes one \
                 record holds (a message is committed whole, in one record); send it in smaller messages",
                us.len(),
                self.max_bytes
            )));
        }
        let slot = ack.then(Slot::new);
        self.tx
            .send(Cmd::Updates(Msg {
                updates: us,
                bytes,
                tag,
                sent: Instant::now(),
                ack: slot.clone(),
            }))
            .map_err(|_| closed())?;
        Ok(slot.map(Ticket))
    }

    /// A ticket acknowledged once everything this producer sent before is committed.
    pub fn flush(&self) -> Result<Ticket> {
        let s = Slot::new();
        self.tx.send(Cmd::Flush(s.clone())).map_err(|_| closed())?;
        Ok(Ticket(s))
    }
}

struct Shared<W: Weight> {
    dir: PathBuf,
    manifest: Manifest,
    vg: VersionedGraph<W>,
    history: Mutex<History<W>>,
    pins: Mutex<BTreeMap<String, u64>>,
    stats: Mutex<StreamStats>,
    failed: Mutex<Option<String>>,
    /// Held while checkpoint files are removed, and while a pin checks for, installs and
    /// records its checkpoint: a file a pin relies on is never removed under it. Holds the
    /// versions of the checkpoints recovery found unreadable (still on disk): not counted as
    /// kept by clean-up, and rewritten by a pin of their version.
    checkpoint_files: Mutex<BTreeSet<u64>>,
}

impl<W: Weight> Shared<W> {
    /// Version `v` if the in-memory history retains it: its snapshot, commit time and tag,
    /// read together (a version can leave the history at any moment).
    fn kept(&self, v: u64) -> Option<Kept<W>> {
        let h = self.history.lock().unwrap_or_else(|e| e.into_inner());
        h.kept.get(&v).cloned()
    }

    /// Stop taking updates, for `why` (the first failure is the one kept).
    fn fail(&self, why: String) {
        let mut f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some(why);
        }
    }
}

/// A durable, versioned graph in a data directory: one writer thread applies batches from any
/// number of [`Producer`]s; readers [`Store::acquire`] the newest version without waiting.
pub struct Store<W: Weight = ()> {
    shared: Arc<Shared<W>>,
    tx: Sender<Cmd<W>>,
    writer: Option<JoinHandle<()>>,
    report: RecoveryReport,
    max_bytes: usize,
    _lock: File,
}

pub(crate) fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    fs::write(&tmp, bytes)
        .and_then(|_| File::open(&tmp)?.sync_all())
        .map_err(|e| WealdError::io(&tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| WealdError::io(&path, e))?;
    wal::sync_dir(dir)
}

fn read_pins(dir: &Path) -> Result<BTreeMap<String, u64>> {
    let path = dir.join("pins");
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(WealdError::io(&path, e)),
    };
    let mut out = BTreeMap::new();
    for (i, l) in text.lines().enumerate() {
        let parsed = l
            .rsplit_once(' ')
            .and_then(|(n, v)| Some((n.to_string(), v.parse::<u64>().ok()?)));
        match parsed {
            Some((n, v)) => out.insert(n, v),
            None => {
                return Err(WealdError::parse(
                    &path,
                    i as u64 + 1,
                    "expected `name version`",
                ))
            }
        };
    }
    Ok(out)
}

fn lock_dir(dir: &Path) -> Result<File> {
    let path = dir.join("LOCK");
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| WealdError::io(&path, e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(WealdError::Invalid(format!(
            "{}: the data directory is in use by another process",
            dir.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(WealdError::io(&path, e)),
    }
}

impl<W: Weight> Store<W>
where
    AnyCsr: From<Csr<W>>,
{
    /// Create a new data directory holding `base` as version 0 (an empty graph if `None`).
    /// Fails if `dir` exists and is not empty.
    pub fn create(
        dir: &Path,
        layout: Layout,
        base: Option<CTreeGraph<W>>,
        opts: StoreOptions,
    ) -> Result<Store<W>> {
        if dir.exists()
            && fs::read_dir(dir)
                .map_err(|e| WealdError::io(dir, e))?
                .next()
                .is_some()
        {
            return Err(WealdError::Invalid(format!(
                "{}: the directory exists and is not empty; open it instead of creating it",
                dir.display()
            )));
        }
        fs::create_dir_all(dir.join("wal"))
            .and_then(|_| fs::create_dir_all(dir.join("checkpoints")))
            .map_err(|e| WealdError::io(dir, e))?;
        let lock = lock_dir(dir)?;
        let graph = base.unwrap_or_else(|| {
            CTreeGraph::new(CTreeOptions {
                directed: layout.directed,
                in_edges: layout.in_edges,
                b: layout.b,
            })
        });
        let go = graph.options();
        if go.directed != layout.directed || go.b != layout.b {
            return Err(WealdError::Invalid(
                "the base graph's direction or chunk parameter differs from the layout".into(),
            ));
        }
        checkpoint::write(
            &dir.join("checkpoints"),
            &graph,
            CheckpointMeta {
                version: 0,
                time_ns: now_ns(),
                tag: 0,
            },
            None,
        )?;
        // The manifest last: a directory without one is not a store yet.
        let manifest = Manifest {
            layout,
            weight: W::NAME.to_string(),
        };
        write_atomic(dir, MANIFEST, manifest.render().as_bytes())?;
        drop(lock);
        let mut s = Self::open(dir, opts)?;
        s.report.created = true;
        Ok(s)
    }

    /// Open (and recover) an existing data directory: the newest readable checkpoint plus the
    /// log after it. A torn log tail is cut off and reported; damage inside the log is an
    /// error unless `opts.salvage`.
    pub fn open(dir: &Path, opts: StoreOptions) -> Result<Store<W>> {
        let t0 = Instant::now();
        let manifest = Manifest::read(dir)?;
        if manifest.weight != W::NAME {
            return Err(WealdError::WeightMismatch(format!(
                "{}: the store holds {} weights, opened as {}",
                dir.display(),
                manifest.weight,
                W::NAME
            )));
        }
        let lock = lock_dir(dir)?;
        let layout = manifest.layout;
        let ckdir = dir.join("checkpoints");
        let waldir = dir.join("wal");
        let mut report = RecoveryReport::default();
        // Nothing else writes checkpoints while this process holds the lock.
        checkpoint::remove_leftovers(&ckdir)?;
        // The newest checkpoint that reads back.
        let mut base = None;
        let mut unreadable_checkpoints = BTreeSet::new();
        for (v, p) in checkpoint::list(&ckdir)?.into_iter().rev() {
            match checkpoint::read(&p).and_then(|c| from_loaded::<W>(c, &layout)) {
                Ok((g, meta)) => {
                    base = Some((g, meta, p));
                    break;
                }
                Err(e) => {
                    unreadable_checkpoints.insert(v);
                    report
                        .bad_checkpoints
                        .push((p, format!("version {v}: {e}")))
                }
            }
        }
        let Some((graph, meta, ckpath)) = base else {
            return Err(WealdError::Format {
                path: ckdir,
                message: match report.bad_checkpoints.first() {
                    Some((_, why)) => format!("no readable checkpoint ({why})"),
                    None => "no checkpoint: the data directory is incomplete".into(),
                },
            });
        };
        report.checkpoint_version = meta.version;
        report.checkpoint = Some(ckpath);
        let rule = opts.retention.clone();
        let mut history = History::new(rule);
        let pins = read_pins(dir)?;
        let is_pinned = |v: u64| pins.values().any(|&p| p == v);
        drop(history.push(
            Kept {
                snap: Snapshot::detached(graph.clone(), meta.version),
                time_ns: meta.time_ns,
                tag: meta.tag,
            },
            now_ns(),
            &is_pinned,
        ));
        let mut version = meta.version;
        let mut tag = meta.tag;
        // Replay (records no retention clause keeps are applied as merged batches).
        let mut replay = Replay::new(graph, &layout, &mut history, &is_pinned);
        let segments = wal::list_segments(&waldir)?;
        let mut last_valid_len = None;
        let mut i = 0;
        while i < segments.len() {
            let (first, path) = segments[i].clone();
            let is_last = i + 1 == segments.len();
            if !is_last && segments[i + 1].0 <= version + 1 {
                i += 1; // wholly covered by the checkpoint
                continue;
            }
            let scan = wal::read_segment::<W>(&path, first)?;
            for r in scan.records {
                if r.version <= version {
                    continue;
                }
                if r.version != version + 1 {
                    return Err(WealdError::Format {
                        path: path.clone(),
                        message: format!(
                            "the log jumps from version {version} to {}: records are missing (was a segment deleted?)",
                            r.version
                        ),
                    });
                }
                version = r.version;
                tag = r.tag;
                report.records_replayed += 1;
                report.updates_replayed += r.updates.len() as u64;
                replay.push(r);
            }
            if let Some(d) = scan.damage {
                let inside = d.valid_record_follows || !is_last;
                let mut dropped = Dropped {
                    segment: path.clone(),
                    offset: d.offset,
                    bytes: scan.file_len - scan.valid_len,
                    reason: d.reason.clone(),
                    inside,
                    set_aside: Vec::new(),
                };
                if inside {
                    let later: u64 = segments[i + 1..]
                        .iter()
                        .map(|(_, p)| fs::metadata(p).map(|m| m.len()).unwrap_or(0))
                        .sum();
                    if !opts.salvage {
                        return Err(WealdError::Format {
                            path: path.clone(),
                            message: format!(
                                "the log is damaged at byte {} ({}) and {} byte(s) of log follow it; recovered up to version {version} would lose them. Restore the file, or open with salvage (`weald recover --salvage`) to keep the log up to version {version} and set the rest aside",
                                d.offset,
                                d.reason,
                                scan.file_len - scan.valid_len + later
                            ),
                        });
                    }
                    // Salvage: keep this segment's valid prefix (its records were replayed:
                    // they must stay in the log) and set a copy of the whole segment and every
                    // later segment aside; the log continues after the prefix.
                    dropped.bytes += later;
                    let aside = path.with_extension("wal.damaged");
                    fs::copy(&path, &aside)
                        .and_then(|_| File::open(&aside)?.sync_all())
                        .map_err(|e| WealdError::io(&aside, e))?;
                    dropped.set_aside.push(aside);
                    for (_, p) in &segments[i + 1..] {
                        let aside = p.with_extension("wal.damaged");
                        fs::rename(p, &aside).map_err(|e| WealdError::io(p, e))?;
                        dropped.set_aside.push(aside);
                    }
                    wal::sync_dir(&waldir)?;
                }
                if scan.valid_len == 0 {
                    // The header itself is torn: the segment holds nothing.
                    fs::remove_file(&path).map_err(|e| WealdError::io(&path, e))?;
                    wal::sync_dir(&waldir)?;
                    last_valid_len = None;
                } else {
                    if !inside {
                        // A copy of the bytes cut (a torn write, or a damaged last record):
                        // the log loses them, the directory keeps them for inspection (never
                        // removed by Weald), durably before the cut; a second cut at the same
                        // offset gets a name of its own.
                        let aside = (0..)
                            .map(|k| {
                                let n = if k == 0 {
                                    String::new()
                                } else {
                                    format!(".{k}")
                                };
                                path.with_extension(format!("wal.tail-{}{n}.damaged", d.offset))
                            })
                            .find(|p| !p.exists())
                            .expect("a free name");
                        // Only the tail is read (a segment may hold 64 MiB before it).
                        let mut tail = Vec::new();
                        File::open(&path)
                            .and_then(|mut f| {
                                use std::io::{Read, Seek, SeekFrom};
                                f.seek(SeekFrom::Start(scan.valid_len))?;
                                f.read_to_end(&mut tail)
                            })
                            .map_err(|e| WealdError::io(&path, e))?;
                        fs::write(&aside, tail)
                            .and_then(|_| File::open(&aside)?.sync_all())
                            .map_err(|e| WealdError::io(&aside, e))?;
                        wal::sync_dir(&waldir)?;
                        dropped.set_aside.push(aside);
                    }
                    wal::truncate(&path, scan.valid_len)?;
                    last_valid_len = Some(scan.valid_len);
                }
                report.dropped = Some(dropped);
                break;
            }
            last_valid_len = Some(scan.valid_len);
            i += 1;
        }
        let (graph, batches) = replay.finish();
        report.batches_applied = batches;
        let wal_opts = WalOptions {
            fsync: opts.fsync,
            segment_bytes: opts.segment_bytes.max(1),
            fail_after_bytes: opts.fail_after_bytes,
            fail_background_sync: opts.fail_background_sync,
        };
        // Segments before the last one stay listed so that checkpoints can remove them.
        let all_segments = wal::list_segments(&waldir)?;
        let mut wal = Wal::open(&waldir, wal_opts, all_segments, last_valid_len, version + 1)?;
        if let Some(f) = opts.on_event.clone() {
            wal.on_rotate = Some(Box::new(move |first| f(&Event::SegmentRotated(first))));
        }
        report.version = version;
        report.tag = tag;
        report.arcs = graph.num_arcs() as u64;
        report.log_segments = wal.num_segments();
        report.elapsed = t0.elapsed();
        let shared = Arc::new(Shared {
            dir: dir.to_path_buf(),
            manifest,
            vg: VersionedGraph::starting_at(graph, version),
            history: Mutex::new(history),
            pins: Mutex::new(pins),
            stats: Mutex::new(StreamStats::default()),
            failed: Mutex::new(None),
            checkpoint_files: Mutex::new(unreadable_checkpoints),
        });
        // A failed background `fsync` (`interval`) stops the store at once, not at the next
        // batch: `failure` reports it, and no update written to the log after it is
        // acknowledged (a batch written just before the flusher recorded it still is).
        {
            let shared = shared.clone();
            wal.on_flush_failure(move |e| shared.fail(format!("syncing the log failed: {e}")));
        }
        let (tx, rx) = mpsc::channel();
        let max_bytes = (opts
            .max_record_bytes
            .unwrap_or(wal::MAX_RECORD)
            .min(wal::MAX_RECORD) as usize)
            .saturating_sub(wal::PAYLOAD_FIXED_BYTES);
        let writer = {
            let shared = shared.clone();
            let tx = tx.clone();
            std::thread::Builder::new()
                .name("weald-writer".into())
                .spawn(move || {
                    Writer {
                        shared,
                        wal,
                        opts,
                        rx,
                        tx,
                        next_tag: tag,
                        since_checkpoint: report.updates_replayed,
                        checkpointing: None,
                        checkpoint_waiters: Vec::new(),
                        last_checkpoint: meta.version,
                        max_bytes,
                    }
                    .run()
                })
                .map_err(WealdError::RawIo)?
        };
        Ok(Store {
            shared,
            tx,
            writer: Some(writer),
            report,
            max_bytes,
            _lock: lock,
        })
    }

    /// What opening the directory did.
    pub fn recovery(&self) -> &RecoveryReport {
        &self.report
    }

    /// The directory's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.shared.manifest
    }

    /// A new producer handle.
    pub fn producer(&self) -> Producer<W> {
        Producer {
            tx: self.tx.clone(),
            max_bytes: self.max_bytes,
        }
    }

    /// The newest version. Wait-free.
    pub fn acquire(&self) -> Snapshot<W> {
        self.shared.vg.acquire()
    }

    /// The newest version number.
    pub fn version(&self) -> u64 {
        self.shared.vg.version()
    }

    /// Why the store stopped accepting updates, if it did.
    pub fn failure(&self) -> Option<String> {
        self.shared
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Counters so far.
    pub fn stats(&self) -> StreamStats {
        self.shared
            .stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Write a checkpoint of the newest version (in the background; the ticket is acknowledged
    /// when it is installed, with its version).
    pub fn checkpoint(&self) -> Result<Ticket> {
        let s = Slot::new();
        self.tx
            .send(Cmd::Checkpoint(s.clone()))
            .map_err(|_| closed())?;
        Ok(Ticket(s))
    }

    /// The retained versions, oldest first (in memory, and pinned ones on disk).
    pub fn versions(&self) -> Result<Vec<VersionInfo>> {
        let pins = self
            .shared
            .pins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let on_disk: BTreeMap<u64, PathBuf> =
            checkpoint::list(&self.shared.dir.join("checkpoints"))?
                .into_iter()
                .collect();
        let mut out: BTreeMap<u64, VersionInfo> = BTreeMap::new();
        let names = |v: u64| -> Vec<String> {
            pins.iter()
                .filter(|(_, &p)| p == v)
                .map(|(n, _)| n.clone())
                .collect()
        };
        {
            let h = self
                .shared
                .history
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            for (&v, k) in &h.kept {
                out.insert(
                    v,
                    VersionInfo {
                        version: v,
                        time_ns: k.time_ns,
                        tag: k.tag,
                        arcs: k.snap.num_arcs() as u64,
                        edges: k.snap.num_edges() as u64,
                        pins: names(v),
                        in_memory: true,
                        on_disk: on_disk.contains_key(&v),
                    },
                );
            }
        }
        for &v in pins.values() {
            if out.contains_key(&v) {
                continue;
            }
            if let Some(p) = on_disk.get(&v) {
                let c = checkpoint::read(p)?;
                out.insert(
                    v,
                    VersionInfo {
                        version: v,
                        time_ns: c.meta.time_ns,
                        tag: c.meta.tag,
                        arcs: c.graph.num_arcs() as u64,
                        edges: c.graph.num_edges() as u64,
                        pins: names(v),
                        in_memory: false,
                        on_disk: true,
                    },
                );
            }
        }
        Ok(out.into_values().collect())
    }

    /// The graph as of `version` (retained in memory, or pinned on disk).
    pub fn snapshot_at(&self, version: u64) -> Result<Snapshot<W>> {
        if let Some(k) = self.shared.kept(version) {
            return Ok(k.snap);
        }
        let pinned = self
            .shared
            .pins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .any(|&v| v == version);
        let path = self
            .shared
            .dir
            .join("checkpoints")
            .join(checkpoint::file_name(version));
        if pinned && path.exists() {
            let (g, meta) =
                from_loaded::<W>(checkpoint::read(&path)?, &self.shared.manifest.layout)?;
            return Ok(Snapshot::detached(g, meta.version));
        }
        let kept: Vec<u64> = self.versions()?.iter().map(|v| v.version).collect();
        let newest = self.version();
        Err(WealdError::Invalid(if version > newest {
            format!("version {version} does not exist yet: the newest is {newest}")
        } else {
            format!(
                "version {version} is not retained (retained: {})",
                summarize(&kept)
            )
        }))
    }

    /// The newest retained version committed at or before `time_ns` (ns since the epoch).
    pub fn snapshot_at_time(&self, time_ns: u64) -> Result<Snapshot<W>> {
        let vs = self.versions()?;
        match vs.iter().rev().find(|v| v.time_ns <= time_ns) {
            Some(v) => self.snapshot_at(v.version),
            None => Err(WealdError::Invalid(format!(
                "no retained version was committed at or before {} ({time_ns} ns since the epoch; oldest retained: {})",
                format_time_ns(time_ns),
                vs.first().map_or("none".to_string(), |v| format!(
                    "version {} at {}",
                    v.version,
                    format_time_ns(v.time_ns)
                ))
            ))),
        }
    }

    /// Pin `version` under `name`: it is kept (on disk, as a checkpoint) until unpinned.
    pub fn pin(&self, name: &str, version: u64) -> Result<()> {
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(WealdError::Invalid(format!(
                "pin name `{name}` must be non-empty and without spaces"
            )));
        }
        // The version with its commit time and tag. One that is not in memory is pinned on
        // disk already (`snapshot_at` read it), so nothing is written for it.
        let (snap, time_ns, tag) = match self.shared.kept(version) {
            Some(k) => (k.snap, k.time_ns, k.tag),
            None => (self.snapshot_at(version)?, 0, 0),
        };
        let ckdir = self.shared.dir.join("checkpoints");
        let path = ckdir.join(checkpoint::file_name(version));
        let files = || {
            self.shared
                .checkpoint_files
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        };
        // A file recovery could not read does not count: it is rewritten.
        let usable = |unreadable: &BTreeSet<u64>| path.exists() && !unreadable.contains(&version);
        let mut tmp = None;
        loop {
            if tmp.is_none() && !usable(&files()) {
                // Written without holding the lock: the writer's clean-up may wait for it.
                let meta = CheckpointMeta {
                    version,
                    time_ns,
                    tag,
                };
                tmp = Some(checkpoint::write_tmp(&ckdir, snap.graph(), meta)?);
            }
            let mut unreadable = files();
            if let Some(t) = tmp.take() {
                checkpoint::install(&ckdir, &t, version)?;
                unreadable.remove(&version);
            } else if !usable(&unreadable) {
                continue; // removed since it was seen (its version was no longer needed)
            }
            // The file exists and cannot be removed before the pin is recorded.
            let mut pins = self.shared.pins.lock().unwrap_or_else(|e| e.into_inner());
            pins.insert(name.to_string(), version);
            return write_atomic(&self.shared.dir, "pins", render_pins(&pins).as_bytes());
        }
    }

    /// Remove a pin (its checkpoint is deleted at the next checkpoint unless still needed).
    pub fn unpin(&self, name: &str) -> Result<()> {
        let mut pins = self.shared.pins.lock().unwrap_or_else(|e| e.into_inner());
        if pins.remove(name).is_none() {
            return Err(WealdError::Invalid(format!("no pin named `{name}`")));
        }
        write_atomic(&self.shared.dir, "pins", render_pins(&pins).as_bytes())
    }

    /// Stop: commit what was sent, wait for a running checkpoint, sync the log, and return the
    /// final counters.
    pub fn close(mut self) -> Result<StreamStats> {
        self.stop();
        match self.failure() {
            Some(f) => Err(WealdError::Unavailable(f)),
            None => Ok(self.stats()),
        }
    }

    fn stop(&mut self) {
        if let Some(w) = self.writer.take() {
            let _ = self.tx.send(Cmd::Stop);
            let _ = w.join();
        }
    }
}

impl<W: Weight> Drop for Store<W> {
    fn drop(&mut self) {
        if let Some(w) = self.writer.take() {
            let _ = self.tx.send(Cmd::Stop);
            let _ = w.join();
        }
    }
}

/// Batches of at least this many updates are applied on a pool worker: their updates run
/// parallel loops, and the writer (or the recovering thread) is not a worker. Smaller ones
/// start none, and entering the pool would cost them more than their own work.
const IN_POOL_UPDATES: usize = 64;

/// Apply `ups` as if one by one, in order, as one new graph: runs of updates whose effect does
/// not depend on their order within the run go through one batch each.
pub(crate) fn apply_in_order<W: Weight>(
    g: &CTreeGraph<W>,
    ups: &[Update<W>],
    layout: &Layout,
) -> (CTreeGraph<W>, BatchResult) {
    if ups.len() >= IN_POOL_UPDATES {
        weald_graph::parallel::in_pool(|| apply_runs(g, ups, layout))
    } else {
        apply_runs(g, ups, layout)
    }
}

fn apply_runs<W: Weight>(
    g: &CTreeGraph<W>,
    ups: &[Update<W>],
    layout: &Layout,
) -> (CTreeGraph<W>, BatchResult) {
    let mut b = BatchBuilder::new(layout.directed);
    let mut g = g.clone();
    let mut total = BatchResult::default();
    // The first run path-copies what it touches (the caller's graph shares all of it); the
    // runs after it edit in place what the earlier ones copied.
    let mut run = |b: &mut BatchBuilder<W>, g: &mut CTreeGraph<W>| {
        let r = g.apply_mut(&b.take(), layout.combine);
        total.inserted += r.inserted;
        total.updated += r.updated;
        total.deleted += r.deleted;
        total.absent += r.absent;
    };
    for &u in ups {
        if !b.push(u) {
            run(&mut b, &mut g);
            let accepted = b.push(u);
            debug_assert!(accepted, "an empty batch accepts every update");
        }
    }
    if b.len() > 0 {
        run(&mut b, &mut g);
    }
    (g, total)
}

fn render_pins(pins: &BTreeMap<String, u64>) -> String {
    pins.iter().map(|(n, v)| format!("{n} {v}\n")).collect()
}

fn summarize(vs: &[u64]) -> String {
    match vs {
        [] => "none".into(),
        [a] => a.to_string(),
        _ if vs.len() <= 8 => vs
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        _ => format!(
            "{} versions from {} to {}",
            vs.len(),
            vs[0],
            vs[vs.len() - 1]
        ),
    }
}

fn from_loaded<W: Weight>(
    c: checkpoint::Loaded,
    layout: &Layout,
) -> Result<(CTreeGraph<W>, CheckpointMeta)>
where
    AnyCsr: From<Csr<W>>,
{
    let g = c.graph;
    let name = g.weight_name();
    let csr: Option<&Csr<W>> = match &g {
        AnyCsr::Unweighted(x) => (x as &dyn std::any::Any).downcast_ref(),
        AnyCsr::Int(x) => (x as &dyn std::any::Any).downcast_ref(),
        AnyCsr::Float(x) => (x as &dyn std::any::Any).downcast_ref(),
    };
    let csr = csr.ok_or_else(|| {
        WealdError::WeightMismatch(format!(
            "the checkpoint holds {name} weights, the store {}",
            W::NAME
        ))
    })?;
    if csr.is_directed() != layout.directed {
        return Err(WealdError::Invalid(
            "the checkpoint's direction differs from the data directory's".into(),
        ));
    }
    Ok((checkpoint::to_ctree(csr, c.b, &c.absent)?, c.meta))
}

struct Writer<W: Weight> {
    shared: Arc<Shared<W>>,
    wal: Wal,
    opts: StoreOptions,
    rx: Receiver<Cmd<W>>,
    tx: Sender<Cmd<W>>,
    next_tag: u64,
    since_checkpoint: u64,
    checkpointing: Option<(u64, JoinHandle<()>)>,
    checkpoint_waiters: Vec<(u64, Arc<Slot>)>,
    last_checkpoint: u64,
    /// The most update bytes one log record holds.
    max_bytes: usize,
}

impl<W: Weight> Writer<W>
where
    AnyCsr: From<Csr<W>>,
{
    fn emit(&self, e: Event) {
        if let Some(f) = &self.opts.on_event {
            f(&e);
        }
    }

    fn failed(&self) -> Option<String> {
        self.shared
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn run(mut self) {
        // The current batch: its updates in arrival order, and per message (sent, ack).
        let mut ups: Vec<Update<W>> = Vec::new();
        let mut members: Vec<(Instant, Option<Arc<Slot>>)> = Vec::new();
        let mut batch_tag = 0u64;
        let mut batch_start: Option<Instant> = None;
        let mut batch_bytes = 0usize;
        let mut flushes: Vec<Arc<Slot>> = Vec::new();
        let mut stopping = false;
        let batch_size = self.opts.batch_size.max(1);
        loop {
            let wait = if members.is_empty() {
                None // idle (the log's `interval` flushes run on a thread of their own)
            } else if self.opts.max_wait.is_zero() {
                Some(Duration::ZERO)
            } else {
                // A deadline past what an `Instant` holds is no deadline: the batch is sealed
                // by its size, a flush or the close.
                batch_start
                    .unwrap_or_else(Instant::now)
                    .checked_add(self.opts.max_wait)
                    .map(|deadline| deadline.saturating_duration_since(Instant::now()))
            };
            let cmd = recv_spinning(&self.rx, wait);
            let seal = match cmd {
                Ok(Cmd::Updates(m)) => {
                    if let Some(f) = self.failed() {
                        if let Some(a) = &m.ack {
                            a.finish(Err(f));
                        }
                        continue;
                    }
                    if !members.is_empty() && batch_bytes + m.bytes > self.max_bytes {
                        // The batch's record would grow past the log's limit: commit it first.
                        self.commit(std::mem::take(&mut ups), batch_tag, &mut members);
                        batch_tag = 0;
                        batch_start = None;
                        batch_bytes = 0;
                    }
                    batch_start.get_or_insert(m.sent);
                    batch_tag = batch_tag.max(m.tag);
                    batch_bytes += m.bytes;
                    ups.extend(m.updates);
                    members.push((m.sent, m.ack));
                    ups.len() >= batch_size
                }
                Ok(Cmd::Flush(s)) => {
                    flushes.push(s);
                    true
                }
                Ok(Cmd::Checkpoint(s)) => {
                    // Wants a checkpoint of at least the version this batch will commit.
                    let want = self.shared.vg.version() + (!ups.is_empty()) as u64;
                    self.checkpoint_waiters.push((want, s));
                    true
                }
                Ok(Cmd::CheckpointDone(v, r)) => {
                    self.checkpoint_done(v, r);
                    continue;
                }
                Ok(Cmd::Stop) | Err(RecvTimeoutError::Disconnected) => {
                    stopping = true;
                    true
                }
                // The batch waited `max_wait` (an idle writer waits without a timeout).
                Err(RecvTimeoutError::Timeout) => !members.is_empty(),
            };
            if !seal {
                continue;
            }
            if !members.is_empty() {
                self.commit(std::mem::take(&mut ups), batch_tag, &mut members);
                batch_tag = 0;
                batch_start = None;
                batch_bytes = 0;
            }
            let v = self.shared.vg.version();
            for f in flushes.drain(..) {
                f.finish(match self.failed() {
                    Some(e) => Err(e),
                    None => Ok(v),
                });
            }
            if !self.checkpoint_waiters.is_empty() && self.checkpointing.is_none() {
                self.start_checkpoint();
            }
            if stopping {
                break;
            }
        }
        // Shutdown: let a running checkpoint finish (a requested one may start after it).
        let mut late = Vec::new();
        while self.checkpointing.is_some() {
            match self.rx.recv() {
                Ok(Cmd::CheckpointDone(v, r)) => self.checkpoint_done(v, r),
                Ok(other) => late.push(other),
                Err(_) => break,
            }
        }
        if self.failed().is_none() {
            if let Err(e) = self.wal.sync() {
                self.fail(format!("syncing the log failed: {e}"));
            }
        }
        // Anyone still waiting hears that the store is closed.
        for (_, s) in self.checkpoint_waiters.drain(..) {
            s.finish(Err("the store closed before the checkpoint ran".into()));
        }
        let rest: Vec<Cmd<W>> = late.into_iter().chain(self.rx.try_iter()).collect();
        for c in rest {
            match c {
                Cmd::Updates(m) => {
                    if let Some(a) = m.ack {
                        a.finish(Err("the store is closed".into()));
                    }
                }
                Cmd::Flush(s) | Cmd::Checkpoint(s) => s.finish(Err("the store is closed".into())),
                _ => {}
            }
        }
    }

    fn fail(&self, why: String) {
        self.shared.fail(why);
    }

    fn commit(
        &mut self,
        ups: Vec<Update<W>>,
        tag: u64,
        members: &mut Vec<(Instant, Option<Arc<Slot>>)>,
    ) {
        let layout = self.shared.manifest.layout;
        if let Some(f) = self.failed() {
            for (_, a) in members.drain(..) {
                if let Some(a) = a {
                    a.finish(Err(f.clone()));
                }
            }
            return;
        }
        let n = ups.len() as u64;
        if n == 0 {
            // Only empty messages: acknowledge with the current version.
            let v = self.shared.vg.version();
            for (_, a) in members.drain(..) {
                if let Some(a) = a {
                    a.finish(Ok(v));
                }
            }
            return;
        }
        let version = self.shared.vg.version() + 1;
        let time_ns = now_ns();
        let tag = tag.max(self.next_tag);
        let mut rec = Vec::new();
        if let Err(e) = wal::encode_record(version, time_ns, tag, &ups, &mut rec)
            .and_then(|()| self.wal.append(&rec, version))
        {
            let why = format!("writing the log failed: {e}");
            self.fail(why.clone());
            for (_, a) in members.drain(..) {
                if let Some(a) = a {
                    a.finish(Err(why.clone()));
                }
            }
            return;
        }
        drop(rec);
        let cur = self.shared.vg.acquire();
        let (g, result) = apply_in_order(cur.graph(), &ups, &layout);
        drop(cur);
        // Versions this commit makes unreachable are freed only after the acknowledgements:
        // freeing walks every node the batch replaced, and nobody should wait for that.
        let (v, retired) = self.shared.vg.set_deferred(g);
        debug_assert_eq!(v, version);
        let visible = Instant::now();
        self.next_tag = tag;
        let evicted = {
            let pins = self.shared.pins.lock().unwrap_or_else(|e| e.into_inner());
            let pinned = |x: u64| pins.values().any(|&p| p == x);
            self.shared
                .history
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(
                    Kept {
                        snap: self.shared.vg.acquire(),
                        time_ns,
                        tag,
                    },
                    time_ns,
                    &pinned,
                )
        };
        {
            let mut st = self.shared.stats.lock().unwrap_or_else(|e| e.into_inner());
            st.updates += n;
            st.batches += 1;
            for (sent, _) in members.iter() {
                if st.visibility_ns.len() < MAX_LATENCY_SAMPLES {
                    st.visibility_ns
                        .push(visible.saturating_duration_since(*sent).as_nanos() as u64);
                }
            }
        }
        for (_, a) in members.drain(..) {
            if let Some(a) = a {
                a.finish(Ok(v));
            }
        }
        if let Some(f) = &self.opts.on_commit {
            f(&Commit {
                version: v,
                time_ns,
                tag,
                updates: n,
                result,
            });
        }
        drop((retired, evicted));
        self.since_checkpoint += n;
        if self.opts.checkpoint_every > 0
            && self.since_checkpoint >= self.opts.checkpoint_every
            && self.checkpointing.is_none()
        {
            self.start_checkpoint();
        }
    }

    fn start_checkpoint(&mut self) {
        let snap = self.shared.vg.acquire();
        let v = snap.version();
        if v == self.last_checkpoint {
            // Nothing new since the last checkpoint.
            for (_, s) in self.checkpoint_waiters.drain(..) {
                s.finish(Ok(v));
            }
            self.since_checkpoint = 0;
            return;
        }
        let (time_ns, tag) = self
            .shared
            .kept(v)
            .map_or((now_ns(), self.next_tag), |k| (k.time_ns, k.tag));
        let dir = self.shared.dir.join("checkpoints");
        let tx = self.tx.clone();
        let pause = self.opts.checkpoint_pause;
        self.emit(Event::CheckpointStarted(v));
        self.since_checkpoint = 0;
        let h = std::thread::Builder::new()
            .name("weald-checkpoint".into())
            .spawn(move || {
                let r = checkpoint::write(
                    &dir,
                    snap.graph(),
                    CheckpointMeta {
                        version: v,
                        time_ns,
                        tag,
                    },
                    pause,
                )
                .map_err(|e| e.to_string());
                let _ = tx.send(Cmd::CheckpointDone(v, r));
            });
        match h {
            Ok(h) => self.checkpointing = Some((v, h)),
            Err(e) => self.emit(Event::CheckpointFailed(v, e.to_string())),
        }
    }

    fn checkpoint_done(&mut self, v: u64, r: std::result::Result<PathBuf, String>) {
        if let Some((_, h)) = self.checkpointing.take() {
            let _ = h.join();
        }
        match r {
            Ok(path) => {
                self.last_checkpoint = v;
                // It replaced a damaged checkpoint of the same version, if there was one.
                self.shared
                    .checkpoint_files
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&v);
                self.emit(Event::CheckpointInstalled(v, path));
                self.shared
                    .stats
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .checkpoints += 1;
                // Keep the two newest readable checkpoints (a damaged newest one then loses nothing)
                // and pinned ones; the log is kept from the older of the two.
                if let Err(e) = self.collect_garbage() {
                    self.emit(Event::CheckpointFailed(v, format!("cleaning up: {e}")));
                }
                let (done, wait): (Vec<_>, Vec<_>) = self
                    .checkpoint_waiters
                    .drain(..)
                    .partition(|(want, _)| *want <= v);
                for (_, s) in done {
                    s.finish(Ok(v));
                }
                self.checkpoint_waiters = wait;
                if !self.checkpoint_waiters.is_empty() {
                    self.start_checkpoint();
                }
            }
            Err(e) => {
                self.emit(Event::CheckpointFailed(v, e.clone()));
                for (_, s) in self.checkpoint_waiters.drain(..) {
                    s.finish(Err(format!("checkpoint of version {v} failed: {e}")));
                }
            }
        }
    }

    /// Remove the checkpoints older than the two newest readable ones (except pinned ones),
    /// and the log segments only they needed. Checkpoints recovery could not read do not count
    /// as readable: with a damaged newest checkpoint, the one before it and the log after it
    /// stay until two newer checkpoints are installed.
    fn collect_garbage(&mut self) -> Result<()> {
        let ckdir = self.shared.dir.join("checkpoints");
        let mut unreadable = self
            .shared
            .checkpoint_files
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let list = checkpoint::list(&ckdir)?;
        let pins: Vec<u64> = self
            .shared
            .pins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .copied()
            .collect();
        let readable: Vec<u64> = list
            .iter()
            .map(|&(v, _)| v)
            .filter(|v| !unreadable.contains(v))
            .collect();
        let Some(&keep_from) = readable.len().checked_sub(2).map(|i| &readable[i]) else {
            return Ok(());
        };
        let mut removed = false;
        for (v, p) in &list {
            if *v < keep_from && !pins.contains(v) {
                fs::remove_file(p).map_err(|e| WealdError::io(p, e))?;
                unreadable.remove(v);
                removed = true;
            }
        }
        if removed {
            wal::sync_dir(&ckdir)?;
        }
        self.wal.remove_through(keep_from)?;
        Ok(())
    }
}
