"""Shared machinery of the benchmark harness: environment, inputs, processes, results.

Every case runs in its own process (a fresh interpreter or a fresh `weald` binary), which
prints one JSON object as its last line: {"times": [seconds...], "check": {...}}. The harness
records the median, min and max of the times and the process's peak RSS (from wait4).
"""

from __future__ import annotations

import json
import os
import platform
import random
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
VENV = BENCH / ".venv"


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(quiet: bool = False) -> Path:
    """Create bench/.venv with the pinned peers of requirements.txt (once)."""
    req = BENCH / "requirements.txt"
    stamp = VENV / ".requirements"
    if stamp.exists() and stamp.read_text() == req.read_text():
        return venv_python()
    log("creating bench/.venv with the pinned peers (requirements.txt)")
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(venv_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(req)],
        check=True,
    )
    stamp.write_text(req.read_text())
    return venv_python()


def weald_python() -> Path:
    """Build Weald's Python package into the repository's .venv (scripts/python-env.sh: pinned
    test requirements, maturin develop; incremental) and return that interpreter."""
    log("building the weald Python package into .venv (scripts/python-env.sh)")
    subprocess.run(["bash", str(ROOT / "scripts" / "python-env.sh")], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return ROOT / ".venv" / "bin" / "python"


def weald_binary() -> Path:
    """Build the release `weald` binary (cargo is incremental, so this is cheap when current).

    `WEALD_BIN` names a binary to use instead (the test script's --quick run uses the one the
    tests built; timed runs should not)."""
    if os.environ.get("WEALD_BIN"):
        path = Path(os.environ["WEALD_BIN"])
        log(f"using WEALD_BIN={path}")
        if not path.is_file():
            raise SystemExit(f"WEALD_BIN={path} does not exist")
        return path
    log("cargo build --release -p weald-cli")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "weald-cli"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "weald"


@dataclass
class Graph:
    """One benchmark input in every form the systems need."""

    label: str  # e.g. "rmat-s20"
    text: Path  # edge list, both directions (what `weald generate` writes)
    binary: Path  # Weald binary (.wgb), ids kept as generated
    wtext: Path  # weighted variant (integer weights 1..255)
    wbinary: Path
    npz: Path  # for peers: each undirected edge once, int32, with weights
    vertices: int = 0
    edges: int = 0
    source: int = 0  # a random non-isolated vertex (fixed seed), shared by all systems


def prepare_graph(weald: Path, kind: str, scale: int, cache: Path, py: Path) -> Graph:
    cache.mkdir(parents=True, exist_ok=True)
    label = f"{kind}-s{scale}"
    g = Graph(
        label=label,
        text=cache / f"{label}.el",
        binary=cache / f"{label}.wgb",
        wtext=cache / f"{label}-w.el",
        wbinary=cache / f"{label}-w.wgb",
        npz=cache / f"{label}.npz",
    )
    if not g.text.exists():
        log(f"generating {g.text}")
        run_checked([str(weald), "-q", "generate", kind, "--scale", str(scale), "--out", str(g.text)])
    if not g.wtext.exists():
        run_checked([str(weald), "-q", "generate", kind, "--scale", str(scale), "--weights", "1..255", "--out", str(g.wtext)])
    for src, dst in ((g.text, g.binary), (g.wtext, g.wbinary)):
        if not dst.exists():
            extra = ["--weighted"] if src == g.wtext else []
            run_checked([str(weald), "-q", "convert", str(src), str(dst), "--keep-ids", *extra])
    if not g.npz.exists():
        log(f"preparing {g.npz} for the peers")
        run_checked([str(py), str(BENCH / "peers.py"), "prepare", str(g.wtext), str(g.npz)])
    meta = json.loads(run_checked([str(py), str(BENCH / "peers.py"), "meta", str(g.npz)]).splitlines()[-1])
    g.vertices, g.edges, g.source = meta["vertices"], meta["edges"], meta["source"]
    return g


def run_checked(argv: list[str], env: dict | None = None) -> str:
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {shlex.join(argv)}\n{p.stderr[-2000:]}")
    return p.stdout


@dataclass
class Measurement:
    suite: str
    case: str
    graph: str
    system: str
    threads: int
    times: list[float] = field(default_factory=list)
    peak_rss_mb: float = 0.0
    check: dict = field(default_factory=dict)
    error: str | None = None
    unit: str = "s"  # "s" (lower is better) or "eps" (edges/s, higher is better)

    @property
    def median(self) -> float:
        if not self.times:
            return float("nan")
        s = sorted(self.times)
        k = len(s)
        return s[k // 2] if k % 2 else (s[k // 2 - 1] + s[k // 2]) / 2


def run_case(argv: list[str], threads: int, timeout: float) -> tuple[dict | None, float, str | None]:
    """Run one case process; return (its JSON, its own peak RSS in MiB from wait4, error)."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "RAYON_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    env["WEALD_BENCH_THREADS"] = str(threads)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    bufs: dict[str, bytes] = {}

    def drain(name: str, stream) -> None:
        bufs[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
    for t in readers:
        t.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    for t in readers:
        t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = bufs.get("out", b"").decode(errors="replace")
    err = bufs.get("err", b"").decode(errors="replace")
    rss_mb = usage.ru_maxrss / 1024.0  # Linux reports KiB
    if proc.returncode != 0:
        if proc.returncode == -9:
            return None, rss_mb, f"killed (timeout {timeout:.0f} s?)"
        return None, rss_mb, (err.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:300]
    try:
        data = json.loads(out.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return None, rss_mb, f"no JSON result: {out[-200:]!r}"
    return data, rss_mb, None


def machine_info() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = 0.0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gib = int(line.split()[1]) / 2**20
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip())
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_gib, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "commit": commit + ("-dirty" if dirty else ""),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def pick_rng(seed: int) -> random.Random:
    return random.Random(seed)
