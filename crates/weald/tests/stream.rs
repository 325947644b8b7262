//! The durable store: ingest semantics, recovery, damaged logs and checkpoints, history.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use weald::stream::{Event, Fsync, Layout, Retention, Store, StoreOptions, Update};
use weald::{Graph, Vertex, WealdError};

/// Sequential reference semantics of an undirected store with `Combine::Last`.
#[derive(Clone, Default, Debug, PartialEq)]
struct Model {
    vertices: BTreeSet<Vertex>,
    edges: BTreeMap<(Vertex, Vertex), i32>,
}

/// The model after `ups`, applied in order.
fn model_of<'a>(ups: impl IntoIterator<Item = &'a Update<i32>>) -> Model {
    let mut m = Model::default();
    for u in ups {
        m.apply(u);
    }
    m
}

impl Model {
    fn key(u: Vertex, v: Vertex) -> (Vertex, Vertex) {
        (u.min(v), u.max(v))
    }
    fn apply(&mut self, up: &Update<i32>) {
        match *up {
            Update::InsertEdge(u, v, w) => {
                self.vertices.insert(u);
                self.vertices.insert(v);
                self.edges.insert(Self::key(u, v), w);
            }
            Update::DeleteEdge(u, v) => {
                self.edges.remove(&Self::key(u, v));
            }
            Update::InsertVertex(u) => {
                self.vertices.insert(u);
            }
            Update::DeleteVertex(u) => {
                self.vertices.remove(&u);
                self.edges.retain(|&(a, b), _| a != u && b != u);
            }
        }
    }
    fn arcs(&self) -> Vec<(Vertex, Vertex, i32)> {
        let mut out = Vec::new();
        for (&(u, v), &w) in &self.edges {
            out.push((u, v, w));
            if u != v {
                out.push((v, u, w));
            }
        }
        out.sort_by_key(|a| (a.0, a.1));
        out
    }
}

fn check(s: &weald::storage::ctree::CTreeGraph<i32>, m: &Model, what: &str) {
    assert_eq!(
        s.vertices(),
        m.vertices.iter().copied().collect::<Vec<_>>(),
        "{what}: vertices"
    );
    assert_eq!(s.arcs(), m.arcs(), "{what}: arcs");
}

/// A deterministic random stream over `n` vertex ids with every kind of update, including
/// order-sensitive ones (delete then re-insert inside one batch window).
fn stream(len: usize, n: u32, seed: u64) -> Vec<Update<i32>> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..len)
        .map(|_| {
            let r = next();
            let (u, v) = ((r >> 8) as u32 % n, (r >> 40) as u32 % n);
            match r % 20 {
                0..=10 => Update::InsertEdge(u, v, (r >> 20) as i32 % 100),
                11..=16 => Update::DeleteEdge(u, v),
                17 => Update::InsertVertex(u),
                _ => Update::DeleteVertex(u),
            }
        })
        .collect()
}

fn opts(batch: usize) -> StoreOptions {
    StoreOptions {
        fsync: Fsync::Never,
        batch_size: batch,
        ..Default::default()
    }
}

fn create(dir: &Path, o: StoreOptions) -> Store<i32> {
    Store::<i32>::create(dir, Layout::default(), None, o).unwrap()
}

/// Send `ups` in messages of `per_msg`, tagged with their 1-based end position, and wait.
fn feed(s: &Store<i32>, ups: &[Update<i32>], per_msg: usize) -> u64 {
    let p = s.producer();
    let mut last = None;
    let mut at = 0;
    for chunk in ups.chunks(per_msg) {
        at += chunk.len();
        last = p.send_tagged(chunk.to_vec(), at as u64, true).unwrap();
    }
    last.map_or(s.version(), |t| t.wait().unwrap())
}

/// Cut the file at `path` to `to(its length)` bytes (a torn write, a damaged file).
fn truncate(path: &Path, to: impl FnOnce(u64) -> u64) {
    let len = fs::metadata(path).unwrap().len();
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(to(len)).unwrap();
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wal"))
        .collect();
    v.sort();
    v
}

#[test]
fn batches_equal_sequential_application_and_survive_reopen() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(20_000, 300, 1);
    let model = model_of(&ups);
    let s = create(&dir, opts(97));
    let v = feed(&s, &ups, 1);
    check(s.acquire().graph(), &model, "live");
    assert_eq!(s.version(), v);
    // Every retained version equals the model at its tag.
    let vs = s.versions().unwrap();
    assert!(vs.len() >= 2);
    for info in &vs {
        let m = model_of(&ups[..info.tag as usize]);
        check(
            s.snapshot_at(info.version).unwrap().graph(),
            &m,
            "retained version",
        );
    }
    let stats = s.close().unwrap();
    assert_eq!(stats.updates, 20_000);
    assert!(stats.batches >= 20_000 / 97);
    let s = Store::<i32>::open(&dir, opts(97)).unwrap();
    let r = s.recovery().clone();
    assert_eq!(r.version, v);
    assert_eq!(r.tag, 20_000);
    assert!(r.dropped.is_none());
    assert_eq!(r.updates_replayed, stats.updates);
    check(s.acquire().graph(), &model, "recovered");
}

