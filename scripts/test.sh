#!/usr/bin/env bash
# The whole test suite (the README's second set-up command; CI runs exactly this).
#  1. Rust: unit, property, integration and conformance tests of every crate.
#  2. Oracle tests: the `weald` binary against networkx on the real graphs (tests/oracle,
#     pytest in .venv, created here with the pinned packages), and the Python package's tests.
#  3. The benchmark harness in --quick mode, so that it cannot rot.
# Everything is built once, with the `ci` profile (Cargo.toml: optimised, with debug assertions):
# the Rust tests, the `weald` binary that steps 2 and 3 run, and the Python package (maturin
# develop --profile ci), which reuses the workspace crates the tests compiled instead of a
# second, release build of them (CI time).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --workspace --profile ci (at ${SECONDS} s)"
cargo test --workspace --no-fail-fast --profile ci
export WEALD_BIN="$PWD/target/ci/weald"   # built by step 1 (weald-cli's integration tests)
test -x "$WEALD_BIN" || cargo build --profile ci -q -p weald-cli
export WEALD_PY_PROFILE=ci   # scripts/python-env.sh (here and in the harness's python suite)
bash scripts/python-env.sh
echo "== oracle tests (pytest tests/oracle) (at ${SECONDS} s)"
.venv/bin/python -m pytest -q tests/oracle
if [ -d python/tests ]; then
  echo "== python package tests (pytest python/tests)"
  .venv/bin/python -m pytest -q python/tests
fi
echo "== benchmark harness (--quick) (at ${SECONDS} s)"
python3 bench/run.py --quick --cache "${TMPDIR:-/tmp}/weald-bench-cache" \
  --out "${TMPDIR:-/tmp}/weald-bench-quick/benchmarks.md"
echo "== test suite done (at ${SECONDS} s)"
