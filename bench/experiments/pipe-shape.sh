#!/usr/bin/env bash
# One device call (1 GPU used, ~4 minutes): is the row pipe's loss at jacobi2d's 8192 x 16384 half
# (session 17: 390 us a step against the wide strips' 359, where 16384^2 runs 588 against 706) the
# rows' count, the columns', or the tiles' size? jacobi2d on one GPU at 16384 x 16384, 8192 x
# 16384, 16384 x 8192 and 12288 x 16384 (rows x columns), the wide strips against the pipe at 8
# tiles a block (the default) and 1. Per-step times by the bench's method (measure.py).
# SHAPES="ROWSxCOLS ..." times other shapes (next: near 8192x16384, to tell an aliasing of exact
# sizes from the rows' length: SHAPES="8192x16384 8200x16384 8192x16448 8192x16128 16384x8192"),
# and SKEWS="0 4096 ..." each at those STENCILC_SYM_SKEW bytes between the symmetric allocations
# (P2PTeam::alloc: the two grids' rows of one index further apart than a grid).
# BUDGET (seconds, default 280) bounds the timing stage; VARIANTS="NAME=NVCC FLAGS;..." replaces
# the three builds (strips=;pipe8=-DSTENCILC_ROW_PIPE=1;pipe1=... by default).
# Needs bench-gen written by this checkout (carry it). Results under $OUT.
#   bash bench/experiments/pipe-shape.sh bench-gen
set -u
out="${OUT:-/tmp/pipe-shape}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget
bgen="${1:-$root/bench-gen}"
exe="$out/exe"
stage "build"
IFS=';' read -r -a variants <<< "${VARIANTS:-strips=;pipe8=-DSTENCILC_ROW_PIPE=1;pipe1=-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_TILES=1}"
python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$exe" --build-only --case jacobi2d:0 \
  "${variants[@]/#/--variant=}" 2>&1 | tail -1
stage "per-step times (us), 1 GPU"
names=$(for v in "${variants[@]}"; do printf '%s ' "${v%%=*}"; done)
timeout "$(budget "${BUDGET:-280}")" python3 - "$exe" $names <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import measure
exe, names = sys.argv[1], sys.argv[2:]
base_env = {"STENCILC_DATAFLOW": "0"}
print("| rows x columns | skew (bytes) | " + " | ".join(names) + " |")
shapes = os.environ.get("SHAPES", "16384x16384 8192x16384 16384x8192 12288x16384").split()
skews = os.environ.get("SKEWS", "0").split()
for (rows, cols), skew in [(tuple(int(x) for x in s.split("x")), k) for s in shapes for k in skews]:
    env = dict(base_env)
    if skew != "0":  # room for the skews: a heap of three grids' bytes at least
        env.update({"STENCILC_SYM_SKEW": skew, "STENCILC_SYM_HEAP_MB": str(max(4096, rows * cols * 8 * 3 // (1 << 20)))})
    cells = []
    for v in names:
        try:
            cells.append(f"{measure.step_us(os.path.join(exe, f'jacobi2d.cpu-free.{v}'), lambda s: f'{cols} {rows} {s} 0 3', 40, 1, env):.2f}")
        except Exception as e:
            cells.append("FAIL")
            print(f"  {rows}x{cols} {v}: {e}", file=sys.stderr)
    print(f"| {rows} x {cols} | {skew} | " + " | ".join(cells) + " |", flush=True)
PY
rm -rf "$exe"
stage "done"
