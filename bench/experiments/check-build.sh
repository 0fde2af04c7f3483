#!/usr/bin/env bash
# CI (no GPU): the experiments still build. pointloop.cu, rowpipe.cu and storethrough.cu compile (the latter
# against the runtime), phases.py instruments the CUDA (both forms of a loop with a dataflow form)
# stencilc emits for a benchmark program into code nvcc compiles, and ab.py builds a variant of it,
# and one with every experiment's switch that is off by default (so none of them rots between the
# device sessions that run them).
#   bash bench/experiments/check-build.sh STENCILC NVCC WORKDIR [program]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stencilc="$1" nvcc="$2" work="$3" program="${4:-jacobi2d}"
mkdir -p "$work"
"$nvcc" -O1 -arch=sm_90 -std=c++17 "$root/bench/experiments/pointloop.cu" -o "$work/pointloop"
"$nvcc" -O1 -arch=sm_90 -std=c++17 "$root/bench/experiments/rowpipe.cu" -o "$work/rowpipe"
"$nvcc" -O1 -arch=sm_90 -std=c++17 -I "$root/runtime/include" -I "$root/include" \
  "$root/bench/experiments/storethrough.cu" -o "$work/storethrough"
"$stencilc" --target=cuda --emit=cuda "$root/bench/programs/$program.cpp" -o "$work/$program.cpu-free.cu"
python3 "$root/bench/experiments/phases.py" "$work/$program.cpu-free.cu" "$work/$program.phases.cu"
grep -q 'printf("phases block' "$work/$program.phases.cu"
"$nvcc" -std=c++17 -O1 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
  -c "$work/$program.phases.cu" -o "$work/$program.phases.o"
# Its dataflow form too (jacobi2d's loop has one).
python3 "$root/bench/experiments/phases.py" --dataflow "$work/$program.cpu-free.cu" "$work/$program.flow-phases.cu"
"$nvcc" -std=c++17 -O1 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
  -c "$work/$program.flow-phases.cu" -o "$work/$program.flow-phases.o"
NVCC="$nvcc" python3 "$root/bench/experiments/ab.py" --gen "$work" --out "$work/ab" --case "$program:256" \
  --variant inline=-DSTENCILC_RUNTIME_INLINE \
  --variant "switches=-DSTENCILC_FLOW_SELF_RELEASE_GPU=1 -DSTENCILC_HOIST_BOUNDARY_WALK=3 -DSTENCILC_MERGE_SIDES=1 -DSTENCILC_ONCHIP_FORM=1 -DSTENCILC_FLOW_STRIPS=1 -DSTENCILC_ROW_PIPE=1" --build-only
bash -n "$root/bench/experiments/flow-check.sh"  # device calls' scripts: at least they parse
bash -n "$root/bench/experiments/reduce-check.sh"
bash -n "$root/bench/experiments/hoist-check.sh"
bash -n "$root/bench/experiments/onchip-check.sh"
bash -n "$root/bench/experiments/strips-check.sh"
bash -n "$root/bench/experiments/comm-check.sh"
bash -n "$root/bench/experiments/pipe-check.sh"
bash -n "$root/bench/experiments/flow-phases.sh"
bash -n "$root/bench/experiments/pipe-profile.sh"
bash -n "$root/bench/experiments/pipe-shape.sh"
bash -n "$root/bench/experiments/shape-profile.sh"
bash -n "$root/bench/experiments/old-gen.sh"
bash -n "$root/bench/experiments/order-check.sh"
bash -n "$root/bench/experiments/heat-bisect.sh"
bash -n "$root/bench/experiments/rows-check.sh"
bash -n "$root/bench/experiments/sass-loads.sh"
bash -n "$root/bench/experiments/shape-check.sh"
bash -n "$root/bench/experiments/block3d-check.sh"
bash -n "$root/bench/experiments/rows3d-check.sh"
bash -n "$root/bench/experiments/deep3d-check.sh"
python3 "$root/bench/experiments/item-base.py" "$work/$program.cpu-free.cu" "$work/$program.item-base.cu"
grep -q "sc_a_at + " "$work/$program.item-base.cu"
echo "experiments build: pointloop, rowpipe, storethrough, phases and ab of $program"
