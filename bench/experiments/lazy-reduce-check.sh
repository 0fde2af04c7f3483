#!/usr/bin/env bash
# One device call (~6 minutes; 1 GPU, 2 where lent), session 24: what a deferred reduction costs
# a step (jacobi2d's norm every step) and the lazy post (-DSTENCILC_FLOW_REDUCE_LAZY=1:
# DFlowReduce::post sends the block's value and waits for nothing; the last execution gathered
# after the loop).
#   1. correctness: run_generated.sh on jacobi2d (the one sample with a deferred reduction) with
#      the lazy post in every build, the variants that run it (the dataflow form, the
#      register-resident form, store-through's dataflow), 1..4 PEs (several a GPU where fewer);
#   2. timing, the norm every step and none, on the dataflow form and the register-resident form:
#      the post as it is, the lazy post, and (a measurement only, its norm wrong) no post at all:
#      the fold's own arithmetic, the floor of any post.
#   bash bench/experiments/lazy-reduce-check.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/lazy-reduce-check}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, counts
bgen="$1"
gen="$2"
nvcc=(nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr)

stage "0. builds"
# The no-post copy of the runtime: post returns the value, complete T{} (timing only).
cp -r "$root/runtime/include" "$out/nopost-include"
python3 - "$out/nopost-include/stencilc/runtime/cuda/generated.cuh" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = "#elif STENCILC_FLOW_REDUCE_LAZY\n"
assert s.count(a) == 1
s = s.replace(a, "#elif defined(SC_NO_POST)\n    ++done_;\n    pending_ = false;\n    return value;\n" + a)
open(p, "w").write(s)
PY
src="$bgen/jacobi2d.cpu-free.cu"
b() { local name="$1"; shift; "${nvcc[@]}" -x cu -I "$root/include" "$@" "$src" -o "$out/$name" > "$out/$name.log" 2>&1 || echo "build $name failed"; }
b plain -I "$root/runtime/include" &
b lazy -I "$root/runtime/include" -DSTENCILC_FLOW_REDUCE_LAZY=1 &
b nopost -I "$out/nopost-include" -DSC_NO_POST &
wait
b regs -I "$root/runtime/include" -DSTENCILC_REGS_FORM=1 &
b regs.lazy -I "$root/runtime/include" -DSTENCILC_REGS_FORM=1 -DSTENCILC_FLOW_REDUCE_LAZY=1 -Xptxas -v &
b regs.nopost -I "$out/nopost-include" -DSTENCILC_REGS_FORM=1 -DSC_NO_POST &
wait
# Eight rows a block (twice the band a block: jacobi2d 2048^2 on one GPU where its blocks fit).
b regs8 -I "$root/runtime/include" -DSTENCILC_REGS_FORM=1 -DSTENCILC_REGS_ROWS=8 -DSTENCILC_FLOW_REDUCE_LAZY=1 -Xptxas -v
grep -A1 "_ZN10sc_jacobi6kernel" "$out/regs8.log" | grep -E "registers|spill" | head -4
grep -A1 "_ZN10sc_jacobi6kernel" "$out/regs.lazy.log" | grep -E "registers|spill" | head -4
grep -h "spill" "$out"/*.log | sort | uniq -c | head

stage "1a. tests/gpu/flow_reduce.cu with the lazy post, 1..4 PEs, and its stall"
nvcc -arch=sm_90 -std=c++17 -O2 -I "$root/runtime/include" -DSTENCILC_FLOW_REDUCE_LAZY=1 "$root/tests/gpu/flow_reduce.cu" \
  -o "$out/flow_reduce_lazy" > "$out/frl.log" 2>&1 || { echo "build flow_reduce_lazy failed"; head "$out/frl.log"; }
for n in 1 2 3 4; do
  STENCILC_P2P_SHARE_GPUS=$([ "$gpus" -lt "$n" ] && echo 1 || echo 0) timeout 60 "$out/flow_reduce_lazy" --pes=$n 2>&1 | tail -3
  echo "rc=${PIPESTATUS[0]}"
  STENCILC_P2P_SHARE_GPUS=$([ "$gpus" -lt "$n" ] && echo 1 || echo 0) STENCILC_WAIT_TIMEOUT_MS=500 timeout 30 \
    "$out/flow_reduce_lazy" --pes=$n --mode=stall > "$out/stall.txt" 2>&1
  echo "stall --pes=$n: rc=$? $(grep -c "reduction #" "$out/stall.txt") lines naming the reduction; $(grep -m1 "reduction #" "$out/stall.txt" | cut -c1-200)"
done
rm -f "$out/flow_reduce_lazy"

stage "1b. jacobi2d with the lazy post, 1..4 PEs"
STENCILC_P2P_SHARE_GPUS=$([ "$gpus" -lt 4 ] && echo 1 || echo 0) OUT="$out/rg" SAMPLES="jacobi2d" \
  NVCC_FLAGS="-DSTENCILC_FLOW_REDUCE_LAZY=1" NVSHMEM_PES="$counts" \
  VARIANTS="cpu-free cpu-free-dataflow cpu-free-regs cpu-free-regs-rows dataflow nvshmem" PES=1,2,3,4 \
  timeout "$(budget 200)" bash "$root/tests/gpu/run_generated.sh" "$gen" > "$out/rg.txt" 2>&1
echo "run_generated rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
grep -E "FAIL" "$out/rg.txt" | head -20
tail -2 "$out/rg.txt"
rm -rf "$out/rg"

stage "2. timings"
timeout "$(budget 540)" python3 - "$out" "$counts" "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import measure
out, counts = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
for n0, n1 in [(256, 256), (1024, 1024), (1024, 2048)]:
    for g in counts:
        for norm in (1, 0):
            s1 = measure.steps_for(n0 * n1 / g, 8)
            row = []
            for label, exe, env in [("flow", "plain", {"STENCILC_DATAFLOW": "1"}),
                                    ("flow-lazy", "lazy", {"STENCILC_DATAFLOW": "1"}),
                                    ("flow-nopost", "nopost", {"STENCILC_DATAFLOW": "1"}),
                                    ("regs", "regs", {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"}),
                                    ("regs-lazy", "regs.lazy", {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"}),
                                    ("regs-nopost", "regs.nopost", {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"})]:
                if norm == 0 and label.endswith(("lazy", "nopost")):
                    continue
                try:
                    us = measure.step_us(f"{out}/{exe}", lambda s: f"{n1} {n0} {s} {norm} 6", s1, g, env)
                    row.append(f"{label} {us:6.2f}")
                except Exception as e:
                    row.append(f"{label} failed ({str(e)[:60]})")
            print(f"jacobi2d {n0:5d} x {n1:<5d} gpus {g} norm {norm}: " + " | ".join(row), flush=True)
# Eight rows a block against four (the lazy post in both).
for n0, n1 in [(1024, 2048), (2048, 2048), (256, 256)]:
    for g in counts:
        for norm in (0, 1):
            s1 = measure.steps_for(n0 * n1 / g, 8)
            row = []
            for label, exe, env in [("regs-lazy", "regs.lazy", {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"}),
                                    ("regs8", "regs8", {"STENCILC_DATAFLOW": "1", "STENCILC_REGS": "1"})]:
                try:
                    us = measure.step_us(f"{out}/{exe}", lambda s: f"{n1} {n0} {s} {norm} 6", s1, g, env)
                    row.append(f"{label} {us:6.2f}")
                except Exception as e:
                    row.append(f"{label} failed ({str(e)[:60]})")
            print(f"jacobi2d {n0:5d} x {n1:<5d} gpus {g} norm {norm}: " + " | ".join(row), flush=True)
PY
for e in regs.lazy regs8; do
  echo "$e 2048^2: $(STENCILC_REGS=1 STENCILC_DATAFLOW=1 "$out/$e" 2048 2048 10 0 1 2>&1 | grep -i "register" | head -2)"
done
# 2048^2 with eight rows against the reference (the whole grid and the norm).
g++ -std=c++17 -O2 -I "$root/include" "$root/bench/programs/jacobi2d.cpp" -o "$out/jacobi2d.ref"
for norm in 1 7; do
  a=$("$out/jacobi2d.ref" 2048 2048 40 $norm 1 | grep -o "norm=.*")
  b2=$(STENCILC_REGS=1 STENCILC_DATAFLOW=1 "$out/regs8" 2048 2048 40 $norm 1 2>/dev/null | grep -o "norm=.*")
  echo "2048^2 40 steps norm every $norm: reference $a | regs8 $b2"
done
stage "done"
rm -rf "$out/nopost-include"
rm -f "$out/plain" "$out/lazy" "$out/nopost" "$out"/regs "$out"/regs.lazy "$out"/regs.nopost "$out"/regs8 "$out/jacobi2d.ref"
