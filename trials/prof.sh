#!/usr/bin/env bash
# Profile (Nsight Compute) the large-size point loops: cpu-free persistent kernel vs host-controlled kernels, 1 GPU.
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=/tmp/pb; mkdir -p $B
nv=/usr/local/cuda/bin/nvcc
fl="-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I include -I runtime/include -lineinfo"
for p in advect2d jacobi1d jacobi2d fdtd2d; do for s in cpu-free host-controlled; do
  $nv $fl scratch/bench-gen/$p.$s.cu -o $B/$p.$s > $B/$p.$s.log 2>&1 &
done; done; wait
ls -la $B > $OUT/build.log
args_advect2d="8192 20"; args_jacobi1d="67108864 10"; args_jacobi2d="16384 16384 10 0"; args_fdtd2d="4096 20"
L=$OUT/time.log
for p in advect2d jacobi1d jacobi2d fdtd2d; do eval a=\$args_$p; for s in cpu-free host-controlled; do
  echo "== $p $s $a" >> $L; STENCILC_TIMING=1 $B/$p.$s $a >> $L 2>&1; done; done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
P=$OUT/ncu.log
for p in advect2d jacobi1d jacobi2d fdtd2d; do eval a=\$args_$p
  echo "######## $p cpu-free" >> $P
  timeout 100 ncu --clock-control none --set none $S -k regex:kernel -c 1 $B/$p.cpu-free $a >> $P 2>&1
  echo "######## $p host-controlled" >> $P
  timeout 60 ncu --clock-control none --set none $S -k regex:foreach -s 4 -c 1 $B/$p.host-controlled $a >> $P 2>&1
done
# Per-instruction stalls of the cf advect2d kernel.
timeout 120 ncu --clock-control none --set none --section SourceCounters --section WarpStateStats -k regex:kernel -c 1 -o $B/adv $B/advect2d.cpu-free 8192 10 > /dev/null 2>&1
ncu -i $B/adv.ncu-rep --page source --csv --print-source sass > $B/adv.csv 2>&1
gzip -c $B/adv.csv > $OUT/adv-sass.csv.gz
timeout 120 ncu --clock-control none --set none --section SourceCounters -k regex:foreach -s 4 -c 1 -o $B/advhc $B/advect2d.host-controlled 8192 10 > /dev/null 2>&1
ncu -i $B/advhc.ncu-rep --page source --csv --print-source sass 2>&1 | gzip -c > $OUT/advhc-sass.csv.gz
echo done $SECONDS >> $L
