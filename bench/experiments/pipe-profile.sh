#!/usr/bin/env bash
# One device call (nvidia-h200-x2, under 10 minutes): why the row pipe's third form (session 17,
# pipe-check.sh: verified, but wave2d 8192^2 2x slower than the wide strips, jacobi2d 16384^2 on 2
# GPUs slower, on 1 GPU faster: docs/BENCHMARKS.md session 17) loses where it loses.
#   A. Nsight Compute on 1 GPU (one launch: the whole loop): wave2d 8192^2 strips and pipe,
#      jacobi2d 8192x16384 pipe (one GPU's half of 16384^2 on 2 GPUs): throughput, stall reasons,
#      shared-memory conflicts, and the per-instruction stall samples (source page, SASS) to files;
#   B. per-step times (the bench's method, measure.py): jacobi2d 8192x16384 on 1 GPU strips and
#      pipe (is the 2-GPU loss in the half's size or in the 2 GPUs?), wave2d 8192^2 and jacobi2d
#      4096^2 with more rows in flight (STENCILC_PIPE_AHEAD).
# Needs bench-gen written by this checkout (carry it). Results under $OUT.
#   bash bench/experiments/pipe-profile.sh bench-gen
set -u
out="${OUT:-/tmp/pipe-profile}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus, counts
bgen="${1:-$root/bench-gen}"
exe="$out/exe"

stage "build"
python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$exe" --build-only --case jacobi2d:0 --case wave2d:0 \
  --variant strips= --variant pipe=-DSTENCILC_ROW_PIPE=1 \
  --variant a9="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_AHEAD=9" --variant a15="-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_AHEAD=15" 2>&1 | tail -3
ls "$exe"

ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
stage "A. ncu ($ncu)"
profile() {  # NAME EXE ARGS...
  local name=$1; shift
  STENCILC_PES=1 STENCILC_DATAFLOW=0 timeout "$(budget 330)" "$ncu" --target-processes all --kernel-name regex:kernel \
    --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats --section SchedulerStats --section SourceCounters \
    --section MemoryWorkloadAnalysis_Tables -o "$out/$name" -f "$@" > "$out/$name.log" 2>&1
  echo "$name: rc=$? $(tail -1 "$out/$name.log")"
  "$ncu" -i "$out/$name.ncu-rep" --page details > "$out/$name.details.txt" 2>&1
  "$ncu" -i "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/$name.sass.csv" 2>&1
  grep -E "DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Bank Conflicts|Stall|L1/TEX Hit|L2 Hit|Local" "$out/$name.details.txt" | head -30
}
profile wave-strips "$exe/wave2d.cpu-free.strips" 8192 20 1
profile wave-pipe "$exe/wave2d.cpu-free.pipe" 8192 20 1
profile jac-pipe "$exe/jacobi2d.cpu-free.pipe" 16384 8192 20 0 1
gzip -f "$out"/*.sass.csv

stage "B. per-step times"
timeout "$(budget 560)" python3 - "$exe" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ.get("PWD", "."), "bench"))
import measure
exe = sys.argv[1]
env = {"STENCILC_DATAFLOW": "0"}
cases = [
    ("jacobi2d 8192x16384", "jacobi2d", lambda s: f"16384 8192 {s} 0 4", 100, [1], ["strips", "pipe", "a9"]),
    ("wave2d 8192^2", "wave2d", lambda s: f"8192 {s} 4", 100, [1, 2], ["strips", "pipe", "a9", "a15"]),
    ("jacobi2d 4096^2", "jacobi2d", lambda s: f"4096 4096 {s} 0 4", 400, [1, 2], ["strips", "pipe", "a9"]),
    ("jacobi2d 16384^2", "jacobi2d", lambda s: f"16384 16384 {s} 0 4", 50, [2], ["strips", "pipe", "a9"]),
]
for label, prog, args_of, s1, gpus_list, variants in cases:
    for g in gpus_list:
        cells = []
        for v in variants:
            try:
                cells.append(f"{v} {measure.step_us(os.path.join(exe, f'{prog}.cpu-free.{v}'), args_of, s1, g, env):.2f}")
            except Exception as e:
                cells.append(f"{v} FAIL")
                print(f"  {label} {g} {v}: {e}", file=sys.stderr)
        print(f"| {label} | {g} | " + " | ".join(cells) + " |", flush=True)
PY
rm -rf "$exe"
stage "done"
