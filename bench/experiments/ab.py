"""A/B timings of generated programs on a GPU machine: build variants (-D flags) of the benchmark
programs' CUDA (cpu-free, or --schedule host-controlled) and time each under run-time settings
(environment), side by side in one run on one device, the benchmark's way (bench/measure.py: two
step counts, so launch, setup and copies cancel; median over runs after a warm-up). For deciding between forms before changing a
default (docs/BENCHMARKS.md records the results with date and device). No reference check: run
bench/run.sh or tests/gpu/run_generated.sh for that.

  python3 bench/experiments/ab.py --gen bench-gen --case jacobi2d:256,4096 --case heat3d:256 \\
      --gpus 1,2 --variant base= --variant inline=-DSTENCILC_RUNTIME_INLINE \\
      --setting default= --setting comm4=STENCILC_COMM_BLOCKS=4

A variant is NAME=FLAGS (nvcc flags, space-separated), or NAME@SCHEDULE=FLAGS to build it from
another schedule's CUDA than --schedule's (so schedules are timed side by side: `--variant
cf@cpu-free= --variant hc@host-controlled=`); a setting NAME=VAR=VALUE[,VAR=VALUE].
E.g. what the padded GPU layout costs the host-controlled baseline:
  ab.py --gen bench-gen --schedule host-controlled --case jacobi2d:1024 --variant padded= \
      --variant unpadded=-DSTENCILC_UNALIGNED_ROWS
--gen-of NAME=DIR builds variant NAME from the CUDA in DIR instead of --gen's (two versions of the
compiler side by side: generate each into its own folder); --headers-of NAME=DIR against the
headers of another checkout (DIR/include, DIR/runtime/include: another version of the runtime).
--build-only stops after building (checks the flags where there is no GPU).
"""
import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import measure  # noqa: E402  (PROGRAMS, step_us, steps_for)


def build(root, gen, out, program, name, flags, schedule, includes=None):
    exe = os.path.join(out, f"{program}.{schedule}.{name}")
    program = measure.source_of(program)  # jacobi2d+norm: jacobi2d's CUDA
    nvcc = os.environ.get("NVCC", "nvcc")
    cmd = [nvcc, "-std=c++17", "-O3", "-arch=sm_90", "--expt-relaxed-constexpr", "-x", "cu",
           "-I", os.path.join(includes or root, "include"), "-I", os.path.join(includes or root, "runtime/include"), *flags.split(),
           os.path.join(gen, f"{program}.{schedule}.cu"), "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"building {program}.{name}: {r.stderr.strip()[-600:]}")
    return exe


def per_step_us(exe, program, n, gpus, runs, env):
    bpp, rank, argline, _ = measure.PROGRAMS[program]
    s1 = measure.steps_for(n ** rank / gpus, bpp)
    return measure.step_us(exe, lambda s: argline(n, s, runs + 1, n), s1, gpus, env)


def pairs(items):
    out = []
    for item in items:
        name, _, value = item.partition("=")
        out.append((name, value))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True, help="where bench/generate.sh wrote <program>.<schedule>.cu")
    schedules = ["cpu-free", "host-controlled", "store-through"]
    ap.add_argument("--schedule", default="cpu-free", choices=schedules)
    ap.add_argument("--out", default="/tmp/ab")
    ap.add_argument("--case", action="append", required=True, help="program:size,size")
    ap.add_argument("--gpus", default="1,2")
    ap.add_argument("--variant", action="append", default=[], help="NAME=NVCC FLAGS")
    ap.add_argument("--setting", action="append", default=[], help="NAME=VAR=VALUE[,VAR=VALUE]")
    ap.add_argument("--gen-of", action="append", default=[], help="NAME=DIR: variant NAME's CUDA from DIR")
    ap.add_argument("--headers-of", action="append", default=[],
                    help="NAME=DIR: variant NAME built against DIR/include and DIR/runtime/include")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build-only", action="store_true")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
    os.makedirs(a.out, exist_ok=True)
    variants = pairs(a.variant) or [("base", "")]
    schedule_of = {v: v.partition("@")[2] or a.schedule for v, _ in variants}
    gen_of = dict(pairs(a.gen_of))
    headers_of = dict(pairs(a.headers_of))
    for v in list(gen_of) + list(headers_of):
        if v not in schedule_of:
            sys.exit(f"ab.py: --gen-of/--headers-of {v}: no such variant")
    for v, schedule in schedule_of.items():
        if schedule not in schedules:
            sys.exit(f"ab.py: variant {v}: unknown schedule '{schedule}' (one of {', '.join(schedules)})")
    settings = [(name, dict(kv.split("=", 1) for kv in value.split(",") if kv)) for name, value in pairs(a.setting)]
    settings = settings or [("default", {})]
    cases = [(c.split(":")[0], [int(n) for n in c.split(":")[1].split(",")]) for c in a.case]
    for program, _ in cases:
        if program not in measure.PROGRAMS:
            sys.exit(f"ab.py: {program}: a benchmark program (bench/programs/, or a form of one: measure.PROGRAMS) is expected")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        jobs = {(p, v): pool.submit(build, root, gen_of.get(v, a.gen), a.out, p, v.partition("@")[0], f, schedule_of[v],
                                 headers_of.get(v)) for p, _ in cases for v, f in variants}
        exes = {key: job.result() for key, job in jobs.items()}
    print(f"built {len(exes)} executables in {a.out}", flush=True)
    if a.build_only:
        return 0
    names = [v for v, _ in variants]
    print("| program | size | GPUs | setting | " + " | ".join(f"{v} us/step" for v in names) + " |")
    print("|---|---|---|---|" + "---|" * len(names), flush=True)
    for program, sizes in cases:
        for n in sizes:
            for g in [int(x) for x in a.gpus.split(",")]:
                for sname, env in settings:
                    cells = []
                    for v in names:
                        try:
                            cells.append(f"{per_step_us(exes[(program, v)], program, n, g, a.runs, env):.2f}")
                        except (RuntimeError, subprocess.TimeoutExpired) as e:
                            cells.append("FAIL")
                            print(f"  {program} {n} gpus={g} {sname} {v}: {e}", file=sys.stderr, flush=True)
                    print(f"| {program} | {n} | {g} | {sname} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
