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