/// The `interval` policy, whose flushes run on the log's own thread, while the writer rotates
/// small segments under it: everything acknowledged is recovered.
#[test]
fn interval_flushes_alongside_rotation_lose_nothing() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(5_000, 200, 7);
    let model = model_of(&ups);
    let o = || StoreOptions {
        fsync: Fsync::Interval(std::time::Duration::from_millis(1)),
        segment_bytes: 2_000,
        ..opts(50)
    };
    let s = create(&dir, o());
    let v = feed(&s, &ups, 3);
    assert!(segments(&dir).len() > 3, "the log rotated");
    check(s.acquire().graph(), &model, "live");
    s.close().unwrap();
    let s = Store::<i32>::open(&dir, o()).unwrap();
    assert_eq!(s.recovery().version, v);
    assert!(s.recovery().dropped.is_none());
    check(s.acquire().graph(), &model, "recovered");
    s.close().unwrap();
}

#[test]
fn checkpoints_bound_the_log_and_recovery_uses_them() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(30_000, 500, 2);
    let model = model_of(&ups);
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let ev = events.clone();
    let o = StoreOptions {
        segment_bytes: 4096,
        checkpoint_every: 5_000,
        on_event: Some(Arc::new(move |e: &Event| {
            ev.lock().unwrap().push(e.clone())
        })),
        ..opts(500)
    };
    let s = create(&dir, o.clone());
    feed(&s, &ups, 100);
    let v = s.checkpoint().unwrap().wait().unwrap();
    assert_eq!(v, s.version());
    s.close().unwrap();
    let evs = events.lock().unwrap().clone();
    assert!(evs.iter().any(|e| matches!(e, Event::SegmentRotated(_))));
    let installed = evs
        .iter()
        .filter(|e| matches!(e, Event::CheckpointInstalled(..)))
        .count();
    assert!(installed >= 2, "{installed} checkpoints");
    // Two checkpoints are kept, and the log only from the older one.
    let cks = fs::read_dir(dir.join("checkpoints")).unwrap().count();
    assert_eq!(cks, 2);
    let rotations = evs
        .iter()
        .filter(|e| matches!(e, Event::SegmentRotated(_)))
        .count();
    let segs = segments(&dir);
    assert!(
        segs.len() < rotations,
        "{} of {} segments left",
        segs.len(),
        rotations + 1
    );
    // What is left starts no later than the older kept checkpoint needs.
    let mut cks: Vec<u64> = fs::read_dir(dir.join("checkpoints"))
        .unwrap()
        .map(|e| {
            e.unwrap().file_name().to_string_lossy()[..20]
                .parse()
                .unwrap()
        })
        .collect();
    cks.sort();
    let first: u64 = segs[0].file_name().unwrap().to_string_lossy()[..20]
        .parse()
        .unwrap();
    assert!(
        first <= cks[0] + 1,
        "log starts at {first}, checkpoints {cks:?}"
    );
    if segs.len() > 1 {
        let second: u64 = segs[1].file_name().unwrap().to_string_lossy()[..20]
            .parse()
            .unwrap();
        assert!(second > cks[0] + 1, "segment before {second} was removable");
    }
    let s = Store::<i32>::open(&dir, o).unwrap();
    assert_eq!(s.recovery().checkpoint_version, v);
    assert_eq!(s.recovery().records_replayed, 0);
    check(s.acquire().graph(), &model, "from checkpoint");
}

#[test]
fn a_message_naming_an_id_above_the_largest_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let s = create(&t.path().join("d"), opts(10));
    let p = s.producer();
    let Err(e) = p.send_tagged(
        vec![Update::InsertEdge(0, 1, 1), Update::InsertVertex(u32::MAX)],
        1,
        true,
    ) else {
        panic!("a message naming vertex 2^32 - 1 was accepted");
    };
    assert!(e.to_string().contains("4294967294"), "{e}");
    // Nothing of it was applied; the largest id itself is accepted.
    let v = p
        .send_all(vec![Update::DeleteVertex(weald::graph::MAX_VERTEX)])
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(s.acquire().graph().num_arcs(), 0);
    assert_eq!(v, s.version());
    s.close().unwrap();
}

#[test]
fn a_max_wait_past_what_an_instant_holds_means_no_deadline() {
    let t = tempfile::tempdir().unwrap();
    let s = create(
        &t.path().join("d"),
        StoreOptions {
            max_wait: Duration::MAX,
            batch_size: 1_000,
            retention: Retention {
                last: 4,
                newer_than: Some(Duration::MAX),
            },
            ..opts(1_000)
        },
    );
    let p = s.producer();
    p.send(Update::InsertEdge(0, 1, 1)).unwrap();
    p.send(Update::InsertEdge(1, 2, 1)).unwrap();
    // The batch waits for more (no deadline), and a flush seals it; the writer did not panic
    // on `Instant + Duration::MAX`, nor did the retention horizon wrap.
    let v = p.flush().unwrap().wait().unwrap();
    assert_eq!(v, 1);
    assert_eq!(s.acquire().graph().num_edges(), 2);
    assert_eq!(s.versions().unwrap().len(), 2);
    s.close().unwrap();
}

