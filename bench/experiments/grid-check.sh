#!/usr/bin/env bash
# One device call for branch wip/flow-grid (compiled::flow_grid: the dataflow form's process
# grid on 3 and 4 GPUs), on nvidia-h200-x4, in under 10 minutes:
#   1. run_generated.sh, variants cpu-free (the cost model's choice, now with its grid) and
#      cpu-free-dataflow (STENCILC_DATAFLOW=1: N x 1 on every GPU count), on the samples with a
#      dataflow form, 1-4 GPUs, even and uneven sizes;
#   2. ab.py: main's launcher (plan's grid: 2 x 2 on 4 GPUs) against this branch's, jacobi2d 256
#      and 1024, jacobi2d+norm 256, on 2, 3 and 4 GPUs (prediction: 4 GPUs at 256^2 about 4 us
#      against 12.7; 2 GPUs unchanged).
# Needs gpu-gen and bench-gen written on this branch (tests/gpu/generate.sh, bench/generate.sh)
# and bench-gen-main on main (carry all three). Results under $OUT; a summary on stdout.
#   bash bench/experiments/grid-check.sh gpu-gen bench-gen bench-gen-main
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

stage "1. run_generated: the default kernel's forms on every GPU count"
OUT="$out/rg" VARIANTS="cpu-free cpu-free-dataflow" SAMPLES="jacobi2d heat3d wave2d poisson9 convergence2d box27" \
  timeout 280 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -14
rm -rf "$out/rg/generated"

stage "2. ab.py: plan's grid (main) against flow_grid's"
counts=2; [ "$gpus" -ge 3 ] && counts=2,3; [ "$gpus" -ge 4 ] && counts=2,3,4
timeout "$(left 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --gen-of main="$bgen_main" --out "$out/ab" \
  --case jacobi2d:256,1024 --case jacobi2d+norm:256 --gpus "$counts" --variant main= --variant grid= > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
grep -i "fail" "$out/ab.txt" | head -4 | cut -c1-300
rm -rf "$out/ab"
stage "done"
