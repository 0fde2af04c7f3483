#!/usr/bin/env python3
"""stencilc-compare: checks a stencilc build of a program against its reference build.

Runs the reference build (the host compiler's, serial) and the stencilc build on every PE count
of --pes, for each argument set, and compares every grid the program hands back (Grid::copy_to
dumps, STENCILC_DUMP_DIR) element by element, and the numbers it prints. A NaN anywhere fails:
the launcher poisons halo cells that have no source, so a read of one shows. Prints one line per
run and `N passed, M failed` last; exits 1 on any failure.

  stencilc-compare --exe <stencilc build> --reference <reference build> --pes 1,2,3 --args "64 64 60"
  stencilc-compare --stencilc <stencilc> --sample prog.cpp --reference <ref> ...  (compiles it first)

stencilc_add_reference_test (CMake) runs it; tests/e2e runs it on every sample.

With --launcher (e.g. "mpirun -np {pes} bash tests/gpu/mpi_rank.sh", the CUDA target's nvshmem
backend), the compiled build runs as that many processes, each handing back its grids and output
on its own (STENCILC_RANK_DIR/rank<r>/ and rank<r>.stdout): every process must match the reference.
"""
import argparse
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

# Grid values: the compiled code evaluates every point expression as the reference does, so only
# the summation order of reductions may differ (it feeds back into convergence loops), and on the
# CUDA target nvcc's contraction of a * b + c into one fused multiply-add (one rounding less).
GRID_RTOL = {"float": 1e-5, "double": 1e-10, "int32_t": 0.0}
# Printed numbers include sums whose order differs between 1 PE and P PEs. PRINT_ATOL: a number
# the reference prints as an exact 0 (a sample's own difference between two computations of the
# same thing) is rounding noise on the GPU, where fused multiply-adds round once instead of twice.
PRINT_RTOL = 1e-4
PRINT_ATOL = 1e-12
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def run(cmd, env_extra, timeout=120):
    env = dict(os.environ)
    env.update(env_extra)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def read_dumps(directory):
    dumps = {}
    for name in sorted(os.listdir(directory)):
        kind = name.rsplit(".", 1)[1]
        fmt = {"float": "f", "double": "d", "int32_t": "i"}[kind]
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        size = struct.calcsize(fmt)
        dumps[name] = (kind, struct.unpack(f"<{len(data) // size}{fmt}", data))
    return dumps


def compare_grids(ref, got):
    if sorted(ref) != sorted(got):
        return f"grids handed back differ: reference {sorted(ref)}, compiled {sorted(got)}"
    for name, (kind, r) in ref.items():
        g = got[name][1]
        if len(r) != len(g):
            return f"{name}: {len(g)} values, reference has {len(r)}"
        rtol = GRID_RTOL[kind]
        scale = max((abs(x) for x in r), default=0.0) or 1.0
        for i, (a, b) in enumerate(zip(r, g)):
            if math.isnan(b) or math.isnan(a) or abs(a - b) > rtol * scale:
                return f"{name}: element {i} is {b!r}, reference {a!r} (tolerance {rtol} x {scale:.3g})"
    return None


def compare_output(ref, got):
    rn, gn = NUMBER.findall(ref), NUMBER.findall(got)
    if NUMBER.sub("#", ref) != NUMBER.sub("#", got) or len(rn) != len(gn):
        return f"output differs:\n  reference: {ref.strip()}\n  compiled:  {got.strip()}"
    for a, b in zip(rn, gn):
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y) or abs(x - y) > PRINT_RTOL * max(abs(x), abs(y)) + PRINT_ATOL:
            return f"printed {b}, reference {a}:\n  reference: {ref.strip()}\n  compiled:  {got.strip()}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stencilc", help="the compiler (not needed with --exe)")
    ap.add_argument("--reference", required=True, help="the sample built by the host compiler")
    ap.add_argument("--sample", help="the source (with --stencilc: compiled for the host target)")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--pes", default="1,2,3,4")
    ap.add_argument("--args", action="append", required=True, help="one argument set, space separated")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the compiled runs")
    ap.add_argument("--stencilc-arg", action="append", default=[], help="an extra stencilc argument")
    ap.add_argument("--exe", help="an executable built already (e.g. by nvcc on a GPU machine): skip stencilc")
    ap.add_argument("--launcher", help="command prefix that starts the compiled build as {pes} processes "
                    "(see the module comment)")
    opts = ap.parse_args()

    if not opts.exe and not (opts.stencilc and opts.sample):
        ap.error("give --exe, or --stencilc and --sample")
    os.makedirs(opts.workdir, exist_ok=True)
    exe = opts.exe or os.path.join(opts.workdir, os.path.basename(opts.sample).replace(".cpp", ".host"))
    built = run([opts.stencilc, "--target=host", opts.sample, "-o", exe] + opts.stencilc_arg, {}) if not opts.exe else None
    if built is not None and built.returncode != 0:
        print(f"FAIL compile {opts.sample}:\n{built.stdout}{built.stderr}")
        print("0 passed, 1 failed")
        return 1
    extra_env = dict(e.split("=", 1) for e in opts.env)
    passed = failed = 0
    for args in opts.args:
        argv = args.split()
        for pes in opts.pes.split(","):
            label = f"{os.path.basename(opts.sample or exe)} [{args}] pes={pes}"
            with tempfile.TemporaryDirectory(dir=opts.workdir) as tmp:
                # The reference runs with the same PE count: SPMD programs run their PEs as threads
                # there too (global-view programs ignore it).
                ref_dir, out_dir = os.path.join(tmp, "ref"), os.path.join(tmp, "out")
                os.mkdir(ref_dir)
                os.mkdir(out_dir)
                ref = run([opts.reference] + argv, {"STENCILC_DUMP_DIR": ref_dir, "STENCILC_PES": pes})
                if ref.returncode != 0:
                    print(f"FAIL reference {label}: exit {ref.returncode}\n{ref.stderr}")
                    failed += 1
                    continue
                ref_grids = read_dumps(ref_dir)
                if not ref_grids:
                    print(f"FAIL {label}: the sample hands back no grid (it must call Grid::copy_to)")
                    failed += 1
                    continue
                env = {"STENCILC_DUMP_DIR": out_dir, "STENCILC_PES": pes, "STENCILC_WAIT_TIMEOUT_MS": "20000"}
                env.update(extra_env)
                if opts.launcher:
                    env["STENCILC_RANK_DIR"] = out_dir
                    got = run(opts.launcher.format(pes=pes).split() + [exe] + argv, env, timeout=300)
                else:
                    got = run([exe] + argv, env)
                if got.returncode != 0:
                    problem = f"exit {got.returncode}\n{got.stdout}{got.stderr}"
                elif opts.launcher:
                    problem = None
                    for rank in range(int(pes)):
                        rank_dir = os.path.join(out_dir, f"rank{rank}")
                        with open(rank_dir + ".stdout") as f:
                            rank_stdout = f.read()
                        rank_problem = compare_grids(ref_grids, read_dumps(rank_dir)) or compare_output(
                            ref.stdout, rank_stdout)
                        if rank_problem:
                            problem = f"process {rank}: {rank_problem}"
                            break
                else:
                    problem = compare_grids(ref_grids, read_dumps(out_dir)) or compare_output(ref.stdout, got.stdout)
                if problem:
                    print(f"FAIL {label}: {problem}")
                    failed += 1
                else:
                    print(f"ok   {label}: {sum(len(v[1]) for v in ref_grids.values())} values match")
                    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