#[test]
fn torn_tail_is_cut_and_reported() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(2_000, 100, 3);
    let s = create(&dir, opts(100));
    feed(&s, &ups, 100);
    s.close().unwrap();
    let seg = segments(&dir).pop().unwrap();
    // Cut the last record in half.
    truncate(&seg, |len| len - 50);
    let before = fs::read(&seg).unwrap();
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    let r = s.recovery().clone();
    let d = r.dropped.expect("the torn tail is reported");
    assert!(!d.inside);
    assert!(d.reason.contains("torn"), "{}", d.reason);
    // The bytes cut are kept beside the log, exactly.
    assert_eq!(d.set_aside.len(), 1, "{:?}", d.set_aside);
    let aside = fs::read(&d.set_aside[0]).unwrap();
    assert_eq!(aside.len() as u64, d.bytes);
    assert_eq!(before[before.len() - aside.len()..], aside[..]);
    assert_eq!(
        fs::metadata(&seg).unwrap().len() as usize,
        before.len() - aside.len()
    );
    let kept = r.tag as usize;
    assert!(
        kept < 2_000 && kept > 1_000,
        "the last whole batch is kept: {kept}"
    );
    let m = model_of(&ups[..kept]);
    check(s.acquire().graph(), &m, "prefix");
    // The log continues cleanly after the cut.
    feed(&s, &ups[kept..], 100);
    s.close().unwrap();
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    assert!(s.recovery().dropped.is_none());
    let m = model_of(&ups);
    check(s.acquire().graph(), &m, "after continuing");
    let v = s.version();
    drop(s);
    // A crash while a new segment's header was being written can leave it zero-filled, in
    // whole or in part: the segment holds nothing, which recovery reports and removes.
    let name = dir.join("wal").join(format!("{:020}.wal", v + 1));
    // Magic and format version written, the rest of the header still zeros.
    let mut half = vec![0u8; 32];
    half[..8].copy_from_slice(b"WEALDWAL");
    half[8..12].copy_from_slice(&1u32.to_le_bytes());
    for (i, header) in [vec![0u8; 32], vec![0u8; 20], half].into_iter().enumerate() {
        fs::write(&name, &header).unwrap();
        let s = Store::<i32>::open(&dir, opts(100)).unwrap();
        let d = s
            .recovery()
            .dropped
            .clone()
            .expect("the torn header is reported");
        assert!(
            d.reason.contains("torn segment header"),
            "{i}: {}",
            d.reason
        );
        assert!(!d.inside);
        assert_eq!(s.version(), v);
        check(s.acquire().graph(), &m, "after a torn header");
        drop(s);
        assert!(!name.exists() || fs::read(&name).unwrap() != header);
    }
}

#[test]
fn a_log_cut_back_to_its_header_continues_in_place() {
    // With one record per segment, cutting the last segment's torn record leaves a segment
    // holding only its header; the log must continue in it rather than "rotate" to a segment
    // of the same name.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(3_000, 100, 12);
    let o = StoreOptions {
        segment_bytes: 1,
        ..opts(100)
    };
    let s = create(&dir, o.clone());
    feed(&s, &ups[..1_000], 100);
    s.close().unwrap();
    let seg = segments(&dir).pop().unwrap();
    truncate(&seg, |len| len - 5);
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let ev = events.clone();
    let o = StoreOptions {
        on_event: Some(Arc::new(move |e: &Event| {
            ev.lock().unwrap().push(e.clone())
        })),
        ..o
    };
    let s = Store::<i32>::open(&dir, o.clone()).unwrap();
    assert!(s.recovery().dropped.is_some());
    assert_eq!(fs::metadata(&seg).unwrap().len(), 32);
    let kept = s.recovery().tag as usize;
    assert_eq!(kept, 900);
    let m = model_of(ups[..kept].iter().chain(&ups[1_000..]));
    // Continue, with checkpoints that remove the log they cover.
    let p = s.producer();
    for (i, chunk) in ups[1_000..].chunks(100).enumerate() {
        p.send_all(chunk.to_vec()).unwrap().wait().unwrap();
        if i % 7 == 6 {
            s.checkpoint().unwrap().wait().unwrap();
        }
    }
    assert!(s.failure().is_none());
    s.close().unwrap();
    let evs = events.lock().unwrap().clone();
    assert!(
        !evs.iter().any(|e| matches!(e, Event::CheckpointFailed(..))),
        "{evs:?}"
    );
    let s = Store::<i32>::open(&dir, o).unwrap();
    assert!(s.recovery().dropped.is_none(), "{:?}", s.recovery().dropped);
    check(s.acquire().graph(), &m, "after continuing");
}

/// Copy a closed store's directory (manifest, log segments, checkpoints) to `to`.
fn copy_store(from: &Path, to: &Path) {
    for sub in ["wal", "checkpoints"] {
        fs::create_dir_all(to.join(sub)).unwrap();
        for e in fs::read_dir(from.join(sub)).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), to.join(sub).join(e.file_name())).unwrap();
        }
    }
    fs::copy(from.join("WEALD"), to.join("WEALD")).unwrap();
}

