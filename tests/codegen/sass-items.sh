#!/usr/bin/env bash
# CI (no GPU): the generated wide loops' items issue all their 16-byte loads before their first
# floating-point instruction (one memory round trip an item) with the default build: jacobi2d's
# 2-D items (256 threads, 128 registers; the barrier form's inner part and the dataflow form's
# strips), heat3d's 3-D items of 4 rows in a 192-thread kernel (at 128 registers ptxas splits a
# 3-D item in two memory round trips, 12-18% slower). Reads the SASS with
# tests/codegen/sass-loads.sh. And a loop of a point a thread (jacobi1d's 1-D double updates,
# batched_plain_points) issues most of its batch's loads (8 points x 3 reads) before its first
# floating-point instruction (one point at a time, it waited a round trip a point behind each
# division's branch: 1.5x the plain kernels' time a step).
#   bash tests/codegen/sass-items.sh STENCILC NVCC NVDISASM WORKDIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stencilc="$1" work="$4"
export NVCC="$2" NVDISASM="$3"
mkdir -p "$work"
fail=0
# whole PROGRAM FLAGS...: in each of the kernel's wide loops ptxas issues all its 16-byte loads
# before its first floating-point instruction (the loops' counts add up to every 16-byte load).
whole() {
  local program="$1"; shift
  "$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$root/bench/programs/$program.cpp" -o "$work/$program.cu"
  local report first total
  if ! report="$(bash "$root/tests/codegen/sass-loads.sh" "$work/$program.cu" "$root" "$@")"; then
    echo "FAIL: $program ($*): sass-loads.sh failed: $report" >&2
    fail=1
    return
  fi
  first="$(echo "$report" | sed -n 's/^SASS line [0-9]*: \([0-9]*\) 16-byte loads.*/\1/p')"
  total="$(echo "$report" | sed -n 's/.*16-byte loads in all: \([0-9]*\)$/\1/p')"
  echo "$program $*: $(echo "$report" | tr '\n' ' ')"
  local before
  before="$(echo "$first" | awk '{ s += $1 } END { print s + 0 }')"
  if [ -z "$first" ] || [ "$before" != "$total" ] || [ "$total" -lt 4 ]; then
    echo "FAIL: $program ($*): $before of $total 16-byte loads before their loop's first floating-point instruction" >&2
    fail=1
  fi
}
# batched PROGRAM LOADS: some run of the kernel's 8-byte loads, LOADS or more, comes with no
# floating-point instruction between them.
batched() {
  local program="$1" want="$2"
  "$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$root/bench/programs/$program.cpp" -o "$work/$program.cu"
  "$NVCC" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    -cubin "$work/$program.cu" -o "$work/$program.cubin"
  local most
  most="$("$NVDISASM" -c "$work/$program.cubin" | awk '{o = $2; if (o ~ /^@/) o = $3}
    o ~ /^LDG\.E\.64/ {n++; if (n > m) m = n; next} o ~ /^(DADD|DFMA|DMUL|MUFU|FADD|FFMA|FMUL)/ {n = 0}
    END {print m + 0}')"
  echo "$program: at most $most 8-byte loads before a floating-point instruction"
  if [ "$most" -lt "$want" ]; then
    echo "FAIL: $program: at most $most 8-byte loads in flight together, expected $want (a batch)" >&2
    fail=1
  fi
}
whole jacobi2d
whole heat3d
batched jacobi1d 16
exit $fail
