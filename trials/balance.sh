#!/usr/bin/env bash
# One device call (1 GPU, about 6-8 minutes): the block-level shared loops (generated.cuh's Rounds)
# checked and timed. Made here first:
#   bash bench/generate.sh scratch/new-gen; bash tests/gpu/generate.sh scratch/gen-new
# then run with carry ["scratch/new-gen", "scratch/gen-new"]. Writes rounds.log, rg.log, bench.log
# under $OUT. Variants: the fixed share S (STENCILC_BALANCE_STATIC; 100 = today's loop) and the
# chunks a block takes (STENCILC_BALANCE_CHUNKS).
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
nv=/usr/local/cuda/bin/nvcc
for t in rounds rounds_shared; do
  $nv -arch=sm_90 -std=c++17 -O2 -lineinfo -I runtime/include -o /tmp/$t tests/gpu/$t.cu >> $OUT/rounds.log 2>&1
  { /tmp/$t --pes=1; STENCILC_P2P_SHARE_GPUS=1 /tmp/$t --pes=3; } >> $OUT/rounds.log 2>&1
done
STENCILC_MAX_BLOCKS=4 STENCILC_P2P_SHARE_GPUS=1 PES=1,2 VARIANTS="cpu-free cpu-free-roles" \
  SAMPLES="jacobi2d heat3d fdtd2d jacobi1d cg2d spmd_ring" OUT=/tmp/rg \
  timeout 150 bash tests/gpu/run_generated.sh scratch/gen-new > $OUT/rg.log 2>&1
echo "rg rc $? at $SECONDS" >> $OUT/rg.log
OUT=/tmp/bn GPUS=1 RUNS=3 SCHEDULES=cpu-free \
  VARIANTS="${BALANCE_VARIANTS:-s0:-DSTENCILC_BALANCE_STATIC=0|s90:-DSTENCILC_BALANCE_STATIC=90|s100:-DSTENCILC_BALANCE_STATIC=100}" \
  MATRIX="${MATRIX:-fdtd2d:4096,512;advect2d:8192;jacobi2d:16384,4096;jacobi1d:67108864;gray_scott:4096;cg2d:4098;heat3d:256}" \
  timeout $((560 - SECONDS)) bash bench/run.sh "$PWD/scratch/new-gen" > $OUT/bench.log 2>&1
echo "bench rc $? at $SECONDS" >> $OUT/bench.log