#[test]
fn flipped_bytes_tail_vs_inside() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(3_000, 100, 4);
    let s = create(&dir, opts(100));
    feed(&s, &ups, 100);
    s.close().unwrap();
    let seg = segments(&dir).pop().unwrap();
    let bytes = fs::read(&seg).unwrap();
    // Two copies of the intact store, for the damage inside the log below.
    let (copy, mid) = (t.path().join("copy"), t.path().join("mid"));
    copy_store(&dir, &copy);
    copy_store(&dir, &mid);

    // A flipped byte in the last record: the tail is cut and reported.
    let mut b = bytes.clone();
    let at = b.len() - 3;
    b[at] ^= 0x40;
    fs::write(&seg, &b).unwrap();
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    let d = s.recovery().dropped.clone().unwrap();
    assert!(d.reason.contains("checksum"), "{}", d.reason);
    assert!(s.recovery().tag < 3_000 && s.recovery().tag > 2_000);
    drop(s);

    // A flipped byte in an early record: refused with a clear message, nothing touched...
    let seg2 = copy.join("wal").join(seg.file_name().unwrap());
    let mut b = bytes.clone();
    b[100] ^= 0x01;
    fs::write(&seg2, &b).unwrap();
    let e = Store::<i32>::open(&copy, opts(100)).err().expect("refused");
    let msg = e.to_string();
    assert!(matches!(e, WealdError::Format { .. }));
    assert!(msg.contains("salvage") && msg.contains("damaged"), "{msg}");
    assert_eq!(
        fs::read(&seg2).unwrap(),
        b,
        "refusing leaves the log as it was"
    );
    // ...and salvage keeps the valid prefix and sets the rest aside.
    let s = Store::<i32>::open(
        &copy,
        StoreOptions {
            salvage: true,
            ..opts(100)
        },
    )
    .unwrap();
    let d = s.recovery().dropped.clone().unwrap();
    assert!(d.inside);
    assert_eq!(d.set_aside.len(), 1);
    assert!(d.set_aside[0].exists());
    assert_eq!(s.recovery().tag, 0);
    assert_eq!(s.acquire().num_arcs(), 0);
    drop(s);

    // A flipped byte in the middle of the log: salvage keeps the records before it, and they
    // stay in the log: a plain reopen recovers the same version, with nothing dropped.
    let seg3 = mid.join("wal").join(seg.file_name().unwrap());
    let mut b = bytes.clone();
    let at = b.len() / 2;
    b[at] ^= 0x01;
    fs::write(&seg3, &b).unwrap();
    let s = Store::<i32>::open(
        &mid,
        StoreOptions {
            salvage: true,
            ..opts(100)
        },
    )
    .unwrap();
    let d = s.recovery().dropped.clone().unwrap();
    assert!(d.inside);
    assert!(d.set_aside[0].exists());
    let (version, tag) = (s.recovery().version, s.recovery().tag);
    let arcs = s.acquire().num_arcs();
    assert!(tag > 0 && tag < 3_000, "tag {tag}");
    assert!(arcs > 0);
    s.close().unwrap();
    let s = Store::<i32>::open(&mid, opts(100)).unwrap();
    assert!(s.recovery().dropped.is_none());
    assert_eq!(s.recovery().version, version);
    assert_eq!(s.recovery().tag, tag);
    assert_eq!(s.acquire().num_arcs(), arcs);
}

#[test]
fn damaged_newest_checkpoint_falls_back_without_loss() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(4_000, 200, 5);
    let mut model = model_of(&ups);
    let s = create(&dir, opts(100));
    feed(&s, &ups[..2_000], 100);
    s.checkpoint().unwrap().wait().unwrap();
    feed(&s, &ups[2_000..], 100);
    let newest = s.checkpoint().unwrap().wait().unwrap();
    s.close().unwrap();
    let ck = dir.join("checkpoints").join(format!("{newest:020}.wgb"));
    truncate(&ck, |len| len / 2);
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    let r = s.recovery();
    assert_eq!(r.bad_checkpoints.len(), 1, "{:?}", r.bad_checkpoints);
    assert!(
        r.bad_checkpoints[0].1.contains("truncated"),
        "{:?}",
        r.bad_checkpoints
    );
    assert!(r.checkpoint_version < newest);
    assert_eq!(r.version, newest);
    check(s.acquire().graph(), &model, "older checkpoint + log");
    // The damaged checkpoint is not one of the two readable ones kept: after one new
    // checkpoint, the older readable one and its log stay, so damage to the new one loses
    // nothing either.
    let older = r.checkpoint_version;
    let more = stream(1_000, 200, 55);
    for u in &more {
        model.apply(u);
    }
    feed(&s, &more[..500], 100);
    let third = s.checkpoint().unwrap().wait().unwrap();
    let names = |dir: &Path| -> Vec<u64> {
        let mut v: Vec<u64> = fs::read_dir(dir.join("checkpoints"))
            .unwrap()
            .map(|e| {
                e.unwrap().file_name().to_string_lossy()[..20]
                    .parse()
                    .unwrap()
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&dir), vec![older, newest, third]);
    feed(&s, &more[500..], 100);
    s.close().unwrap();
    let copy = t.path().join("copy");
    copy_store(&dir, &copy);
    let ck3 = copy.join("checkpoints").join(format!("{third:020}.wgb"));
    truncate(&ck3, |_| 100);
    let s2 = Store::<i32>::open(&copy, opts(100)).unwrap();
    assert_eq!(s2.recovery().checkpoint_version, older);
    check(
        s2.acquire().graph(),
        &model,
        "both newer checkpoints damaged",
    );
    drop(s2);
    // A second new checkpoint makes the first two (the damaged one included) removable.
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    let fourth = s.checkpoint().unwrap().wait().unwrap();
    assert_eq!(names(&dir), vec![third, fourth]);
    drop(s);
}

#[test]
fn pinning_a_version_whose_checkpoint_is_damaged_rewrites_it() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(2_000, 200, 15);
    let s = create(&dir, opts(100));
    feed(&s, &ups[..1_000], 100);
    s.checkpoint().unwrap().wait().unwrap();
    let newest = feed(&s, &ups[1_000..], 100);
    assert_eq!(s.checkpoint().unwrap().wait().unwrap(), newest);
    s.close().unwrap();
    let ck = dir.join("checkpoints").join(format!("{newest:020}.wgb"));
    truncate(&ck, |_| 100);
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    assert_eq!(s.recovery().bad_checkpoints.len(), 1);
    assert_eq!(s.version(), newest);
    s.pin("p", newest).unwrap();
    s.close().unwrap();
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    let r = s.recovery();
    assert!(r.bad_checkpoints.is_empty(), "{:?}", r.bad_checkpoints);
    assert_eq!(r.checkpoint_version, newest);
    assert!(s
        .versions()
        .unwrap()
        .iter()
        .any(|x| x.version == newest && x.pins == ["p"]));
}

