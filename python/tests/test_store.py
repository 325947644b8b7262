"""weald.Store: the durable streaming store from Python — create/open, acknowledged updates,
snapshots and isolation, recovery after close and after a crash, history, pins, errors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import datetime
import time

import networkx as nx
import numpy as np
import pytest

import weald
from conftest import DATA


def test_create_update_snapshot_and_reopen(tmp_path):
    d = tmp_path / "g.d"
    with weald.Store(d) as st:
        assert st.recovery["created"] and st.version == 0 and st.num_edges == 0
        assert not st.is_directed and not st.is_weighted
        v1 = st.insert_edges(np.array([0, 1, 2]), np.array([1, 2, 3]))
        assert v1 >= 1 and st.version >= v1
        with st.snapshot() as s:
            assert s.num_edges == 3 and s.version == st.version
            assert list(weald.bfs(s, 0)) == [0, 1, 2, 3]
        v2 = st.delete_edges(np.array([1]), np.array([2]))
        assert v2 > v1
        st.insert_vertices(np.array([9]))
        st.delete_vertices(np.array([3]))
        with st.snapshot() as s:
            assert s.num_edges == 1 and s.num_vertices == 10
    assert st.closed
    with pytest.raises(ValueError, match="closed"):
        st.snapshot()
    # Reopening replays the log: the same graph, nothing created.
    with weald.Store(d) as st:
        rec = st.recovery
        assert not rec["created"] and rec["dropped"] is None
        with st.snapshot() as s:
            assert s.num_edges == 1 and s.num_vertices == 10
            assert list(s.neighbors(0)) == [1]


def test_snapshot_isolation_and_history(tmp_path):
    with weald.Store(tmp_path / "h.d", keep_last=100) as st:
        st.insert_edges(np.array([0]), np.array([1]))
        old = st.snapshot()
        v_old = old.version
        for i in range(2, 12):
            st.insert_edges(np.array([i - 1]), np.array([i]))
        assert old.num_edges == 1  # a snapshot never changes
        with st.snapshot() as new:
            assert new.num_edges == 11
        old.release()
        vs = st.versions()
        assert [v["version"] for v in vs] == sorted(v["version"] for v in vs)
        assert vs[-1]["version"] == st.version and vs[-1]["edges"] == 11
        with st.snapshot_at(v_old) as s:
            assert s.num_edges == 1 and s.version == v_old
        with st.snapshot_at_time(time.time() + 1) as s:
            assert s.version == st.version
        # Each listed time gives back its own version (the float seconds are compared as
        # listed: converting them back to nanoseconds could land before the commit), and so
        # does the same moment as a datetime.
        for v in vs:
            assert isinstance(v["time_ns"], int) and abs(v["time_ns"] / 1e9 - v["time"]) < 1e-6
            with st.snapshot_at_time(v["time"]) as s:
                assert s.version == v["version"], (v, s.version)
        latest = datetime.datetime.fromtimestamp(vs[-1]["time"] + 1, tz=datetime.timezone.utc)
        with st.snapshot_at_time(latest) as s:
            assert s.version == vs[-1]["version"]
        with pytest.raises(ValueError, match="no retained version"):
            st.snapshot_at_time(vs[0]["time"] - 1)
        with pytest.raises(TypeError, match="or a datetime, not str"):
            st.snapshot_at_time("noon")
        with pytest.raises(ValueError):
            st.snapshot_at(10**9)


def test_pins_survive_restart_and_checkpoint_shortens_replay(tmp_path):
    d = tmp_path / "p.d"
    with weald.Store(d, keep_last=1) as st:
        v = st.insert_edges(np.array([0, 1]), np.array([1, 2]))
        st.pin("two-edges", v)
        for i in range(3, 8):
            st.insert_edges(np.array([i - 1]), np.array([i]))
        assert st.checkpoint() == st.version
    with weald.Store(d, keep_last=1) as st:
        assert st.recovery["records_replayed"] == 0  # everything is in the checkpoint
        assert any("two-edges" in x["pins"] for x in st.versions())
        with st.snapshot_at(v) as s:
            assert s.num_edges == 2
        st.unpin("two-edges")
        assert not any(x["pins"] for x in st.versions())


def test_base_graph_weights_and_nowait(tmp_path):
    g = weald.read(DATA / "static" / "facebook_combined.txt.gz")
    with weald.Store(tmp_path / "fb.d", base=g) as st:
        assert st.num_edges == 88234
        with st.snapshot() as s:
            assert np.array_equal(weald.connected_components(s), weald.connected_components(g))
        # Sent without waiting, then flushed: all of them visible.
        s_, d_ = np.arange(0, 100), np.arange(1, 101) + 4000
        for i in range(100):
            assert st.insert_edges(s_[i:i + 1], d_[i:i + 1], wait=False) is None
        v = st.flush()
        assert v == st.version and st.num_edges == 88234 + 100
        with st.snapshot() as s:
            H = nx.Graph()
            H.add_nodes_from(range(s.num_vertices))
            a, b = s.edges()
            H.add_edges_from(zip(a.tolist(), b.tolist()))
            assert weald.triangle_count(s) == sum(nx.triangles(H).values()) // 3
        st_stats = st.stats()
        assert st_stats["updates"] >= 100 and st_stats["visibility_p50_us"] > 0
    with weald.Store(tmp_path / "w.d", weighted="int", dedup="min") as st:
        assert st.is_weighted
        st.insert_edges(np.array([0, 0]), np.array([1, 2]), np.array([5, 7]))
        st.insert_edges(np.array([0]), np.array([1]), np.array([3]))  # min(5, 3)
        with st.snapshot() as s:
            dist = weald.sssp(s, 0)
            assert list(dist[:3]) == [0, 3, 7]
        with pytest.raises(ValueError, match="entries"):
            st.insert_edges(np.array([0]), np.array([1]), np.array([1, 2]))
    with weald.Store(tmp_path / "u.d") as st:
        with pytest.raises(ValueError, match="unweighted"):
            st.insert_edges(np.array([0]), np.array([1]), np.array([2]))


def test_errors(tmp_path):
    (tmp_path / "notweald").mkdir()
    (tmp_path / "notweald" / "x.txt").write_text("hello")
    with pytest.raises(weald.ParseError, match="not a Weald data directory"):
        weald.Store(tmp_path / "notweald")
    with weald.Store(tmp_path / "a.d") as st:
        st.insert_edges(np.array([0]), np.array([1]))
    g = weald.Graph.from_edges(np.array([0]), np.array([1]))
    with pytest.raises(ValueError, match="already holds"):
        weald.Store(tmp_path / "a.d", base=g)
    with pytest.raises(ValueError, match="fsync"):
        weald.Store(tmp_path / "b.d", fsync="sometimes")
    with weald.Store(tmp_path / "c.d") as st:
        with pytest.raises(IndexError):
            st.insert_edges(np.array([-1]), np.array([1]))
        with pytest.raises(ValueError, match="length"):
            st.delete_edges(np.array([0, 1]), np.array([1]))
    # A second open of a directory in use is refused (the directory lock).
    with weald.Store(tmp_path / "d.d") as st:
        with pytest.raises(ValueError, match="in use"):
            weald.Store(tmp_path / "d.d")


def test_acknowledged_updates_survive_a_killed_process(tmp_path):
    """A child process streams acknowledged updates and is SIGKILLed; every update it had
    printed as acknowledged is in the reopened store."""
    d = tmp_path / "crash.d"
    child = textwrap.dedent(f"""
        import numpy as np, sys, weald
        st = weald.Store({str(d)!r}, fsync="never")
        i = 0
        while True:
            v = st.insert_edges(np.array([i]), np.array([i + 1]))
            print(i, v, flush=True)
            i += 1
    """)
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True,
                         env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    # A hung child fails the test instead of hanging it. The timer is cancelled once the child
    # is reaped (and is a daemon): a live timer thread held the interpreter's exit for 120 s.
    timer = threading.Timer(120, p.kill)
    timer.daemon = True
    timer.start()
    acked = []
    try:
        for line in p.stdout:
            acked.append(int(line.split()[0]))
            if len(acked) >= 300:
                break
    finally:
        p.kill()
        p.wait()
        timer.cancel()
    assert len(acked) >= 300
    with weald.Store(d) as st:
        with st.snapshot() as s:
            for i in acked:
                assert i + 1 in set(s.neighbors(i).tolist()), f"acknowledged edge {i} lost"


def test_close_while_another_thread_streams(tmp_path):
    """close() from one thread while another waits for acknowledgements: the waiting call
    finishes, later calls raise ValueError, nothing hangs, every acknowledged edge is kept."""
    d = tmp_path / "t.d"
    st = weald.Store(d)
    done, errors = [], []

    def produce():
        i = 0
        try:
            while True:
                st.insert_edges(np.array([i]), np.array([i + 1]))
                done.append(i)
                i += 1
        except ValueError as e:
            errors.append(str(e))

    t = threading.Thread(target=produce)
    t.start()
    deadline = time.time() + 60
    while len(done) < 50 and time.time() < deadline:
        time.sleep(0.001)
    st.close()
    t.join(timeout=60)
    assert not t.is_alive()
    assert errors and "closed" in errors[0]
    assert len(done) >= 50
    with weald.Store(d) as st2, st2.snapshot() as s:
        for i in done:
            assert i + 1 in set(s.neighbors(i).tolist())


def test_close_from_an_argument_conversion_does_not_hang(tmp_path):
    """An argument whose conversion (__array__) closes the store: the call raises ValueError
    (closed) instead of waiting forever for itself."""

    for which in ("src", "w"):
        st = weald.Store(tmp_path / which, weighted=True)

        class Closing:
            def __array__(self, dtype=None, copy=None):
                st.close()
                return np.array([1], dtype=dtype or np.int64)

        src = Closing() if which == "src" else np.array([0])
        w = Closing() if which == "w" else np.array([1.0])
        outcome = []

        def call():
            try:
                st.insert_edges(src, np.array([2]), w)
                outcome.append("inserted")
            except ValueError as e:
                outcome.append(str(e))

        t = threading.Thread(target=call, daemon=True)
        t.start()
        t.join(timeout=60)
        assert not t.is_alive(), f"insert_edges hung when {which} closed the store"
        assert outcome and "closed" in outcome[0], outcome
        with weald.Store(tmp_path / which) as again:
            assert again.num_edges == 0


def test_a_second_close_returns_once_the_store_is_closed(tmp_path):
    """Two threads closing at once: neither returns before the directory is released."""
    d = tmp_path / "c.d"
    st = weald.Store(d)
    n = 2_000_000
    i = np.arange(n, dtype=np.int64)
    src, dst = i % 100_000, (i * 7919) % 1_000_003  # ~2 M distinct edges: ~1 s in flight
    busy = threading.Thread(target=lambda: st.insert_edges(src, dst))
    busy.start()
    time.sleep(0.2)
    first = threading.Thread(target=st.close)
    first.start()
    while not st.closed:  # the first close has taken the store
        time.sleep(0.001)
    # ... and waits for the insert: the two closes overlap.
    assert busy.is_alive(), "the insert ended before the second close (make it larger)"
    st.close()  # must wait for the first close, which waits for the insert
    with weald.Store(d) as again:  # the directory is free: no "in use" error
        assert again.num_edges > 0
    first.join(timeout=60)
    busy.join(timeout=60)


def test_close_from_a_finalizer_during_a_call_on_the_same_thread(tmp_path):
    """A finalizer run by a garbage collection inside a call on the store (here: while the
    `recovery` getter builds its dict) closes the store: the call completes, later calls see
    a closed store, and the directory is released when the call ends (no wait on itself)."""
    import gc

    d = tmp_path / "f.d"
    st = weald.Store(d)
    st.insert_edges([0], [1], wait=True)
    seen = []

    class Closer:
        def __del__(self):
            seen.append(st.closed)
            st.close()
            seen.append(st.closed)

    result = {}

    def call():
        gc.enable()
        result["recovery"] = st.recovery  # its first dict allocation collects the cycle

    was_enabled, threshold = gc.isenabled(), gc.get_threshold()
    gc.disable()
    try:
        c = Closer()
        c.cycle = c
        del c
        gc.set_threshold(1)
        t = threading.Thread(target=call, daemon=True)
        t.start()
        t.join(timeout=60)
        assert not t.is_alive(), "close inside a call waited for that call"
    finally:
        gc.set_threshold(*threshold)
        if not was_enabled:
            gc.disable()
    # The getter got the open store (it returned a dict, not ValueError) and the finalizer
    # closed it during the call.
    assert seen == [False, True]
    assert result["recovery"]["created"] is True
    assert st.closed
    with pytest.raises(ValueError):
        st.version
    with weald.Store(d) as again:
        assert again.num_edges == 1


def test_a_multigraph_base_is_merged_by_the_store_rule(tmp_path):
    multi = weald.Graph.from_edges(
        [0, 0, 1], [1, 1, 2], weights=np.array([1.0, 3.0, 2.0]), dedup=None
    )
    with weald.Store(tmp_path / "m.d", base=multi, dedup="sum") as st:
        assert st.num_edges == 2
        with st.snapshot() as s:
            ns, ws = s.neighbors(0, weights=True)
            assert ns.tolist() == [1] and ws.tolist() == [4.0]
            assert s.degree().tolist() == [1, 2, 1]
    with weald.Store(tmp_path / "m.d") as st, st.snapshot() as s:
        assert s.neighbors(0, weights=True)[1].tolist() == [4.0]
