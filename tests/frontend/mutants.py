"""Bad input gets an error, never a crash: every sample, test input and benchmark program, mutated
(a line deleted or doubled, a number, token, name, sign or stencil offset changed; a fixed seed,
so the mutants are the same on every run), through the front end and both targets' pipelines and
emitters. A mutant may compile (exit 0) or be rejected with a diagnostic (exit 1); a signal, any
other exit status, an assertion, a stack dump or an internal error fails the test.
    python3 tests/frontend/mutants.py ROOT STENCILC [COUNT] [SEED]"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

STAGES = [["--emit=ir"], ["--emit=cpp"], ["--target=cuda", "--emit=cuda"],
          ["--target=cuda", "--schedule=host-controlled", "--emit=cuda"],
          ["--target=cuda", "--backend=nvshmem", "--emit=cuda"]]
CRASH = re.compile(r"Assertion|Stack dump|internal error|PLEASE submit|terminate called|Segmentation|Aborted")


def mutate(rng, text):
    """One mutation of one line of `text` (not a comment or preprocessor line), or None where the
    line has nothing the mutation changes."""
    lines = text.split("\n")
    lines_ok = [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith(("//", "#"))]
    i = rng.choice(lines_ok)
    line = lines[i]
    kind = rng.choice(["delete", "double", "number", "token", "name", "sign", "offset"])
    def pick(pattern):
        found = list(re.finditer(pattern, line))
        return rng.choice(found) if found else None
    if kind == "delete":
        del lines[i]
    elif kind == "double":
        lines.insert(i, line)
    else:
        if kind == "number":
            m, new = pick(r"\b\d+\b"), rng.choice(["0", "-1", "2", "3", "100000"])
        elif kind == "token":
            m, new = pick(r"[;(){}\[\],]"), ""
        elif kind == "name":
            m, new = pick(r"\b[a-z_][a-z_0-9]*\b"), rng.choice(sorted(set(re.findall(r"\b[a-z_][a-z_0-9]*\b", text))))
        elif kind == "sign":
            m = pick(r"[+-]")
            new = "-" if m and m.group() == "+" else "+"
        else:
            m = pick(r"\b[ijk]\s*[+-]\s*\d+")
            new = (m.group()[0] + " + " + rng.choice(["0", "2", "5", "7"])) if m else ""
        if m is None:
            return None
        lines[i] = line[:m.start()] + new + line[m.end():]
    return "\n".join(lines), f"{kind} at line {i + 1}"


def main(root, stencilc, count, seed):
    rng = random.Random(seed)
    sources = sorted(glob.glob(os.path.join(root, "samples/*.cpp")) + glob.glob(os.path.join(root, "tests/e2e/inputs/*.cpp"))
                     + glob.glob(os.path.join(root, "bench/programs/*.cpp")))
    failures = accepted = rejected = 0
    with tempfile.TemporaryDirectory() as tmp:
        done = 0
        while done < count:
            source = rng.choice(sources)
            mutant = mutate(rng, open(source).read())
            if mutant is None:
                continue
            text, what = mutant
            stage = rng.choice(STAGES)
            path = os.path.join(tmp, os.path.basename(source))
            with open(path, "w") as f:
                f.write(text)
            done += 1
            try:
                r = subprocess.run([stencilc, *stage, "-I", os.path.dirname(source), path, "-o", os.path.join(tmp, "out")],
                                   capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                failures += 1
                print(f"FAIL (no answer in 120 s): {os.path.relpath(source, root)}, {what}, {' '.join(stage)}")
                continue
            if r.returncode in (0, 1) and not CRASH.search(r.stderr) and (r.returncode == 0 or "error" in r.stderr):
                accepted += r.returncode == 0
                rejected += r.returncode == 1
                continue
            failures += 1
            print(f"FAIL (exit {r.returncode}): {os.path.relpath(source, root)}, {what}, {' '.join(stage)}")
            print("   ", "\n    ".join(r.stderr.strip().splitlines()[-6:]))
            print("    the mutant:\n" + "\n".join("      " + l for l in text.splitlines()))
    print(f"{count} mutants: {accepted} compiled, {rejected} rejected with a diagnostic, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 60,
                  int(sys.argv[4]) if len(sys.argv) > 4 else 2026))
