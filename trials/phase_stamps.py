"""Scratch measurement, not product code: patches a generated cpu-free .cu so that its barrier
form's time loop reports where a step's time goes. Each phase of the loop body (from one IR op's
comment to the next, the loop's top to its first op, the last op to the swap) accumulates clock64
cycles in every thread; at the end thread 0 of the first and the last block print cycles a step
per phase (and us at 1.98 GHz). Usage: python3 trials/phase_stamps.py IN.cu OUT.cu
"""
import re
import sys

src = open(sys.argv[1]).read().split("\n")
loops = [i for i, l in enumerate(src) if re.match(r"\s*for \(int t = 0, sc_end_t = ", l)]
if not loops:
    sys.exit("no time loop")
start = loops[-1]  # the barrier form's loop comes after the dataflow form's
depth, end = 0, None
for i in range(start, len(src)):
    depth += src[i].count("{") - src[i].count("}")
    if depth == 0:
        end = i
        break
body_indent = len(src[start + 1]) - len(src[start + 1].lstrip())
labels, out = ["top"], []
for i, line in enumerate(src):
    if i == start:
        out.append(" " * (body_indent - 2) + "unsigned long long sc_ph_prev = clock64(), sc_ph_acc[24] = {};")
        out.append(line)
        continue
    if start < i < end:
        indent = len(line) - len(line.lstrip())
        op = re.match(r"\s*// (\w+(\[\w+)?)", line)
        if indent == body_indent and (op or "swap_buffers" in line):
            k = len(labels) - 1
            out.append(" " * indent + f"{{ const unsigned long long sc_now = clock64(); sc_ph_acc[{k}] += sc_now - sc_ph_prev; sc_ph_prev = sc_now; }}")
            labels.append(op.group(1) if op else "swap")
    out.append(line)
    if i == end:
        names = ", ".join(f'"{l}"' for l in labels)
        out.append(" " * (body_indent - 2) + "if (::threadIdx.x == 0 && (::blockIdx.x == 0 || ::blockIdx.x == ::gridDim.x - 1)) {")
        out.append(" " * body_indent + f"const char* sc_ph_names[] = {{{names}}};")
        out.append(" " * body_indent + f"for (int k = 0; k < {len(labels) - 1}; ++k) printf(\"stamp pe %d block %d: %-18s -> %-18s %10.0f cycles %7.2f us a step\\n\", sc_pe.id, ::blockIdx.x, sc_ph_names[k], sc_ph_names[k + 1], double(sc_ph_acc[k]) / steps, double(sc_ph_acc[k]) / steps / 1980.0);")
        out.append(" " * (body_indent - 2) + "}")
if len(labels) > 24:
    sys.exit("too many phases")
open(sys.argv[2], "w").write("\n".join(out))
print(f"{len(labels) - 1} phases: {' | '.join(labels)}")
