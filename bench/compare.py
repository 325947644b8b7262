#!/usr/bin/env python3
"""Compare two benchmark JSON files (from bench/run.py) and print regressions.

    python bench/compare.py OLD.json NEW.json [--threshold 0.10]

A case regresses when its median grows by more than the threshold (or, for throughput cases
in edges/s, shrinks by more). Exits 1 if any Weald case regressed.
"""

from __future__ import annotations

import argparse
import json
import sys


def key(r: dict) -> tuple:
    return (r["suite"], r["case"], r["graph"], r["system"], r["threads"])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=0.10)
    a = ap.parse_args()
    old = {key(r): r for r in json.load(open(a.old))["results"] if r.get("times")}
    new = {key(r): r for r in json.load(open(a.new))["results"] if r.get("times")}
    regressed = False
    print(f"{'suite/case':<28} {'graph':<14} {'system':<10} {'t':>2} {'old':>10} {'new':>10} {'change':>8}")
    for k in sorted(old.keys() & new.keys()):
        o, n = old[k]["median"], new[k]["median"]
        if not o or not n:
            continue
        higher_better = old[k].get("unit") == "eps"
        change = (n - o) / o
        worse = -change if higher_better else change
        flag = ""
        if worse > a.threshold:
            flag = "  REGRESSION"
            regressed |= k[3] == "weald"
        elif worse < -a.threshold:
            flag = "  improved"
        print(f"{k[0] + '/' + k[1]:<28} {k[2]:<14} {k[3]:<10} {k[4]:>2} {o:>10.4g} {n:>10.4g} {change:>+7.1%}{flag}")
    for k in sorted(old.keys() - new.keys()):
        print(f"missing in new: {k}")
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
