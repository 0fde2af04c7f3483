#!/usr/bin/env bash
# One device call (under 10 minutes, on nvidia-h200-x2) for the dataflow loop's on-chip form
# (runtime onchip.cuh, session 15; docs/BENCHMARKS.md):
#   0. verification: run_generated.sh's variants that run the new kernel (cpu-free, the dataflow
#      form from global memory, the on-chip form on the launcher's blocks and on 5 blocks, built
#      with -DSTENCILC_ONCHIP_FORM=1), every sample, 1 and 2 GPUs;
#   1. ab.py: the three forms of the loop side by side (the barrier form, the dataflow form from
#      global memory, the on-chip form) at the sizes where the tiles fit, jacobi2d 2048^2 on 2
#      GPUs among them (the issue's PERKS target: under its 4.0 us DRAM floor);
#   2. ab.py: what the on-chip copy costs the kernel where it does not run (ptxas: a few spilled
#      bytes in heat3d and wave2d): the barrier form at large sizes, built with and without it
#      (-DSTENCILC_ONCHIP_FORM=1; the default kernel is built without it).
# Needs bench-gen and gpu-gen written by this checkout (bench/generate.sh, tests/gpu/generate.sh);
# carry both. Results under $OUT. AB_CASES and AB_GPUS replace stage 1's cases and GPU counts;
# SKIP_LARGE=1 skips stage 2.
#   bash bench/experiments/onchip-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/onchip-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus, counts, verify_generated
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"

stage "0. run_generated: cpu-free, cpu-free-dataflow, cpu-free-onchip, cpu-free-onchip-rows"
verify_generated "$gen" "cpu-free cpu-free-dataflow cpu-free-onchip cpu-free-onchip-rows" 260

stage "1. ab.py: barrier form, dataflow from global memory, on-chip"
# Rows: the settings (bar: the barrier form; flow: the dataflow loop); columns: the kernel without
# and with the on-chip copy. flow x glob is the dataflow form from global memory, flow x onchip the
# on-chip form (where its tiles fit), bar x onchip what the copy costs the barrier form.
timeout "$(budget 470)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  ${AB_CASES:---case jacobi2d:256,1024,1536,2048 --case jacobi2d+norm:256,1024 --case wave2d:512,1024 --case heat3d:32,48} \
  --gpus "${AB_GPUS:-$counts}" --variant glob= --variant onchip=-DSTENCILC_ONCHIP_FORM=1 \
  --setting bar=STENCILC_DATAFLOW=0 --setting flow=STENCILC_DATAFLOW=1 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"

[ -n "${SKIP_LARGE:-}" ] && { rm -rf "$out/ab"; stage "done"; exit 0; }
stage "2. ab.py: the barrier form at large sizes, with and without the on-chip copy in the kernel"
timeout "$(budget 585)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab2" \
  --case heat3d:512 --case wave2d:8192 --case jacobi2d:16384 --gpus 2 \
  --variant without= --variant with=-DSTENCILC_ONCHIP_FORM=1 --setting df0=STENCILC_DATAFLOW=0 > "$out/ab2.txt" 2>&1
grep '^|' "$out/ab2.txt" || tail -5 "$out/ab2.txt"
rm -rf "$out/ab" "$out/ab2"
stage "done"
