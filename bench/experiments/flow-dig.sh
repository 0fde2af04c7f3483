#!/usr/bin/env bash
# One device call (~6 minutes; 1 GPU), session 21: where the generated dataflow form's step goes,
# against perks.cu's hand-written neighbour-flag step (session 21's first call: 2.6 us at 1024^2
# on one H200 where the generated dataflow form takes 9.1, and 3.6 against 18.0 at 1024 x 2048).
#   0. perks.cu at 256^2 and 512^2 (the flag protocol's floor where there is little to compute);
#   1. phases.py --dataflow: the wait, the walk and the publish of three blocks, jacobi2d at 256^2,
#      1024^2, 1024 x 2048 and 2048^2 on 1 GPU;
#   2. the on-chip copy (-DSTENCILC_ONCHIP_FORM=1, phases.py --onchip) at 1024 x 2048 and 2048^2.
#   bash bench/experiments/flow-dig.sh bench-gen
set -u
out="${OUT:-/tmp/flow-dig}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
bgen="$1"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr)
inc=(-x cu -I "$root/include" -I "$root/runtime/include" -diag-suppress 177,550)

stage "build"
python3 "$root/bench/experiments/phases.py" --dataflow "$bgen/jacobi2d.cpu-free.cu" "$out/flow.cu"
python3 "$root/bench/experiments/phases.py" --onchip "$bgen/jacobi2d.cpu-free.cu" "$out/onchip.cu"
"${nvcc[@]}" "$root/bench/experiments/perks.cu" -o "$out/perks" &
"${nvcc[@]}" "${inc[@]}" "$out/flow.cu" -o "$out/flow" &
"${nvcc[@]}" "${inc[@]}" -DSTENCILC_ONCHIP_FORM=1 "$out/onchip.cu" -o "$out/onchip" &
wait

stage "0. perks.cu at 256^2 and 512^2"
timeout 120 "$out/perks" 1 1 2>&1 | grep -vE "^check .* ok" | tail -20

# phases RUN COLS ROWS STEPS [ENV...]: the phases lines of one run of 2000 steps.
phases() {
  local exe=$1 n1=$2 n0=$3; shift 3
  env STENCILC_PES=1 STENCILC_TIMING=1 "$@" timeout 60 "$exe" "$n1" "$n0" 2000 0 1 2>&1 | grep -E "^phases|^stencilc:" | \
    sed -E 's/, 2000 steps, [0-9.]+ GHz//' | head -40
}
stage "1. the dataflow form's phases"
for shape in "256 256" "1024 1024" "2048 1024" "2048 2048"; do
  stage "dataflow, jacobi2d $shape (cols rows), 1 GPU"
  phases "$out/flow" $shape STENCILC_DATAFLOW=1
done
stage "2. the on-chip copy's phases"
for shape in "2048 1024" "2048 2048"; do
  stage "on-chip, jacobi2d $shape (cols rows), 1 GPU"
  phases "$out/onchip" $shape STENCILC_DATAFLOW=1
done
rm -f "$out/flow" "$out/onchip" "$out/perks"
stage "done"
