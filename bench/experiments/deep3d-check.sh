#!/usr/bin/env bash
# One device call (~9 minutes; on 1 GPU and, when lent, 2), session 20: 3-D kernels of 192
# threads with wide items of 4 rows (-DSTENCILC_BLOCK_THREADS_3D=192 -DSTENCILC_WIDE_ROWS_3D=4,
# rows3d-check.sh's fastest: heat3d 512^3 814 -> 672 us a step on one H200).
#   0. run_generated on every sample with both: cpu-free, roles forced, dataflow, nvshmem, and the
#      off-by-default forms whose 3-D loops have wide items (on-chip strips, flow strips on 5
#      blocks a GPU);
#   1. heat3d 128^3, 256^3, 512^3: the default, both, 4 rows at 256 threads (ptxas splits the
#      item there), and both again (the spread).
#   bash bench/experiments/deep3d-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/deep3d-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
deep="-DSTENCILC_BLOCK_THREADS_3D=192 -DSTENCILC_WIDE_ROWS_3D=4"

stage "0. run_generated with 3-D kernels of 192 threads and 4-row items"
NVCC_FLAGS="$deep" verify_generated "$gen" \
  "cpu-free cpu-free-roles dataflow nvshmem cpu-free-onchip-strips cpu-free-flow-strips-rows" 260

stage "1. heat3d: default, 192 threads + 4 rows, 4 rows alone, again"
timeout "$(budget 570)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:128,256,512 \
  --gpus "$counts" --runs 5 --variant base= --variant deep="$deep" --variant r4=-DSTENCILC_WIDE_ROWS_3D=4 \
  --variant deep2="$deep" > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"
stage "done"
