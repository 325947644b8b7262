"""Shared helpers for the tests of the `weald` Python package: the real graphs of
../shared/data/graphs and an independent (pure Python) edge-list reader for networkx."""

from __future__ import annotations

import gzip
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "graphs"


def pytest_configure(config):
    if not DATA.exists():
        raise pytest.UsageError(f"{DATA} not found: ../shared must sit beside the repository")


def read_edges(path: Path, weighted: bool = False):
    """(u, v[, w]) tuples; skips comments and a non-numeric header line."""
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
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
            out.append((u, v, float(parts[2])) if weighted else (u, v))
    return out


def nx_graph(rel: str, directed: bool = False, weighted: bool = False):
    g = nx.DiGraph() if directed else nx.Graph()
    for e in read_edges(DATA / rel, weighted):
        if weighted:
            u, v, w = e
            if g.has_edge(u, v):
                w = min(w, g[u][v]["weight"])  # Weald merges duplicates by min
            g.add_edge(u, v, weight=w)
        else:
            g.add_edge(*e)
    return g


def id_maps(g):
    """(internal -> file id list, file id -> internal dict) of a graph read from a file."""
    ids = g.original_ids()
    if ids is None:
        ids = np.arange(g.num_vertices)
    ids = ids.tolist()
    return ids, {x: i for i, x in enumerate(ids)}
