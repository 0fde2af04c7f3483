#!/usr/bin/env bash
# How many of a wide loop's loads ptxas issues before its first floating-point instruction (an
# item whose loads are split in two groups waits two memory round trips: heat3d's 3-D item at 128
# registers ran 12% slower so). No GPU needed: compiles a generated .cu for sm_90 and reads the
# SASS with nvdisasm. tests/codegen/sass-items.sh (ctest cuda.sass.wide_items) calls it.
#   bash tests/codegen/sass-loads.sh bench-gen/heat3d.cpu-free.cu [HEADERS_ROOT] [nvcc flags...]
# HEADERS_ROOT (default: this checkout) holds include/ and runtime/include/.
# NVDISASM names nvdisasm where it is not on PATH (the nvidia-cuda-nvdisasm wheel has one).
set -euo pipefail
src="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
headers="${2:-$root}"
shift $(( $# >= 2 ? 2 : 1 ))
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
nvdisasm="${NVDISASM:-$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$headers/include" -I "$headers/runtime/include" \
  -cubin "$src" -o "$work/k.cubin" -Xptxas -v "$@" > "$work/log" 2>&1 || { tail -5 "$work/log"; exit 1; }
"$nvdisasm" -c "$work/k.cubin" > "$work/k.sass"
# Each group of 16-byte loads (a wide loop): its loads up to the first FP instruction.
for n in $(grep -n 'LDG.E.128' "$work/k.sass" | cut -d: -f1 | awk 'NR == 1 || $1 - p > 60 {print} {p = $1}'); do
  sed -n "$((n - 40)),$((n + 160))p" "$work/k.sass" | grep -E 'LDG\.E|DADD|DFMA|DMUL|FADD|FFMA|FMUL' |
    awk -v at="$n" 'd {next} {o = $2; if (o ~ /^@/) o = $3} o ~ /^LDG.E.128/ {s = 1}
      s && o ~ /^(DADD|DFMA|DMUL|FADD|FFMA|FMUL)/ {printf "SASS line %d: %d 16-byte loads (%d loads) before the first FP op\n", at, v, t; d = 1; next}
      s && o ~ /^LDG/ {t++} s && o ~ /^LDG.E.128/ {v++}'
done  # (awk reads to the end: an early exit would close the pipe under pipefail)
echo "$(grep -o "Used [0-9]* registers" "$work/log" | sort -k2 -n | tail -1 || true); 16-byte loads in all: $(grep -c 'LDG.E.128' "$work/k.sass")"