#[test]
fn checkpoint_files_in_writing_are_never_removed_or_shared() {
    // A background checkpoint pauses between writing its temporary file and installing it;
    // listing versions meanwhile must not remove that file, and pinning the same version
    // meanwhile must not write the same temporary file.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(2_000, 200, 9);
    let s = create(
        &dir,
        StoreOptions {
            checkpoint_pause: Some(Duration::from_millis(400)),
            ..opts(100)
        },
    );
    let v = feed(&s, &ups, 100);
    let tmp_exists = || {
        fs::read_dir(dir.join("checkpoints"))
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
    };
    let ticket = s.checkpoint().unwrap();
    let t0 = std::time::Instant::now();
    while !tmp_exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no checkpoint started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(!s.versions().unwrap().is_empty());
    s.pin("p", v).unwrap();
    assert!(
        tmp_exists(),
        "the background checkpoint's file is still there"
    );
    assert_eq!(ticket.wait().unwrap(), v);
    s.close().unwrap();
    let s = Store::<i32>::open(&dir, opts(100)).unwrap();
    assert_eq!(s.recovery().checkpoint_version, v);
    assert!(s.recovery().bad_checkpoints.is_empty());
    assert!(s
        .versions()
        .unwrap()
        .iter()
        .any(|x| x.version == v && x.pins == ["p"]));
}

#[test]
fn full_disk_fails_the_batch_and_loses_nothing_acknowledged() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(5_000, 100, 6);
    let s = create(
        &dir,
        StoreOptions {
            fail_after_bytes: Some(6_000),
            ..opts(50)
        },
    );
    let p = s.producer();
    let mut acked = 0;
    let mut failed = None;
    for (i, chunk) in ups.chunks(50).enumerate() {
        let t = p
            .send_tagged(chunk.to_vec(), (i as u64 + 1) * 50, true)
            .unwrap()
            .unwrap();
        match t.wait() {
            Ok(_) => acked = (i + 1) * 50,
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let e = failed.expect("the simulated full disk fails a batch");
    assert!(matches!(e, WealdError::Unavailable(_)));
    assert!(e.to_string().contains("no space left"), "{e}");
    assert!(s.failure().is_some());
    // Later sends fail too, and nothing of them is applied.
    let v = s.version();
    let t2 = p.send_all(vec![Update::InsertEdge(1, 2, 3)]).unwrap();
    assert!(t2.wait().is_err());
    assert_eq!(s.version(), v);
    assert!(s.close().is_err());
    let s = Store::<i32>::open(&dir, opts(50)).unwrap();
    assert!(acked > 0);
    assert_eq!(s.recovery().tag as usize, acked);
    assert!(
        s.recovery().dropped.is_some(),
        "the partial record is reported"
    );
    let m = model_of(&ups[..acked]);
    check(s.acquire().graph(), &m, "after full disk");
}

#[test]
fn a_failed_background_fsync_stops_an_idle_store_at_once() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let s = create(
        &dir,
        StoreOptions {
            fsync: Fsync::Interval(Duration::from_millis(1)),
            fail_background_sync: true,
            ..opts(10)
        },
    );
    let p = s.producer();
    // `interval` acknowledges before the flush, which then fails.
    let v = p
        .send_all(vec![Update::InsertEdge(1, 2, 3)])
        .unwrap()
        .wait()
        .unwrap();
    // The store hears of it without another batch.
    let t0 = Instant::now();
    while s.failure().is_none() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(1));
    }
    let why = s
        .failure()
        .expect("the failure was not reported within 30 s");
    assert!(why.contains("a background fsync failed"), "{why}");
    assert!(why.contains("simulated failure"), "{why}");
    // Nothing more is accepted, and nothing of it applied.
    let e = p
        .send_all(vec![Update::InsertEdge(4, 5, 6)])
        .unwrap()
        .wait()
        .unwrap_err();
    assert!(e.to_string().contains(&why), "{e}");
    assert!(p.flush().unwrap().wait().is_err());
    assert_eq!(s.version(), v);
    assert!(s.close().is_err());
}

#[test]
fn batches_stay_within_the_log_record_limit() {
    // Recovery rejects a record above the log's limit as corrupt, so the writer must never
    // write one: it seals a batch before the batch would outgrow it, and refuses a single
    // message that could not fit (the limit is lowered here; the format's is 1 GiB).
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let limit = 28 + 2_000;
    let ups = stream(4_000, 100, 8);
    let s = create(
        &dir,
        StoreOptions {
            max_record_bytes: Some(limit),
            // Without the limit, everything sent before the writer wakes would be one batch.
            max_wait: Duration::from_millis(50),
            ..opts(usize::MAX)
        },
    );
    let p = s.producer();
    let big = vec![Update::InsertEdge(1_000_000, 2_000_000, 7); 200];
    let e = p.send_all(big).err().expect("a message above the limit");
    assert!(matches!(e, WealdError::Invalid(_)), "{e}");
    assert!(e.to_string().contains("smaller messages"), "{e}");
    let v = feed(&s, &ups, 100);
    assert!(s.failure().is_none());
    s.close().unwrap();
    // Every record reads back (with the format's own limit), nothing of the refused message.
    let s = Store::<i32>::open(&dir, opts(usize::MAX)).unwrap();
    assert!(s.recovery().dropped.is_none(), "{:?}", s.recovery().dropped);
    assert_eq!(s.recovery().records_replayed, v);
    let m = model_of(&ups);
    check(s.acquire().graph(), &m, "after reopen");
    // The log's records are all within the lowered limit: one per version, together holding
    // every update (each takes at least 2 bytes), so there are at least 4 of them.
    let (mut records, mut total) = (0u64, 0usize);
    for seg in segments(&dir) {
        let b = fs::read(&seg).unwrap();
        let mut at = 32;
        while at < b.len() {
            let len = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            assert!(len <= limit, "a record of {len} bytes in {}", seg.display());
            records += 1;
            total += len as usize;
            at += 8 + len as usize;
        }
        assert_eq!(at, b.len());
    }
    assert_eq!(records, v, "one record per version");
    assert!(total >= 4_000 * 2, "{total} bytes of records");
    assert!(records >= 4, "{records} records");
}

