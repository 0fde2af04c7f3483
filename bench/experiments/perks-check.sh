#!/usr/bin/env bash
# One device call (~8 minutes; 1 GPU is enough, 2 when lent), session 21:
#   0. perks.cu, the register-resident persistent Jacobi (issue 5's PERKS target): checked against
#      its serial reference (1 and 2 PEs; 2 PEs share the GPU where there is one), then timed at
#      1024^2, 1024 x 2048 (one GPU's share of 2048^2 on two), 1536^2 and 2048^2;
#   1. the generated jacobi2d at the same shapes, barrier and dataflow forms (the same run);
#   2. the 2-D wide items of 3 and 4 rows (-DSTENCILC_WIDE_ROWS): every sample checked with each
#      (cpu-free, dataflow), then ab.py against the default 2 at jacobi2d 4096^2 and 16384^2 and
#      wave2d 8192^2;
#   3. flow-phases.sh's dataflow phases, if time is left.
#   bash bench/experiments/perks-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/perks-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts, verify_generated
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr)

stage "0. perks.cu"
"${nvcc[@]}" -Xptxas -v "$root/bench/experiments/perks.cu" -o "$out/perks" 2>&1 | grep -E "spill|registers" | head -12 &
"${nvcc[@]}" -x cu -I "$root/include" -I "$root/runtime/include" "$bgen/jacobi2d.cpu-free.cu" -o "$out/jacobi2d" &
wait
timeout 150 "$out/perks" 2 2>&1 | tee "$out/perks.txt" | tail -60

stage "1. the generated jacobi2d at perks.cu's shapes (1 GPU; 2 where lent)"
timeout "$(budget 260)" python3 - "$out/jacobi2d" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import measure
exe, counts = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
for n0, n1 in [(1024, 1024), (1024, 2048), (1536, 1536), (2048, 2048)]:
    for g in counts:
        for form, flow in [("barrier", "0"), ("dataflow", "1")]:
            s1 = measure.steps_for(n0 * n1 / g, 8)
            us = measure.step_us(exe, lambda s: f"{n1} {n0} {s} 0 6", s1, g, {"STENCILC_DATAFLOW": flow})
            print(f"generated {form:9s} {n0:5d} x {n1:<5d} gpus {g}: {us:8.2f} us/step", flush=True)
PY

stage "2. 2-D wide items of 3 and 4 rows"
for w in 3 4; do
  echo "-- STENCILC_WIDE_ROWS=$w"
  NVCC_FLAGS="-DSTENCILC_WIDE_ROWS=$w" verify_generated "$gen" "cpu-free dataflow" 400
done
timeout "$(budget 540)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:4096,16384 --case wave2d:8192 --gpus "$counts" --runs 5 \
  --variant w2= --variant w3=-DSTENCILC_WIDE_ROWS=3 --variant w4=-DSTENCILC_WIDE_ROWS=4 > "$out/rows2d.txt" 2>&1
grep '^|' "$out/rows2d.txt" || tail -5 "$out/rows2d.txt"
rm -rf "$out/ab" "$out/perks" "$out/jacobi2d"

if [ "$(left 585)" -gt 60 ]; then
  stage "3. flow-phases"
  OUT="$out/phases" timeout "$(budget 590)" bash "$root/bench/experiments/flow-phases.sh" "$bgen" 2>&1 | tail -60
  rm -rf "$out/phases"
fi
stage "done"
