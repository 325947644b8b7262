//! Crash tests: `weald stream --fsync always` is killed with SIGKILL at random points and right
//! after checkpoints start and log segments rotate; recovery must hold every acknowledged
//! update, in order, and no partial batch.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use weald::stream::{Store, StoreOptions, Update};
use weald::Vertex;

fn weald() -> Command {
    Command::new(env!("CARGO_BIN_EXE_weald"))
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One run's recovered state: (run index, acknowledged tag, present vertices, edges).
type Recovered = (usize, u64, Vec<Vertex>, Vec<(Vertex, Vertex, ())>);

/// The sequential meaning of a prefix of the stream (undirected, unweighted).
#[derive(Default)]
struct Model {
    present: HashSet<Vertex>,
    adj: HashMap<Vertex, HashSet<Vertex>>,
}

impl Model {
    fn apply(&mut self, u: &Update) {
        match *u {
            Update::InsertEdge(a, b, ()) => {
                self.present.insert(a);
                self.present.insert(b);
                self.adj.entry(a).or_default().insert(b);
                self.adj.entry(b).or_default().insert(a);
            }
            Update::DeleteEdge(a, b) => {
                if let Some(s) = self.adj.get_mut(&a) {
                    s.remove(&b);
                }
                if let Some(s) = self.adj.get_mut(&b) {
                    s.remove(&a);
                }
            }
            Update::InsertVertex(a) => {
                self.present.insert(a);
            }
            Update::DeleteVertex(a) => {
                self.present.remove(&a);
                if let Some(ns) = self.adj.remove(&a) {
                    for n in ns {
                        if let Some(s) = self.adj.get_mut(&n) {
                            s.remove(&a);
                        }
                    }
                }
            }
        }
    }

    fn vertices(&self) -> Vec<Vertex> {
        self.present
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    fn arcs(&self) -> Vec<(Vertex, Vertex, ())> {
        let mut out: Vec<(Vertex, Vertex, ())> = self
            .adj
            .iter()
            .flat_map(|(&u, ns)| ns.iter().map(move |&v| (u, v, ())))
            .collect();
        out.sort_by_key(|a| (a.0, a.1));
        out
    }
}

fn write_stream(path: &Path, lines: usize) -> Vec<Update> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut text = String::new();
    let mut ups = Vec::new();
    for _ in 0..lines {
        let r = rng.next();
        let (u, v) = ((r >> 8) as u32 % 3000, (r >> 40) as u32 % 3000);
        let (line, up) = match r % 100 {
            0..=64 => (format!("+ {u} {v}\n"), Update::InsertEdge(u, v, ())),
            65..=94 => (format!("- {u} {v}\n"), Update::DeleteEdge(u, v)),
            95..=97 => (format!("+v {u}\n"), Update::InsertVertex(u)),
            _ => (format!("-v {u}\n"), Update::DeleteVertex(u)),
        };
        text.push_str(&line);
        ups.push(up);
    }
    fs::write(path, text).unwrap();
    ups
}

#[derive(Debug, Clone, Copy)]
enum Trigger {
    After(Duration),
    Event(&'static str, usize),
}

/// The event line `weald stream --events` prints as a checkpoint is started.
const CHECKPOINT_STARTED: &str = "event: checkpoint started";

/// Whether the data directory `dir` holds a checkpoint's temporary file (one being written).
fn has_checkpoint_tmp(dir: &Path) -> bool {
    fs::read_dir(dir.join("checkpoints"))
        .map(|rd| {
            rd.flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        })
        .unwrap_or(false)
}

#[test]
fn sigkill_at_random_points_loses_nothing_acknowledged() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("updates.txt");
    let ups = write_stream(&input, 400_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Runs go on until 20 kills have landed mid-stream: on a fast machine a run can finish
    // its stream before its trigger fires (such a run still checks recovery, but does not
    // count).
    const MID_STREAM: usize = 20;
    const MAX_RUNS: usize = 60;
    let mut mid_stream = 0;
    let mut tmp_left = 0;
    let mut finished_first = Vec::new();
    let mut runs = 0;
    // (acknowledged line, recovered line) per run, checked against the model in tag order.
    let mut results: BTreeMap<u64, Vec<Recovered>> = BTreeMap::new();
    while mid_stream < MID_STREAM && runs < MAX_RUNS {
        let i = runs;
        runs += 1;
        let trig = match i % 3 {
            0 => Trigger::After(Duration::from_millis(30 + rng.next() % 600)),
            1 => Trigger::Event(CHECKPOINT_STARTED, 1 + (i / 3) % 3),
            _ => Trigger::Event("event: segment rotated", 1 + (i / 3) % 4),
        };
        let dir = t.path().join(format!("d{i}"));
        let acks = t.path().join(format!("acks{i}.txt"));
        let mut child = weald()
            .args([
                "--quiet",
                "--threads",
                "1",
                "stream",
                "--fsync",
                "always",
                "--batch",
                "500",
            ])
            .args([
                "--checkpoint-every",
                "15000",
                "--segment-bytes",
                "32768",
                "--events",
            ])
            .args(["--test-checkpoint-pause-ms", "100"])
            .arg("--data")
            .arg(&dir)
            .arg("--updates")
            .arg(&input)
            .arg("--ack-out")
            .arg(&acks)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let start = Instant::now();
        match trig {
            Trigger::After(d) => std::thread::sleep(d),
            Trigger::Event(what, k) => {
                let mut seen = 0;
                while seen < k && start.elapsed() < Duration::from_secs(30) {
                    match rx.recv_timeout(Duration::from_millis(50)) {
                        Ok(l) if l.starts_with(what) => seen += 1,
                        Err(mpsc::RecvTimeoutError::Disconnected) => break,
                        _ => {}
                    }
                }
                if what == CHECKPOINT_STARTED && seen == k {
                    // The writer announces a checkpoint as it hands it to the checkpoint
                    // thread, before that thread creates the temporary file: wait for the
                    // file (which the test pause keeps for 100 ms), so that the kill lands
                    // while the checkpoint is being written rather than just before.
                    while !has_checkpoint_tmp(&dir)
                        && start.elapsed() < Duration::from_secs(30)
                        && child.try_wait().unwrap().is_none()
                    {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
        }
        if child.try_wait().unwrap().is_none() {
            mid_stream += 1;
        } else {
            finished_first.push((i, trig));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        if has_checkpoint_tmp(&dir) {
            tmp_left += 1;
        }
        let acked: u64 = fs::read_to_string(&acks)
            .unwrap_or_default()
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .map(|l| l.trim().parse::<u64>().unwrap())
            .max()
            .unwrap_or(0);
        if !dir.join("WEALD").exists() {
            // Killed before the directory was created: nothing can have been acknowledged.
            assert_eq!(acked, 0, "run {i}: acknowledged without a data directory");
            continue;
        }
        let store = Store::<()>::open(&dir, StoreOptions::default())
            .unwrap_or_else(|e| panic!("run {i} ({trig:?}): recovery failed: {e}"));
        let rec = store.recovery().clone();
        assert!(
            rec.tag >= acked,
            "run {i} ({trig:?}): acknowledged up to line {acked} but recovered only to {}",
            rec.tag
        );
        if let Some(d) = &rec.dropped {
            assert!(
                !d.inside,
                "run {i}: damage inside the log after a kill: {d:?}"
            );
        }
        let snap = store.acquire();
        results.entry(rec.tag).or_default().push((
            i,
            acked,
            snap.graph().vertices(),
            snap.graph().arcs(),
        ));
    }
    // Walk the stream once, comparing at each recovered position.
    let mut model = Model::default();
    let mut at = 0u64;
    for (&tag, runs) in &results {
        while at < tag {
            model.apply(&ups[at as usize]);
            at += 1;
        }
        let (vs, arcs) = (model.vertices(), model.arcs());
        for (i, _, gv, ga) in runs {
            assert_eq!(
                gv, &vs,
                "run {i}: vertices differ from the first {tag} updates"
            );
            assert_eq!(
                ga, &arcs,
                "run {i}: edges differ from the first {tag} updates"
            );
        }
    }
    eprintln!(
        "{runs} runs, {mid_stream} killed mid-stream, {tmp_left} left a checkpoint .tmp, recovered positions {:?}; finished before the kill: {finished_first:?}",
        results.keys().collect::<Vec<_>>()
    );
    assert!(
        mid_stream >= MID_STREAM,
        "only {mid_stream} of {runs} kills landed mid-stream (finished first: {finished_first:?})"
    );
    // Kills of the 'checkpoint started' runs wait for the temporary file, so they land while
    // it exists (unless the run finished first), and recovery ran beside it.
    assert!(
        tmp_left >= 4,
        "only {tmp_left} kills landed during checkpoint writing"
    );
}
