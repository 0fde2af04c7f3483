#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for session 15's leads (docs/BENCHMARKS.md,
# session 15, "What to do next"); written in session 15, not yet run:
#   1. jacobi2d 4096^2 on 2 GPUs, barrier form: its step is the inner part's streaming (22 us)
#      plus the comm block's boundary row after it (5 us). How many comm blocks the role model
#      gives (STENCILC_TIMING's line), and the step with 1, 2, 4 and 8 forced
#      (STENCILC_COMM_BLOCKS); prediction: more comm blocks take the row's 5 us down to ~1-2,
#      the step from 27 towards 23 us, until the compute blocks they take cost more;
#   2. the 3-D boundary walk hoisted or built every step (-DSTENCILC_HOIST_BOUNDARY_WALK=3 or the
#      default), heat3d 256^3 and 512^3 on 1 and 2 GPUs, interleaved: ab.py twice, the variants'
#      order swapped, 5 runs each (session 14 measured a 10-16% loss hoisted, session 15 none and
#      10% between two runs of one build).
# Needs bench-gen written by this checkout (bench/generate.sh); carry it. Results under $OUT.
#   bash bench/experiments/comm-check.sh bench-gen
set -u
out="${OUT:-/tmp/comm-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus
bgen="${1:-$root/bench-gen}"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include")

stage "1. jacobi2d 4096^2, 2 GPUs, barrier form: the role model's comm blocks, then 1, 2, 4, 8 forced"
if [ "$gpus" -ge 2 ]; then
  "${nvcc[@]}" "$bgen/jacobi2d.cpu-free.cu" -o "$out/jacobi2d"
  STENCILC_TIMING=1 STENCILC_PES=2 STENCILC_DATAFLOW=0 "$out/jacobi2d" 4096 4096 100 0 1 2>&1 | grep "^stencilc:"
  rm -f "$out/jacobi2d"
  timeout "$(budget 200)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab1" --case jacobi2d:4096 --gpus 2 \
    --variant base= --setting model=STENCILC_DATAFLOW=0 --setting c1=STENCILC_DATAFLOW=0,STENCILC_COMM_BLOCKS=1 \
    --setting c2=STENCILC_DATAFLOW=0,STENCILC_COMM_BLOCKS=2 --setting c4=STENCILC_DATAFLOW=0,STENCILC_COMM_BLOCKS=4 \
    --setting c8=STENCILC_DATAFLOW=0,STENCILC_COMM_BLOCKS=8 > "$out/ab1.txt" 2>&1
  grep '^|' "$out/ab1.txt" || tail -5 "$out/ab1.txt"
fi

stage "2. heat3d's boundary walk hoisted or not, interleaved"
for order in "per= hoist=-DSTENCILC_HOIST_BOUNDARY_WALK=3" "hoist=-DSTENCILC_HOIST_BOUNDARY_WALK=3 per="; do
  read -r -a v <<< "$order"
  timeout "$(budget 575)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab2" --case heat3d:256,512 \
    --gpus "$counts" --runs 5 --variant "${v[0]}" --variant "${v[1]}" --setting df0=STENCILC_DATAFLOW=0 > "$out/ab2.txt" 2>&1
  grep '^|' "$out/ab2.txt" || tail -5 "$out/ab2.txt"
done
rm -rf "$out/ab1" "$out/ab2"
stage "done"
