#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for the dataflow form's strips
# (-DSTENCILC_FLOW_STRIPS=1, CudaEmitter's flow_strips; written in session 15, not yet run):
#   0. verification: run_generated.sh's cpu-free-flow-strips and cpu-free-onchip-strips variants
#      (each also on 5 blocks a GPU: whole strips and partial ones), and cpu-free-dataflow beside
#      them, every sample, 1 and 2 GPUs;
#   1. ab.py: the dataflow form with the point walk and with the strips, against the barrier form,
#      where the dataflow form ran out of steam (jacobi2d 1024^2-4096^2, wave2d 1024^2-2048^2,
#      heat3d 64^3-96^3). Prediction (docs/BENCHMARKS.md, session 15, item 4): the strips take
#      the dataflow form's step at jacobi2d 2048^2 on 2 GPUs from ~18 us towards the barrier
#      form's 13 or below, and its crossover with the barrier form (compiled::flow_pays: 24
#      points a thread in 2-D on several GPUs) moves up.
# Needs bench-gen and gpu-gen written by this checkout (bench/generate.sh, tests/gpu/generate.sh);
# carry both. Results under $OUT.
#   bash bench/experiments/strips-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/strips-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus, counts, verify_generated
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"

stage "0. run_generated: cpu-free-dataflow, the strips from global memory and on chip"
verify_generated "$gen" "cpu-free-dataflow cpu-free-flow-strips cpu-free-flow-strips-rows cpu-free-onchip-strips cpu-free-onchip-strips-rows" 240

stage "1. ab.py: the dataflow form's point walk and strips, the barrier form"
# Rows: the settings (bar: the barrier form; flow: the dataflow loop); columns: the kernel
# without and with the strips, and with the strips and the on-chip form (flow x ocstrips: the
# on-chip form on strips where its tiles fit, else the strips from global memory; the bar rows
# check that the barrier form is the same in every build).
timeout "$(budget 585)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:1024,2048,4096 --case wave2d:1024,2048 --case heat3d:64,96 --gpus "$counts" \
  --variant walk= --variant strips=-DSTENCILC_FLOW_STRIPS=1 \
  --variant "ocstrips=-DSTENCILC_FLOW_STRIPS=1 -DSTENCILC_ONCHIP_FORM=1" \
  --setting bar=STENCILC_DATAFLOW=0 --setting flow=STENCILC_DATAFLOW=1 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab"
stage "done"
