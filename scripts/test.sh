#!/usr/bin/env bash
# The whole test suite (the README's second set-up command; CI runs exactly this).
#  1. Rust: unit, property, integration and conformance tests of every crate.
#  2. Oracle tests: the `weald` binary against networkx on the real graphs (tests/oracle,
#     pytest in .venv, created here with the pinned packages), and the Python package's tests.
#  3. The benchmark harness in --quick mode, so that it cannot rot.
# Steps 2 and 3 use the `weald` binary built with the test profile (optimised, with debug
# assertions) that step 1 already compiled, instead of a second, release build: CI time. (The
# Python package stays a release build: `--profile test` would build the library as a test
# harness executable.)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --workspace"
cargo test --workspace --no-fail-fast
export WEALD_BIN="$PWD/target/debug/weald"   # built by step 1 (weald-cli's integration tests)
test -x "$WEALD_BIN" || cargo build --profile test -q -p weald-cli
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
