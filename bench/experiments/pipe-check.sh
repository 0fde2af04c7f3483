#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for the row pipe (pipe.cuh, the emitter's
# pipe_points; session 16), the barrier form's 2-D inner part streamed through shared memory.
# Session 16 ran two earlier forms (docs/BENCHMARKS.md, session 16, item 4): both verified, both
# slower than the wide strips but at jacobi2d 16384^2 on 1 GPU. The form now (written after the
# device time ran out, not yet run): a thread's 4 adjacent cells loaded 16 bytes at once from the
# rings per row its reads use (the wide strips' registers), 16-byte stores, the copies' chunk
# ranges set up once a tile: 126 SASS instructions a row in jacobi2d's loop against 246.
#   0. verification: run_generated.sh's cpu-free-pipe, -rows and -roles variants (built with
#      -DSTENCILC_ROW_PIPE=1 and the size thresholds off, so the tests' small grids take the pipe)
#      and cpu-free beside them, every sample, 1 and 2 GPUs; then the NVSHMEM and store-through
#      kernels with the same flags (the 2-D samples; poisson9's store-through kernel could not
#      launch on the second GPU before the launch set the shared-memory attribute on every GPU);
#   1. ab.py: the barrier form with and without the pipe (-DSTENCILC_ROW_PIPE=1, default
#      thresholds), jacobi2d 4096^2 and 16384^2 and wave2d 8192^2, 1 and 2 GPUs.
#      Prediction (bench/experiments/rowpipe.cu, one GPU: 83-90% of the copy bandwidth where the
#      wide strips' form reached 74-78%): jacobi2d 16384^2 from ~71% towards 85%; wave2d 8192^2
#      no longer slower than the strips; 4096^2 within a few percent either way.
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
NVCC_FLAGS="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_MIN_ROWS=1 -DSTENCILC_PIPE_NARROW=0" SAMPLES="jacobi2d wave2d poisson9 advect2d" \
  verify_generated "$gen" "nvshmem store-through" 320

stage "1. ab.py: the barrier form with and without the row pipe"
timeout "$(budget 585)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:4096,16384 --case wave2d:8192 --gpus "$counts" \
  --variant strips= --variant pipe=-DSTENCILC_ROW_PIPE=1 --setting bar=STENCILC_DATAFLOW=0 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab"
stage "done"
