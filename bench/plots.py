"""PNG plots for the benchmark report (run with bench/.venv's python, which has matplotlib).

    plots.py RESULTS.json OUTDIR      prints `suite<TAB>file.png` for each plot written
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def grouped_bars(rows, title, path, ylabel="median time (s, log scale)"):
    cases = sorted({(r["case"], r["graph"]) for r in rows})
    systems = sorted({r["system"] for r in rows}, key=lambda s: (s != "weald", s))
    width = 0.8 / max(1, len(systems))
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(cases)), 4))
    for i, s in enumerate(systems):
        xs, ys = [], []
        for j, c in enumerate(cases):
            r = next((r for r in rows if (r["case"], r["graph"]) == c and r["system"] == s and r.get("times")), None)
            if r:
                xs.append(j + i * width)
                ys.append(r["median"])
        ax.bar(xs, ys, width, label=s)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cases))])
    ax.set_xticklabels([f"{c}\n{g}" for c, g in cases], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    payload = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    results = payload["results"]
    for suite in ("load", "static"):
        rows = [r for r in results if r["suite"] == suite]
        for t in sorted({r["threads"] for r in rows}):
            sub = [r for r in rows if r["threads"] == t]
            if not sub:
                continue
            name = f"{suite}-t{t}.png"
            grouped_bars(sub, f"{suite}: median time per system, {t} thread(s)", out / name)
            print(f"{suite}\t{name}")
    upd = [r for r in results if r["suite"] == "updates" and r.get("times")]
    for t in sorted({r["threads"] for r in upd}):
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, op in zip(axes, ("insert", "delete")):
            # one line per system and batch source (the `, graph hubs` cases are their own line)
            def series(r):
                return r["system"] + (" (graph hubs)" if r["case"].endswith("graph hubs") else "")
            for s in sorted({series(r) for r in upd}, key=lambda s: (not s.startswith("weald"), s)):
                pts = sorted((r["check"]["size"], r["check"]["size"] / r["median"]) for r in upd
                             if r["threads"] == t and series(r) == s and r["case"].startswith(op))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("batch size (edges)")
            ax.set_title(f"{op}, {t} thread(s)")
        axes[0].set_ylabel("edges per second")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        name = f"updates-t{t}.png"
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"updates\t{name}")
    mem = [r for r in results if r["suite"] == "load" and r["system"] == "weald" and r.get("check", {}).get("memory_bytes")]
    # The C-tree: the base graph of the updates suite, once per graph (its newest run).
    ctree = {}
    for r in results:
        if r["suite"] == "updates" and r["system"] == "weald" and r.get("check", {}).get("memory_bytes"):
            if r["graph"] not in ctree or (r.get("run") or 0) >= (ctree[r["graph"]].get("run") or 0):
                ctree[r["graph"]] = r
    if mem or ctree:
        fig, ax = plt.subplots(figsize=(7, 3.5))
        labels = [f"{r['graph']}\nCSR, {r['case']}" for r in mem]
        edges = [max(1, r["check"]["edges"]) for r in mem]
        ax.bar(labels, [r["check"]["memory_bytes"] / e for r, e in zip(mem, edges)], label="graph bytes / edge")
        ax.bar(labels, [r["peak_rss_mb"] * 2**20 / e for r, e in zip(mem, edges)], alpha=0.4, label="peak RSS / edge")
        cl = [f"{g}\nC-tree" for g in ctree]
        ax.bar(cl, [r["check"]["memory_bytes"] / max(1, r["check"]["edges"]) for r in ctree.values()],
               color="tab:green", label="C-tree bytes / edge")
        ax.set_ylabel("bytes per undirected edge")
        ax.set_title("Weald memory per edge (CSR and C-tree)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "memory.png", dpi=110)
        plt.close(fig)
        print("load\tmemory.png")


if __name__ == "__main__":
    main()
