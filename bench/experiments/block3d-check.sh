#!/usr/bin/env bash
# One device call (1 GPU is enough, ~8 minutes; run it on 2 when lent), session 20: the 3-D
# kernels' block size (generated.cuh, STENCILC_BLOCK_THREADS_3D; the emitter's kBlockThreads).
#   0. run_generated on every sample: cpu-free, roles forced, dataflow and nvshmem built with
#      -DSTENCILC_BLOCK_THREADS_3D=192 (heat3d's and box27's kernels of 192 threads, the 2-D ones
#      of 256: both in one run), then cpu-free and nvshmem as generated (kBlockThreads 256);
#   1. heat3d 128^3, 256^3, 512^3: 256 against 192 threads, each timed twice (base, b192, base2,
#      b192b: the spread of one version against the difference of two).
# Needs bench-gen and gpu-gen written here (carry them).
#   bash bench/experiments/block3d-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/block3d-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"

stage "0a. run_generated with 3-D blocks of 192 threads"
NVCC_FLAGS="-DSTENCILC_BLOCK_THREADS_3D=192" verify_generated "$gen" "cpu-free cpu-free-roles dataflow nvshmem" 170
stage "0b. run_generated as generated"
verify_generated "$gen" "cpu-free nvshmem" 250

stage "1. heat3d: 256 and 192 threads a block, twice each"
b192=-DSTENCILC_BLOCK_THREADS_3D=192
timeout "$(budget 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:128,256,512 \
  --gpus "$counts" --runs 5 --variant base= --variant b192=$b192 --variant base2= --variant b192b=$b192 > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"
stage "done"
