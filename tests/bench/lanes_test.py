"""bench/measure.py --lanes: the one-GPU configurations of a matrix run side by side, one a GPU,
each program and size's schedules back to back on the same GPU (a same-run comparison stays on
one card), the multi-GPU configurations after them with every GPU; every configuration gives one
row, in the table's order. The programs here are stand-ins that print STENCILC_TIMING lines and
log where they ran.
    python3 tests/bench/lanes_test.py ROOT"""
import csv
import os
import subprocess
import sys
import tempfile

STANDIN = r'''#!/usr/bin/env python3
import os, sys, time
args = sys.argv[1:]
name = os.path.basename(sys.argv[0])
steps, runs = (int(args[2]), int(args[4])) if name.startswith("jacobi2d") else (int(args[1]), int(args[2]))
with open(os.environ["LANES_LOG"], "a") as f:
    f.write(f"{name} {os.environ.get('STENCILC_PES')} {os.environ.get('CUDA_VISIBLE_DEVICES', '-')} "
            f"{time.time():.3f} {args[0]}\n")
time.sleep(0.3)
for _ in range(runs):
    print(f"stencilc: kernel: {0.5 + steps * 0.002:.4f} ms", file=sys.stderr)
'''


def main(root):
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL:", what)

    with tempfile.TemporaryDirectory() as work:
        bin_dir = os.path.join(work, "bin")
        os.makedirs(bin_dir)
        for program in ("jacobi2d", "heat3d"):
            for suffix in ("cpu-free", "cpu-free@base", "ref"):
                path = os.path.join(bin_dir, f"{program}.{suffix}")
                with open(path, "w") as f:
                    f.write(STANDIN)
                os.chmod(path, 0o755)
        log = os.path.join(work, "calls.log")
        out = os.path.join(work, "out")
        r = subprocess.run([sys.executable, os.path.join(root, "bench/measure.py"), "--bin", bin_dir, "--root", root,
                            "--out", out, "--matrix", "jacobi2d:256,512;heat3d:64", "--gpus", "1,2",
                            "--schedules", "cpu-free,cpu-free@base", "--runs", "2", "--bandwidth", "4000",
                            "--device", "test", "--lanes", "2"],
                           capture_output=True, text=True, env={**os.environ, "LANES_LOG": log}, timeout=120)
        expect(r.returncode in (0, 1) and "verify jacobi2d cpu-free@base" in r.stdout,
               f"runs to the end, verifying each build (exit {r.returncode}: {r.stderr[-300:]})")
        calls = [line.split() for line in open(log) if not line.split()[0].endswith(".ref")]
        one_gpu = [c for c in calls if c[1] == "1"]
        expect(one_gpu and all(c[2] in ("0", "1") for c in one_gpu), f"one-GPU runs on GPU 0 or 1: {one_gpu}")
        expect({c[2] for c in one_gpu} == {"0", "1"}, f"both lanes used: {sorted({c[2] for c in one_gpu})}")
        multi = [c for c in calls if c[1] == "2"]
        expect(multi and all(c[2] == "-" for c in multi), f"two-GPU runs see every GPU: {multi}")
        expect(max(float(c[3]) for c in one_gpu) < min(float(c[3]) for c in multi),
               "the multi-GPU configurations after the one-GPU ones")
        overlap = any(a[2] != b[2] and abs(float(a[3]) - float(b[3])) < 0.2 for a in one_gpu for b in one_gpu)
        expect(overlap, "two lanes ran at the same time")
        rows = list(csv.DictReader(open(os.path.join(out, "latest.csv"))))
        keys = [(x["program"], x["size"], x["gpus"], x["schedule"]) for x in rows]
        want = [(p, n, g, s) for p, n in (("jacobi2d", "256"), ("jacobi2d", "512"), ("heat3d", "64"))
                for g in ("1", "2") for s in ("cpu-free", "cpu-free@base")]
        expect(keys == want, f"one row a configuration, in the table's order: {keys}")
        expect(all(x["us_per_step"] == "2.00" for x in rows), "each row's time from its own runs")
        # A comparison's two builds of one program and size ran on one GPU.
        lanes = {}
        for c in one_gpu:
            lanes.setdefault((c[0].split(".")[0], c[4]), set()).add(c[2])
        expect(len(lanes) == 3 and all(len(v) == 1 for v in lanes.values()),
               f"each program and size's builds on one GPU: {lanes}")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