#[test]
fn foreign_newer_and_busy_directories_are_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    let foreign = t.path().join("foreign");
    fs::create_dir(&foreign).unwrap();
    fs::write(foreign.join("x"), "x").unwrap();
    let e = Store::<()>::open(&foreign, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("not a Weald data directory"), "{e}");
    let e = Store::<()>::create(&foreign, Layout::default(), None, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("not empty"), "{e}");

    let dir = t.path().join("d");
    let s = Store::<()>::create(&dir, Layout::default(), None, StoreOptions::default()).unwrap();
    let e = Store::<()>::open(&dir, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("in use"), "{e}");
    let e = Store::<i32>::open(&dir, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("holds none weights"), "{e}");
    drop(s);
    let m = fs::read_to_string(dir.join("WEALD")).unwrap();
    fs::write(dir.join("WEALD"), m.replace("format 1", "format 7")).unwrap();
    let e = Store::<()>::open(&dir, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("newer"), "{e}");
    fs::write(dir.join("WEALD"), m).unwrap();
    // A log segment of a newer log format.
    let seg = segments(&dir).pop().unwrap();
    let mut b = fs::read(&seg).unwrap();
    b[8] = 9;
    fs::write(&seg, &b).unwrap();
    let e = Store::<()>::open(&dir, StoreOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("newer"), "{e}");
}

#[test]
fn readers_see_whole_batches_while_the_writer_runs() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    // Each message inserts a star around a fresh centre: a reader must never see part of one.
    let s = create(&dir, opts(10_000));
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        let reader = sc.spawn(|| {
            let mut last = 0;
            let mut seen = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let snap = s.acquire();
                assert!(snap.version() >= last, "versions go forward");
                last = snap.version();
                assert_eq!(snap.num_arcs() % 20, 0, "a batch seen in part");
                seen += 1;
            }
            seen
        });
        let p = s.producer();
        for c in 0..2_000u32 {
            let centre = 100_000 + c;
            let star: Vec<Update<i32>> =
                (0..10).map(|i| Update::InsertEdge(centre, i, 1)).collect();
            // Star messages must not be split across batches for this check: batch_size is a
            // multiple of 10 and messages are whole.
            let t = p.send_all(star).unwrap();
            if c % 100 == 0 {
                let v = t.wait().unwrap();
                // Strict serializability: after the acknowledgement, a new reader sees it.
                assert!(s.acquire().version() >= v);
                assert_eq!(s.acquire().find_edge(centre, 3), Some(1));
            }
        }
        p.flush().unwrap().wait().unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    assert_eq!(s.acquire().num_arcs(), 2_000 * 20);
}

/// Recovery merges the records no retained version needs into large batches; the recovered
/// graph and every version rebuilt for the history still equal the sequential model, whether
/// the rule keeps few versions (merging), all of them, or all by time (no merging).
#[test]
fn replay_merges_unretained_records_and_rebuilds_retained_versions() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let ups = stream(12_000, 200, 7);
    let model_at = |tag: u64| model_of(&ups[..tag as usize]);
    let keep = |last: usize, newer_than: Option<Duration>| StoreOptions {
        retention: Retention { last, newer_than },
        checkpoint_every: 0,
        ..opts(40)
    };
    let s = create(&dir, keep(5, None));
    let v = feed(&s, &ups, 1);
    let records = v; // one record per version after the empty base checkpoint (version 0)
    assert!(records >= 12_000 / 40, "{records} records");
    s.close().unwrap();
    let cases = [
        (keep(5, None), 5usize, true),
        (keep(1_000_000, None), records as usize + 1, false),
        (
            keep(1, Some(Duration::from_secs(3600))),
            records as usize + 1,
            false,
        ),
    ];
    for (o, want_versions, merged) in cases {
        let s = Store::<i32>::open(&dir, o.clone()).unwrap();
        let r = s.recovery().clone();
        let what = format!("{:?}", o.retention);
        assert_eq!(r.records_replayed, records, "{what}");
        assert_eq!(r.updates_replayed, 12_000, "{what}");
        if merged {
            assert!(r.batches_applied < r.records_replayed / 4, "{what}: {r:?}");
        } else {
            assert_eq!(r.batches_applied, r.records_replayed, "{what}");
        }
        check(s.acquire().graph(), &model_at(12_000), &what);
        let vs = s.versions().unwrap();
        assert_eq!(vs.len(), want_versions, "{what}");
        assert_eq!(vs.last().unwrap().version, v, "{what}");
        for info in vs.iter().rev().take(8) {
            check(
                s.snapshot_at(info.version).unwrap().graph(),
                &model_at(info.tag),
                &format!("{what}: version {}", info.version),
            );
        }
        s.close().unwrap();
    }
}

