#!/usr/bin/env bash
# The whole test suite (the README's second set-up command; CI runs exactly this).
#  1. Rust: unit, property, integration and conformance tests of every crate.
#  2. Oracle tests: the release `weald` binary against networkx on the real graphs
#     (tests/oracle, pytest in .venv, created here with the pinned packages).
#  3. The benchmark harness in --quick mode, so that it cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --workspace"
cargo test --workspace --no-fail-fast
echo "== cargo build --release -p weald-cli"
cargo build --release -q -p weald-cli
bash scripts/python-env.sh
echo "== oracle tests (pytest tests/oracle)"
.venv/bin/python -m pytest -q tests/oracle
if [ -d python/tests ]; then
  echo "== python package tests (pytest python/tests)"
  .venv/bin/python -m pytest -q python/tests
fi
echo "== benchmark harness (--quick)"
python3 bench/run.py --quick --cache "${TMPDIR:-/tmp}/weald-bench-cache" \
  --out "${TMPDIR:-/tmp}/weald-bench-quick/benchmarks.md"
