#!/usr/bin/env bash
# Create (or refresh) .venv with the packages the Python-side tests need (pinned).
set -euo pipefail
cd "$(dirname "$0")/.."
req=scripts/test-requirements.txt
if [ ! -x .venv/bin/python ] || ! cmp -s "$req" .venv/.requirements 2>/dev/null; then
  echo "== creating .venv ($req)"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$req"
  cp "$req" .venv/.requirements
fi
# The `weald` Python package (crates/weald-py + python/weald), installed into .venv: a release
# build, or the Cargo profile named by WEALD_PY_PROFILE (the test suite sets `ci`, the profile its
# Rust tests were built with, so the workspace crates are compiled once). Always run: cargo's
# incremental build makes it cheap when nothing changed, and it picks up any change to the Rust
# code.
profile="${WEALD_PY_PROFILE:-release}"
echo "== building the weald Python package into .venv (maturin develop --profile $profile)"
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin develop --profile "$profile"
.venv/bin/python -c "import weald" || { echo "the weald package does not import" >&2; exit 1; }
