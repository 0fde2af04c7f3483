"""Every benchmark program (bench/programs/) against its reference on the host target, on the
argument sets bench/measure.py verifies with on GPUs (PROGRAMS' verify args), 1 to 4 PEs, grid by
grid (stencilc-compare): a benchmark program that computes something else than its reference
fails in CI, not in a device call.
    python3 tests/bench/programs_host.py ROOT STENCILC CXX WORKDIR"""
import os
import subprocess
import sys

root, stencilc, cxx, work = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "bench"))
import measure  # noqa: E402  (bench/measure.py: PROGRAMS)

os.makedirs(work, exist_ok=True)
failed = []
for name, spec in sorted(measure.PROGRAMS.items()):
    verify = spec[3]
    if not verify:  # a variant of another program's source (jacobi2d+norm)
        continue
    source = os.path.join(root, "bench", "programs", name + ".cpp")
    reference = os.path.join(work, name + ".ref")
    subprocess.run([cxx, "-std=c++17", "-O2", "-I", os.path.join(root, "include"), source, "-o", reference,
                    "-pthread"], check=True)
    for args in verify:
        cmd = [sys.executable, os.path.join(root, "tools", "stencilc-compare", "stencilc-compare.py"),
               "--stencilc", stencilc, "--reference", reference, "--sample", source,
               "--workdir", os.path.join(work, name), "--pes", "1,2,3,4", "--args", args]
        r = subprocess.run(cmd, capture_output=True, text=True)
        last = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"{name} [{args}]: {last}", flush=True)
        if r.returncode != 0:
            print(r.stdout[-2000:] + r.stderr[-2000:])
            failed.append(f"{name} [{args}]")
if failed:
    sys.exit("FAIL: " + ", ".join(failed))
print(f"{sum(1 for s in measure.PROGRAMS.values() if s[3])} programs agree with their references")
