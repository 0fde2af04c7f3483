#!/usr/bin/env bash
# CI (no GPU): the generated wide loops' items issue all their 16-byte loads before their first
# floating-point instruction (one memory round trip an item) in the configurations measured
# fastest: jacobi2d's 2-D items at the default block (256 threads, 128 registers), heat3d's 3-D
# items of 4 rows with 192-thread 3-D kernels (-DSTENCILC_BLOCK_THREADS_3D=192
# -DSTENCILC_WIDE_ROWS_3D=4: at 128 registers ptxas splits a 3-D item in two memory round trips,
# 12-18% slower). Reads the SASS with tests/codegen/sass-loads.sh.
#   bash tests/codegen/sass-items.sh STENCILC NVCC NVDISASM WORKDIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stencilc="$1" work="$4"
export NVCC="$2" NVDISASM="$3"
mkdir -p "$work"
fail=0
# whole PROGRAM FLAGS...: the kernel has one wide loop and ptxas issues all its 16-byte loads first.
whole() {
  local program="$1"; shift
  "$stencilc" --target=cuda --emit=cuda "$root/bench/programs/$program.cpp" -o "$work/$program.cu"
  local report first total
  if ! report="$(bash "$root/tests/codegen/sass-loads.sh" "$work/$program.cu" "$root" "$@")"; then
    echo "FAIL: $program ($*): sass-loads.sh failed: $report" >&2
    fail=1
    return
  fi
  first="$(echo "$report" | sed -n 's/^SASS line [0-9]*: \([0-9]*\) 16-byte loads.*/\1/p')"
  total="$(echo "$report" | sed -n 's/.*16-byte loads in all: \([0-9]*\)$/\1/p')"
  echo "$program $*: $(echo "$report" | tr '\n' ' ')"
  if [ "$(echo "$first" | wc -l)" -ne 1 ] || [ -z "$first" ] || [ "$first" != "$total" ] || [ "$total" -lt 4 ]; then
    echo "FAIL: $program ($*): $first of $total 16-byte loads before the first floating-point instruction" >&2
    fail=1
  fi
}
whole jacobi2d
whole heat3d -DSTENCILC_BLOCK_THREADS_3D=192 -DSTENCILC_WIDE_ROWS_3D=4
exit $fail
