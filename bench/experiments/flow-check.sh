#!/usr/bin/env bash
# One device call for the dataflow form's open items (docs/BENCHMARKS.md, session 9, plan items 1
# and 5), on nvidia-h200-x4 (1-4 GPUs) or -x2 (1-2), in under 10 minutes:
#   1. run_generated.sh, variants cpu-free and cpu-free-dataflow (the default kernel's two forms,
#      STENCILC_DATAFLOW=0 and 1), dataflow and store-through (the store-through pipeline's), on
#      the samples with the form and fdtd2d: correctness on every GPU count (3 and 4 have not run
#      the default kernel's dataflow form or its per-point face stores yet);
#   2. bench/experiments/storethrough.cu on 1, 2 (and 4) GPUs: every schedule checked bit for bit
#      against the serial reference, then timed; the question is ll-flow (face cells as LL words,
#      no fence between the GPUs) against dataflow at 256^2 (prediction: 2.3-2.5 us on 2 GPUs,
#      dataflow ~3.3);
#   3. phases.py --dataflow on the generated jacobi2d at 256^2 on 2 GPUs (the reference point).
# Session 8-9's other stages (the cost of carrying the form, the cost model's choice) are
# recorded in BENCHMARKS.md; bench/experiments/ab.py repeats them.
# Needs gpu-gen and bench-gen, written on the same commit by tests/gpu/generate.sh and
# bench/generate.sh (carry both). Results under $OUT (default /tmp/flow-check); a summary on stdout.
#   bash bench/experiments/flow-check.sh [gpu-gen] [bench-gen]
set -u
out="${OUT:-/tmp/flow-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, gpus
gen="${1:-$root/gpu-gen}"
bgen="${2:-$root/bench-gen}"

stage "1. run_generated: the dataflow forms and their barrier forms"
OUT="$out/rg" VARIANTS="cpu-free cpu-free-dataflow dataflow store-through" \
  SAMPLES="jacobi2d heat3d wave2d poisson9 advect2d box27 convergence2d fdtd2d" \
  timeout 300 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -14
rm -rf "$out/rg/generated"

stage "2. storethrough.cu: ll-flow against dataflow"
nvcc -O3 -arch=sm_90 -std=c++17 -I "$root/runtime/include" -I "$root/include" \
  "$root/bench/experiments/storethrough.cu" -o "$out/storethrough" || echo "storethrough: build FAILED"
for n in 1 2 4; do
  [ "$n" -le "$gpus" ] || continue
  [ "$(left 540)" -gt 20 ] || break
  timeout "$(left 540)" "$out/storethrough" --pes=$n > "$out/storethrough.$n.txt" 2>&1
  echo "pes=$n rc=$?"
  grep -E "FAILED|does not fit|status|error" "$out/storethrough.$n.txt" | head -8
  grep "^perf" "$out/storethrough.$n.txt" | sed -E 's/ \(([0-9]+) blocks\)//g'
done
rm -f "$out/storethrough"

stage "3. phases of a generated dataflow step, jacobi2d 256^2 on 2 GPUs"
python3 "$root/bench/experiments/phases.py" --dataflow "$bgen/jacobi2d.cpu-free.cu" "$out/jacobi2d.flow-phases.cu" &&
  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    "$out/jacobi2d.flow-phases.cu" -o "$out/jacobi2d.flow-phases" &&
  STENCILC_DATAFLOW=1 STENCILC_PES=2 timeout "$(left 590)" "$out/jacobi2d.flow-phases" 256 256 3000 0 1 \
    > "$out/phases.txt" 2>&1
grep "phases block" "$out/phases.txt" | awk '$8 + 0 >= 0.05' | head -12
rm -f "$out/jacobi2d.flow-phases"
stage "done"
