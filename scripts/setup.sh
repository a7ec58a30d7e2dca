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
# The one-time work of the profile in use (GGUF conversion, int8 exports and their self-checks on this CPU), done
# here so that the app's first request does not wait for it; a few seconds when already done. STUDIO_PREPARE=0
# leaves it to the first request.
if [ "${STUDIO_PREPARE:-1}" != 0 ]; then
  .venv/bin/python -m studio models --prepare >/dev/null || echo "setup: preparing the models failed; the app will retry on first use (see python -m studio models)" >&2
fi
