#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for session 14's open question: why heat3d
# streams 10-16% slower at 256^3 and 512^3 when its boundary walk is set up before the loop
# (-DSTENCILC_HOIST_BOUNDARY_WALK=3) than when it is built every step (the 3-D default), though
# the two kernels' loops have the same instructions (docs/BENCHMARKS.md, session 14, item 2):
#   0. first, session 14's changes not yet run on a GPU: the store-through variant's face stores
#      through a FaceWriter (tests/gpu/halo_check.cu on every GPU count, run_generated.sh's
#      store-through variant), the wide loop's side points restructured (run_generated's cpu-free
#      variant, and again with -DSTENCILC_MERGE_SIDES=1), every sample;
#   1. phases.py: the barrier form's per-phase time of heat3d 256^3 on 1 GPU, both forms (which
#      phase grows: the inner part's loop, and in every block?); and jacobi2d 4096^2 on 2 GPUs
#      (27 us a step where its streaming alone would take about 20);
#   2. ncu (when the machine has it): one launch of each, 20 steps, memory and warp-state sections;
#   3. ab.py: the side points merged into the items' loop (-DSTENCILC_MERGE_SIDES=1) against a
#      pass of their own, at medium sizes (docs/BENCHMARKS.md, session 14, item 5).
# Needs bench-gen and gpu-gen written by this checkout (bench/generate.sh, tests/gpu/generate.sh);
# carry both. Results under $OUT.
#   bash bench/experiments/hoist-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/hoist-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include")

stage "0. session 14's changes not yet run: halo_check; run_generated store-through, cpu-free, cpu-free merged sides"
nvcc -arch=sm_90 -std=c++17 -O2 -lineinfo -I "$root/runtime/include" "$root/tests/gpu/halo_check.cu" -o "$out/halo_check" ||
  echo "halo_check: build FAILED"
for n in 1 2 3 4; do
  [ "$n" -le "$gpus" ] || continue
  timeout 120 "$out/halo_check" --pes=$n > "$out/halo_check.$n.txt" 2>&1
  echo "halo_check pes=$n rc=$?: $(grep -E '^(PASS|FAIL)' "$out/halo_check.$n.txt")"
  grep -E "wrong cells|error" "$out/halo_check.$n.txt" | head -4 | cut -c1-300
done
rm -f "$out/halo_check"
if [ -d "$gen" ]; then
  # store-through (the FaceWriter change) and cpu-free (the wide loop's side points restructured,
  # kMergeSides off: the default), then cpu-free with the side points merged.
  OUT="$out/rg" VARIANTS="store-through cpu-free" timeout 200 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
  echo "run_generated store-through, cpu-free rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
  grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -6
  OUT="$out/rg" NVCC_FLAGS=-DSTENCILC_MERGE_SIDES=1 VARIANTS=cpu-free timeout 120 bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg-merge.txt" 2>&1
  echo "run_generated cpu-free, -DSTENCILC_MERGE_SIDES=1 rc=$?: $(grep -c '\] ok' "$out/rg-merge.txt") ok, $(grep -c 'FAIL' "$out/rg-merge.txt") FAIL"
  grep -v '^  \[.*\] ok' "$out/rg-merge.txt" | tail -6
  rm -rf "$out/rg"
fi

stage "1. phases of heat3d 256^3 on 1 GPU, per-step and hoisted walk"
python3 "$root/bench/experiments/phases.py" "$bgen/heat3d.cpu-free.cu" "$out/heat3d.phases.cu"
"${nvcc[@]}" "$out/heat3d.phases.cu" -o "$out/phases.perstep" &
"${nvcc[@]}" -DSTENCILC_HOIST_BOUNDARY_WALK=3 "$out/heat3d.phases.cu" -o "$out/phases.hoisted" &
"${nvcc[@]}" "$bgen/heat3d.cpu-free.cu" -o "$out/heat3d.perstep" &
"${nvcc[@]}" -DSTENCILC_HOIST_BOUNDARY_WALK=3 "$bgen/heat3d.cpu-free.cu" -o "$out/heat3d.hoisted" &
wait
for v in perstep hoisted; do
  echo "-- $v"
  STENCILC_PES=1 STENCILC_DATAFLOW=0 timeout 60 "$out/phases.$v" 256 200 1 2>&1 | grep "^phases" | head -40
done

stage "1b. phases of jacobi2d 4096^2 on 2 GPUs (the barrier form: where the step's 27 us go above the streaming)"
if [ "$gpus" -ge 2 ]; then
  python3 "$root/bench/experiments/phases.py" "$bgen/jacobi2d.cpu-free.cu" "$out/jacobi2d.phases.cu"
  "${nvcc[@]}" "$out/jacobi2d.phases.cu" -o "$out/phases.jacobi2d"
  STENCILC_PES=2 STENCILC_DATAFLOW=0 timeout 60 "$out/phases.jacobi2d" 4096 4096 300 0 1 2>&1 | grep "^phases" | head -40
fi

stage "2. ncu, one launch of each (20 steps)"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | head -1)
if [ -n "$ncu" ]; then
  for v in perstep hoisted; do
    STENCILC_PES=1 STENCILC_DATAFLOW=0 timeout "$(budget 400)" "$ncu" --launch-count 1 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      "$out/heat3d.$v" 256 20 1 > "$out/ncu.$v.txt" 2>&1
    echo "-- $v: rc=$?"; grep -E "Throughput|Duration|Hit Rate|Stall|Achieved Occupancy|Warp Cycles" "$out/ncu.$v.txt" | head -24
  done
else
  echo "no ncu on this machine"
fi

stage "3. ab.py: the side points merged into the wide items' loop, medium sizes (barrier form)"
timeout "$(budget 575)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:96,112,256 --case jacobi2d:1536,4096 \
  --case wave2d:2048 --gpus "$counts" --variant apart= --variant merged=-DSTENCILC_MERGE_SIDES=1 \
  --setting df0=STENCILC_DATAFLOW=0 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab" "$out"/phases.* "$out"/*.phases.cu "$out"/heat3d.perstep "$out"/heat3d.hoisted
stage "done"
