"""Write docs/benchmarks.md from the results (tables per suite; plots via bench/plots.py)."""

from __future__ import annotations

import importlib
import json
import math
import subprocess
from pathlib import Path

import harness

SUITE_TITLES = {
    "load": "Loading a graph",
    "static": "Static kernels",
    "updates": "Batch updates",
    "stream": "Streaming",
    "python": "Python",
}


def fmt_time(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    if x >= 1e-5:
        return f"{x * 1e6:.0f} µs"
    # Calls of a few microseconds (call overhead): whole microseconds would print 1.2 and
    # 0.8 µs both as "1 µs".
    return f"{x * 1e6:.2f} µs"


def write(out: Path, payload: dict) -> None:
    results = payload["results"]
    machine = payload["machine"]
    plots_dir = out.parent / "img"
    plots = make_plots(payload, plots_dir)
    lines = [
        "# Benchmarks",
        "",
        "Produced by:",
        "",
        "```",
        payload["command"],
        "```",
        "",
        f"Machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gib']} GiB; "
        f"{machine['os']}; Python {machine['python']}; Weald commit `{machine['commit']}`; {machine['date']} "
        "(of the last command; each command names its own commit, date and CPU).",
        "",
        "Graphs: " + "; ".join(f"`{g['label']}` ({g['vertices']:,} vertices, {g['edges']:,} undirected edges, "
                               f"source vertex {g['source']})" for g in machine["graphs"]) + ".",
        "",
        "Each cell is the median of the timed repeats (after one warm-up) in a process of its own; "
        "min–max in brackets; peak RSS of that process. `run` is the line of the command above that "
        "measured the row (— : a run from before rows recorded it). `× fastest` is the median "
        "divided by the fastest median of the same case, graph and thread count **in the same run** "
        "(1.00 = fastest): this machine's speed drifts between runs, so only rows measured "
        "together, interleaved, are compared. Peer versions (pinned in bench/requirements.txt, "
        "installed from PyPI into bench/.venv): " + peer_versions() + ".",
        "",
    ]
    if payload.get("mismatches"):
        lines += ["**Correctness guard: mismatches**", ""] + [f"- {m}" for m in payload["mismatches"]] + [""]
    else:
        lines += ["Correctness guard: Weald's answers matched every peer that computes the same quantity, "
                  "and Weald's verifier passed on every kernel it ran.", ""]
    for suite in SUITE_TITLES:
        rows = [r for r in results if r["suite"] == suite]
        if not rows:
            continue
        lines += [f"## {SUITE_TITLES[suite]}", ""]
        about = suite_doc(suite)
        if about:
            lines += [about, ""]
        lines += ["| case | graph | threads | system | median | min–max | peak RSS | run | × fastest |",
                  "|---|---|---:|---|---:|---:|---:|---:|---:|"]
        groups: dict = {}
        for r in rows:
            groups.setdefault((r["case"], r["graph"], r["threads"]), []).append(r)
        for (case, graph, t), rs in groups.items():
            fastest: dict = {}
            for r in rs:
                if r.get("times"):
                    run = r.get("run")
                    fastest[run] = min(fastest.get(run, r["median"]), r["median"])
            for r in sorted(rs, key=lambda r: (not r["system"].startswith("weald"), r["system"])):
                best = fastest.get(r.get("run"))
                run_cell = str(r["run"]) if r.get("run") else "—"
                if r.get("times") and r.get("unit") == "eps":
                    med = r["median"]
                    size = r["check"].get("size", 0)
                    cells = [f"{size / med:.3g} edges/s ({fmt_time(med)})",
                             f"{size / max(r['times']):.3g}–{size / min(r['times']):.3g}",
                             f"{r['peak_rss_mb']:.0f} MiB", f"{med / best:.2f}" if best else "—"]
                elif r.get("times"):
                    med = r["median"]
                    cells = [fmt_time(med), f"{fmt_time(min(r['times']))}–{fmt_time(max(r['times']))}",
                             f"{r['peak_rss_mb']:.0f} MiB", f"{med / best:.2f}" if best else "—"]
                else:
                    cells = [f"error: {r.get('error')}", "", "", ""]
                cells.insert(3, run_cell)
                name = f"**{r['system']}**" if r["system"].startswith("weald") else r["system"]
                lines.append(f"| {case} | {graph} | {t} | {name} | " + " | ".join(cells) + " |")
        lines.append("")
        if suite == "updates":
            lines += memory_lines(rows)
        notes = [r for r in rows if r.get("check", {}).get("note")]
        if notes:
            lines += [f"- {r['case']}, {r['system']}, {r['threads']} thread(s): {r['check']['note']}" for r in notes]
            lines.append("")
        for p in plots.get(suite, []):
            lines += [f"![{suite}](img/{p.name})", ""]
    out.write_text("\n".join(lines) + "\n")


def peer_versions() -> str:
    """`name version` of every pinned package of the harness's environment."""
    pins = []
    for line in (harness.BENCH / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, ver = line.split("==", 1)
            pins.append(f"{name.strip()} {ver.strip()}")
    return ", ".join(pins) or "none pinned"


def memory_lines(rows: list) -> list:
    """The C-tree's size (the base graph of `weald bench updates`), once per graph and run."""
    seen = {}
    for r in rows:
        c = r.get("check", {})
        if r["system"] == "weald" and c.get("memory_bytes") and c.get("edges"):
            seen[(r["graph"], r.get("run"), r["threads"])] = c
    out = [f"- C-tree memory, {g} (run {run or '—'}): {c['memory_bytes'] / 2**20:.1f} MiB, "
           f"{c['memory_bytes'] / (2 * c['edges']):.2f} bytes per stored arc (both directions of "
           f"{c['edges']:,} edges; `weald info FILE --backend ctree --json` gives the breakdown)"
           + (f"; a flat snapshot of it takes {c['flat_snapshot_s'] * 1e3:.1f} ms ({r_threads} thread(s))"
              if c.get("flat_snapshot_s") else "")
           for (g, run, r_threads), c in sorted(seen.items(), key=lambda x: (x[0][0], x[0][1] or 0, x[0][2]))]
    return out + [""] if out else []


def suite_doc(suite: str) -> str:
    """What the suite's cases measure: its module docstring (bench/suites/SUITE.py)."""
    try:
        doc = importlib.import_module(f"suites.{suite}").__doc__ or ""
    except ImportError:
        return ""
    return doc.strip()


def make_plots(payload: dict, plots_dir: Path) -> dict:
    plots_dir.mkdir(parents=True, exist_ok=True)
    tmp = plots_dir / ".results.json"
    tmp.write_text(json.dumps(payload))
    p = subprocess.run([str(harness.venv_python()), str(harness.BENCH / "plots.py"), str(tmp), str(plots_dir)],
                       capture_output=True, text=True)
    tmp.unlink(missing_ok=True)
    if p.returncode != 0:
        harness.log(f"plots failed: {p.stderr[-500:]}")
        return {}
    made: dict = {}
    for line in p.stdout.splitlines():
        suite, name = line.split("\t")
        made.setdefault(suite, []).append(plots_dir / name)
    return made


if __name__ == "__main__":
    # Rewrite a report (and its plots) from its JSON: python bench/report.py [JSON [OUT]]
    import json
    import sys

    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "benchmarks.json"
    dst = Path(sys.argv[2]) if len(sys.argv) > 2 else src.with_suffix(".md")
    write(dst, json.loads(src.read_text()))
