#!/usr/bin/env bash
# One device call (1 GPU is enough, under 10 minutes), session 19: where heat3d's 12% went.
# Session 19's first call timed heat3d in one run with today's generated CUDA and headers and
# with 5556b2a's (session 14's base): 103.52 against 92.64 us a step at 256^3, 814.00 against
# 722.89 at 512^3 on 1 GPU. So the gap is the code after all, not the machine (session 18 read
# the same SASS within 8 of 14.9k instructions).
#   A. ab.py, heat3d 256^3 on 1 GPU: today's build, 5556b2a's and the versions between that
#      changed generated code or headers (bench-gen-REV, written here by old-gen.sh), in one run.
#   B. Nsight Compute of one launch of heat3d 256^3 (20 steps), today's build and 5556b2a's:
#      the warps' stall reasons (an instruction-cache stall would show as "no instruction"),
#      throughput, DRAM bytes.
# Needs bench-gen and the bench-gen-REV folders (carry them). Results under $OUT.
#   bash bench/experiments/heat-bisect.sh bench-gen bench-gen-old REV...
set -u
out="${OUT:-/tmp/heat-bisect}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget
bgen="$1"
old="$2"
shift 2
args=(--variant now= --variant old= --gen-of old="$old/gen" --headers-of old="$old")
for rev in "$@"; do
  args+=(--variant "r$rev=" --gen-of "r$rev=$root/bench-gen-$rev/gen" --headers-of "r$rev=$root/bench-gen-$rev")
done

stage "A. heat3d 256^3 on 1 GPU: now, 5556b2a and between"
timeout "$(budget 330)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" --case heat3d:256 --gpus 1 \
  --runs 5 "${args[@]}" > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"

stage "B. ncu: heat3d 256^3, now and 5556b2a"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
metrics=dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for v in now old; do
  [ -x "$out/ab/heat3d.cpu-free.$v" ] || continue
  STENCILC_PES=1 STENCILC_DATAFLOW=0 timeout "$(budget 560)" "$ncu" --target-processes all --kernel-name regex:kernel \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --metrics "$metrics" \
    -o "$out/heat-$v" -f "$out/ab/heat3d.cpu-free.$v" 256 20 1 256 > "$out/heat-$v.log" 2>&1
  echo "$v: rc=$? $(tail -1 "$out/heat-$v.log")"
  "$ncu" -i "$out/heat-$v.ncu-rep" --page details > "$out/heat-$v.txt" 2>&1
  grep -E "dram__|lts__|l1tex__|smsp__|gpu__time|sm__warps|Duration|DRAM Throughput|Memory Throughput|Stall|Executed Ipc" "$out/heat-$v.txt" | head -40
  rm -f "$out/heat-$v.ncu-rep" "$out/heat-$v.log"
done
rm -rf "$out/ab"
stage "done"
