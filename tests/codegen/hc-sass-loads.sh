#!/usr/bin/env bash
# CI (no GPU): the host-controlled schedule's update kernels issue the loads of the grids they do
# not store, for all of a thread's points (hc::kPoints), before their first floating-point
# instruction: the emitter loads them first (prefetch_reads) and the grids' restrict parameters
# let ptxas keep them there (else a thread waits a memory round trip a point behind a division's
# branch or the previous point's work). jacobi2d's update (fp32, 4 such reads a point),
# jacobi1d's (fp64, a division), cg2d's p update and fdtd2d's hz update (fp64, also reading the
# grid they store), heat3d's (fp64, 7 reads). Compiles the generated .cu for sm_90 and reads the
# SASS.
#   bash tests/codegen/hc-sass-loads.sh STENCILC NVCC NVDISASM WORKDIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stencilc="$1" nvcc="$2" nvdisasm="$3" work="$4"
mkdir -p "$work"
points=4  # hc::kPoints
fail=0
# check SAMPLE NAMESPACE KERNEL READS: the most loads of KERNEL issued before an FP instruction
# (READS: the point's reads of grids the kernel does not store).
check() {
  local sample="$1" ns="$2" kernel="$3" reads="$4"
  "$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$root/samples/$sample.cpp" -o "$work/$sample.cu"
  "$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    -cubin "$work/$sample.cu" -o "$work/$sample.cubin"
  "$nvdisasm" -c "$work/$sample.cubin" > "$work/$sample.sass"
  # The kernel's text: from its .text section to the next one; the longest run of loads before an
  # FP instruction (other instructions between them do not end a run).
  local most
  most="$(awk -v k="$ns$kernel" '
      /\.text\./ { inside = ($0 ~ k) }
      inside {
        o = $2; if (o ~ /^@/) o = $3
        if (o ~ /^LDG/) run++
        else if (o ~ /^(DADD|DFMA|DMUL|FADD|FFMA|FMUL)/) { if (run > most) most = run; run = 0 }
      }
      END { print most + 0 }' "$work/$sample.sass")"
  local want=$((points * reads))
  if [ "$most" -lt "$want" ]; then
    echo "FAIL: $sample $kernel: at most $most loads before an FP instruction, want $want ($points points x $reads reads)" >&2
    fail=1
  else
    echo "ok: $sample $kernel: $most loads before an FP instruction ($points points x $reads reads)"
  fi
}
check jacobi2d sc_jacobi 9foreach_0 4
check jacobi1d sc_smooth 9foreach_0 3
check cg2d sc_conjugate_gradients 9foreach_3 1
check fdtd2d sc_fdtd 9foreach_3 4
check heat3d sc_heat 9foreach_0 7
exit $fail
