"""Lowers every sample with stencilc, then checks that stencilc-opt parses the
IR back to identical text. Run by roundtrip-all.test, so a new sample is covered on arrival."""
import glob
import os
import subprocess
import sys


def main():
    stencilc, opt, *dirs = sys.argv[1:]
    sources = sorted(s for d in dirs for s in glob.glob(os.path.join(d, "*.cpp")))
    if not sources:
        print("no sources found in", dirs)
        return 1
    failed = 0
    for src in sources:
        lowered = subprocess.run([stencilc, "--emit=ir", src], capture_output=True, text=True)
        if lowered.returncode != 0:
            print(f"FAIL lower {src}:\n{lowered.stderr}")
            failed += 1
            continue
        reparsed = subprocess.run([opt, "-"], input=lowered.stdout, capture_output=True, text=True)
        if reparsed.returncode != 0 or reparsed.stdout != lowered.stdout:
            print(f"FAIL round trip {src}:\n{reparsed.stderr}")
            failed += 1
            continue
        print(f"ok {os.path.basename(src)}: {lowered.stdout.count('program @')} program(s)")
    print(f"{len(sources) - failed} of {len(sources)} sources lowered and round-tripped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
