#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
M="advect2d:8192;jacobi1d:67108864;jacobi2d:16384,4096;fdtd2d:4096;cg2d:4098;gray_scott:4096"
OUT=/tmp/da GPUS=1 RUNS=3 SCHEDULES=cpu-free VARIANTS="s0:-DSC_DYN=1 -DSC_DYN_STATIC=0|s75:-DSC_DYN=1 -DSC_DYN_STATIC=75|s90:-DSC_DYN=1 -DSC_DYN_STATIC=90" MATRIX="$M" \
  timeout 500 bash bench/run.sh "$PWD/scratch/dyn-gen" > $OUT/cf.log 2>&1
echo done $SECONDS >> $OUT/cf.log
