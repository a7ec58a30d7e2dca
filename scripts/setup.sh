#!/usr/bin/env bash
# Create or refresh .venv (reused when present) with what the app needs; `--dev` adds the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
files="requirements.txt requirements-offline.txt"
[ "${1:-}" = "--dev" ] && files="$files requirements-dev.txt"
stamp=".venv/.installed-$(cat $files | sha1sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install -q -r requirements.txt
  .venv/bin/pip install -q --no-deps -r requirements-offline.txt
  if [ "${1:-}" = "--dev" ]; then .venv/bin/pip install -q -r requirements-dev.txt; fi
  touch "$stamp"
fi
