#!/usr/bin/env bash
# One device call (nvidia-h200-x2, under 10 minutes), written in session 18 for session 19:
#   0. verification: run_generated's pipe variants (every sample, 1 and 2 GPUs) built with the
#      tiles claimed down the columns first (-DSTENCILC_PIPE_ORDER=1) and without the rows'
#      registers and shuffles (-DSTENCILC_PIPE_REUSE=0 -DSTENCILC_PIPE_SHUFFLE=0: session 17's
#      form, 4% faster than with them where the pipe wins; session 18, item 1);
#   1. jacobi2d on 1 GPU at 8192 x 16384 and 16384 x 8192 (rows x columns): the wide strips, the
#      pipe band by band and down the columns first (session 18, item 2: the first shape moves
#      the same DRAM bytes at 58% of the DRAM's peak against 65%);
#   2. heat3d 256^3 and 512^3 on 1 and 2 GPUs, today's build against session 14's (5556b2a, whose
#      heat3d 512^3 ran 715 / 351 us a step against 800 / 406 since session 15; the SASS is the
#      same within 8 of 14.9k instructions: session 18, item 3), in one run.
# Needs, written here by this checkout: bench-gen and gpu-gen, and bench-gen-old
# (`bash bench/experiments/old-gen.sh 5556b2a bench-gen-old`); carry all three. Results under $OUT.
#   bash bench/experiments/order-check.sh bench-gen gpu-gen bench-gen-old
set -u
out="${OUT:-/tmp/order-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"
old="${3:-$root/bench-gen-old}"

stage "0. run_generated: the pipe variants, down the columns first, without the rows' registers and shuffles"
NVCC_FLAGS="-DSTENCILC_PIPE_ORDER=1 -DSTENCILC_PIPE_REUSE=0 -DSTENCILC_PIPE_SHUFFLE=0" \
  verify_generated "$gen" "cpu-free-pipe cpu-free-pipe-rows cpu-free-pipe-roles" 170

stage "1. jacobi2d on 1 GPU: strips, the pipe band by band and down the columns"
pipe="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_REUSE=0 -DSTENCILC_PIPE_SHUFFLE=0"
OUT="$out/shape" SHAPES="8192x16384 16384x8192 16384x16384" BUDGET="$(left 330)" \
  VARIANTS="strips=;band=$pipe;down=$pipe -DSTENCILC_PIPE_ORDER=1" bash "$root/bench/experiments/pipe-shape.sh" "$bgen" | grep '^|'

stage "2. heat3d: today's build against 5556b2a's, one run"
timeout "$(budget 585)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:256,512 \
  --gpus "$counts" --variant now= --variant old= --gen-of old="$old/gen" --headers-of old="$old" > "$out/heat.txt" 2>&1
grep '^|' "$out/heat.txt" || tail -5 "$out/heat.txt"
rm -rf "$out/ab"
stage "done"
