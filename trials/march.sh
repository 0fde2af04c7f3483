#!/usr/bin/env bash
# One device call (1 GPU, about 5 minutes): trials/march_patch.py's column walk timed against the
# grid-stride order, both verified. Made here first, from main's stencilc:
#   bash bench/generate.sh scratch/bench-gen; mkdir -p scratch/march-gen
#   for p in jacobi2d advect2d fdtd2d gray_scott poisson9 cg2d wave2d smooth2d; do
#     python3 trials/march_patch.py scratch/bench-gen/$p.cpu-free.cu scratch/march-gen/$p.cpu-free.cu; done
# then run with carry ["scratch/march-gen"]. Add Nsight Compute's L2 sectors
# (lts__t_sectors_srcunit_tex_op_read) on jacobi2d 16384^2 with and without it if time allows.
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
OUT=/tmp/mb GPUS=1 RUNS=3 SCHEDULES=cpu-free VARIANTS="march:-DSC_MARCH=1" \
  MATRIX="${MATRIX:-jacobi2d:16384,4096,1024;advect2d:8192;fdtd2d:4096;gray_scott:4096;poisson9:4096;wave2d:4096;smooth2d:4096;cg2d:4098}" \
  timeout 560 bash bench/run.sh "$PWD/scratch/march-gen" > $OUT/march.log 2>&1
echo "rc $? at $SECONDS" >> $OUT/march.log
