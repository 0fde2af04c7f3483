"""The benchmark matrix of issue 5 (docs/BENCHMARKS.md), run by bench/run.sh on a GPU machine.

For every program x schedule it first checks the compiled build element by element against the
reference build (tests/e2e/run_host.py) on every GPU count; then, for every size x GPU count x
schedule, it times the program: each process runs it `runs + 1` times in a row (the first is the
warm-up) at two step counts n1 and n2; each run's kernel time comes from STENCILC_TIMING (CUDA
events on the cpu-free schedule); per run, (t(n2) - t(n1)) / (n2 - n1) cancels launch, setup and
copies; the median over runs is reported. The bandwidth fraction divides the bytes a step must
move per GPU (each input read once, each output written once) by the time, over the copy
bandwidth measured in the same run (bench/bandwidth.cu).
Writes latest.csv and table.md into --out after every configuration (a run cut off by a time
limit keeps what it measured; the CSVs of runs split over several calls concatenate).
With --lanes k the one-GPU configurations run k at a time, each program and size on one GPU of
its own (GPUs 0..k-1: its schedules back to back there, so a same-run comparison stays on one
GPU), then the multi-GPU ones one at a time; the verifications run k at a time too.
"""
import argparse
import csv
import datetime
import os
import re
import statistics
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from queue import Queue

# name: (bytes per point per step, rank, argument line from size n, steps, runs and the extent of
# dimension 0 (n0), verify args). A matrix entry "<name>@weak:<n>" is weak scaling: on g GPUs
# dimension 0 is g n long, so every GPU holds n^rank points whatever g (the decomposition cuts
# dimension 0: its faces are the smallest); its size column is the points per dimension per GPU.
PROGRAMS = {
    "jacobi2d": (8, 2, lambda n, s, r, n0: f"{n} {n0} {s} 0 {r}", ["300 256 40 1 2", "67 53 41 7 1"]),
    "jacobi2d+norm": (16, 2, lambda n, s, r, n0: f"{n} {n0} {s} 1 {r}", None),
    "heat3d": (16, 3, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["40 10 2", "19 9 1", "13 7 1 27"]),
    "wave2d": (16, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["200 20 2", "61 23 1", "40 9 1 83"]),
    # Two updates a step, each reading one fp64 grid and writing the other.
    "jacobi1d": (32, 1, lambda n, s, r, n0: f"{n0} {s} {r}", ["4096 40 2", "997 41 1"]),
    # A step is an iteration; the bytes the fused iteration must move (ap = A p with p.ap: p read,
    # ap written; x, r and r.r: x, p, r, ap read, x and r written; p: r and p read, p written).
    "cg2d": (88, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["130 20 2", "61 25 1", "40 9 1 83"]),
    # Two fp32 updates a step (a into b, b back into a), each reading one grid and writing the other.
    "smooth2d": (16, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["96 30 2", "45 21 1 37", "40 9 1 83"]),
    # Three in-place fp64 updates a step: ey (ey, hz read), ex (ex, hz read), hz (hz, ex, ey read),
    # each writing its field.
    "fdtd2d": (80, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["96 30 2", "45 21 1 37", "40 9 1 83"]),
    # Two coupled fp64 grids, one update writing both (u, v read; u_next, v_next written).
    "gray_scott": (32, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["96 30 2", "45 21 1 37", "40 9 1 83"]),
    # 9 points, fp64, the largest update (a Max reduction) read in the loop: u and f read, v written
    # (the reduction reads v and u again unless folded into the update).
    "poisson9": (24, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["96 30 2", "45 21 1 37", "40 9 1 83"]),
    # Upwind advection, fp32, periodic: q read, q_next written.
    "advect2d": (8, 2, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["96 30 2", "45 21 1 37", "40 9 1 83"]),
    # 27 points, fp32: a read, b written.
    "box27": (8, 3, lambda n, s, r, n0: f"{n} {s} {r} {n0}", ["24 10 2", "13 7 1 19", "11 5 1 27"]),
}
TIMING = re.compile(r"^stencilc: .*: ([0-9.]+) ms$")
# The nvshmem backend's line, one per process and run: "stencilc: <program> on PE 1 of 2 (...): 3.1 ms".
PE_TIMING = re.compile(r"^stencilc: .* on PE ([0-9]+) of ([0-9]+) .*: ([0-9.]+) ms$")
# The nvshmem builds (`<program>.nvshmem`: the cpu-free schedule on the nvshmem backend) run one
# process a GPU; OMPI_ALLOW_RUN_AS_ROOT* lets mpirun run as root on the GPU machines.
MPIRUN = "mpirun -np {pes} --oversubscribe --bind-to none"
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


