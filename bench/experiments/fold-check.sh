#!/usr/bin/env bash
# One device call for a change to the dataflow loop's reductions, on 1 and 2 GPUs (x2), in under
# 10 minutes (session 11 checked wip/fold with it: the reduction folded into the update's walk,
# and a runtime with a lag-2 deferred form, 8e26e10, measured and not kept):
#   0. tests/gpu/flow_reduce.cu on every GPU count and its stall case (exit 3);
#   1. run_generated.sh, variants cpu-free and cpu-free-dataflow (STENCILC_DATAFLOW=1), on the
#      samples whose reduction folds (jacobi2d: deferred, every 100 steps, and every 4 at the
#      uneven size; convergence2d, poisson9: blocking) and heat3d (no reduction);
#   2. ab.py: main (its CUDA and headers), the branch's CUDA against main's headers (fold: the
#      emitter's change alone), the branch (branch: with its runtime), and the branch with the
#      blocking form where the deferred one applies (blocking), jacobi2d+norm 256 and 1024 and
#      jacobi2d 256, on 1 and 2 GPUs.
# Needs gpu-gen and bench-gen written on this branch (tests/gpu/generate.sh, bench/generate.sh),
# bench-gen-main written on main, and main's headers (`git archive main include runtime/include
# | tar -x -C DIR`; carry all four). Results under $OUT; a summary on stdout.
#   bash bench/experiments/fold-check.sh gpu-gen bench-gen bench-gen-main main-headers
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
bgen="${2:-$root/bench-gen}"
bgen_main="${3:-$root/bench-gen-main}"
main_headers="${4:?the fourth argument: a folder with the include and runtime/include folders of main}"
out="${OUT:-/tmp/fold-check}"
mkdir -p "$out" || exit 1
t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

stage "0. tests/gpu/flow_reduce.cu on every GPU count, and its stall"
nvcc -arch=sm_90 -std=c++17 -O2 -lineinfo -I "$root/runtime/include" "$root/tests/gpu/flow_reduce.cu" -o "$out/flow_reduce" ||
  echo "flow_reduce: build FAILED"
for n in 1 2 3 4; do
  [ "$n" -le "$gpus" ] || continue
  timeout 60 "$out/flow_reduce" --pes=$n > "$out/flow_reduce.$n.txt" 2>&1
  echo "pes=$n rc=$?: $(grep -c ': ok' "$out/flow_reduce.$n.txt") ok; $(grep -E '^(PASS|FAIL)' "$out/flow_reduce.$n.txt")"
  grep -E "FAILED|wrong values|error" "$out/flow_reduce.$n.txt" | head -4
done
STENCILC_WAIT_TIMEOUT_MS=500 timeout 30 "$out/flow_reduce" --pes=2 --mode=stall > "$out/flow_reduce_stall.txt" 2>&1
echo "stall rc=$? (expected 3)"; head -c 300 "$out/flow_reduce_stall.txt"; echo
rm -f "$out/flow_reduce"

stage "1. run_generated: the folded reductions"
OUT="$out/rg" VARIANTS="cpu-free cpu-free-dataflow" SAMPLES="jacobi2d convergence2d poisson9 heat3d" \
  timeout 240 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -12
rm -rf "$out/rg/generated"

stage "2. ab.py: main against the branch"
timeout "$(left 540)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --gen-of main="$bgen_main" --out "$out/ab" \
  --headers-of main="$main_headers" --headers-of fold="$main_headers" \
  --case jacobi2d+norm:256,1024 --case jacobi2d:256 --gpus 1,2 --variant main= --variant fold= \
  --variant branch= --variant blocking=-DSTENCILC_FLOW_REDUCE_BLOCKING > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
grep -i "fail" "$out/ab.txt" | head -4 | cut -c1-300
rm -rf "$out/ab"
stage "done"
