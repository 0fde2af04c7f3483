#!/usr/bin/env bash
# The compiler's resource report of every benchmark kernel (issue 5: read it, not only the clock):
# registers, stack frame and spills of each generated kernel (ptxas -v) at 4 and 2 blocks of 256
# threads per SM (STENCILC_MIN_BLOCKS_PER_SM: 64 and 128 registers at most), cpu-free schedule.
# Needs only nvcc (no GPU): run it where bench/generate.sh wrote bench-gen/.
#   bash bench/resources.sh [bench-gen]      prints a markdown table
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen="${1:-$root/bench-gen}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
echo "| program | blocks per SM | registers | stack frame (bytes) | spill stores | spill loads |"
echo "|---|---|---|---|---|---|"
for src in "$gen"/*.cpu-free.cu; do
  name=$(basename "$src" .cpu-free.cu)
  for mb in 4 2; do
    report=$("$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" \
      -I "$root/runtime/include" -DSTENCILC_MIN_BLOCKS_PER_SM=$mb -c "$src" -o /dev/null -Xptxas -v 2>&1 |
      grep -A3 "Compiling entry function '.*kernel" | tail -3)
    stack=$(sed -n 's/.* \([0-9]*\) bytes stack frame.*/\1/p' <<< "$report")
    stores=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' <<< "$report")
    loads=$(sed -n 's/.* \([0-9]*\) bytes spill loads.*/\1/p' <<< "$report")
    regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' <<< "$report")
    echo "| $name | $mb | $regs | $stack | $stores | $loads |"
  done
done
