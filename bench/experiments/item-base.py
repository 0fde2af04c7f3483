"""A generated file's wide items addressed from one base pointer a grid (session 20's experiment,
for shape-check.sh): in each wide item of the barrier form, `sc_<g>_data + (sc_s0 + K) * sc_<g>_s0
[+ (sc_l1 + M) * sc_<g>_s1] + sc_wl` becomes `sc_<g>_at + (K * sc_<g>_s0 [+ M * sc_<g>_s1])`, with
`sc_<g>_at` the item's first cell, so each row's address is one 64-bit add of a loop-invariant
offset instead of its own products. The on-chip form's items (rows from sc_oc_row0) are left alone.
  python3 bench/experiments/item-base.py bench-gen/heat3d.cpu-free.cu bench-gen-at/heat3d.cpu-free.cu
"""
import re
import sys

ITEM = "const int sc_e0 = min(sc_s0 + ::stencilc::rt::cuda::kWideRows"
ROW3 = re.compile(r"sc_(\w+?)_data \+ \(sc_s0 \+ (-?\d+)\) \* sc_\w+?_s0 \+ (sc_l1|\(sc_l1 [+-] \d+\)) \* sc_\w+?_s1 \+ sc_wl")
ROW2 = re.compile(r"sc_(\w+?)_data \+ \(sc_s0 \+ (-?\d+)\) \* sc_\w+?_s0 \+ sc_wl")


def rewrite(lines):
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if ITEM not in line:
            continue
        end = next(j for j in range(i, len(lines)) if "the strip's last, partial item" in lines[j])
        item = lines[i:end]
        if any("sc_oc_row0" in l for l in item):
            continue
        grids, rank = [], [2]

        def row3(m):
            g, k, mid = m.group(1), int(m.group(2)), m.group(3)
            mm = 0 if mid == "sc_l1" else int(mid[len("(sc_l1 "):-1].replace(" ", ""))
            grids.append(g) if g not in grids else None
            rank[0] = 3
            return f"sc_{g}_at + ({k} * sc_{g}_s0 + {mm} * sc_{g}_s1)"

        def row2(m):
            g, k = m.group(1), int(m.group(2))
            grids.append(g) if g not in grids else None
            return f"sc_{g}_at + {k} * sc_{g}_s0"

        item = [ROW2.sub(row2, ROW3.sub(row3, l)) for l in item]
        indent = line[:len(line) - len(line.lstrip())]
        for g in grids:
            mid = f" + sc_l1 * sc_{g}_s1" if rank[0] == 3 else ""
            out.append(f"{indent}auto* __restrict__ const sc_{g}_at = sc_{g}_data + sc_s0 * sc_{g}_s0{mid} + sc_wl;")
        out.extend(item)
        i = end
    return out


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        lines = f.read().split("\n")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(rewrite(lines)))