#[test]
fn history_retention_pins_and_time_travel() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let o = StoreOptions {
        retention: Retention {
            last: 3,
            newer_than: None,
        },
        ..opts(10)
    };
    let s = create(&dir, o.clone());
    let p = s.producer();
    let mut times = Vec::new();
    for i in 0..10u32 {
        let v = p
            .send_all(vec![Update::InsertEdge(i, i + 1, i as i32)])
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(v, i as u64 + 1);
        times.push(s.versions().unwrap().last().unwrap().time_ns);
        std::thread::sleep(Duration::from_millis(2));
    }
    let vs: Vec<u64> = s.versions().unwrap().iter().map(|v| v.version).collect();
    assert_eq!(vs, vec![8, 9, 10]);
    let e = s.snapshot_at(2).err().unwrap();
    assert!(e.to_string().contains("not retained"), "{e}");
    assert_eq!(s.snapshot_at(9).unwrap().num_edges(), 9);
    assert_eq!(s.snapshot_at_time(times[8]).unwrap().version(), 9);
    assert!(s.snapshot_at_time(times[0]).is_err());
    s.pin("before-11", 9).unwrap();
    for i in 10..20u32 {
        p.send_all(vec![Update::InsertEdge(i, i + 1, 0)])
            .unwrap()
            .wait()
            .unwrap();
    }
    let pinned = s.snapshot_at(9).unwrap();
    assert_eq!(pinned.num_edges(), 9);
    let info = s.versions().unwrap();
    assert_eq!(info[0].version, 9);
    assert_eq!(info[0].pins, vec!["before-11".to_string()]);
    assert!(info[0].on_disk);
    drop(s);
    // Pins survive a restart (read back from their checkpoint).
    let s = Store::<i32>::open(&dir, o).unwrap();
    assert_eq!(s.snapshot_at(9).unwrap().num_edges(), 9);
    assert_eq!(s.acquire().num_edges(), 20);
    s.unpin("before-11").unwrap();
    assert!(s.unpin("before-11").is_err());
}

#[test]
fn base_graph_and_absent_vertices_round_trip_through_checkpoints() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let el = weald::EdgeList::<i32>::from_triples([(0, 1, 5), (1, 2, 6), (7, 8, 7)]);
    let base = weald::storage::ctree::CTreeGraph::from_edge_list(
        &el,
        Default::default(),
        Default::default(),
    )
    .unwrap();
    let s = Store::<i32>::create(&dir, Layout::default(), Some(base), opts(10)).unwrap();
    let p = s.producer();
    p.send_all(vec![
        Update::DeleteVertex(4),
        Update::DeleteVertex(8),
        Update::InsertVertex(20),
    ])
    .unwrap()
    .wait()
    .unwrap();
    let want = s.acquire().graph().vertices();
    assert!(!want.contains(&4) && !want.contains(&8) && want.contains(&20));
    s.checkpoint().unwrap().wait().unwrap();
    drop(p);
    drop(s);
    let s = Store::<i32>::open(&dir, opts(10)).unwrap();
    assert_eq!(s.recovery().records_replayed, 0);
    assert_eq!(s.acquire().graph().vertices(), want);
    assert_eq!(s.acquire().find_edge(1, 0), Some(5));
}

/// The metadata version of each checkpoint file in `dir`, in file order.
fn checkpoint_meta_versions(dir: &Path) -> Vec<u32> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let (_, meta) = weald::io::binary::read_with_meta(f, None).unwrap();
            u32::from_le_bytes(meta.unwrap()[8..12].try_into().unwrap())
        })
        .collect()
}

/// A version whose ids spread to 2^32 - 2 is checkpointed relabelled (metadata version 2: a
/// few hundred bytes, where its id space would need 32 GiB of offsets and 4 billion absent
/// ids) and recovered in its own ids, in-arcs included; a dense version keeps version 1,
/// which earlier builds read.
#[test]
fn a_sparse_version_is_checkpointed_relabelled_and_recovered_in_its_ids() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("d");
    let top = weald::graph::MAX_VERTEX;
    let layout = Layout {
        directed: true,
        ..Layout::default()
    };
    let s = Store::<i32>::create(&dir, layout, None, opts(10)).unwrap();
    let p = s.producer();
    p.send_all(vec![
        Update::InsertEdge(0, 1, 3),
        Update::InsertEdge(1, 2, 4),
        Update::InsertVertex(9),
    ])
    .unwrap()
    .wait()
    .unwrap();
    s.checkpoint().unwrap().wait().unwrap();
    p.send_all(vec![
        Update::InsertEdge(top, 1, 5),
        Update::InsertEdge(70000, top, 6),
        Update::DeleteVertex(2),
    ])
    .unwrap()
    .wait()
    .unwrap();
    s.checkpoint().unwrap().wait().unwrap();
    let want_vs = s.acquire().graph().vertices();
    let want_arcs = s.acquire().graph().arcs();
    assert_eq!(want_vs, vec![0, 1, 9, 70000, top]);
    assert_eq!(want_arcs, vec![(0, 1, 3), (70000, top, 6), (top, 1, 5)]);
    drop(p);
    s.close().unwrap();
    // The dense versions' checkpoints that clean-up kept, then the sparse one.
    let mv = checkpoint_meta_versions(&dir);
    assert!(mv.len() >= 2 && mv.last() == Some(&2), "{mv:?}");
    assert!(mv[..mv.len() - 1].iter().all(|&v| v == 1), "{mv:?}");
    let newest = fs::read_dir(dir.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .max()
        .unwrap();
    assert!(newest < 4096, "checkpoint of {newest} bytes");
    let s = Store::<i32>::open(&dir, opts(10)).unwrap();
    assert_eq!(s.recovery().records_replayed, 0);
    let g = s.acquire();
    assert_eq!(g.graph().vertices(), want_vs);
    assert_eq!(g.graph().arcs(), want_arcs);
    assert_eq!(g.num_vertices(), top as usize + 1);
    use weald::InGraph;
    let mut ins = Vec::new();
    g.graph().for_each_in(1, |u, w| {
        ins.push((u, w));
        true
    });
    assert_eq!(ins, vec![(0, 3), (top, 5)]);
}

