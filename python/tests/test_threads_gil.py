"""Algorithms release the GIL: two Python threads run two algorithms at the same time."""

from __future__ import annotations

import threading
import time

import numpy as np

import weald


def run_to_end(threads, hung: str, timeout: float = 120) -> None:
    """Start `threads` (daemons), wait for each up to `timeout` s; fail with `hung` if any is
    still running then."""
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), hung


def fixed_pagerank(g, iterations):
    """Exactly `iterations` PageRank iterations: tol=0 never stops early, and reaching the
    limit raises ConvergenceError after the work (unless the last change was exactly 0)."""
    try:
        weald.pagerank(g, tol=0.0, max_iter=iterations)
    except weald.ConvergenceError as e:
        assert e.iterations == iterations


def test_two_threads_overlap():
    g = weald.generate.rmat(15, edge_factor=16, seed=5)
    fixed_pagerank(g, 3)  # warm up the pool
    barrier = threading.Barrier(2)
    spans = {}

    def work(name):
        barrier.wait()
        t0 = time.perf_counter()
        fixed_pagerank(g, 150)
        spans[name] = (t0, time.perf_counter())

    threads = [threading.Thread(target=work, args=(k,)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans["a"], spans["b"]
    # With the GIL held during a call, the second thread could not even enter its call
    # before the first one returned. Both must have started before either finished.
    assert max(a0, b0) < min(a1, b1), spans


def test_python_thread_runs_during_call():
    """A pure-Python thread keeps making progress while an algorithm runs."""
    g = weald.generate.rmat(15, edge_factor=16, seed=6)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    fixed_pagerank(g, 150)
    t1 = time.perf_counter()
    stop.set()
    t.join()
    assert any(t0 < x < t1 for x in ticks)


def test_two_threads_updating_one_graph_do_not_hang():
    """Two Python threads inserting into one DynamicGraph at once (each batch large enough to
    run on the worker pool): both finish, and every edge is there. This hung before updates
    took a per-graph turn outside the pool (a pool thread waiting inside one batch picked up
    the other thread's batch, which waited for the lock its own thread held)."""
    dg = weald.DynamicGraph()
    n, rounds = 5_000, 20
    errors = []

    def writer(k):
        try:
            for r in range(rounds):
                src = np.arange(n, dtype=np.int64) + k * 1_000_000
                dg.insert_edges(src, src + 1 + r)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    run_to_end([threading.Thread(target=writer, args=(k,), daemon=True) for k in (0, 1)],
               "two threads updating one graph hung")
    assert not errors, errors
    assert dg.version == 2 * rounds
    assert dg.num_edges == 2 * n * rounds


def test_snapshots_from_another_thread_during_updates():
    """One thread inserts pool-sized batches into a DynamicGraph (each applied in place when no
    snapshot holds the latest version) while another takes snapshots: no hang, and every
    snapshot is one whole version (its edge count is its version's) that never changes while
    held, also when later batches run."""
    dg = weald.DynamicGraph()
    n, rounds = 5_000, 40
    errors = []
    seen = []
    done = threading.Event()

    def writer():
        try:
            for r in range(rounds):
                src = np.arange(n, dtype=np.int64) + r * n
                dg.insert_edges(src, src + n * rounds)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        finally:
            done.set()

    def reader():
        try:
            held = []
            while not done.is_set():
                s = dg.snapshot()
                seen.append(s.version)
                if s.num_edges != n * s.version:
                    errors.append(f"version {s.version} has {s.num_edges} edges")
                if len(held) < 5:
                    held.append((s, s.num_edges, int(s.degree().sum())))
                else:
                    s.release()
            for s, m, d in held:
                if (s.num_edges, int(s.degree().sum())) != (m, d):
                    errors.append(f"held version {s.version} changed")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    run_to_end([threading.Thread(target=f, daemon=True) for f in (writer, reader)],
               "snapshots during updates hung")
    assert not errors, errors
    assert seen, "the reader took no snapshot"
    assert dg.version == rounds
    assert dg.num_edges == n * rounds
