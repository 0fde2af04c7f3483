#!/usr/bin/env bash
# One device call (~6 minutes; 1 GPU, 2 where lent), session 23: the compiler's register-resident
# form (-DSTENCILC_REGS_FORM=1: CudaEmitter's regs_loop, compiled::regs_plan, RegsBand).
#   1. regs-check.sh: tests/gpu/regs.cu (RegsBand under regs_loop) on 1..4 PEs, its contract's
#      failure, its timing beside perks.cu;
#   2. the generated samples whose loop has the form (jacobi2d, advect2d: advect2d is periodic in
#      dimension 1, so its plan says no and it runs from global memory), with the form and with
#      the other forms in the same call, on 1..4 PEs (several PEs a GPU where fewer GPUs);
#   3. the generated jacobi2d timed with the form and without (STENCILC_REGS=0: the dataflow
#      form), no norm and the norm every step, at the PERKS target's shares and small sizes.
#   bash bench/experiments/regs-form-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/regs-form-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr)

stage "0. builds"
"${nvcc[@]}" -x cu -I "$root/include" -I "$root/runtime/include" -DSTENCILC_REGS_FORM=1 "$bgen/jacobi2d.cpu-free.cu" \
  -o "$out/jacobi2d.regs" > "$out/jacobi2d.regs.log" 2>&1 &
"${nvcc[@]}" -x cu -I "$root/include" -I "$root/runtime/include" "$bgen/jacobi2d.cpu-free.cu" -o "$out/jacobi2d" &
wait

stage "1. regs.cu on 1..4 PEs, its timing beside perks.cu (regs-check.sh)"
OUT="$out/regs-check" bash "$root/bench/experiments/regs-check.sh" 2>&1 | grep -E "^regs|perf regs|^r8 " | grep -v grid

stage "2. generated samples with the form, 1..4 PEs"
# 1..4 PEs: several a GPU where fewer GPUs (the p2p team's shared-GPU test mode).
STENCILC_P2P_SHARE_GPUS=$([ "$gpus" -lt 4 ] && echo 1 || echo 0) OUT="$out/rg" SAMPLES="jacobi2d advect2d" \
  VARIANTS="cpu-free cpu-free-dataflow cpu-free-regs cpu-free-regs-rows" PES=1,2,3,4 \
  timeout "$(budget 330)" bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "run_generated rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -E "FAIL|register-resident" "$out/rg.txt" | sort | uniq -c | head -20
tail -2 "$out/rg.txt"
rm -rf "$out/rg"

stage "3. generated jacobi2d: the form against the dataflow form"
grep -E "spill|error" "$out/jacobi2d.regs.log" | head -5
timeout "$(budget 560)" python3 - "$out/jacobi2d" "$out/jacobi2d.regs" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
import measure
plain, regs, counts = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split(",")]
for n0, n1 in [(256, 256), (1024, 1024), (1024, 2048), (2048, 2048)]:
    for g in counts:
        for norm in (0, 1):
            s1 = measure.steps_for(n0 * n1 / g, 8)
            row = []
            for label, exe, env in [("dataflow", plain, {"STENCILC_DATAFLOW": "1"}),
                                    ("regs-build dataflow", regs, {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "0"}),
                                    ("regs", regs, {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "auto"})]:
                try:
                    us = measure.step_us(exe, lambda s: f"{n1} {n0} {s} {norm} 6", s1, g, env)
                    row.append(f"{label} {us:7.2f}")
                except Exception as e:
                    row.append(f"{label} failed ({str(e)[:60]})")
            print(f"jacobi2d {n0:5d} x {n1:<5d} gpus {g} norm {norm}: " + " | ".join(row), flush=True)
PY
STENCILC_REGS=1 STENCILC_DATAFLOW=1 "$out/jacobi2d.regs" 2048 2048 10 0 1 2>&1 | grep -i "register" | head -3
STENCILC_REGS=1 STENCILC_DATAFLOW=1 "$out/jacobi2d.regs" 2048 1024 10 0 1 2>&1 | grep -i "register" | head -3
stage "done"
rm -f "$out/jacobi2d" "$out/jacobi2d.regs"
