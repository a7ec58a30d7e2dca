#!/usr/bin/env bash
# The tests marked `portability` (figures that ride on the CPU's arithmetic: the recomputed evaluation samples, the
# served int8 forms) run as a CPU with AVX2 and FMA but no AVX-512, VNNI or bf16 runs them (docs/development.md,
# "Portability"). `make test-avx2` runs the first form:
#   scripts/test_avx2.sh          under QEMU's user-mode emulator (`qemu-x86_64 -cpu Haswell-v4`, Debian's
#                                 qemu-user, installed here when missing): every library (torch, ONNX Runtime, numpy,
#                                 llama.cpp) finds an AVX2-only CPU. Some hundred times slower for vector code.
#   scripts/test_avx2.sh --held   natively, with torch (ATen, MKL, oneDNN) and numpy held to their AVX2 kernels and no
#                                 bf16: minutes, but ONNX Runtime still picks this CPU's own kernels.
# Further arguments go to pytest (e.g. -k proverbs). The run has its own studio cache beside the usual one: the
# prepared models hard-linked from it (files that do not depend on the CPU), nothing the models computed here
# (embeddings, the proverb index, images, packed int4 layers), and every self-check made again
# (STUDIO_SELFCHECK_CACHE=0: under QEMU /proc/cpuinfo still names the host's CPU, so a cached verdict would be
# this CPU's). Subprocesses that the tests start run natively, outside the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=emulated
if [ "${1:-}" = "--held" ]; then
  mode=held
  shift
fi
[ -x .venv/bin/python ] || { echo "test-avx2: no .venv; run \`make setup-dev\` first" >&2; exit 2; }

cache="${STUDIO_CACHE_DIR:-${HOME:-/tmp}/.cache/figurative-studio}"
run_cache="$cache-avx2"
rm -rf "$run_cache"
mkdir -p "$run_cache"
if [ -d "$cache" ]; then
  for item in "$cache"/*; do
    [ -e "$item" ] || continue
    case "$(basename "$item")" in embeddings | proverbs | imagine | wheels) continue ;; esac
    cp -al "$item" "$run_cache"/ 2>/dev/null || cp -a "$item" "$run_cache"/
  done
fi
find "$run_cache" -name 'int4-*.safetensors' -delete
export STUDIO_CACHE_DIR="$run_cache" STUDIO_SELFCHECK_CACHE=0 STUDIO_BF16=0 CI="${CI:-true}"

if [ "$mode" = held ]; then
  export ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 \
    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"
  echo "test-avx2: torch and numpy held to AVX2 kernels (ONNX Runtime is not)" >&2
  exec .venv/bin/python -m pytest -m portability -p no:cacheprovider "$@"
fi
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
  else
    echo "test-avx2: QEMU is missing: sudo apt-get install -y qemu-user (or run scripts/test_avx2.sh --held)" >&2
    exit 2
  fi
fi
echo "test-avx2: under qemu-x86_64 -cpu Haswell-v4 (AVX2, FMA; no AVX-512, VNNI or bf16)" >&2
# TCG lists the Haswell features it does not emulate (timers, speculation controls), none of them arithmetic
exec qemu-x86_64 -cpu Haswell-v4 .venv/bin/python -m pytest -m portability -p no:cacheprovider "$@" \
  2> >(grep -v "^qemu-x86_64: warning: TCG doesn't support requested feature" >&2)
