#!/usr/bin/env bash
# Scratch measurement (branch phase-stamps, not product): where a step of the 3-D barrier form goes
# on 1, 2 and 4 GPUs. Needs bench/generate.sh's output in $1 (default scratch/bench-gen), carried.
# Writes $OUT/phases.log. Run on x4: bash trials/heat3d_phases.sh scratch/bench-gen
set -u
cd "$(dirname "$0")/.."
gen="${1:-scratch/bench-gen}"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
b=/tmp/ph; mkdir -p $b
args=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I include -I runtime/include)
for p in heat3d box27; do
  python3 trials/phase_stamps.py "$gen/$p.cpu-free.cu" $b/$p.cu
  nvcc "${args[@]}" $b/$p.cu -o $b/$p > $b/$p.log 2>&1 &
  nvcc "${args[@]}" -DSTENCILC_HOIST_BOUNDARY_WALK=3 $b/$p.cu -o $b/$p.hoist > $b/$p.hoist.log 2>&1 &
  nvcc "${args[@]}" "$gen/$p.host-controlled.cu" -o $b/$p.hc > $b/$p.hc.log 2>&1 &
done
nvcc -O3 -arch=sm_90 -std=c++17 trials/hc_step_probe.cu -o $b/probe > $b/probe.log 2>&1 &
wait
log="${OUT:-/tmp}/phases.log"
t() { echo "== $*"; env STENCILC_TIMING=1 "$@" 2>&1 | grep -E "stencilc|stamp|error|fatal" | tail -60; }
{
for n in 128 256; do
  for g in 1 2 4; do
    t $b/heat3d --stencilc-pes=$g $n 200 1
    t $b/heat3d.hoist --stencilc-pes=$g $n 200 1
    t $b/heat3d.hc --stencilc-pes=$g $n 200 2
  done
  for c in 0 8 16 32 48 64; do t env STENCILC_COMM_BLOCKS=$c $b/heat3d --stencilc-pes=4 $n 200 1; done
  for c in 0 8 16 48 64; do t env STENCILC_COMM_BLOCKS=$c $b/heat3d --stencilc-pes=2 $n 200 1; done
  t env STENCILC_DECOMP=4x1x1 STENCILC_COMM_BLOCKS=0 $b/heat3d --stencilc-pes=4 $n 200 1
done
for g in 1 2 4; do t $b/box27 --stencilc-pes=$g 128 200 1; t $b/box27.hc --stencilc-pes=$g 128 200 2; done
# Issue 34: how the host-controlled schedule should order its steps (trials/hc_step_probe.cu).
for g in 1 2 4; do for n in 256 1024 4096; do timeout 60 $b/probe $g $n 4000 20; done; done
timeout 60 $b/probe 2 256 4000 100
echo "total $SECONDS s"
} > "$log" 2>&1
tail -c 3000 "$log"
