#!/usr/bin/env bash
# One device call (~8 minutes; 1 GPU, 2 when lent), session 21: the dataflow form's face blocks
# in wide strips, then a copy of their face cells (FaceWriter::copy; -DSTENCILC_FLOW_STRIPS=1).
# flow-dig.sh found the face blocks' point walk (a face store a point) 2x slower a row than the
# other blocks' at jacobi2d 1024 x 2048 on one H200 (15.7 and 12.4 us against 7.7), and every
# block waits behind them in the flag chain: 18 us a step, where perks.cu's hand-written flag
# step takes 3.6.
#   0. run_generated: every sample, the default build (cpu-free, its dataflow form), then with the
#      switch (the flow strips, on 5 blocks a GPU too, and the on-chip strips), then with the
#      switch and STENCILC_FLOW_STRIP_MIN_POINTS=0 (strips on every block, however few its points);
#   1. ab.py, the dataflow form (STENCILC_DATAFLOW=1) and the cost model's choice, without and
#      with the switch: jacobi2d 256^2-2048^2, wave2d 512^2-2048^2, heat3d 64^3 (3-D keeps the
#      walk: the same code both ways);
#   2. jacobi2d 1024 x 2048 (one GPU's share of 2048^2 on two) both ways, and the phases of the
#      strips' dataflow form there and at 2048^2.
#   bash bench/experiments/facestrips-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/facestrips-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" -diag-suppress 177,550)

stage "0. run_generated: the default build, then the strips (the threshold's choice, then everywhere)"
verify_generated "$gen" "cpu-free cpu-free-dataflow cpu-free-flow-strips cpu-free-flow-strips-rows cpu-free-onchip-strips" 150
NVCC_FLAGS="-DSTENCILC_FLOW_STRIP_MIN_POINTS=0" verify_generated "$gen" "cpu-free-flow-strips cpu-free-onchip-strips" 220

stage "1. ab.py: the dataflow form without and with the face strips"
timeout "$(budget 440)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:256,768,1024,2048 --case wave2d:512,1024,2048 --case heat3d:64 --gpus "$counts" --runs 5 \
  --variant walk= --variant strips=-DSTENCILC_FLOW_STRIPS=1 \
  --setting flow=STENCILC_DATAFLOW=1 --setting model= > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab"

stage "2. jacobi2d 1024 x 2048, and the strips' phases"
python3 "$root/bench/experiments/phases.py" --dataflow "$bgen/jacobi2d.cpu-free.cu" "$out/flow.cu"
"${nvcc[@]}" "$bgen/jacobi2d.cpu-free.cu" -o "$out/walk" &
"${nvcc[@]}" -DSTENCILC_FLOW_STRIPS=1 "$bgen/jacobi2d.cpu-free.cu" -o "$out/strips" &
"${nvcc[@]}" -DSTENCILC_FLOW_STRIPS=1 "$out/flow.cu" -o "$out/phases" &
wait
timeout "$(budget 560)" python3 - "$out" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import measure
out, counts = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
for g in counts:
    for name in ("walk", "strips"):
        for n0, n1 in [(1024, 2048), (2048, 2048)]:
            s1 = measure.steps_for(n0 * n1 / g, 8)
            us = measure.step_us(f"{out}/{name}", lambda s: f"{n1} {n0} {s} 0 6", s1, g, {"STENCILC_DATAFLOW": "1"})
            print(f"dataflow {name:6s} {n0:5d} x {n1:<5d} gpus {g}: {us:8.2f} us/step", flush=True)
PY
for shape in "2048 1024" "2048 2048"; do
  stage "phases, strips, jacobi2d $shape (cols rows), 1 GPU"
  STENCILC_PES=1 STENCILC_TIMING=1 STENCILC_DATAFLOW=1 timeout 60 "$out/phases" $shape 2000 0 1 2>&1 | \
    grep -E "^phases|^stencilc:" | sed -E 's/, 2000 steps, [0-9.]+ GHz//' | grep -v " 0.0[0-4] us" | head -20
done
rm -f "$out/walk" "$out/strips" "$out/phases"
stage "done"
