"""bench/measure.py --merge: the parts of a benchmark run made over several device calls become
one latest.csv and table.md (the published result), so its rules are tested here: a later part's
row replaces an earlier one's, rows are sorted by program, size and GPU count with weak scaling
last, each part's bandwidth is named in the header, and the ratio column pairs the schedules.
    python3 tests/bench/merge_test.py ROOT"""
import csv
import os
import subprocess
import sys
import tempfile

HEADER = "date,device,program,size,gpus,schedule,backend,us_per_step,bandwidth_fraction,verified\n"


def write_part(directory, rows, bandwidths):
    os.makedirs(directory)
    with open(os.path.join(directory, "latest.csv"), "w") as f:
        f.write(HEADER)
        for r in rows:
            f.write(r + "\n")
    with open(os.path.join(directory, "bandwidth.txt"), "w") as f:
        for gpu, value in enumerate(bandwidths):
            f.write(f"gpu {gpu} copy_gbs {value}\n")


def main(root):
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as work:
        d = "2026-11-22,2 x NVIDIA H200"
        write_part(os.path.join(work, "a"), [
            f"{d},wave2d,2048,1,cpu-free,p2p,46.35,0.348,true",
            f"{d},jacobi2d,1024,2,cpu-free,p2p,16.41,0.061,true",
            f"{d},jacobi2d,1024,2,host-controlled,p2p,77.00,0.020,true",
            f"{d},jacobi2d,256,1,cpu-free,p2p,11.16,0.011,true",
        ], [4187.2, 4188.3])
        write_part(os.path.join(work, "b"), [
            f"{d},jacobi2d@weak,8192,2,cpu-free,p2p,186.58,0.684,true",
            f"{d},jacobi2d,1024,2,host-controlled,p2p,39.79,0.025,true",
            f"{d},heat3d,256,2,cpu-free,p2p,74.99,0.423,false",
            f"{d},jacobi2d,1024,2,cpu-free-regs,p2p,4.10,0.246,true",
            f"{d},jacobi2d,1024,2,cpu-free,nvshmem,8.20,0.123,true",
            f"{d},jacobi2d,1024,2,host-controlled,nvshmem,49.74,0.020,true",
        ], [4158.2, 4159.7])
        out = os.path.join(work, "out")
        r = subprocess.run([sys.executable, os.path.join(root, "bench/measure.py"), "--merge",
                            os.path.join(work, "a/latest.csv"), os.path.join(work, "b/latest.csv"), "--out", out],
                           capture_output=True, text=True)
        expect(r.returncode == 0, f"merge exits 0 (got {r.returncode}: {r.stderr[-300:]})")
        rows = list(csv.DictReader(open(os.path.join(out, "latest.csv"))))
        keys = [(x["program"], x["size"], x["gpus"], x["schedule"]) for x in rows]
        expect(keys == [("jacobi2d", "256", "1", "cpu-free"), ("jacobi2d", "1024", "2", "cpu-free"),
                        ("jacobi2d", "1024", "2", "host-controlled"), ("jacobi2d", "1024", "2", "cpu-free-regs"),
                        ("jacobi2d", "1024", "2", "cpu-free"), ("jacobi2d", "1024", "2", "host-controlled"),
                        ("heat3d", "256", "2", "cpu-free"),
                        ("wave2d", "2048", "1", "cpu-free"), ("jacobi2d@weak", "8192", "2", "cpu-free")],
               f"rows sorted, weak scaling last, one row per configuration: {keys}")
        replaced = [x["us_per_step"] for x in rows if x["program"] == "jacobi2d" and x["schedule"] == "host-controlled"
                    and x["backend"] == "p2p"]
        expect(replaced == ["39.79"], f"the later part's row replaces the earlier one: {replaced}")
        table = open(os.path.join(out, "table.md")).read()
        expect("4187-4188 GB/s, 4158-4160 GB/s (each part's own run)" in table,
               "each part's bandwidth in the header: " + table.splitlines()[0])
        expect("| jacobi2d | 1024^2 | 2 | 16.41 | 6% | 39.79 | 2% | 2.42 | 4.10 | 25% | 4.00 | 8.20 | 12% | 2.00 | "
               "49.74 | 2% | 0.80 | yes |" in table,
               "the two schedules side by side with their ratio, then another schedule and the nvshmem "
               "backend's schedules, each with its ratio to the same schedule on p2p (cpu-free for cpu-free-regs)")
        expect("host-controlled / cpu-free | cpu-free-regs us/step | of bandwidth | cpu-free / cpu-free-regs | "
               "cpu-free (nvshmem) us/step | of bandwidth | cpu-free / cpu-free (nvshmem) | "
               "host-controlled (nvshmem) us/step | of bandwidth | host-controlled / host-controlled (nvshmem) | "
               "verified |" in table, "another schedule's and the backends' columns named")
        expect("| heat3d | 256^3 | 2 | 74.99 | 42% | - | - | - | - | - | - | - | - | - | - | - | - | NO |" in table,
               "an unverified row says NO")
        expect("| jacobi2d@weak | 8192^2 per GPU | 2 |" in table, "a weak-scaling row names its size per GPU")
        # A device name with a comma in it stays one field (latest.csv is written by the csv module).
        part = os.path.join(work, "c")
        os.makedirs(part)
        device = "NVIDIA H100 80GB HBM3, driver 580"
        with open(os.path.join(part, "latest.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEADER.strip().split(","))
            w.writerow(["2026-11-22", device, "jacobi2d", "256", "1", "cpu-free", "p2p", "11.16", "0.011", "true"])
        out = os.path.join(work, "out-comma")
        r = subprocess.run([sys.executable, os.path.join(root, "bench/measure.py"), "--merge",
                            os.path.join(part, "latest.csv"), "--out", out], capture_output=True, text=True)
        expect(r.returncode == 0, f"merge of a device name with a comma exits 0 (got {r.returncode}: {r.stderr[-300:]})")
        if r.returncode == 0:
            rows = list(csv.DictReader(open(os.path.join(out, "latest.csv"))))
            expect([(x["device"], x["us_per_step"]) for x in rows] == [(device, "11.16")],
                   f"a device name with a comma reads back as one field: {rows}")
    # The kernel times of a run: one line a run (p2p), or one a process and run (nvshmem under
    # mpirun, the lines of the processes interleaved), of which each run's slowest PE counts.
    sys.path.insert(0, os.path.join(root, "bench"))
    import measure  # noqa: E402
    p2p = "stencilc: jacobi on 2 GPUs (128 blocks of 256 threads each, 45 comm): 11.188 ms\n" * 2
    expect(measure.run_times(p2p) == [11.188, 11.188], f"p2p times: {measure.run_times(p2p)}")
    pes = ("stencilc: jacobi: time loop at j.cpp:12: barrier (why)\n"
           "stencilc: jacobi on PE 1 of 2 (132 blocks of 256 threads, 4 comm): 5.0 ms\n"
           "stencilc: jacobi on PE 0 of 2 (132 blocks of 256 threads, 4 comm): 6.0 ms\n"
           "stencilc: jacobi on PE 0 of 2 (132 blocks of 256 threads, 4 comm): 3.0 ms\n"
           "stencilc: jacobi on PE 1 of 2 (132 blocks of 256 threads, 4 comm): 4.0 ms\n"
           "stencilc: jacobi on PE 0 of 2 (132 blocks of 256 threads, 4 comm): 9.0 ms\n")
    expect(measure.run_times(pes) == [6.0, 4.0], f"nvshmem: each run's slowest PE, complete runs only: "
                                                 f"{measure.run_times(pes)}")
    hc = ("stencilc: jacobi on PE 0 of 2 (host-controlled, nvshmem: kernels launched per step, a process per GPU): 7.5 ms\n"
          "stencilc: jacobi on PE 1 of 2 (host-controlled, nvshmem: kernels launched per step, a process per GPU): 8.5 ms\n")
    expect(measure.run_times(hc) == [8.5], f"the host-controlled schedule on nvshmem: {measure.run_times(hc)}")
    expect([measure.schedule_backend(s) for s in ("nvshmem", "host-controlled-nvshmem", "host-controlled-nvshmem@base",
                                                  "host-controlled")] ==
           [("cpu-free", "nvshmem"), ("host-controlled", "nvshmem"), ("host-controlled@base", "nvshmem"),
            ("host-controlled", "p2p")], "the schedules' CSV columns")
    expect(measure.is_nvshmem("host-controlled-nvshmem@base") and not measure.is_nvshmem("host-controlled"),
           "the builds run under mpirun")
    # A run that stopped before the iterations it was asked for (CG whose residual underflowed) is
    # an error, not a short time.
    with tempfile.TemporaryDirectory() as work:
        fake = os.path.join(work, "cg2d.cpu-free")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'stencilc: cg on 1 GPUs (1 blocks of 256 threads each, 0 comm): 1.000 ms' >&2\n"
                    "echo \"cg2d n=8 iters=$2 checksum=0\"\n")
        os.chmod(fake, 0o755)
        expect(measure.kernel_ms(fake, "8 30", 1, steps=30) == [1.0], "a run of all its iterations times")
        try:
            measure.kernel_ms(fake, "8 29", 1, steps=30)
            expect(False, "a run of fewer iterations than asked for raises")
        except RuntimeError as e:
            expect("asked for 30 iterations, ran [29]" in str(e), f"the message says so: {e}")
    expect(measure.steps_for(258 * 258, 88, "cg2d") == 333 and measure.steps_for(258 * 258, 8) == 5000,
           "cg2d's steps stay under its MAX_STEPS over the two runs")
    expect(measure.schedule_backend("nvshmem") == ("cpu-free", "nvshmem") and
           measure.schedule_backend("host-controlled") == ("host-controlled", "p2p"), "schedule and backend columns")
    for f in failures:
        print("FAIL: " + f)
    print(f"bench merge: {'ok' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
