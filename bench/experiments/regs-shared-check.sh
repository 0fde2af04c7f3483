#!/usr/bin/env bash
# One device call (~8 minutes; 1 GPU, 2 where lent), session 24: the register-resident band of 8
# rows a block (-DSTENCILC_REGS_ROWS=8, so jacobi2d 2048^2 fits on one GPU), all in registers or
# the rows past the fourth in shared memory (-DSTENCILC_REGS_REG_ROWS=4: RegsBand's RREG); the
# lazy post with it.
#   1. tests/gpu/regs.cu (RegsBand, every row in registers) on 1..4 PEs and its contract's failure;
#   2. run_generated.sh on jacobi2d and advect2d, the register-resident variants (4 rows in
#      registers, 2 rows a block, 1 row in registers), 1..4 PEs, as built and with the lazy post;
#   3. jacobi2d 2048^2 (8 rows a block: half in shared memory) against the reference, element by
#      element, on 1..4 PEs, the norm every step and every 7;
#   4. timing: 4 rows a block (all in registers), 8 with 4 in shared memory, 8 all in registers
#      (spilled), the lazy post in all, no norm and the norm every step.
#   bash bench/experiments/regs-shared-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/regs-shared-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include"
      -DSTENCILC_REGS_FORM=1 -DSTENCILC_FLOW_REDUCE_LAZY=1)
share=$([ "$gpus" -lt 4 ] && echo 1 || echo 0)

stage "0. builds"
b() { local name="$1"; shift; "${nvcc[@]}" "$@" "$bgen/jacobi2d.cpu-free.cu" -o "$out/$name" -Xptxas -v > "$out/$name.log" 2>&1 || echo "build $name failed"; }
b r4 &
b r8h -DSTENCILC_REGS_ROWS=8 -DSTENCILC_REGS_REG_ROWS=4 &
b r8r -DSTENCILC_REGS_ROWS=8 &
nvcc -arch=sm_90 -std=c++17 -O2 -I "$root/runtime/include" "$root/tests/gpu/regs.cu" -o "$out/regs_test" > "$out/regs_test.log" 2>&1 &
g++ -std=c++17 -O2 -I "$root/include" "$root/samples/jacobi2d.cpp" -o "$out/jacobi2d.ref" -pthread &
"${nvcc[@]}" -DSTENCILC_REGS_ROWS=8 -DSTENCILC_REGS_REG_ROWS=4 "$gen/jacobi2d.cu" -o "$out/jacobi2d.r8h" > /dev/null 2>&1 &
wait
for e in r4 r8h r8r; do
  echo "$e: $(grep -A2 "Function properties for _ZN18stencilc_generated9sc_jacobi6kernel" "$out/$e.log" | grep -E "spill|Used" | tr -s ' ' | tr '\n' ' ')"
done

stage "1. tests/gpu/regs.cu, 1..4 PEs"
for n in 1 2 3 4; do
  STENCILC_P2P_SHARE_GPUS=$share timeout 120 "$out/regs_test" --pes=$n 2>&1 | tail -1
done
STENCILC_P2P_SHARE_GPUS=$share timeout 30 "$out/regs_test" --pes=2 --mode=differ > "$out/differ.txt" 2>&1
echo "differ: rc=$? $(grep -c "differ" "$out/differ.txt") lines"

stage "2. run_generated, the register-resident variants, 1..4 PEs, as built and lazy"
for flags in "" "-DSTENCILC_FLOW_REDUCE_LAZY=1"; do
  STENCILC_P2P_SHARE_GPUS=$share OUT="$out/rg" SAMPLES="jacobi2d advect2d" NVCC_FLAGS="$flags" \
    VARIANTS="cpu-free-regs cpu-free-regs-rows cpu-free-regs-shared" PES=1,2,3,4 \
    timeout "$(budget 260)" bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
  echo "run_generated [$flags] rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
  grep -E "FAIL" "$out/rg.txt" | head -10
  grep -h "register-resident form" "$out"/rg/generated/*.runs/*/stderr* 2>/dev/null | sort | uniq -c | head -5
  rm -rf "$out/rg"
done

stage "3. jacobi2d 2048^2, 8 rows a block, against the reference"
STENCILC_P2P_SHARE_GPUS=$share timeout "$(budget 330)" python3 "$root/tests/e2e/run_host.py" --exe "$out/jacobi2d.r8h" \
  --reference "$out/jacobi2d.ref" --sample "$root/samples/jacobi2d.cpp" --workdir "$out/big" --pes 1,2,3,4 \
  --args "2048 2048 30 1" --args "2047 2045 23 7" --env STENCILC_DATAFLOW=1 --env STENCILC_REGS=1 2>&1 | tail -9
STENCILC_DATAFLOW=1 STENCILC_REGS=1 "$out/jacobi2d.r8h" 2048 2048 3 1 2>&1 | grep "register-resident"
rm -rf "$out/big"

stage "4. timings"
timeout "$(budget 560)" python3 - "$out" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import measure
out, counts = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
env = {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"}
for n0, n1 in [(256, 256), (1024, 1024), (1024, 2048), (2048, 2048)]:
    for g in counts:
        for norm in (0, 1):
            s1 = measure.steps_for(n0 * n1 / g, 8)
            row = []
            for label in ("r4", "r8h", "r8r"):
                try:
                    us = measure.step_us(f"{out}/{label}", lambda s: f"{n1} {n0} {s} {norm} 6", s1, g, env)
                    row.append(f"{label} {us:6.2f}")
                except Exception as e:
                    row.append(f"{label} failed ({str(e)[:50]})")
            print(f"jacobi2d {n0:5d} x {n1:<5d} gpus {g} norm {norm}: " + " | ".join(row), flush=True)
PY
stage "done"
rm -f "$out"/r4 "$out"/r8h "$out"/r8r "$out/regs_test" "$out/jacobi2d.ref" "$out/jacobi2d.r8h"
