#!/usr/bin/env bash
# One device call (~2 minutes, 1 GPU; 2 where lent), session 23: the register-resident engine
# (runtime/.../regs.cuh) checked and timed beside perks.cu, the hand-written form it follows.
#   1. tests/gpu/regs.cu built with its -Xptxas report (registers, spills), checked bit for bit on
#      1..4 PEs (several PEs a GPU where fewer GPUs: STENCILC_P2P_SHARE_GPUS=1), the contract's
#      failure (status 2 and its message);
#   2. regs --mode=perf and perks.cu in the same call (1024 x 2048: one GPU's share of the PERKS
#      target; 512 x 2048, 256^2), on 1 PE, and on 2 where there are 2 GPUs;
#   3. the SASS of both kernels into $OUT (regs-perf.sass, perks-r8.sass).
#   bash bench/experiments/regs-check.sh
set -u
out="${OUT:-/tmp/regs-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo)

stage "1. regs.cu: build, check on 1..4 PEs, the contract's failure"
"${nvcc[@]}" -Xptxas -v -I "$root/runtime/include" "$root/tests/gpu/regs.cu" -o "$out/regs" 2>&1 |
  grep -A2 "Compiling entry" | grep -E "entry|spill|registers" | sed 's/.*regs_cu_main[0-9]*//' | head -12 &
"${nvcc[@]}" -Xptxas -v "$root/bench/experiments/perks.cu" -o "$out/perks" 2>&1 | grep -E "registers" | head -4 &
wait
share=(); [ "$gpus" -lt 4 ] && share=(env STENCILC_P2P_SHARE_GPUS=1)
for n in 1 2 3 4; do
  timeout 60 "${share[@]}" "$out/regs" --pes="$n" > "$out/regs-$n.txt" 2>&1
  echo "regs --pes=$n: rc=$? $(tail -1 "$out/regs-$n.txt")"
done
timeout 60 "${share[@]}" "$out/regs" --pes=2 --mode=differ > "$out/differ.txt" 2>&1
echo "regs --mode=differ: rc=$? (want 2): $(grep -c 'needs the cells the update does not write' "$out/differ.txt") message line(s)"

stage "2. timings: regs --mode=perf beside perks.cu"
for n in ${counts//,/ }; do
  timeout 120 "$out/regs" --pes="$n" --mode=perf 2>&1 | tail -4
done
timeout 200 "$out/perks" "${gpus:-1}" 2>&1 | grep -E "1024 x 2048|512 x 2048|256 x 256|floor|copy" | head -24
stage "3. SASS of regs_perf_kernel and perks.cu's r8 (files, read against each other)"
cuobjdump -sass "$out/regs" | awk '/Function : .*regs_perf_kernel/{f=1;print;next} /Function :/{f=0} f' > "$out/regs-perf.sass"
cuobjdump -sass "$out/perks" | awk '/Function : .*regs_kernelILi4ELi8ELb0/{f=1;print;next} /Function :/{f=0} f' > "$out/perks-r8.sass"
wc -l "$out/regs-perf.sass" "$out/perks-r8.sass"
stage "done"
rm -f "$out/regs" "$out/perks"
