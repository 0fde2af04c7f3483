#!/usr/bin/env bash
# One device call (nvidia-h200-x2, under 10 minutes), session 18.
#   A. Nsight Compute on 1 GPU: jacobi2d's row pipe (STENCILC_ROW_PIPE=1) on 8192 x 16384 (rows x
#      columns), where it loses to the wide strips (session 17-18: 384 against 348 us a step, at
#      any tiling and with the grids 256 KiB apart), and on 16384 x 8192, where it wins (311
#      against 349): the same bytes and tiles' size; do they differ in the DRAM bytes moved (a
#      read twice) or in the rate (the DRAM's or the L2's efficiency)? Throughput, DRAM and L2
#      bytes, hit rates and stall reasons for one launch (the whole loop).
#   B. bench/run.sh for the rows of docs/benchmarks/latest.csv older than sessions 13-17's code
#      (jacobi2d 16384^2, heat3d, wave2d, the weak rows), in parts, each with its own folder,
#      to be joined by measure.py --merge.
# Needs bench-gen written by this checkout (carry it). Results under $OUT.
#   bash bench/experiments/shape-profile.sh bench-gen
set -u
out="${OUT:-/tmp/shape-profile}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget
bgen="${1:-$root/bench-gen}"
exe="$out/exe"

stage "build"
python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$exe" --build-only --case jacobi2d:0 \
  --variant pipe=-DSTENCILC_ROW_PIPE=1 2>&1 | tail -1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
stage "A. ncu ($ncu)"
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for shape in 8192x16384 16384x8192; do
  rows=${shape%x*}; cols=${shape#*x}
  STENCILC_PES=1 STENCILC_DATAFLOW=0 timeout "$(budget 200)" "$ncu" --target-processes all --kernel-name regex:kernel \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --metrics "$metrics" \
    -o "$out/jac-$shape" -f "$exe/jacobi2d.cpu-free.pipe" "$cols" "$rows" 20 0 1 > "$out/jac-$shape.log" 2>&1
  echo "$shape: rc=$? $(tail -1 "$out/jac-$shape.log")"
  "$ncu" -i "$out/jac-$shape.ncu-rep" --page details > "$out/jac-$shape.txt" 2>&1
  grep -E "dram__|lts__|gpu__time|sm__warps|Duration|DRAM Throughput|Memory Throughput|Stall" "$out/jac-$shape.txt" | head -24
  rm -f "$out/jac-$shape.ncu-rep" "$out/jac-$shape.log"
done
rm -rf "$exe"

stage "B. bench/run.sh: the stale rows of latest.csv"
part() {  # NAME MATRIX UNTIL
  OUT="$out/bench-$1" MATRIX="$2" GPUS=1,2 RUNS=5 REUSE_BUILD=1 timeout "$(budget "$3")" bash "$root/bench/run.sh" "$bgen" \
    > "$out/bench-$1.log" 2>&1
  echo "part $1: rc=$? $(grep -c . "$out/bench-$1/latest.csv" 2>/dev/null) lines"
  tail -3 "$out/bench-$1.log"
  rm -f "$out/bench-$1.log" "$out/bench-$1/table.md"  # (a call brings back about 8 files)
}
part large "jacobi2d:16384;wave2d:2048,8192" 400
part heat "heat3d:256,512" 490
part weak "jacobi2d@weak:8192;heat3d@weak:256;wave2d@weak:4096" 580
stage "done"
