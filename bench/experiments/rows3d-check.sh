#!/usr/bin/env bash
# One device call (1 GPU is enough, ~7 minutes), session 20: 3-D wide items of 3 and 4 rows once
# the item is issued whole. With 192-thread 3-D kernels (STENCILC_BLOCK_THREADS_3D=192) ptxas
# issues heat3d's items whole at 2, 3 and 4 rows (8, 11 and 14 16-byte loads: 2, 1.83 and 1.75
# an output vector; sass-loads.sh), and also with 128 threads x 3 blocks (12 warps, 170 registers).
#   0. run_generated, cpu-free, the 3-D samples (heat3d, box27) with rows 3 and rows 4 at 192;
#   1. heat3d 128^3, 256^3, 512^3: 256 threads (default), 192 with rows 2, 3, 4, 128 x 3.
#   bash bench/experiments/rows3d-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/rows3d-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
b192=-DSTENCILC_BLOCK_THREADS_3D=192

stage "0. run_generated cpu-free, 3-D samples, rows 3 and 4 at 192 threads"
SAMPLES="heat3d box27" NVCC_FLAGS="$b192 -DSTENCILC_WIDE_ROWS=3" verify_generated "$gen" "cpu-free cpu-free-roles" 60
SAMPLES="heat3d box27" NVCC_FLAGS="$b192 -DSTENCILC_WIDE_ROWS=4" verify_generated "$gen" "cpu-free cpu-free-roles" 120

stage "1. heat3d: rows and block shapes"
timeout "$(budget 560)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:128,256,512 \
  --gpus "$counts" --runs 5 --variant b256= --variant b192=$b192 --variant b192r3="$b192 -DSTENCILC_WIDE_ROWS=3" \
  --variant b192r4="$b192 -DSTENCILC_WIDE_ROWS=4" \
  --variant b128x3="-DSTENCILC_BLOCK_THREADS_3D=128 -DSTENCILC_MIN_BLOCKS_PER_SM=3" > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"
stage "done"
