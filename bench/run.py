#!/usr/bin/env python3
"""Weald's benchmark harness: Weald and its peers, same inputs, one run, one report.

    python bench/run.py [--suite load static ...] [--scale 20] [--graphs rmat,uniform]
                        [--threads 1,2] [--repeat 5] [--rounds 2] [--cache DIR]
                        [--out docs/benchmarks.md] [--json docs/benchmarks.json] [--quick] [--merge]
                        [--exclude SYSTEM,...] [--cases NAME,...]

* installs the pinned peers into bench/.venv (requirements.txt) and builds `weald` in release;
* generates the inputs once into --cache (never into the repository);
* runs every case in its own process: a warm-up, then timed repeats; the systems of a case are
  interleaved (A B C A B C ...) over --rounds rounds so that a drifting machine affects all;
* records median, min and max, and each process's peak RSS (wait4);
* checks that Weald's answers match the peers' (BFS reach, component count, triangle count,
  max core, SSSP reach): a mismatch is reported and makes the run exit non-zero;
* writes the Markdown report with plots, and the raw results as JSON (see bench/compare.py).
"""

from __future__ import annotations

import argparse
import importlib
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
import report  # noqa: E402
from suites.common import Context  # noqa: E402

SUITES = ["load", "static", "updates", "stream", "python"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", nargs="+", default=SUITES, choices=SUITES)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--graphs", default="rmat,uniform")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds per case (repeats are split over them)")
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "weald-bench"))
    ap.add_argument("--out", default=str(harness.ROOT / "docs" / "benchmarks.md"))
    ap.add_argument("--json", dest="json_out", default=None, help="raw results (default: --out with .json)")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--quick", action="store_true", help="small scale, 1 repeat, 1 thread (CI)")
    ap.add_argument("--exclude", default="", help="comma-separated systems not to run (e.g. rustworkx)")
    ap.add_argument("--cases", default="",
                    help="comma-separated cases to run (default all): a case is run if its name is one of "
                         "them or starts with one followed by a space (`bfs,sssp`; `insert` for every "
                         "insert size; `visibility`); with --merge the other cases keep their rows")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other suites' results from the existing --json file (re-run some suites)")
    a = ap.parse_args()
    argv_line = "python bench/run.py " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    if a.quick:
        a.scale, a.repeat, a.threads, a.rounds = min(a.scale, 10), 1, "1", 1
        a.timeout = min(a.timeout, 300)
    threads = [int(t) for t in a.threads.split(",")]
    py = str(harness.ensure_venv())
    weald = str(harness.weald_binary())
    cache = Path(a.cache) / f"s{a.scale}"
    graphs = [harness.prepare_graph(Path(weald), kind, a.scale, cache, Path(py)) for kind in a.graphs.split(",")]
    ctx = Context(weald=weald, py=py, peers_script=str(harness.BENCH / "peers.py"), graphs=graphs, quick=a.quick,
                  cache=str(cache))
    excluded = {x for x in a.exclude.split(",") if x}
    if "python" in a.suite and "weald-py" not in excluded:  # builds the package (cargo, maturin)
        ctx.weald_py = str(harness.weald_python())
    cases = []
    for s in a.suite:
        cases += importlib.import_module(f"suites.{s}").cases(ctx)
    if a.cases:
        wanted = {x.strip() for x in a.cases.split(",") if x.strip()}

        def picks(name: str, w: str) -> bool:
            return name == w or name.startswith(w + " ")
        unknown = {w for w in wanted if not any(picks(c.name, w) for c in cases)}
        if unknown:
            ap.error(f"--cases: no case named {', '.join(sorted(unknown))} in the suites run")
        cases = [c for c in cases if any(picks(c.name, w) for w in wanted)]
    for case in cases:
        for x in excluded:
            case.systems.pop(x, None)
    results: list[harness.Measurement] = []
    per_round = max(1, a.repeat // max(1, a.rounds))
    for case in cases:
        for t in threads:
            ms = {sys_: harness.Measurement(case.suite, case.name, case.graph, sys_, t, unit=case.unit) for sys_ in case.systems}
            for rnd in range(max(1, a.rounds)):
                for sys_, argv_fn in case.systems.items():
                    m = ms[sys_]
                    if m.error:
                        continue
                    argv = argv_fn(t, per_round)
                    if is_weald_cli(sys_) and case.weald_run and rnd == 0 and case.check_key:
                        argv = argv + ["--verify"]
                    harness.log(f"{case.suite}/{case.name} {case.graph} t={t} {sys_} (round {rnd + 1})")
                    # `weald info` measures one load per process: repeat the process instead.
                    processes = per_round if (sys_ == "weald" and case.suite == "load") else 1
                    for _ in range(processes):
                        data, rss, err = harness.run_case([str(x) for x in argv], t, a.timeout)
                        m.peak_rss_mb = max(m.peak_rss_mb, rss)
                        if err:
                            m.error = err
                            break
                        if data.get("unsupported"):
                            m.error = "unsupported"
                            break
                        times, check = extract(sys_, case, data)
                        m.times += times
                        m.check.update(check)
            results += [m for m in ms.values() if m.error != "unsupported"]
    mismatches = guard(cases, results)
    info = harness.machine_info()
    info["graphs"] = [{"label": g.label, "vertices": g.vertices, "edges": g.edges, "source": g.source} for g in graphs]
    info["threads"] = threads
    json_out = Path(a.json_out) if a.json_out else Path(a.out).with_suffix(".json")
    # Each command carries the commit, date and CPU it ran at (suites merged from runs at different
    # commits, on machines that differ from session to session).
    argv_line += f"   # Weald {info['commit']}, {info['date']}, {info['cpu']}"
    old = json.loads(json_out.read_text()) if a.merge and json_out.exists() else None
    # Every row names the run that measured it: the line of its command at the report's head.
    run = len(old["command"].splitlines()) + 1 if old else 1
    payload = {"command": argv_line, "machine": info,
               "results": [vars(m) | {"median": m.median, "run": run} for m in results],
               "mismatches": mismatches}
    if old:
        # an old row stays unless this run measured the same case, graph, system and thread count:
        # re-running one graph (or one system) of a suite keeps the other graphs' (systems') rows
        def key(r):
            return r["suite"], r["case"], r["graph"], r["system"], r["threads"]
        fresh = {key(r) for r in payload["results"]}
        kept = [r for r in old["results"] if key(r) not in fresh]
        payload["results"] = kept + payload["results"]
        payload["command"] = old["command"] + "\n" + argv_line
        labels = {g["label"] for g in info["graphs"]}
        info["graphs"] += [g for g in old["machine"]["graphs"] if g["label"] not in labels]
        rerun = {(c.suite, c.name, c.graph) for c in cases}
        payload["mismatches"] = [m for m in old.get("mismatches", [])
                                 if mismatch_case(m) not in rerun] + mismatches
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    json_out.write_text(dump_json(payload))
    report.write(Path(a.out), payload)
    harness.log(f"wrote {a.out} and {json_out}")
    failed = [m for m in results if m.system.startswith("weald") and m.error]  # any of Weald's
    for m in failed:
        harness.log(f"WEALD FAILED: {m.suite}/{m.case} {m.graph} t={m.threads}: {m.error}")
    for x in mismatches:
        harness.log(f"MISMATCH: {x}")
    return 1 if failed or mismatches else 0


def dump_json(payload: dict) -> str:
    """The results file: indented, but each result (with its list of per-trial times, 5,000 for
    batches of 10) on one line, so that a re-run changes a line per row, not one per sample."""
    rows = payload["results"]
    head = json.dumps(payload | {"results": []}, indent=1)
    body = ",\n".join("  " + json.dumps(r) for r in rows)
    return head.replace('"results": []', '"results": [\n' + body + "\n ]" if rows else '"results": []', 1)


def is_weald_cli(system: str) -> bool:
    """`weald` or a variant of it (`weald ctree`): the `weald` binary, not the Python package."""
    return system == "weald" or system.startswith("weald ")


def extract(system: str, case, data: dict) -> tuple[list[float], dict]:
    """Times and check values from one process's JSON."""
    if is_weald_cli(system) and case.weald_run:  # `weald run --json` (any backend)
        trials = data["trials"]
        times = trials[1:] if len(trials) > 1 else trials
        check = {}
        if case.check_key and data.get("result") is not None:
            check[case.check_key] = int(round(data["result"]))
        if data.get("verified") is not None:
            check["verified"] = data["verified"]
        return times, check
    if case.suite == "stream":  # `weald bench stream --json`: {"times", "check"} like the peers
        return data["times"], data.get("check", {})
    if is_weald_cli(system) and case.suite == "updates":  # `weald bench updates --json`
        words = case.name.replace(",", " ").split()
        op = next(w for w in words if w in ("insert", "delete"))
        # A process may run smaller sizes first (the aspen-tool cases): the row is the case's size.
        size = int(words[words.index(op) + 1])
        b = next((x for x in data["batches"] if x["size"] == size), data["batches"][0])
        return b[f"{op}_s"], {"size": b["size"], "memory_bytes": data.get("memory_bytes"), "edges": data["edges"],
                                  "flat_snapshot_s": data.get("flat_snapshot_s")}
    if system == "weald":  # `weald info --json`
        return [data["load_time_s"]], {"vertices": data["vertices"], "edges": data["edges"],
                                        "memory_bytes": data.get("memory_bytes")}
    return data["times"], data.get("check", {})


def mismatch_case(line: str) -> tuple[str, str, str]:
    """(suite, case, graph) of a line written by `guard` ("suite/case name graph t=N: ...")."""
    suite, rest = line.split(" t=")[0].split("/", 1)
    name, graph = rest.rsplit(" ", 1)
    return suite, name, graph


def guard(cases, results) -> list[str]:
    """Weald's answers must equal every peer's on the guarded keys, and verify."""
    out = []
    by_key = {}
    for m in results:
        by_key.setdefault((m.suite, m.case, m.graph, m.threads), []).append(m)
    for c in cases:
        for (suite, name, graph, t), ms in by_key.items():
            if (suite, name, graph) != (c.suite, c.name, c.graph):
                continue
            w = next((m for m in ms if m.system == "weald" and not m.error), None)
            if w is None:
                continue
            for m in ms:
                if is_weald_cli(m.system) and m.check.get("verified") is False:
                    out.append(f"{suite}/{name} {graph} t={t}: Weald's verifier failed ({m.system})")
            for key in c.guard:
                for p in ms:
                    if p is w or p.error or key not in p.check or key not in w.check:
                        continue
                    if p.check[key] != w.check[key]:
                        out.append(f"{suite}/{name} {graph} t={t}: {key} weald={w.check[key]} {p.system}={p.check[key]}")
    return out


if __name__ == "__main__":
    sys.exit(main())