# A --schedules entry's suffix for the same schedule built another way and timed in the same run,
# `<schedule>@<tag>`: from a baseline snapshot, `@base` (bench/snapshot.sh; bench/run.sh's
# BASELINE), or with a variant's build flags, `@<name>` (run.sh's VARIANTS). Its table column
# gives its ratio to the schedule's own column.
def untagged(schedule):
    """A --schedules entry (or a table column) without its `@<tag>`: the build it is compared with."""
    return re.sub(r"@[A-Za-z0-9_]+", "", schedule)


def is_nvshmem(schedule):
    """Whether a --schedules entry (or a build's suffix) runs on the nvshmem backend."""
    return untagged(schedule) in ("nvshmem", "host-controlled-nvshmem")


def schedule_backend(schedule):
    """The CSV's schedule and backend columns of a --schedules entry: "nvshmem" is the cpu-free
    schedule on the nvshmem backend, "host-controlled-nvshmem" the host-controlled one there,
    everything else runs on p2p; a tagged build keeps its tag."""
    if schedule.startswith("host-controlled-nvshmem"):
        return ("host-controlled" + schedule[len("host-controlled-nvshmem"):], "nvshmem")
    if is_nvshmem(schedule):
        return ("cpu-free" + schedule[len("nvshmem"):], "nvshmem")
    return (schedule, "p2p")


def column(schedule, backend):
    """The table column (and merge key) of a row: its schedule, with the backend when not p2p."""
    return schedule if backend == "p2p" else f"{schedule} ({backend})"


def run_times(stderr):
    """The kernel time (ms) of each run a program printed on stderr with STENCILC_TIMING: one
    line a run (p2p: the slowest GPU's kernel), or, from the processes of an nvshmem run, one line
    a process and run, of which each run's slowest PE counts."""
    by_pe = {}
    for line in stderr.splitlines():
        m = PE_TIMING.match(line)
        if m:
            by_pe.setdefault(int(m.group(1)), []).append(float(m.group(3)))
    if by_pe:
        runs = min(len(v) for v in by_pe.values())
        return [max(v[k] for v in by_pe.values()) for k in range(runs)]
    return [float(m.group(1)) for m in map(TIMING.match, stderr.splitlines()) if m]


def source_of(program):
    return program.split("@")[0].split("+")[0]


def kind_of(program):
    """The PROGRAMS entry of a matrix name (without "@weak")."""
    return program.split("@")[0]


def is_weak(program):
    return program.endswith("@weak")


def run(cmd, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)


# A program that says how many iterations it ran ("iters=N": cg2d) must have run all it was asked
# for: CG's residual underflows to 0 after some 15000 iterations at 258^2 (serially: 7e-162
# after 15000), which ends its loop early and would make the time a step look smaller.
ITERS = re.compile(r"\biters=([0-9]+)")
# The most steps a run of a program may take (cg2d: well before its residual underflows).
MAX_STEPS = {"cg2d": 1000}


def kernel_ms(exe, args, gpus, env=None, steps=None):
    cmd = [exe] + args.split()
    e = {"STENCILC_TIMING": "1", "STENCILC_PES": str(gpus), **(env or {})}
    if is_nvshmem(os.path.basename(exe).rsplit(".", 1)[-1]):
        cmd = MPIRUN.format(pes=gpus).split() + [a for k in e for a in ("-x", k)] + cmd
        e.update(MPI_ENV)
    r = run(cmd, e)
    if r.returncode != 0:
        raise RuntimeError(f"{exe} {args} on {gpus} GPUs: exit {r.returncode}: {r.stderr.strip()[-400:]}")
    ran = {int(m.group(1)) for m in ITERS.finditer(r.stdout)}
    if steps is not None and ran and ran != {steps}:
        raise RuntimeError(f"{exe} {args} on {gpus} GPUs: asked for {steps} iterations, ran {sorted(ran)}")
    return run_times(r.stderr)


