//! The write-ahead log: segment files of length-prefixed, checksummed batch records.
//!
//! ```text
//! segment file  wal/<first version, 20 digits>.wal
//!   0   8  magic "WEALDWAL"
//!   8   4  log format version (u32) = 1
//!  12   4  reserved (zero)
//!  16   8  first version the segment may hold (u64)
//!  24   4  CRC-32 of bytes 0..24
//!  28   4  reserved (zero)
//! record (one per batch = one version), back to back after the header
//!   0   4  payload length L (u32)
//!   4   4  CRC-32 of the length field and the payload
//!   8   L  payload: version u64 | commit time (ns since the Unix epoch) u64 | tag u64 |
//!          update count u32 | updates (see `update.rs`)
//! ```
//!
//! All integers are little-endian. A record is written with one `write` call after the whole
//! batch is encoded (group commit); what follows depends on the [`Fsync`] policy.

use super::update::Update;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use weald_graph::{Result, WealdError, Weight};

pub(crate) const MAGIC: [u8; 8] = *b"WEALDWAL";
pub(crate) const VERSION: u32 = 1;
const HEADER: usize = 32;
const REC_HEAD: usize = 8;
const PAYLOAD_FIXED: usize = 28;
/// The largest payload a record may have: larger ones are rejected as corrupt when reading, so
/// the writer never writes one (it seals a batch before it would grow past this, and refuses a
/// single message that would; 2^30 bytes hold at least 50 million updates).
pub(crate) const MAX_RECORD: u32 = 1 << 30;
/// A record's payload bytes before its updates.
pub(crate) const PAYLOAD_FIXED_BYTES: usize = PAYLOAD_FIXED;

/// When the log is flushed to stable storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fsync {
    /// `fsync` after every batch, before it is acknowledged: an acknowledged update survives a
    /// process crash, an OS crash and a power failure.
    Always,
    /// `fsync` at most this long after a batch is written, by a thread of the log's own (the
    /// writer does not wait for it). A batch is acknowledged once it is written to the OS: it
    /// survives a process crash; an OS crash or power failure can lose the batches of the last
    /// interval (and of an `fsync` still running).
    Interval(Duration),
    /// Never `fsync` the log (the OS writes it back in its own time; clean shutdown does sync).
    /// Survives a process crash; an OS crash or power failure can lose everything the OS had
    /// not yet written back.
    Never,
}

impl Default for Fsync {
    fn default() -> Self {
        Fsync::Interval(Duration::from_millis(10))
    }
}

impl std::str::FromStr for Fsync {
    type Err = WealdError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "always" => Ok(Fsync::Always),
            "interval" => Ok(Fsync::default()),
            "never" => Ok(Fsync::Never),
            _ => Err(WealdError::Invalid(format!(
                "unknown fsync policy `{s}` (expected always, interval or never)"
            ))),
        }
    }
}

/// One decoded record.
#[derive(Clone, Debug)]
pub(crate) struct Record<W: Weight> {
    pub version: u64,
    pub time_ns: u64,
    pub tag: u64,
    pub updates: Vec<Update<W>>,
}

/// Encode a record (header + payload) for `updates`; an error (and nothing to write) if the
/// payload would exceed [`MAX_RECORD`] bytes, which recovery would reject.
pub(crate) fn encode_record<W: Weight>(
    version: u64,
    time_ns: u64,
    tag: u64,
    updates: &[Update<W>],
    out: &mut Vec<u8>,
) -> Result<()> {
    out.clear();
    out.extend_from_slice(&[0u8; REC_HEAD]);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&time_ns.to_le_bytes());
    out.extend_from_slice(&tag.to_le_bytes());
    out.extend_from_slice(&(updates.len() as u32).to_le_bytes());
    for u in updates {
        u.encode(out);
    }
    let len = match u32::try_from(out.len() - REC_HEAD) {
        Ok(len) if len <= MAX_RECORD => len,
        _ => {
            let bytes = out.len() - REC_HEAD;
            out.clear();
            return Err(WealdError::Invalid(format!(
                "a batch of {} updates encodes to {bytes} bytes, above the log's limit of {MAX_RECORD} bytes per record",
                updates.len()
            )));
        }
    };
    out[..4].copy_from_slice(&len.to_le_bytes());
    let mut h = crc32fast::Hasher::new();
    h.update(&out[..4]);
    h.update(&out[REC_HEAD..]);
    let crc = h.finalize();
    out[4..8].copy_from_slice(&crc.to_le_bytes());
    Ok(())
}

