#!/usr/bin/env bash
# One device call (1 GPU is enough, ~4 minutes), session 19: heat3d's wide items of 1 row.
# heat-bisect.sh found heat3d's 12% (session 15 on) in ptxas' schedule of the 3-D wide loop: in
# the builds since b61c5e5 it issues 4 of an item's 8 16-byte loads, then the first arithmetic
# (waiting on them), then the rest, where 5bd4a5e's issued all 8 first (same PTX, same
# registers; bench/experiments/sass-loads.sh). An item of 1 row (STENCILC_WIDE_ROWS=1: 5 vectors
# and 2 side cells) is issued whole. Does it win back the 12%?
#   0. run_generated, cpu-free, every sample, with -DSTENCILC_WIDE_ROWS=1;
#   1. heat3d 256^3 and 512^3 on 1 GPU (and 2 where there are): rows 2 (today), rows 1, and
#      5556b2a's build, in one run; jacobi2d 4096^2 and 16384^2, wave2d 8192^2 with rows 1 and 2.
# Needs bench-gen, gpu-gen and bench-gen-old (5556b2a; old-gen.sh) written here (carry them).
#   bash bench/experiments/rows-check.sh bench-gen gpu-gen bench-gen-old
set -u
out="${OUT:-/tmp/rows-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
old="$3"

stage "0. run_generated cpu-free with items of 1 row"
NVCC_FLAGS="-DSTENCILC_WIDE_ROWS=1" verify_generated "$gen" "cpu-free" 120

stage "1. heat3d: rows 2, rows 1, 5556b2a"
timeout "$(budget 330)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:256,512 \
  --gpus "$counts" --runs 5 --variant rows2= --variant rows1=-DSTENCILC_WIDE_ROWS=1 --variant old= \
  --gen-of old="$old/gen" --headers-of old="$old" > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"

stage "2. 2-D: rows 2 and rows 1"
timeout "$(budget 560)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case jacobi2d:4096,16384 \
  --case wave2d:8192 --gpus "$counts" --runs 5 --variant rows2= --variant rows1=-DSTENCILC_WIDE_ROWS=1 > "$out/2d.txt" 2>&1
grep '^|' "$out/2d.txt" || tail -5 "$out/2d.txt"
rm -rf "$out/ab"
stage "done"
