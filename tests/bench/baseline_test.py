"""A same-run comparison with a baseline (bench/snapshot.sh, bench/run.sh's BASELINE) or a
variant's build flags (run.sh's VARIANTS, `<schedule>@<name>`, checked before any GPU is needed): the
snapshot holds every benchmark program's generated CUDA and the headers it includes; run.sh
refuses a BASELINE that is not one before it needs a GPU; measure.py runs `<schedule>@base` builds
on the schedule's backend and gives each its ratio to the schedule's own column.
    python3 tests/bench/baseline_test.py ROOT STENCILC"""
import os
import subprocess
import sys
import tempfile


def main(root, stencilc):
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL:", what)

    sys.path.insert(0, os.path.join(root, "bench"))
    import measure

    expect(measure.schedule_backend("cpu-free@base") == ("cpu-free@base", "p2p"), "cpu-free@base on p2p")
    expect(measure.schedule_backend("nvshmem@base") == ("cpu-free@base", "nvshmem"),
           "nvshmem@base is the baseline's cpu-free code on nvshmem")
    expect(measure.schedule_backend("nvshmem") == ("cpu-free", "nvshmem"), "nvshmem unchanged")
    expect(measure.is_nvshmem("nvshmem@base") and not measure.is_nvshmem("cpu-free@base"), "is_nvshmem")
    # A variant's build (run.sh's VARIANTS): the same rules for any tag.
    expect(measure.schedule_backend("nvshmem@rows16") == ("cpu-free@rows16", "nvshmem"), "nvshmem@rows16")
    expect(measure.schedule_backend("cpu-free@t128") == ("cpu-free@t128", "p2p"), "cpu-free@t128 on p2p")
    expect(measure.untagged("cpu-free@t128 (nvshmem)") == "cpu-free (nvshmem)", "untagged")

    with tempfile.TemporaryDirectory() as tmp:
        row = lambda schedule, backend, us: ["2026-11-27", "dev", "jacobi2d", "256", "2", schedule, backend, us, "0.1", "true"]
        rows = [row("cpu-free", "p2p", "2.00"), row("cpu-free@base", "p2p", "4.00"),
                row("host-controlled", "p2p", "10.00"), row("host-controlled@base", "p2p", "12.50"),
                row("cpu-free", "nvshmem", "3.00"), row("cpu-free@base", "nvshmem", "6.00"),
                row("cpu-free@t128", "p2p", "2.50"), row("cpu-free@t128", "nvshmem", "2.00")]
        measure.write_outputs(os.path.join(tmp, "t"), rows, "dev", 4000.0, "2026-11-27")
        table = open(os.path.join(tmp, "t", "table.md")).read()
        head = [l for l in table.splitlines() if l.startswith("| program")][0]
        line = [l for l in table.splitlines() if l.startswith("| jacobi2d")][0]
        cols = [c.strip() for c in head.strip("|").split("|")]
        vals = [c.strip() for c in line.strip("|").split("|")]
        cell = lambda name: vals[cols.index(name)] if name in cols else None
        expect(cell("cpu-free / cpu-free@base") == "0.50", f"cpu-free against its baseline: {cell('cpu-free / cpu-free@base')}")
        expect(cell("host-controlled / host-controlled@base") == "0.80",
               f"host-controlled against its baseline: {cell('host-controlled / host-controlled@base')}")
        expect(cell("cpu-free (nvshmem) / cpu-free@base (nvshmem)") == "0.50",
               f"nvshmem against its baseline: {cell('cpu-free (nvshmem) / cpu-free@base (nvshmem)')}")
        expect(cell("cpu-free / cpu-free (nvshmem)") == "0.67", f"nvshmem against p2p as before: {cell('cpu-free / cpu-free (nvshmem)')}")
        expect(cell("cpu-free / cpu-free@t128") == "0.80", f"a variant against its schedule: {cell('cpu-free / cpu-free@t128')}")
        expect(cell("cpu-free (nvshmem) / cpu-free@t128 (nvshmem)") == "1.50",
               f"a variant on nvshmem against nvshmem: {cell('cpu-free (nvshmem) / cpu-free@t128 (nvshmem)')}")

        r = subprocess.run(["bash", os.path.join(root, "bench/run.sh"), tmp], capture_output=True, text=True,
                           env={**os.environ, "BASELINE": os.path.join(tmp, "none"), "OUT": os.path.join(tmp, "out")})
        expect(r.returncode == 2 and "bench/snapshot.sh" in r.stderr, f"run.sh refuses a missing baseline: {r.returncode} {r.stderr}")

        for bad in ("t128", "base:-DX=1", "a-b:-DX=1", "ok:-DX=1|:-DY=2"):
            r = subprocess.run(["bash", os.path.join(root, "bench/run.sh"), tmp], capture_output=True, text=True,
                               env={**os.environ, "VARIANTS": bad, "OUT": os.path.join(tmp, "out")})
            expect(r.returncode == 2 and "VARIANTS:" in r.stderr, f"run.sh refuses VARIANTS={bad}: {r.returncode} {r.stderr}")

        snap = os.path.join(tmp, "snap")
        r = subprocess.run(["bash", os.path.join(root, "bench/snapshot.sh"), snap], capture_output=True, text=True,
                           env={**os.environ, "STENCILC": stencilc})
        expect(r.returncode == 0, f"snapshot.sh: {r.stderr[-400:]}")
        programs = [f[:-4] for f in os.listdir(os.path.join(root, "bench/programs")) if f.endswith(".cpp")]
        for p in programs:
            for schedule in ("cpu-free", "host-controlled", "auto", "nvshmem"):
                expect(os.path.exists(os.path.join(snap, "gen", f"{p}.{schedule}.cu")), f"snapshot has {p}.{schedule}.cu")
        expect(os.path.exists(os.path.join(snap, "include/stencilc/compiled_cuda.hpp")), "snapshot has include/")
        expect(os.path.exists(os.path.join(snap, "runtime/include/stencilc/runtime/cuda/host_controlled.cuh")),
               "snapshot has runtime/include/")
    print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
