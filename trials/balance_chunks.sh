#!/usr/bin/env bash
# Session 44 (1 x H200, 523 s): the block-level Rounds with one round a chunk (CHUNKS=1000000) or 32
# chunks a block, S = 0 / 75 / 100, on six programs; carry ["scratch/new-gen"]. Lost or split: docs/BENCHMARKS.md.
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B="-DSTENCILC_BALANCE_CHUNKS=1000000"
OUT=/tmp/bn GPUS=1 RUNS=3 SCHEDULES=cpu-free \
  VARIANTS="c1s0:-DSTENCILC_BALANCE_STATIC=0 $B|c1s75:-DSTENCILC_BALANCE_STATIC=75 $B|c32s0:-DSTENCILC_BALANCE_STATIC=0 -DSTENCILC_BALANCE_CHUNKS=32|s100:-DSTENCILC_BALANCE_STATIC=100" \
  MATRIX="fdtd2d:4096;advect2d:8192;jacobi2d:16384;jacobi1d:67108864;gray_scott:4096;cg2d:4098" \
  timeout 540 bash bench/run.sh "$PWD/scratch/new-gen" > $OUT/bench2.log 2>&1
echo "bench rc $? at $SECONDS" >> $OUT/bench2.log
