"""Per-phase timing of a generated persistent kernel (an experiment, not part of the compiler).

Reads the CUDA that `stencilc --target=cuda --emit=cuda` wrote and writes a copy with clock64()
stamps around every statement of the kernel's time loop (the lines the emitter starts with the
IR statement as a comment, and its grid barriers), taken by thread 0 of block 0 (a comm block
when the kernel has roles), of the middle block and of the last block (a compute block; in the
dataflow form the first and last are the PE's face blocks, the middle one is not). When the kernel ends, each of
those threads prints its per-step average time per phase, converted with the SM clock it measured
against %globaltimer:

  python3 bench/experiments/phases.py bench-gen/jacobi2d.cpu-free.cu /tmp/jacobi2d.phases.cu
  nvcc ... /tmp/jacobi2d.phases.cu -o j && STENCILC_PES=2 ./j 256 256 3000 0 1

Session 4 (docs/BENCHMARKS.md) measured the 256^2 Jacobi step with it. A kernel with a
dataflow form of its loop (flow.cuh) has the loop twice: the barrier form is instrumented, or with
`--dataflow` the dataflow form (run it with STENCILC_DATAFLOW=1), stamped also at its wait
and `publish`; `--onchip` its on-chip copy (build with -DSTENCILC_ONCHIP_FORM=1; before session 21
--dataflow stamped that copy, compiled out by default, and printed nothing). The stamps cost a few
cycles each; the phases of one block are sequential, so they add up to its step.
"""
import re
import sys


def instrument(lines, dataflow=False, onchip=False):
    out = []
    i = 0
    # The kernel, then its first loop at the body's indentation: the time loop.
    while i < len(lines) and not lines[i].startswith("kernel(const __grid_constant__"):
        out.append(lines[i])
        i += 1
    if i == len(lines):
        sys.exit("phases.py: no generated kernel found")
    out.append(lines[i])
    out.append("  long long scx_prev = 0, scx_acc[64] = {0}, scx_steps = 0, scx_cycles0 = clock64();")
    out.append("  unsigned long long scx_ns0 = 0;")
    out.append('  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(scx_ns0));')
    out.append("  const bool scx_me = threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x / 2 ||"
               " blockIdx.x == gridDim.x - 1);")
    i += 1
    # A kernel with a dataflow loop (flow.cuh) has the loop twice: the barrier form, after
    # `} else {`, is the one timed here, or with --dataflow the dataflow form before it.
    flow = any("args.sc_flow_on) {" in line for line in lines[i:])
    if dataflow and not flow:
        sys.exit("phases.py: --dataflow, but the kernel has no dataflow form")
    pattern = r"^( +)for \(int \w+ = " if flow else r"^(  )for \(int \w+ = "
    if dataflow or not flow:
        def is_marker(line):
            return line.strip().endswith("args.sc_flow_on) {")
    else:
        # The else of the dataflow form's `if`, at that if's indentation (the dataflow form has
        # `} else {` lines of its own: its walk without and with face stores).
        start = next(k for k in range(i, len(lines)) if lines[k].rstrip().endswith("args.sc_flow_on) {"))
        if_indent = re.match(r"^( *)", lines[start]).group(1)

        def is_marker(line):
            return line.rstrip() == if_indent + "} else {"
    seen = not flow
    skip = []  # the enclosing #if lines: the on-chip copy of the dataflow loop (under
    #            STENCILC_ONCHIP_FORM, off by default) is not the loop that runs unless --onchip
    while i < len(lines):
        seen = seen or is_marker(lines[i])
        text = lines[i].strip()
        if text.startswith("#if"):
            skip.append(text)
        elif text.startswith("#endif") and skip:
            skip.pop()
        in_onchip = any("STENCILC_ONCHIP_FORM" in t for t in skip)
        if seen and re.match(pattern, lines[i]) and in_onchip == onchip:
            break
        out.append(lines[i])
        i += 1
    if i == len(lines):
        sys.exit("phases.py: the kernel has no time loop")
    indent = re.match(pattern, lines[i]).group(1)
    out.append(lines[i])
    i += 1
    names = []

    def stamp(k):
        accumulate = f"scx_acc[{k - 1}] += n - scx_prev; " if k > 0 else ""
        return f"{indent}  if (scx_me) {{ const long long n = clock64(); {accumulate}scx_prev = n; }}"

    out.append(stamp(0))
    while i < len(lines) and lines[i] != indent + "}":
        line = lines[i]
        starts = ("// ", "pe.grid_barrier();", "if (sc_step > 0) sc_flow.wait", "__syncthreads();", "sc_flow.publish",
                  "args.") if dataflow else ("// ", "pe.grid_barrier();")
        if any(line.startswith(indent + "  " + t) for t in starts) and len(names) < 63:
            if names:  # the previous phase ends here
                out.append(stamp(len(names)))
            text = line.strip().lstrip("/ ").replace('"', "'")
            names.append(text.split(" loc(")[0][:60])
        out.append(line)
        i += 1
    out.append(stamp(len(names)) if names else "")
    out.append(indent + "  if (scx_me) ++scx_steps;")
    out.append(lines[i])  # the loop's closing brace
    i += 1
    out.append(indent + "if (scx_me && scx_steps > 0) {")
    out.append("    unsigned long long scx_ns1 = 0;")
    out.append('    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(scx_ns1));')
    out.append("    const double ghz = static_cast<double>(clock64() - scx_cycles0) / static_cast<double>(scx_ns1 - scx_ns0);")
    out.append("    const char* const names[] = {" + ", ".join(f'"{n}"' for n in names) + "};")
    out.append(f"    for (int k = 0; k < {len(names)}; ++k)")
    out.append('      printf("phases block %d, %lld steps, %.2f GHz: %8.2f us  %s\\n", blockIdx.x, scx_steps, ghz, '
               "scx_acc[k] / ghz / 1000.0 / scx_steps, names[k]);")
    out.append("  }")
    out.extend(lines[i:])
    return out


if __name__ == "__main__":
    argv = [a for a in sys.argv[1:] if a not in ("--dataflow", "--onchip")]
    if len(argv) != 2:
        sys.exit("usage: phases.py [--dataflow [--onchip]] GENERATED.cu OUT.cu")
    text = open(argv[0]).read().split("\n")
    onchip = "--onchip" in sys.argv[1:]
    open(argv[1], "w").write("\n".join(instrument(text, "--dataflow" in sys.argv[1:] or onchip, onchip)))
