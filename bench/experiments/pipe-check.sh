#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for the row pipe (pipe.cuh, the emitter's
# pipe_points), the barrier form's 2-D inner part streamed through shared memory.
# Session 17 ran its third form (16-byte ring loads feeding the wide strips' registers): verified,
# faster than the wide strips at jacobi2d 16384^2 on 1 GPU (710 -> 596 us) and slower elsewhere;
# Nsight Compute (pipe-profile.sh) put 31% of the warps' cycles at the step's barrier: a tile a
# block, the step waited on the blocks the memory system served slowest. Now the blocks claim
# STENCILC_PIPE_TILES (8) tiles a block, one at a time (PipeWork's tickets): verified (call 3),
# wave2d 31% faster, jacobi2d 1-3%. Written after that (not yet run): the rows the next row reads
# again kept in registers (STENCILC_PIPE_REUSE) and the side cells by warp shuffles
# (STENCILC_PIPE_SHUFFLE), both on by default in the pipe; stage 1 compares them with call 3's form.
#   0. verification: run_generated.sh's cpu-free-pipe, -rows and -roles variants (built with
#      -DSTENCILC_ROW_PIPE=1 and the size thresholds off, so the tests' small grids take the pipe,
#      in bands of 1 row and up: many tickets a block) and cpu-free beside them, every sample, 1
#      and 2 GPUs; then the NVSHMEM and store-through kernels with the same flags (2-D samples);
#   1. ab.py: the barrier form with the wide strips, with the pipe, and with the pipe without
#      the reuse and the shuffles (session 17's call 3), jacobi2d 4096^2 and 16384^2 and wave2d
#      8192^2, 1 and 2 GPUs.
# Needs bench-gen and gpu-gen written by this checkout; carry both. Results under $OUT.
#   bash bench/experiments/pipe-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/pipe-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus, counts, verify_generated
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"

stage "0. run_generated: cpu-free, and the row pipe (thresholds off), plain, on 5 blocks, with roles"
verify_generated "$gen" "cpu-free cpu-free-pipe cpu-free-pipe-rows cpu-free-pipe-roles" 230
stage "0b. run_generated: the NVSHMEM and store-through kernels with the row pipe (thresholds off)"
NVCC_FLAGS="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_MIN_ROWS=1 -DSTENCILC_PIPE_NARROW=0" SAMPLES="jacobi2d wave2d poisson9" \
  verify_generated "$gen" "nvshmem store-through" 300

stage "1. ab.py: the barrier form with and without the row pipe"
timeout "$(budget 585)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:4096,16384 --case wave2d:8192 --gpus "$counts" \
  --variant strips= --variant pipe=-DSTENCILC_ROW_PIPE=1 --variant pipe17="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_REUSE=0 -DSTENCILC_PIPE_SHUFFLE=0" --setting bar=STENCILC_DATAFLOW=0 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab"
stage "done"
