#!/usr/bin/env bash
# One device call (about 2 minutes, on nvidia-h200-x2): where the dataflow form's step goes at
# jacobi2d 2048^2 on 2 GPUs (session 16, docs/BENCHMARKS.md item 1: 18 us a step with the point
# walk, the strips and the on-chip strips alike, against the barrier form's 12.6; neither the
# loads' source nor the walk's instructions set it, so the flag chain is the suspect). phases.py
# --dataflow stamps the wait, the walk and the publish of three blocks (the PE's first and last,
# its face blocks, and the middle one), at 2048^2 and, for comparison, 1024^2 (6.6 us a step,
# where the form pays); the barrier form's phases at 2048^2 beside them.
# Needs bench-gen written by this checkout; carry it. Results under $OUT.
#   bash bench/experiments/flow-phases.sh bench-gen
set -u
out="${OUT:-/tmp/flow-phases}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, gpus
bgen="${1:-$root/bench-gen}"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include")

stage "build: the dataflow form's and the barrier form's phases"
python3 "$root/bench/experiments/phases.py" --dataflow "$bgen/jacobi2d.cpu-free.cu" "$out/flow.cu"
python3 "$root/bench/experiments/phases.py" "$bgen/jacobi2d.cpu-free.cu" "$out/bar.cu"
"${nvcc[@]}" "$out/flow.cu" -o "$out/flow" & "${nvcc[@]}" "$out/bar.cu" -o "$out/bar" & wait
for pes in 1 2; do
  [ "$pes" -le "$gpus" ] || continue
  for n in 1024 2048; do
    stage "dataflow form, jacobi2d ${n}^2, $pes GPU(s)"
    STENCILC_PES=$pes STENCILC_DATAFLOW=1 STENCILC_TIMING=1 timeout 60 "$out/flow" $n $n 2000 0 1 2>&1 | grep -E "^phases|^stencilc:" | head -40
  done
  stage "barrier form, jacobi2d 2048^2, $pes GPU(s)"
  STENCILC_PES=$pes STENCILC_DATAFLOW=0 STENCILC_TIMING=1 timeout 60 "$out/bar" 2048 2048 2000 0 1 2>&1 | grep -E "^phases|^stencilc:" | head -40
done
rm -f "$out/flow" "$out/bar"
stage "done"