fn segment_name(first: u64) -> String {
    format!("{first:020}.wal")
}

fn segment_header(first: u64) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[16..24].copy_from_slice(&first.to_le_bytes());
    let crc = crc32fast::hash(&h[..24]);
    h[24..28].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Make a directory entry durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| WealdError::io(dir, e))
}

/// The segments of a log directory, sorted by first version.
pub(crate) fn list_segments(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| WealdError::io(dir, e))? {
        let e = e.map_err(|e| WealdError::io(dir, e))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        if let Some(num) = name.strip_suffix(".wal") {
            match num.parse::<u64>() {
                Ok(first) if num.len() == 20 => out.push((first, e.path())),
                _ => {
                    return Err(WealdError::Format {
                        path: e.path(),
                        message: "a log segment's name must be 20 digits followed by .wal".into(),
                    })
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Options of the log writer.
#[derive(Clone, Debug)]
pub(crate) struct WalOptions {
    pub fsync: Fsync,
    pub segment_bytes: u64,
    /// Simulate a full disk: fail every write once this many record bytes were written.
    pub fail_after_bytes: Option<u64>,
    /// Simulate a failing disk: every `fsync` of the flushing thread fails.
    pub fail_background_sync: bool,
}

/// The appending end of the log (owned by the writer thread).
pub(crate) struct Wal {
    dir: PathBuf,
    opts: WalOptions,
    file: File,
    path: PathBuf,
    len: u64,
    records_in_segment: u64,
    /// (first version, path) of every segment, the active one last.
    segments: Vec<(u64, PathBuf)>,
    /// With [`Fsync::Interval`], the thread that flushes the active segment.
    flusher: Option<Flusher>,
    written: u64,
    /// Called after a rotation with the new segment's first version.
    pub on_rotate: Option<Box<dyn FnMut(u64) + Send>>,
}

impl Wal {
    /// Continue the log in `dir` whose valid content ends at `end` (the active segment and
    /// its valid length), or start a new segment at `next_version` if there is none.
    pub(crate) fn open(
        dir: &Path,
        opts: WalOptions,
        segments: Vec<(u64, PathBuf)>,
        valid_len_of_last: Option<u64>,
        next_version: u64,
    ) -> Result<Wal> {
        let mut w = match (segments.last(), valid_len_of_last) {
            (Some((_, p)), Some(len)) => {
                let file = OpenOptions::new()
                    .append(true)
                    .open(p)
                    .map_err(|e| WealdError::io(p, e))?;
                Wal {
                    dir: dir.to_path_buf(),
                    opts,
                    file,
                    path: p.clone(),
                    len,
                    // A segment cut back to its header holds no record: rotating away from
                    // it would create a segment of the same name.
                    records_in_segment: (len > HEADER as u64) as u64,
                    segments,
                    flusher: None,
                    written: 0,
                    on_rotate: None,
                }
            }
            _ => {
                let (file, path) = create_segment(dir, next_version)?;
                let mut segments = segments;
                segments.push((next_version, path.clone()));
                Wal {
                    dir: dir.to_path_buf(),
                    opts,
                    file,
                    path,
                    len: HEADER as u64,
                    records_in_segment: 0,
                    segments,
                    flusher: None,
                    written: 0,
                    on_rotate: None,
                }
            }
        };
        if let Fsync::Interval(d) = w.opts.fsync {
            w.flusher = Some(Flusher::start(&w.path, d, w.opts.fail_background_sync)?);
        }
        Ok(w)
    }

    /// Append one encoded record holding `version`. Rotates first if the active segment is
    /// full. With `Fsync::Always` the record is on stable storage when this returns.
    pub(crate) fn append(&mut self, rec: &[u8], version: u64) -> Result<()> {
        self.flusher_ok()?;
        if self.len >= self.opts.segment_bytes && self.records_in_segment > 0 {
            self.rotate(version)?;
        }
        if let Some(limit) = self.opts.fail_after_bytes {
            if self.written + rec.len() as u64 > limit {
                // A full disk: part of the record reaches the file, then the write fails.
                let part = limit.saturating_sub(self.written) as usize;
                let _ = self.file.write_all(&rec[..part.min(rec.len())]);
                self.written += part as u64;
                self.len += part as u64;
                return Err(WealdError::io(
                    &self.path,
                    std::io::Error::new(
                        std::io::ErrorKind::StorageFull,
                        "no space left on device (simulated)",
                    ),
                ));
            }
        }
        self.file
            .write_all(rec)
            .map_err(|e| WealdError::io(&self.path, e))?;
        self.written += rec.len() as u64;
        self.len += rec.len() as u64;
        self.records_in_segment += 1;
        if self.opts.fsync == Fsync::Always {
            self.sync()?;
        }
        if let Some(f) = &self.flusher {
            f.wrote();
        }
        Ok(())
    }

    /// Flush written records to stable storage, now, on this thread.
    pub(crate) fn sync(&mut self) -> Result<()> {
        self.flusher_ok()?;
        self.file
            .sync_data()
            .map_err(|e| WealdError::io(&self.path, e))?;
        // A background `fsync` that failed while this one ran.
        self.flusher_ok()?;
        if let Some(f) = &self.flusher {
            f.synced();
        }
        Ok(())
    }

    /// The first failure of a background `fsync`, as an error: after one, what the OS kept of
    /// the log is unknown (a later `fsync` may succeed without the lost pages), so the log
    /// takes no more records.
    fn flusher_ok(&self) -> Result<()> {
        match self.flusher.as_ref().and_then(Flusher::failure) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Call `f` with the error, as [`append`](Self::append) and [`sync`](Self::sync) will
    /// then report it, when a background `fsync` fails (on the flushing thread, at once: the
    /// writer may be idle and learn of it only at its next record), or now if one already
    /// failed. Nothing happens without a flushing thread.
    pub(crate) fn on_flush_failure(&self, f: impl FnOnce(String) + Send + 'static) {
        let Some(fl) = &self.flusher else { return };
        let mut st = fl.shared.lock();
        match st.failure() {
            Some(e) => {
                drop(st);
                f(e.to_string());
            }
            None => {
                debug_assert!(st.on_fail.is_none(), "one failure callback per log");
                st.on_fail = Some(Box::new(f));
            }
        }
    }

    fn rotate(&mut self, first: u64) -> Result<()> {
        // The old segment is complete: make it durable before starting the next.
        if self.opts.fsync != Fsync::Never {
            self.sync()?;
        }
        let (file, path) = create_segment(&self.dir, first)?;
        if let Some(f) = &self.flusher {
            f.follow(&path)?;
        }
        self.file = file;
        self.path = path.clone();
        self.len = HEADER as u64;
        self.records_in_segment = 0;
        self.segments.push((first, path));
        if let Some(f) = &mut self.on_rotate {
            f(first);
        }
        Ok(())
    }

    /// Remove the segments whose every record is at or below `version` (never the active one).
    /// Returns how many were removed.
    pub(crate) fn remove_through(&mut self, version: u64) -> Result<usize> {
        let mut removed = 0;
        while self.segments.len() > 1 && self.segments[1].0 <= version + 1 {
            let (_, p) = self.segments.remove(0);
            fs::remove_file(&p).map_err(|e| WealdError::io(&p, e))?;
            removed += 1;
        }
        if removed > 0 {
            sync_dir(&self.dir)?;
        }
        Ok(removed)
    }

    pub(crate) fn num_segments(&self) -> usize {
        self.segments.len()
    }
}

/// The flushing thread of [`Fsync::Interval`]: it `fsync`s the active segment at most the
/// interval after a record is written, so that no batch waits for the disk (the writer still
/// syncs by itself when a segment rotates and at close). When the writer flushed after a batch
/// that found the interval passed, that batch and the ones sent meanwhile waited the `fsync`
/// out: on the 2-core benchmark machine, with BFS on both cores, visibility p99 2-3 ms against
/// 65 µs with `never`.
struct Flusher {
    shared: Arc<FlushShared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct FlushShared {
    state: Mutex<FlushState>,
    cv: Condvar,
}

struct FlushState {
    /// The active segment, opened a second time, and its path (for errors).
    file: Arc<File>,
    path: PathBuf,
    /// When the oldest record that no `fsync` started since covers was written.
    dirty_since: Option<Instant>,
    stop: bool,
    /// The first failed `fsync`: (segment, error).
    failed: Option<(PathBuf, std::io::ErrorKind, String)>,
    /// Told of that failure when it happens, with the error the log then reports
    /// ([`Wal::on_flush_failure`]).
    on_fail: Option<Box<dyn FnOnce(String) + Send>>,
}

/// The flusher's own handle of segment `path`: opened anew rather than duplicated, so that
/// an `fsync` error is reported to both threads (Linux reports a writeback error once per open
/// file, and a duplicated descriptor shares the writer's).
fn open_to_sync(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| WealdError::io(path, e))
}

impl Flusher {
    fn start(path: &Path, interval: Duration, fail: bool) -> Result<Flusher> {
        let shared = Arc::new(FlushShared {
            state: Mutex::new(FlushState {
                file: Arc::new(open_to_sync(path)?),
                path: path.to_path_buf(),
                dirty_since: None,
                stop: false,
                failed: None,
                on_fail: None,
            }),
            cv: Condvar::new(),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("weald-wal-sync".into())
            .spawn(move || s.run(interval, fail))
            .map_err(|e| WealdError::io(path, e))?;
        Ok(Flusher {
            shared,
            thread: Some(thread),
        })
    }

    /// A record was written: flush within the interval.
    fn wrote(&self) {
        let mut st = self.shared.lock();
        if st.dirty_since.is_none() {
            st.dirty_since = Some(Instant::now());
            self.shared.cv.notify_one();
        }
    }

    /// The writer flushed everything written so far itself.
    fn synced(&self) {
        self.shared.lock().dirty_since = None;
    }

    /// Flush the segment at `path` (the new active one) from now on; the writer synced the
    /// old one.
    fn follow(&self, path: &Path) -> Result<()> {
        let f = Arc::new(open_to_sync(path)?);
        let mut st = self.shared.lock();
        st.file = f;
        st.path = path.to_path_buf();
        st.dirty_since = None;
        Ok(())
    }

    fn failure(&self) -> Option<WealdError> {
        self.shared.lock().failure()
    }
}

impl FlushState {
    fn failure(&self) -> Option<WealdError> {
        self.failed.as_ref().map(|(p, k, m)| {
            let e = std::io::Error::new(*k, format!("a background fsync failed: {m}"));
            WealdError::io(p, e)
        })
    }
}

impl FlushShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, FlushState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self, interval: Duration, fail: bool) {
        let mut st = self.lock();
        while !st.stop {
            // Nothing written, or an interval too long to add (never due: the writer's syncs
            // at rotation and close still run): wait for a write.
            let Some(due) = st.dirty_since.and_then(|t| t.checked_add(interval)) else {
                st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let now = Instant::now();
            if now < due {
                st = self
                    .cv
                    .wait_timeout(st, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            // Records written from here on wait for the next round.
            st.dirty_since = None;
            let (file, path) = (st.file.clone(), st.path.clone());
            drop(st);
            let r = if fail {
                Err(std::io::Error::other("simulated failure"))
            } else {
                file.sync_data()
            };
            st = self.lock();
            if let Err(e) = r {
                if st.failed.is_none() {
                    st.failed = Some((path, e.kind(), e.to_string()));
                }
                let tell = st.on_fail.take().zip(st.failure());
                drop(st);
                if let Some((f, e)) = tell {
                    f(e.to_string());
                }
                // The log takes no more records (see `Wal::flusher_ok`): nothing left to do.
                return;
            }
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.cv.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn create_segment(dir: &Path, first: u64) -> Result<(File, PathBuf)> {
    let path = dir.join(segment_name(first));
    let mut f = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)
        .map_err(|e| WealdError::io(&path, e))?;
    f.write_all(&segment_header(first))
        .and_then(|_| f.sync_all())
        .map_err(|e| WealdError::io(&path, e))?;
    sync_dir(dir)?;
    Ok((f, path))
}

/// What reading a segment found.
pub(crate) struct SegmentScan<W: Weight> {
    pub records: Vec<Record<W>>,
    /// Bytes of valid content (header + whole valid records).
    pub valid_len: u64,
    pub file_len: u64,
    /// Why reading stopped before the end of the file, if it did.
    pub damage: Option<Damage>,
}

/// A record that could not be read.
#[derive(Clone, Debug)]
pub struct Damage {
    /// Byte offset of the first bad record in its segment.
    pub offset: u64,
    pub reason: String,
    /// Whether a valid record follows the damaged one (corruption inside the log rather than
    /// a torn tail).
    pub valid_record_follows: bool,
}

fn check_record(b: &[u8], at: usize) -> std::result::Result<usize, String> {
    if b.len() - at < REC_HEAD {
        return Err(format!(
            "torn record: {} byte(s) where a record header needs {REC_HEAD}",
            b.len() - at
        ));
    }
    let len = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let crc = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap());
    if len > MAX_RECORD || (len as usize) < PAYLOAD_FIXED {
        return Err(format!("implausible record length {len}"));
    }
    let end = at + REC_HEAD + len as usize;
    if end > b.len() {
        return Err(format!(
            "torn record: it declares {len} payload bytes but only {} remain",
            b.len() - at - REC_HEAD
        ));
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&b[at..at + 4]);
    h.update(&b[at + REC_HEAD..end]);
    let got = h.finalize();
    if got != crc {
        return Err(format!(
            "checksum mismatch: stored {crc:08x}, computed {got:08x}"
        ));
    }
    Ok(end)
}

fn decode_payload<W: Weight>(p: &[u8]) -> Option<Record<W>> {
    let u64_at = |i: usize| u64::from_le_bytes(p[i..i + 8].try_into().unwrap());
    let (version, time_ns, tag) = (u64_at(0), u64_at(8), u64_at(16));
    let count = u32::from_le_bytes(p[24..28].try_into().unwrap()) as usize;
    let mut pos = PAYLOAD_FIXED;
    // Every update takes at least two bytes: do not trust a count the bytes cannot hold.
    if count > (p.len() - pos) / 2 {
        return None;
    }
    let mut updates = Vec::with_capacity(count);
    for _ in 0..count {
        updates.push(Update::decode(p, &mut pos)?);
    }
    (pos == p.len()).then_some(Record {
        version,
        time_ns,
        tag,
        updates,
    })
}

/// Read one segment, stopping at the first record that is torn, fails its checksum or does not
/// decode. A bad segment header is an error.
pub(crate) fn read_segment<W: Weight>(path: &Path, first: u64) -> Result<SegmentScan<W>> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| WealdError::io(path, e))?;
    let ferr = |message: String| WealdError::Format {
        path: path.to_path_buf(),
        message,
    };
    // A crash while the header was being created can leave it short, or (on file systems
    // that extend a file before its data reaches the disk) zero-filled in part or whole.
    // Records are only appended after the header is synced, so such a segment holds nothing.
    let expected = segment_header(first);
    let zero_filled = bytes.len() <= HEADER
        && bytes[..] != expected[..bytes.len()]
        && bytes.iter().zip(&expected).all(|(&b, &e)| b == e || b == 0);
    if zero_filled || bytes.len() < 8 || bytes[..8] != MAGIC {
        if zero_filled || bytes.len() < HEADER && MAGIC.starts_with(&bytes[..bytes.len().min(8)]) {
            // A segment whose header write was cut short: it holds nothing.
            return Ok(SegmentScan {
                records: Vec::new(),
                valid_len: 0,
                file_len: bytes.len() as u64,
                damage: Some(Damage {
                    offset: 0,
                    reason: "torn segment header".into(),
                    valid_record_follows: false,
                }),
            });
        }
        return Err(ferr("not a Weald log segment (bad magic bytes)".into()));
    }
    if bytes.len() < HEADER {
        return Ok(SegmentScan {
            records: Vec::new(),
            valid_len: 0,
            file_len: bytes.len() as u64,
            damage: Some(Damage {
                offset: 0,
                reason: "torn segment header".into(),
                valid_record_follows: false,
            }),
        });
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if version > VERSION {
        return Err(ferr(format!(
            "log format version {version} is newer than this build of Weald reads (up to {VERSION}); upgrade Weald"
        )));
    }
    let crc = u32::from_le_bytes(bytes[24..28].try_into().unwrap());
    if crc != crc32fast::hash(&bytes[..24]) || version == 0 {
        return Err(ferr(
            "segment header checksum mismatch: the log is corrupt".into(),
        ));
    }
    let hfirst = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
    if hfirst != first {
        return Err(ferr(format!(
            "segment header says it starts at version {hfirst} but its name says {first}"
        )));
    }
    let mut at = HEADER;
    let mut records = Vec::new();
    let mut damage = None;
    while at < bytes.len() {
        let res = check_record(&bytes, at).and_then(|end| {
            decode_payload::<W>(&bytes[at + REC_HEAD..end])
                .map(|r| (end, r))
                .ok_or_else(|| "the record's updates do not decode".to_string())
        });
        match res {
            Ok((end, r)) => {
                records.push(r);
                at = end;
            }
            Err(reason) => {
                // Is there a valid record anywhere after this point? Then this is damage inside
                // the log, not a torn tail.
                let follows = (at + 1..bytes.len()).any(|p| {
                    check_record(&bytes, p)
                        .ok()
                        .and_then(|end| decode_payload::<W>(&bytes[p + REC_HEAD..end]))
                        .is_some()
                });
                damage = Some(Damage {
                    offset: at as u64,
                    reason,
                    valid_record_follows: follows,
                });
                break;
            }
        }
    }
    Ok(SegmentScan {
        records,
        valid_len: at as u64,
        file_len: bytes.len() as u64,
        damage,
    })
}

/// Cut a segment back to its valid prefix (after a torn tail was reported).
pub(crate) fn truncate(path: &Path, len: u64) -> Result<()> {
    let f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| WealdError::io(path, e))?;
    f.set_len(len)
        .and_then(|_| f.sync_all())
        .map_err(|e| WealdError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::update::Update;

    fn interval_log(dir: &Path, every: Duration, segment_bytes: u64) -> Wal {
        let opts = WalOptions {
            fsync: Fsync::Interval(every),
            segment_bytes,
            fail_after_bytes: None,
            fail_background_sync: false,
        };
        Wal::open(dir, opts, Vec::new(), None, 1).unwrap()
    }

    fn record(version: u64) -> Vec<u8> {
        let mut rec = Vec::new();
        let ups: [Update<()>; 1] = [Update::InsertEdge(1, 2, ())];
        encode_record(version, 0, version, &ups, &mut rec).unwrap();
        rec
    }

    fn state(w: &Wal) -> std::sync::MutexGuard<'_, FlushState> {
        w.flusher.as_ref().unwrap().shared.lock()
    }

    fn dirty(w: &Wal) -> bool {
        state(w).dirty_since.is_some()
    }

    fn failed(w: &Wal) -> bool {
        state(w).failed.is_some()
    }

    /// Wait (at most 30 s) until `done(w)`; whether it came.
    fn wait_for(w: &Wal, done: impl Fn(&Wal) -> bool) -> bool {
        let t0 = Instant::now();
        while !done(w) && t0.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(1));
        }
        done(w)
    }

    #[test]
    fn interval_flushes_run_on_their_own_thread_and_follow_rotation() {
        let t = tempfile::tempdir().unwrap();
        // A long interval: the write stays unflushed until the writer syncs itself.
        let mut w = interval_log(t.path(), Duration::from_secs(3600), 1 << 20);
        w.append(&record(1), 1).unwrap();
        assert!(dirty(&w), "a written record waits for a flush");
        w.sync().unwrap();
        assert!(!dirty(&w), "the writer's own sync covers what it wrote");
        drop(w); // stops and joins the flushing thread (a hang here fails the test run)

        // A short interval: the thread flushes a written record without the writer.
        let t = tempfile::tempdir().unwrap();
        let mut w = interval_log(t.path(), Duration::from_millis(1), 40);
        w.append(&record(1), 1).unwrap();
        assert!(
            wait_for(&w, |w| !dirty(w)),
            "no background flush within 30 s"
        );
        // Segments of 40 bytes (a header and part of a record): the next record starts a new
        // one, which the thread follows and flushes too.
        w.append(&record(2), 2).unwrap();
        assert_eq!(w.num_segments(), 2);
        let followed = state(&w).path.clone();
        assert_eq!(followed, w.path);
        assert_ne!(followed, w.segments[0].1);
        assert!(
            wait_for(&w, |w| !dirty(w)),
            "the new segment was not flushed"
        );
        w.sync().unwrap();
        assert!(!failed(&w));
    }

    #[test]
    fn a_failed_background_flush_stops_the_log() {
        // A handle that `fsync` rejects: a special file (EINVAL on Linux).
        let null = Path::new("/dev/null");
        if File::open(null).and_then(|f| f.sync_data()).is_ok() {
            eprintln!("skipped: fsync of /dev/null succeeds on this system");
            return;
        }
        let t = tempfile::tempdir().unwrap();
        let mut w = interval_log(t.path(), Duration::from_millis(1), 1 << 20);
        w.flusher.as_ref().unwrap().follow(null).unwrap();
        // The owner hears of the failure from the flushing thread, without writing again.
        let (tx, rx) = std::sync::mpsc::channel();
        w.on_flush_failure(move |why| tx.send(why).unwrap());
        w.append(&record(1), 1).unwrap();
        let told = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the failure was not told within 30 s");
        assert!(failed(&w));
        let len = fs::metadata(&w.path).unwrap().len();
        for e in [w.append(&record(2), 2).unwrap_err(), w.sync().unwrap_err()] {
            let msg = e.to_string();
            assert!(msg.contains("a background fsync failed"), "{msg}");
            assert!(msg.contains("/dev/null"), "{msg}");
            assert_eq!(msg, told, "told the error the log reports");
        }
        // Asking after the failure: told at once.
        let (tx, rx) = std::sync::mpsc::channel();
        w.on_flush_failure(move |why| tx.send(why).unwrap());
        assert_eq!(rx.try_recv().as_deref(), Ok(told.as_str()));
        assert_eq!(
            fs::metadata(&w.path).unwrap().len(),
            len,
            "nothing written after it"
        );
        drop(w); // joins the thread, which stopped at the failure
    }
}
