#!/usr/bin/env python3
"""Reads nvdisasm output (with -c) and fails when an innermost loop of any function both loads
with a strong (coherent) load and invalidates the SM's L1 (CCTL.IVALL, which follows every
acquire load): an acquire in a loop, which invalidates the L1 at every poll under the blocks
computing on the SM. The runtime's polls are relaxed loads with one acquire after the loop
(detail::poll_at_least, P2PDevicePe::wait_with, grid_barrier).
  python3 tests/codegen/sass_polls.py KERNEL.sass"""
import re
import sys


def functions(lines):
    """{function: [(address, instruction)]} and {label: address}."""
    funcs, labels, pending, fn = {}, {}, [], None
    for line in lines:
        m = re.match(r"\s*\.text\.(\S+):", line)
        if m:
            fn = m.group(1)
            funcs[fn] = []
            continue
        m = re.match(r"\s*(\.L_x_\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if fn and m:
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            funcs[fn].append((address, m.group(2).strip()))
    return funcs, labels


def innermost_loops(instructions, labels):
    """(first, last) address of each innermost loop: a backward branch's range (branches to one
    target are one loop) that holds no other loop."""
    loops = {}
    for address, op in instructions:
        m = re.search(r"\bBRA\b.*`\((\.L_x_\d+)\)", op)
        if m and m.group(1) in labels and labels[m.group(1)] <= address:
            target = labels[m.group(1)]
            loops[target] = max(loops.get(target, 0), address)
    ranges = sorted(loops.items())
    return [(lo, hi) for lo, hi in ranges
            if not any(lo <= l2 and h2 <= hi and (l2, h2) != (lo, hi) for l2, h2 in ranges)]


def main():
    funcs, labels = functions(open(sys.argv[1]).read().split("\n"))
    polls = loops = 0
    for fn, instructions in funcs.items():
        for lo, hi in innermost_loops(instructions, labels):
            loops += 1
            body = [op for address, op in instructions if lo <= address <= hi]
            strong = any(re.search(r"\bLDG?\.E[.\w]*\.STRONG\.(GPU|SYS)\b", op) for op in body)
            if strong and any("CCTL.IVALL" in op for op in body):
                polls += 1
                print(f"FAIL: an acquire load in a loop: {fn} {lo:#x}-{hi:#x}")
    print(f"{loops} innermost loops, {polls} with an acquire load")
    return 1 if polls or loops == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
