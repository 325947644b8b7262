"""Shared helpers for the oracle tests: Weald (through the `weald` binary) vs networkx on the
real graphs of ../shared/data/graphs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "graphs"
WEALD = Path(os.environ.get("WEALD_BIN", ROOT / "target" / "release" / "weald"))


def pytest_configure(config):
    if not WEALD.exists():
        raise pytest.UsageError(f"{WEALD} not found: run `cargo build --release -p weald-cli` first")
    if not DATA.exists():
        raise pytest.UsageError(f"{DATA} not found: ../shared must sit beside the repository")


def read_edges(path: Path, weighted: bool = False):
    """An independent, simple reader: (u, v[, w]) tuples of ints/floats; skips comments and a
    non-numeric header line."""
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    first = None
    with opener(path, "rt", newline=None) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#%":
                continue
            parts = line.replace(",", " ").split()
            try:
                u, v = int(parts[0]), int(parts[1])
            except ValueError:
                continue  # header line
            if first is None:
                first = (u, v, len(parts))
            if weighted:
                out.append((u, v, float(parts[2])))
            else:
                out.append((u, v))
    # A first line `n m` that counts the records after it (CA-GrQc.txt) is not an edge.
    if first and first[2] == 2 and len(out) > 1:
        rest = out[1:]
        ids = {x for e in rest for x in e[:2]}
        if first[1] == len(rest) and first[0] in (len(ids), max(ids) + 1):
            out = rest
    return out


def weald_run(algo: str, path: Path, *args: str, tmp_path: Path) -> tuple[dict, dict]:
    """Run `weald run ALGO PATH --json --verify --out FILE`; return (json, {vertex: value})."""
    out = tmp_path / f"{algo}.tsv"
    p = subprocess.run(
        [str(WEALD), "-q", "run", algo, str(path), "--json", "--verify", "--out", str(out), *args],
        capture_output=True, text=True,
    )
    assert p.returncode == 0, f"weald failed: {p.stderr}\n{p.stdout}"
    report = json.loads(p.stdout.strip().splitlines()[-1])
    assert report["verified"] is True, report
    values = {}
    for line in out.read_text().splitlines():
        k, v = line.split("\t")
        values[int(k)] = float(v)
    return report, values
