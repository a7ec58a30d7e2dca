#!/usr/bin/env bash
# The tests marked `portability` (outcomes that ride on the CPU's arithmetic: the recomputed evaluation samples, the
# served int8 forms), run as a CPU with AVX2 and FMA but no AVX-512, VNNI or bf16 runs them (`make test-avx2`;
# docs/development.md, "Portability"). Two passes:
#   held      every portability test, natively, with torch (ATen, MKL, oneDNN) and numpy held to their AVX2 kernels
#             and no bf16: the float32 reference forms the samples are computed on run the AVX2 code they run
#             there (llama.cpp is built for AVX2 alone anyway). ONNX Runtime cannot be held.
#   emulated  the portability tests that are not slow (the int8 forms on ONNX Runtime, which picks its kernels by
#             the CPU) under QEMU's user-mode emulator, `qemu-x86_64 -cpu Haswell-v4` (Debian's qemu-user,
#             installed here when missing), where every library finds an AVX2-only CPU. Vector code runs some
#             hundred times slower there, so torch's float32 models are left to the held pass.
# `scripts/test_avx2.sh --held` or `--emulated` runs one pass; further arguments go to pytest (e.g. -k proverbs).
# The run has its own studio cache beside the usual one: the prepared models hard-linked from it (files that do not
# depend on the CPU), nothing the models computed here (embeddings, the proverb index, images, packed int4 layers),
# and every self-check made again (STUDIO_SELFCHECK_CACHE=0: under QEMU /proc/cpuinfo still names the host's CPU,
# so a cached verdict would be the host's). Subprocesses that the tests start run natively, outside the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
passes="held emulated"
case "${1:-}" in
  --held) passes=held; shift ;;
  --emulated) passes=emulated; shift ;;
esac
[ -x .venv/bin/python ] || { echo "test-avx2: no .venv; run \`make setup-dev\` first" >&2; exit 2; }

cache="${STUDIO_CACHE_DIR:-${HOME:-/tmp}/.cache/figurative-studio}"
run_cache="$cache-avx2"
rm -rf "$run_cache"
mkdir -p "$run_cache"
if [ -d "$cache" ]; then
  for item in "$cache"/*; do
    [ -e "$item" ] || continue
    case "$(basename "$item")" in
      embeddings | proverbs | imagine | wheels) ;;
      # only read, and the int8 exports are keyed by the real path of the weights unpacked here: the same folder
      unpacked) ln -s "$item" "$run_cache/unpacked" ;;
      *) cp -al "$item" "$run_cache"/ 2>/dev/null || cp -a "$item" "$run_cache"/ ;;
    esac
  done
fi
find "$run_cache" -name 'int4-*.safetensors' -delete
export STUDIO_CACHE_DIR="$run_cache" STUDIO_SELFCHECK_CACHE=0 STUDIO_BF16=0 CI="${CI:-true}"

status=0
for pass in $passes; do
  if [ "$pass" = held ]; then
    echo "test-avx2: held pass, torch and numpy held to AVX2 kernels (ONNX Runtime is not)" >&2
    ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 \
      NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" \
      .venv/bin/python -m pytest -m portability -p no:cacheprovider "$@" || status=1
    continue
  fi
  if ! command -v qemu-x86_64 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
    else
      echo "test-avx2: QEMU is missing: sudo apt-get install -y qemu-user (or run scripts/test_avx2.sh --held)" >&2
      exit 2
    fi
  fi
  echo "test-avx2: emulated pass, qemu-x86_64 -cpu Haswell-v4 (AVX2, FMA; no AVX-512, VNNI or bf16)" >&2
  # TCG names the Haswell features it does not emulate (timers, speculation controls), none of them arithmetic
  qemu-x86_64 -cpu Haswell-v4 .venv/bin/python -m pytest -m "portability and not slow" -p no:cacheprovider "$@" \
    2> >(grep -v "^qemu-x86_64: warning: TCG doesn't support requested feature" >&2) || status=1
done
exit "$status"
