#!/usr/bin/env bash
# One device call for a change to the dataflow loop (its reductions, its walk, its process grid),
# in under 10 minutes, on every GPU of the machine:
#   0. tests/gpu/flow_reduce.cu on every GPU count (1-4) and its stall case (exit 3);
#      tests/gpu/halo_check.cu (the
#      exchange, store_to and the FaceWriter against the same expectations);
#   1. run_generated.sh, variants $RG_VARIANTS (default: cpu-free, the cost model's choice, and
#      cpu-free-dataflow, STENCILC_DATAFLOW=1: the N x 1 grid on every GPU count) on $RG_SAMPLES
#      (default: the samples with a dataflow form and a reduction, jacobi2d: deferred and folded,
#      every 100 steps and every 4 at the uneven size; convergence2d, poisson9: blocking and
#      folded; and heat3d, none), even and uneven sizes;
#   2. ab.py: main (its CUDA, and with a fourth argument its headers) against the branch, on
#      $AB_CASES (default jacobi2d and jacobi2d+norm at 256 and 1024), on 1, 2 and 4 GPUs as there
#      are; extra variants in $AB_VARIANTS (e.g. "blocking=-DSTENCILC_FLOW_REDUCE_BLOCKING": the
#      blocking form where the deferred one applies), and run-time settings in $AB_SETTINGS (e.g.
#      "df0=STENCILC_DATAFLOW=0": the barrier form where the cost model would pick the other).
# Session 10's wip/candidate (flow_grid, deferred reductions) and session 11's wip/fold (the
# reduction folded into the update's walk; a lag-2 runtime, 8e26e10, measured and not kept) were
# checked with its two earlier forms (candidate-check.sh, fold-check.sh).
# Needs gpu-gen and bench-gen written on the branch (tests/gpu/generate.sh, bench/generate.sh),
# bench-gen-main written on main, and optionally main's headers (`git archive main include
# runtime/include | tar -x -C DIR`: main's runtime beside the branch's; otherwise both variants
# build against the branch's). Carry them all. Results under $OUT; a summary on stdout.
#   bash bench/experiments/reduce-check.sh gpu-gen bench-gen bench-gen-main [main-headers]
set -u
out="${OUT:-/tmp/reduce-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, gpus
gen="${1:-$root/gpu-gen}"
bgen="${2:-$root/bench-gen}"
bgen_main="${3:-$root/bench-gen-main}"
main_headers="${4:-}"

# Builds tests/gpu/$1.cu and runs it on every GPU count (at most $2 s each): its verdict, and its
# lines that match $3. The binary stays in $out for the caller.
gpu_test() {
  nvcc -arch=sm_90 -std=c++17 -O2 -lineinfo -I "$root/runtime/include" "$root/tests/gpu/$1.cu" -o "$out/$1" ||
    echo "$1: build FAILED"
  for n in 1 2 3 4; do
    [ "$n" -le "$gpus" ] || continue
    timeout "$2" "$out/$1" --pes=$n > "$out/$1.$n.txt" 2>&1
    echo "pes=$n rc=$?: $(grep -E '^(PASS|FAIL)' "$out/$1.$n.txt")"
    grep -E "$3" "$out/$1.$n.txt" | head -4 | cut -c1-300
  done
}

stage "0. tests/gpu/flow_reduce.cu on every GPU count, and its stall"
gpu_test flow_reduce 60 "FAILED|wrong values|error"
STENCILC_WAIT_TIMEOUT_MS=500 timeout 30 "$out/flow_reduce" --pes=2 --mode=stall > "$out/flow_reduce_stall.txt" 2>&1
echo "stall rc=$? (expected 3)"; head -c 300 "$out/flow_reduce_stall.txt"; echo
rm -f "$out/flow_reduce"

stage "0b. tests/gpu/halo_check.cu (exchange, store_to, FaceWriter) on every GPU count"
gpu_test halo_check 120 "wrong cells|error"
rm -f "$out/halo_check"

stage "1. run_generated"
OUT="$out/rg" VARIANTS="${RG_VARIANTS:-cpu-free cpu-free-dataflow}" SAMPLES="${RG_SAMPLES:-jacobi2d convergence2d poisson9 heat3d}" \
  timeout 270 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -14
rm -rf "$out/rg/generated"

stage "2. ab.py: main against the branch"
counts=1,2; [ "$gpus" -ge 4 ] && counts=1,2,4
cases=()
for c in ${AB_CASES:-jacobi2d:256,1024 jacobi2d+norm:256,1024}; do cases+=(--case "$c"); done
variants=(--variant main= --variant branch=)
for v in ${AB_VARIANTS:-}; do variants+=(--variant "$v"); done
for v in ${AB_SETTINGS:-}; do variants+=(--setting "$v"); done
headers=()
[ -n "$main_headers" ] && headers=(--headers-of main="$main_headers")
timeout "$(left 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --gen-of main="$bgen_main" "${headers[@]}" \
  --out "$out/ab" "${cases[@]}" --gpus "$counts" "${variants[@]}" > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
grep -i "fail" "$out/ab.txt" | head -4 | cut -c1-300
rm -rf "$out/ab"
stage "done"
