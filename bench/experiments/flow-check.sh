#!/usr/bin/env bash
# One device call that checks and times the default kernel's dataflow form (docs/BENCHMARKS.md,
# session 8, plan item 1), on nvidia-h200-x4 (1-4 GPUs) or -x2 (1-2), in under 10 minutes:
#   1. run_generated.sh, variants cpu-free (the barrier form, STENCILC_DATAFLOW=0) and
#      cpu-free-dataflow (STENCILC_DATAFLOW=1), the samples with the form and fdtd2d:
#      correctness on every GPU count;
#   2. ab.py: the barrier form with the dataflow form compiled in and without it
#      (-DSTENCILC_DATAFLOW_FORM=0, the kernel as before), large sizes: what carrying it costs;
#   3. ab.py: the cost model's choice (STENCILC_DATAFLOW unset) against the barrier form and the
#      dataflow form, over the sizes of session 8's scan: is it right where it chooses;
#   4. phases.py --dataflow: where a dataflow step's time goes, jacobi2d 256^2 on 2 GPUs.
# Needs gpu-gen and bench-gen, written on the same commit by tests/gpu/generate.sh and
# bench/generate.sh (carry both). Results under $OUT (default /tmp/flow-check); a summary on stdout.
#   bash bench/experiments/flow-check.sh [gpu-gen] [bench-gen]
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
bgen="${2:-$root/bench-gen}"
out="${OUT:-/tmp/flow-check}"
mkdir -p "$out" || exit 1
t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }  # seconds left of a budget counted from the start

stage "1. run_generated: cpu-free and cpu-free-dataflow"
# The samples whose loop has the form (and fdtd2d, whose loop has not: it must run its barriers).
OUT="$out/rg" VARIANTS="cpu-free cpu-free-dataflow" SAMPLES="jacobi2d heat3d wave2d poisson9 advect2d box27 convergence2d fdtd2d" \
  timeout 250 bash "$root/tests/gpu/run_generated.sh" "$gen" \
  > "$out/rg.txt" 2>&1
echo "rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok"
grep -v '^  \[.*\] ok' "$out/rg.txt" | tail -14

stage "2. the barrier form, with and without the dataflow form in the kernel"
timeout "$(left 400)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab2" \
  --case jacobi2d:4096 --case heat3d:256 --case wave2d:2048 --gpus 1,2 \
  --variant both= --variant without=-DSTENCILC_DATAFLOW_FORM=0 --setting barrier=STENCILC_DATAFLOW=0 \
  > "$out/ab2.txt" 2>&1
grep '^|' "$out/ab2.txt" || tail -5 "$out/ab2.txt"

stage "3. the cost model's choice"
timeout "$(left 560)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab3" \
  --case jacobi2d:256,1024,2048 --case wave2d:512,2048 --case heat3d:32,128 --gpus 1,2 \
  --variant both= --setting barrier=STENCILC_DATAFLOW=0 --setting dataflow=STENCILC_DATAFLOW=1 --setting auto= \
  > "$out/ab3.txt" 2>&1
grep '^|' "$out/ab3.txt" || tail -5 "$out/ab3.txt"

stage "4. phases of a dataflow step, jacobi2d 256^2 on 2 GPUs"
python3 "$root/bench/experiments/phases.py" --dataflow "$bgen/jacobi2d.cpu-free.cu" "$out/jacobi2d.flow-phases.cu" &&
  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    "$out/jacobi2d.flow-phases.cu" -o "$out/jacobi2d.flow-phases" &&
  STENCILC_DATAFLOW=1 STENCILC_PES=2 timeout "$(left 590)" "$out/jacobi2d.flow-phases" 256 256 3000 0 1 \
    > "$out/phases.txt" 2>&1
grep "phases block" "$out/phases.txt" | awk '$8 + 0 >= 0.05' | head -30
stage "done"
