#!/usr/bin/env bash
# One device call (~8 minutes; 1 GPU, 2 where lent): session 24's code as committed.
#   1. tests/gpu/run.sh (every runtime GPU test, flow_reduce_lazy and its stall among them), 1..4
#      PEs (several a GPU where fewer);
#   2. run_generated.sh, the register-resident variants of jacobi2d and advect2d, 1..4 PEs, as
#      built and with the lazy post;
#   3. jacobi2d 2048^2 and 2047 x 2045 with -DSTENCILC_REGS_ROWS=8 (the band in registers, 8 rows a
#      block: the size fits one GPU) against the reference, element by element, 1..4 PEs;
#   4. timing of the register-resident form with the lazy post (the norm every step and none).
#   bash bench/experiments/session24-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/session24-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include"
      -DSTENCILC_REGS_FORM=1 -DSTENCILC_FLOW_REDUCE_LAZY=1)
share=$([ "$gpus" -lt 4 ] && echo 1 || echo 0)

stage "0. builds"
"${nvcc[@]}" "$bgen/jacobi2d.cpu-free.cu" -o "$out/lazy" > "$out/lazy.log" 2>&1 &
"${nvcc[@]}" -DSTENCILC_REGS_ROWS=8 "$bgen/jacobi2d.cpu-free.cu" -o "$out/lazy8" > "$out/lazy8.log" 2>&1 &
"${nvcc[@]}" -DSTENCILC_REGS_ROWS=8 "$gen/jacobi2d.cu" -o "$out/jacobi2d.r8" > "$out/r8.log" 2>&1 &
g++ -std=c++17 -O2 -I "$root/include" "$root/samples/jacobi2d.cpp" -o "$out/jacobi2d.ref" -pthread &
wait

stage "1. tests/gpu/run.sh, 1..4 PEs"
SHARE_PES=$([ "$gpus" -lt 4 ] && echo 4 || echo 0) OUT="$out/gt" timeout "$(budget 250)" bash "$root/tests/gpu/run.sh" "$out/gpu-tests" \
  > "$out/gt.txt" 2>&1
echo "run.sh rc=$?: $(tail -1 "$out/gt.txt")"
grep "^FAIL" "$out/gt.txt" | head

stage "2. run_generated, the register-resident variants, 1..4 PEs, as built and lazy"
for flags in "" "-DSTENCILC_FLOW_REDUCE_LAZY=1"; do
  STENCILC_P2P_SHARE_GPUS=$share OUT="$out/rg" SAMPLES="jacobi2d advect2d" NVCC_FLAGS="$flags" \
    VARIANTS="cpu-free-dataflow cpu-free-regs cpu-free-regs-rows cpu-free-regs-shared" PES=1,2,3,4 \
    timeout "$(budget 400)" bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
  echo "run_generated [$flags] rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
  grep -E "FAIL" "$out/rg.txt" | head -10
  rm -rf "$out/rg"
done

stage "3. jacobi2d 2048^2 with 8 rows a block against the reference"
STENCILC_P2P_SHARE_GPUS=$share timeout "$(budget 480)" python3 "$root/tests/e2e/run_host.py" --exe "$out/jacobi2d.r8" \
  --reference "$out/jacobi2d.ref" --sample "$root/samples/jacobi2d.cpp" --workdir "$out/big" --pes 1,2,3,4 \
  --args "2048 2048 30 1" --args "2047 2045 23 7" --env STENCILC_DATAFLOW=1 --env STENCILC_REGS=1 2>&1 | tail -9
STENCILC_DATAFLOW=1 STENCILC_REGS=1 "$out/jacobi2d.r8" 2048 2048 3 1 2>&1 | grep "register-resident"
rm -rf "$out/big"

stage "4. timings"
timeout "$(budget 580)" python3 - "$out" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import measure
out, counts = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
env = {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"}
for exe, sizes in [("lazy", [(256, 256), (1024, 1024), (1024, 2048)]), ("lazy8", [(2048, 2048)])]:
    for n0, n1 in sizes:
        for g in counts:
            row = []
            for norm in (0, 1):
                s1 = measure.steps_for(n0 * n1 / g, 8)
                try:
                    us = measure.step_us(f"{out}/{exe}", lambda s: f"{n1} {n0} {s} {norm} 6", s1, g, env)
                    row.append(f"norm {norm}: {us:6.2f}")
                except Exception as e:
                    row.append(f"norm {norm}: failed ({str(e)[:50]})")
            print(f"{exe:6s} jacobi2d {n0:5d} x {n1:<5d} gpus {g}: " + " | ".join(row), flush=True)
PY
stage "done"
rm -rf "$out/gpu-tests"
rm -f "$out/lazy" "$out/lazy8" "$out/jacobi2d.r8" "$out/jacobi2d.ref"