#[test]
fn aspen_workload_and_experiments_do_the_work_they_report() {
    use weald::experiments::stream as exp;
    use weald::storage::ctree::{CTreeGraph, CTreeOptions};
    let el = weald::io::gen::rmat(&weald::io::gen::RmatParams {
        scale: 10,
        edge_factor: 8,
        seed: 3,
        ..Default::default()
    });
    let opts = CTreeOptions {
        directed: false,
        in_edges: false,
        b: 16,
    };
    let g: CTreeGraph<()> =
        CTreeGraph::from_edge_list(&el, opts, weald::graph::batch::Combine::Min).unwrap();
    let w = exp::Workload::aspen(&g, 1000, 7).unwrap();
    assert_eq!(w.updates.len(), 1000);
    let ins: Vec<(Vertex, Vertex)> = w
        .updates
        .iter()
        .filter_map(|u| match *u {
            Update::InsertEdge(a, b, ()) => Some((a, b)),
            _ => None,
        })
        .collect();
    let del: Vec<(Vertex, Vertex)> = w
        .updates
        .iter()
        .filter_map(|u| match *u {
            Update::DeleteEdge(a, b) => Some((a, b)),
            _ => None,
        })
        .collect();
    assert_eq!((ins.len(), del.len()), (900, 100));
    // Re-inserted edges are missing from the start and present in the original; deleted ones
    // are in both; the stream is a permutation (not all inserts first).
    for &(a, b) in &ins {
        assert!(g.find_edge(a, b).is_some() && w.start.find_edge(a, b).is_none());
    }
    for &(a, b) in &del {
        assert!(w.start.find_edge(a, b).is_some());
    }
    let first_delete = w
        .updates
        .iter()
        .position(|u| matches!(u, Update::DeleteEdge(..)))
        .unwrap();
    assert!(
        first_delete < 500,
        "deletions are spread through the stream"
    );
    assert_eq!(w.start.num_edges() + 900, g.num_edges());

    let t = tempfile::tempdir().unwrap();
    let r = exp::concurrent(&w, &t.path().join("c"), Fsync::Never, 200, true, 1).unwrap();
    assert_eq!(r.updates, 200);
    assert_eq!(
        r.bfs_isolated_s.len(),
        exp::PHASES * exp::SOURCES_PER_PHASE * exp::ISOLATED_PER_SOURCE
    );
    assert_eq!(r.bfs_ratios.len(), r.bfs_concurrent_s.len());
    assert!(r.bfs_ratios.iter().all(|x| x.is_finite() && *x > 0.0));
    assert!(r.visibility_p50_us > 0.0 && r.visibility_p99_us >= r.visibility_p50_us);
    // The store's log really holds the stream: reopening gives the streamed graph.
    let s = Store::<()>::open(&t.path().join("c"), StoreOptions::default()).unwrap();
    assert_eq!(s.recovery().updates_replayed, 200);
    drop(s);
    for log in [None, Some((t.path().join("i"), Fsync::Always))] {
        let secs = exp::ingest(&w, log.as_ref().map(|(p, f)| (p.as_path(), *f)), 300).unwrap();
        assert!(secs > 0.0);
    }
    let r = exp::recovery(&w, &t.path().join("r"), 5000, 1000, 1).unwrap();
    assert_eq!((r.updates_replayed, r.records_replayed), (5000, 5));
}

#[test]
fn concurrent_experiment_on_a_graph_left_without_edges_skips_bfs_instead_of_hanging() {
    use weald::experiments::stream as exp;
    use weald::storage::ctree::{CTreeGraph, CTreeOptions};
    // One edge: the workload deletes it up front and re-inserts it, so the first phase starts
    // on a graph with no arcs, where no BFS source exists.
    let el = weald::graph::batch::EdgeList::from_triples([(0, 1, ())]);
    let opts = CTreeOptions {
        directed: false,
        in_edges: false,
        b: 16,
    };
    let g: CTreeGraph<()> =
        CTreeGraph::from_edge_list(&el, opts, weald::graph::batch::Combine::Min).unwrap();
    let w = exp::Workload::aspen(&g, 10, 7).unwrap();
    assert_eq!(w.start.num_edges(), 0);
    assert_eq!(w.updates.len(), 1);
    let t = tempfile::tempdir().unwrap();
    let r = exp::concurrent(&w, &t.path().join("c"), Fsync::Never, 10, true, 1).unwrap();
    assert_eq!(r.updates, 1);
    assert!(r.bfs_isolated_s.is_empty() && r.bfs_ratios.is_empty());
    let s = Store::<()>::open(&t.path().join("c"), StoreOptions::default()).unwrap();
    assert_eq!(s.acquire().graph().num_edges(), 1);
}