def step_us(exe, args_of, s1, gpus, env=None):
    """us a step by the method above: the kernel times of runs at s1 and 3 s1 steps (`args_of(steps)`:
    the argument line; each process's first run, the warm-up, dropped), the median over runs of
    their difference over 2 s1."""
    t1 = kernel_ms(exe, args_of(s1), gpus, env, s1)[1:]
    t2 = kernel_ms(exe, args_of(3 * s1), gpus, env, 3 * s1)[1:]
    if not t1 or not t2:
        raise RuntimeError(f"{exe}: no STENCILC_TIMING line after the warm-up run")
    return statistics.median((b - a) * 1000.0 / (2 * s1) for a, b in zip(t1, t2))


def steps_for(points, bytes_per_point, program=None):
    # About 20 ms of memory traffic per run at ~4 TB/s, within [10, 5000] steps (and the program's
    # MAX_STEPS / 3: the second run takes 3 s1).
    most = min(5000, MAX_STEPS.get(program, 3 * 5000) // 3)
    return max(10, min(most, int(8e10 / (points * bytes_per_point))))


def write_outputs(out, rows, device, bandwidth, date):
    """latest.csv and table.md from the rows so far (called after every configuration, so a run
    cut off by a time limit still leaves what it measured). `bandwidth`: the copy bandwidth in
    GB/s, or the words for it (a merged run's parts each measured their own)."""
    os.makedirs(out, exist_ok=True)
    header = ["date", "device", "program", "size", "gpus", "schedule", "backend", "us_per_step",
              "bandwidth_fraction", "verified"]
    # The csv module quotes a field with a comma in it (a device name can have one).
    with open(os.path.join(out, "latest.csv"), "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    # The table: one line per program, size and GPU count (in the order measured), both schedules
    # side by side, then any other schedule or backend measured (cpu-free-regs, "cpu-free
    # (nvshmem)", "host-controlled (nvshmem)") with its ratio to cpu-free on p2p (another backend:
    # to the same schedule on p2p); a tagged build's (cpu-free@base, a baseline;
    # cpu-free@<name>, a variant's flags) with its ratio to the same schedule's column (below 1:
    # the change or the variant made it faster).
    by = {(r[2], r[3], r[4], column(r[5], r[6])): r for r in rows}
    keys = list(dict.fromkeys((r[2], r[3], r[4]) for r in rows))
    others = list(dict.fromkeys(column(r[5], r[6]) for r in rows
                                if column(r[5], r[6]) not in ("cpu-free", "host-controlled")))
    measured = f"{bandwidth:.0f} GB/s" if isinstance(bandwidth, float) else bandwidth
    mate = lambda o: untagged(o) if "@" in o else o.split(" (")[0] if " (" in o else "cpu-free"
    extra_head = "".join(f" {o} us/step | of bandwidth | {mate(o)} / {o} |" for o in others)
    lines = [f"Device: {device}; copy bandwidth {measured} per GPU (read + write); {date}.", "",
             "| program | size | GPUs | cpu-free us/step | of bandwidth | host-controlled us/step | of bandwidth | "
             "host-controlled / cpu-free |" + extra_head + " verified |", "|---|---|---|---|---|---|---|---|" + "---|---|---|" * len(others) + "---|"]
    for program, n, g in keys:
        cf, hc = by.get((program, n, g, "cpu-free")), by.get((program, n, g, "host-controlled"))
        more = [by.get((program, n, g, o)) for o in others]
        cell = lambda r, k: (r[k] if r and r[k] else "-")
        pct = lambda r: (f"{float(r[8]):.0%}" if r and r[8] else "-")
        over = lambda a, b: (f"{float(a[7]) / float(b[7]):.2f}" if a and b and a[7] and b[7] else "-")
        ver = "yes" if all(r and r[9] == "true" for r in [cf, hc] + more if r) else "NO"
        shape = f"{n}^{PROGRAMS[kind_of(program)][1]}" + (" per GPU" if is_weak(program) else "")
        extra = "".join(f" {cell(r, 7)} | {pct(r)} | {over(by.get((program, n, g, mate(o))), r)} |"
                        for o, r in zip(others, more))
        lines.append(f"| {program} | {shape} | {g} | {cell(cf, 7)} | {pct(cf)} | {cell(hc, 7)} | {pct(hc)} | {over(hc, cf)} |{extra} {ver} |")
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def ordered(rows):
    """Rows by program (PROGRAMS' order), size and GPU count, weak scaling last, cpu-free on p2p
    first within a configuration (a stable sort: the other schedules as measured)."""
    order = list(PROGRAMS)
    return sorted(rows, key=lambda r: (is_weak(r[2]), order.index(kind_of(r[2])), int(r[3]), int(r[4]),
                                       column(r[5], r[6]) != "cpu-free"))


def merge(csvs, out):
    """One latest.csv and table.md from the CSVs of a matrix run in parts (several device calls,
    each with its own bandwidth measurement): a later part's row for the same program, size, GPU
    count and schedule replaces an earlier one; rows sorted by program, size and GPU count, weak
    scaling last."""
    rows, bandwidths = {}, []
    for path in csvs:
        for r in csv.DictReader(open(path)):
            key = (r["program"], r["size"], r["gpus"], column(r["schedule"], r["backend"]))
            rows[key] = [r[k] for k in ("date", "device", "program", "size", "gpus", "schedule", "backend",
                                        "us_per_step", "bandwidth_fraction", "verified")]
        bandwidth_txt = os.path.join(os.path.dirname(path), "bandwidth.txt")
        if os.path.exists(bandwidth_txt):
            values = [float(line.split()[3]) for line in open(bandwidth_txt) if len(line.split()) > 3]
            if values:
                low, high = f"{min(values):.0f}", f"{max(values):.0f}"
                bandwidths.append(low if low == high else f"{low}-{high}")
    rows = ordered(rows.values())
    if not rows:
        sys.exit("merge: no rows")
    dates = sorted({r[0] for r in rows})
    measured = (", ".join(b + " GB/s" for b in bandwidths) + " (each part's own run)") if bandwidths else "not recorded"
    write_outputs(out, rows, rows[0][1], measured, dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--programs":
        # The source programs a matrix times (bench/run.sh builds only these), one a line.
        print("\n".join(sorted({source_of(item.split(":")[0]) for item in sys.argv[2].split(";")})))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--merge":
        ap = argparse.ArgumentParser(description="merge the CSVs of a run made in parts")
        ap.add_argument("--merge", nargs="+", required=True, help="latest.csv of each part, in order")
        ap.add_argument("--out", required=True)
        a = ap.parse_args()
        return merge(a.merge, a.out)
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="built executables: <program>.<schedule>, <program>.ref")
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--matrix", required=True, help="program:size,size;program:size ...")
    ap.add_argument("--gpus", default="1,2")
    ap.add_argument("--schedules", default="cpu-free,host-controlled,auto",
                    help="builds <program>.<schedule> to time; auto: the --schedule=auto build (the schedule "
                         "compiled::choose_schedule picks); nvshmem: the cpu-free build on the nvshmem backend "
                         "(<program>.nvshmem, one process a GPU under mpirun); host-controlled-nvshmem: the "
                         "host-controlled one there")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bandwidth", type=float, required=True, help="measured copy GB/s per GPU")
    ap.add_argument("--device", required=True)
    ap.add_argument("--lanes", type=int, default=1,
                    help="one-GPU configurations side by side, one a GPU (GPUs 0..lanes-1), and the "
                         "verifications; the multi-GPU configurations after them, alone")
    a = ap.parse_args()
    gpus = [int(g) for g in a.gpus.split(",")]
    schedules = a.schedules.split(",")
    matrix = []
    for item in a.matrix.split(";"):
        program, sizes = item.split(":")
        matrix.append((program, [int(s) for s in sizes.split(",")]))
    date = datetime.date.today().isoformat()

    def verify(src, schedule):
        vargs = PROGRAMS[src][3]
        cmd = [sys.executable, os.path.join(a.root, "tests/e2e/run_host.py"), "--exe",
               os.path.join(a.bin, f"{src}.{schedule}"), "--reference", os.path.join(a.bin, f"{src}.ref"),
               "--sample", os.path.join(a.root, "bench/programs", src + ".cpp"),
               "--workdir", os.path.join("/tmp", f"bench-verify-{src}-{schedule}"),
               "--pes", ",".join(map(str, gpus))]
        for v in vargs:
            cmd += ["--args", v]
        if is_nvshmem(schedule):
            cmd += ["--launcher", MPIRUN + " bash " + os.path.join(a.root, "tests/gpu/mpi_rank.sh")]
        r = run(cmd, MPI_ENV if is_nvshmem(schedule) else None)
        ok = r.returncode == 0
        print(f"verify {src} {schedule} on {a.gpus} GPUs: {'ok' if ok else 'FAIL'} ({r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]})", flush=True)
        return ok

    pairs = list(dict.fromkeys((source_of(program), schedule) for program, _ in matrix for schedule in schedules))
    with ThreadPoolExecutor(max(1, a.lanes)) as pool:
        verified = dict(zip(pairs, pool.map(lambda p: verify(*p), pairs)))

    rows = []
    lock = threading.Lock()
    write_outputs(a.out, rows, a.device, a.bandwidth, date)

    def record(program, n, g, schedule, per_step="", fraction="", ok=False):
        with lock:
            rows.append([date, a.device, program, n, g, *schedule_backend(schedule), per_step, fraction,
                         "true" if ok else "false"])
            write_outputs(a.out, ordered(rows), a.device, a.bandwidth, date)

    def measure(program, n, g, env=None):
        """Every schedule of one configuration, back to back (`env`: the lane's GPU)."""
        bpp, rank, argline, _ = PROGRAMS[kind_of(program)]
        n0 = n * g if is_weak(program) else n
        points = n0 * n ** (rank - 1)
        for schedule in schedules:
            exe = os.path.join(a.bin, f"{source_of(program)}.{schedule}")
            s1 = steps_for(points / g, bpp, kind_of(program))
            try:
                per_step = step_us(exe, lambda s: argline(n, s, a.runs + 1, n0), s1, g, env)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL {program} {n} {g} {schedule}: {e}", flush=True)
                record(program, n, g, schedule)
                continue
            fraction = (points * bpp / g) / (per_step * 1e-6) / (a.bandwidth * 1e9)
            record(program, n, g, schedule, f"{per_step:.2f}", f"{fraction:.3f}",
                   verified.get((source_of(program), schedule), False))
            where = f" (GPU {env['CUDA_VISIBLE_DEVICES']})" if env else ""
            print(f"{program} {n} gpus={g} {schedule}: {per_step:.2f} us/step, {fraction:.1%} of bandwidth "
                  f"(steps {s1}/{3 * s1}, {a.runs} runs){where}", flush=True)

    configs = [(program, n, g) for program, sizes in matrix for n in sizes for g in gpus]
    side_by_side = [c for c in configs if c[2] == 1] if a.lanes > 1 else []
    if side_by_side:
        free = Queue()
        for lane in range(a.lanes):
            free.put(lane)

        def on_a_lane(config):
            lane = free.get()
            try:
                measure(*config, {"CUDA_VISIBLE_DEVICES": str(lane)})
            finally:
                free.put(lane)

        with ThreadPoolExecutor(a.lanes) as pool:
            list(pool.map(on_a_lane, side_by_side))
    for config in configs:
        if config not in side_by_side:
            measure(*config)

    with open(os.path.join(a.out, "table.md")) as f:
        print(f.read(), end="")
    return 0 if all(verified.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
