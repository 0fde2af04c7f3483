#!/usr/bin/env bash
# One device call (1 GPU is enough, ~9 minutes), session 20: heat3d's wide item issued whole.
# Session 19 found heat3d's 12% in ptxas' schedule of the 3-D wide item (4 of its 8 16-byte loads,
# then arithmetic waiting on them, then the other 4) at the kernel's 128-register cap (256 threads,
# 2 blocks a SM). sass-loads.sh here: with a cap of 154+ registers (192 threads x 2 blocks, 384 x 1,
# 256 x 1, 320 x 1) ptxas issues all 8 first; 224 x 2 and 448 x 1 (128 registers) split it. Also
# the wide item's rows addressed from one base pointer a grid (bench-gen-at: the row offsets
# loop-invariant, not 64-bit products per row; fewer integer instructions, same loads).
#   0. run_generated, cpu-free, every sample, 192-thread blocks (the block shape is a parameter
#      of the generated code: checked, not assumed);
#   1. heat3d 128^3, 256^3, 512^3: the block shapes and the address form, side by side;
#   2. jacobi2d 4096^2, 16384^2 and wave2d 8192^2 (their items are whole at 128 registers): the
#      address form and 192-thread blocks.
# Here first: mkdir bench-gen-at; cp bench-gen/*.cu bench-gen-at/; for p in heat3d jacobi2d wave2d; do
#   python3 bench/experiments/item-base.py bench-gen/$p.cpu-free.cu bench-gen-at/$p.cpu-free.cu; done
#   bash bench/experiments/shape-check.sh bench-gen gpu-gen bench-gen-at
set -u
out="${OUT:-/tmp/shape-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
at="$3"

stage "0. run_generated cpu-free with 192-thread blocks"
NVCC_FLAGS="-DSTENCILC_BLOCK_THREADS=192" verify_generated "$gen" "cpu-free" 110

stage "1. heat3d: block shapes, address form"
timeout "$(budget 400)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:128,256,512 \
  --gpus "$counts" --runs 5 --variant base= --variant t192=-DSTENCILC_BLOCK_THREADS=192 \
  --variant t384="-DSTENCILC_BLOCK_THREADS=384 -DSTENCILC_MIN_BLOCKS_PER_SM=1" --variant t256b1=-DSTENCILC_MIN_BLOCKS_PER_SM=1 \
  --variant at= --variant at192=-DSTENCILC_BLOCK_THREADS=192 --gen-of at="$at" --gen-of at192="$at" > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"

stage "2. 2-D: address form, 192-thread blocks"
timeout "$(budget 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case jacobi2d:4096,16384 \
  --case wave2d:8192 --gpus "$counts" --runs 5 --variant base= --variant at= --variant t192=-DSTENCILC_BLOCK_THREADS=192 \
  --gen-of at="$at" > "$out/2d.txt" 2>&1
grep '^|' "$out/2d.txt" || tail -5 "$out/2d.txt"
rm -rf "$out/ab"
stage "done"
