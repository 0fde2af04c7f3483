#!/usr/bin/env bash
# One device call for branch wip/candidate (session 10's unverified work: wip/flow-grid, the
# dataflow form's process grid on 3 and 4 GPUs, and wip/flow-reduce-lag, the deferred reductions),
# on nvidia-h200-x4 (1-4 GPUs), in under 10 minutes:
#   0. tests/gpu/flow_reduce.cu on 1-4 GPUs and its stall case (exit 3);
#   1. run_generated.sh, variants cpu-free (the cost model's choice, now with its grid),
#      cpu-free-dataflow (STENCILC_DATAFLOW=1: N x 1 on every GPU count), store-through and
#      dataflow, on the samples with a dataflow form (jacobi2d: a deferred norm; convergence2d,
#      poisson9: blocking ones), 1-4 GPUs, even and uneven sizes;
#   2. ab.py: main against the candidate, jacobi2d 256 and 1024 with and without the norm every
#      step, on 1, 2 and 4 GPUs. Predictions: 4 GPUs at 256^2 about 4 us against 12.7 (flow_grid);
#      jacobi2d+norm 256^2 on 2 GPUs about 5 us against 7.8 (deferred); the rest unchanged.
# Needs gpu-gen and bench-gen written on this branch (tests/gpu/generate.sh, bench/generate.sh)
# and bench-gen-main written on main (carry all three). Results under $OUT; a summary on stdout.
#   bash bench/experiments/candidate-check.sh gpu-gen bench-gen bench-gen-main
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
bgen="${2:-$root/bench-gen}"
bgen_main="${3:-$root/bench-gen-main}"
out="${OUT:-/tmp/grid-check}"
mkdir -p "$out" || exit 1
t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

stage "0. tests/gpu/flow_reduce.cu (DFlowReduce, blocking and deferred) on every GPU count, and its stall"
nvcc -arch=sm_90 -std=c++17 -O2 -lineinfo -I "$root/runtime/include" "$root/tests/gpu/flow_reduce.cu" -o "$out/flow_reduce" ||
  echo "flow_reduce: build FAILED"
for n in 1 2 3 4; do
  [ "$n" -le "$gpus" ] || continue
  timeout 60 "$out/flow_reduce" --pes=$n > "$out/flow_reduce.$n.txt" 2>&1
  echo "pes=$n rc=$?: $(grep -c ': ok' "$out/flow_reduce.$n.txt") ok; $(grep -E '^(PASS|FAIL)' "$out/flow_reduce.$n.txt")"
  grep -E "FAILED|wrong values|error" "$out/flow_reduce.$n.txt" | head -4
done
STENCILC_WAIT_TIMEOUT_MS=500 timeout 30 "$out/flow_reduce" --pes=2 --mode=stall > "$out/flow_reduce_stall.txt" 2>&1
echo "stall rc=$? (expected 3)"; head -c 500 "$out/flow_reduce_stall.txt"; echo
rm -f "$out/flow_reduce"

stage "1. run_generated: the default kernel's forms on every GPU count"
OUT="$out/rg" VARIANTS="cpu-free cpu-free-dataflow store-through dataflow" SAMPLES="jacobi2d convergence2d poisson9 heat3d wave2d" \
  timeout 270 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -14
rm -rf "$out/rg/generated"

stage "2. ab.py: main against the candidate"
counts=1,2; [ "$gpus" -ge 4 ] && counts=1,2,4
timeout "$(left 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --gen-of main="$bgen_main" --out "$out/ab" \
  --case jacobi2d:256,1024 --case jacobi2d+norm:256,1024 --gpus "$counts" --variant main= --variant candidate= > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
grep -i "fail" "$out/ab.txt" | head -4 | cut -c1-300
rm -rf "$out/ab"
stage "done"
