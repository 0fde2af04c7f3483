#!/usr/bin/env python3
"""Seeded, deterministic fuzzing of stencilc on mutants of the samples (ctest label `fuzz`).

  fuzz.py frontend --stencilc S --samples DIR --count N --seed K --workdir W
      Mutates each sample's source (operators, offsets, statements, grid names, constants, and
      constructs outside the language) and runs `stencilc --emit=ir` on every mutant: each run must
      end in success or in a located error (`file:line:col: error:`), never a crash, a signal, an
      internal error or a hang. A mutant that compiles goes on through the CUDA target's pipeline
      and emitter too (`--emit=cuda`: cpu-free, host-controlled and nvshmem in turn), which must
      succeed or stop with an error message.
  fuzz.py ir --stencilc S --stencilc-opt O --samples DIR --count N --seed K --workdir W
      Mutates the printed IR of each sample (tokens, numbers, names, lines) and runs stencilc-opt on
      every mutant: parse and verify, then the CPU-free pipeline and the host-controlled one on what
      verifies. Each run must succeed or end in a clean error.
  fuzz.py host --stencilc S --compare C --include I --samples DIR --count N --seed K --workdir W
      Builds the first N front-end mutants (of the kinds that keep a program meaningful) that
      compile, for the host target and with the host C++ compiler (the reference), and runs both on
      1 and 3 PEs: the stencilc build must match the reference (stencilc-compare), or, where the
      reference stops with an error, stop with a clean run-time error too.

A failure prints the mutation and keeps the mutant in the work directory, with the command that
reproduces it. The same seed gives the same mutants.
"""
import argparse
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

LOCATED_ERROR = re.compile(r":\d+:\d+: error: ")
# What a clean failure never prints: a crash of Clang or LLVM, an assertion, an internal error.
CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump", "Assertion", "internal error", "internal:",
               "terminate called", "Segmentation fault", "AddressSanitizer", "runtime error:")
TIMEOUT_S = 30

# Small, fast argument sets of the global-view samples the host campaign runs (tests/e2e's sizes).
HOST_ARGS = {
    "jacobi2d": "21 18 12", "heat3d": "11 4", "wave2d": "19 6", "advect2d": "17 5",
    "multiwrite2d": "17 5", "fdtd2d": "17 19 5", "box27": "9 8 11 3",
}

# Statements and expressions outside the language, inserted into a program body.
OUTSIDE_LANGUAGE = [
    "goto fz_fuzz_label; fz_fuzz_label:;", "throw 1;", "int* fz_fuzz_p = new int(1); delete fz_fuzz_p;",
    "asm(\"\");", "static int fz_fuzz_s = 0;", "for (;;) { break; }", "do { } while (0);",
    "switch (1) { default: break; }", "try { } catch (...) { }", "[&] { }();", "std::printf(\"x\\n\");",
    "(void)sizeof(int);", "int fz_fuzz_arr[3] = {1, 2, 3};", "int fz_fuzz_i = 0; fz_fuzz_i <<= 2;",
    "char fz_fuzz_c = 'x';", "const char* fz_fuzz_str = \"s\";", "auto fz_fuzz_l = [](int x) { return x; };",
    "struct SC_fuzz { int x; } fz_fuzz_v{1};", "int& fz_fuzz_r = *(int*)nullptr;",
    "stencilc::for_each(stencilc::Box<1>{{-2}, {12}}, [&](int i) { (void)i; });",
    "stencilc::for_each(stencilc::Box<2>{{0, 0}, {1, 1}}, [&](int i) { (void)i; });",
    "stencilc::for_each(stencilc::Box<1>{{0}, {4}}, 3);", "stencilc::exchange(1);",
    "while (true) { }", "return;", "float fz_fuzz_f = 1.0f / 0.0f; (void)fz_fuzz_f;",
    "double fz_fuzz_d = stencilc::reduce(stencilc::Box<1>{{0}, {4}}, stencilc::Sum{}, [&](int i) { return i; });",
    "int fz_fuzz_t = 1; fz_fuzz_t = fz_fuzz_t ? : 2;", "#pragma omp parallel\n", "#define SC_FUZZ 1\n",
    "using namespace std;", "typedef int fz_fuzz_int;", "enum { SC_FUZZ_E };", "{ { { } } }", ";;",
]
SAFE_NUMBERS = ["0", "1", "2", "3", "-1", "0.5"]
REPLACEMENT_NUMBERS = ["0", "1", "-1", "2", "-2", "3", "7", "100000", "2147483647", "-2147483648", "1e30", "0.5", "1e-45"]
OPERATORS = ["+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "&", "|", "^", "<<", ">>"]
OPERATOR_RE = re.compile(r"(?<=[\w)\] ])\s(\+|-|\*|/|%|<=|>=|<|>|==|!=|&&|\|\|)\s(?=[\w(])")
OFFSET_RE = re.compile(r"\b([ijk])\s*([+-])\s*(\d+)\b")
NUMBER_RE = re.compile(r"(?<![\w.])(\d+\.\d*f?|\d+e-?\d+f?|\d+)(?![\w.])")
GRID_PARAM_RE = re.compile(r"(?:Grid|Block)<[^>]*>&\s*(\w+)")


def program_region(text):
    """The byte range of the programs (from the first SC_*PROGRAM to `int main`)."""
    start = min((m.start() for m in re.finditer(r"SC_(?:SPMD_)?PROGRAM", text)), default=0)
    end = text.find("int main(", start)
    return start, (end if end > start else len(text))


def pick_in_region(rng, matches, region, only_inside=False):
    inside = [m for m in matches if region[0] <= m.start() < region[1]]
    pool = inside if only_inside or (inside and rng.random() < 0.9) else matches
    return rng.choice(pool) if pool else None


def splice(text, m, replacement, group=0):
    return text[:m.start(group)] + replacement + text[m.end(group):]


def region_lines(text, region):
    """(start, end) offsets of the program region's non-blank lines."""
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        if region[0] <= at < region[1] and line.strip():
            out.append((at, at + len(line)))
        at += len(line)
    return out


def mutate_source(text, rng, runnable=False):
    """One mutation of a C++ source: (kind, description, mutated text) or None if it does not apply.
    runnable: mutants to run against the reference, so the programs only, and no constant that
    makes C++ itself undefined (a signed overflow gives the two builds different results)."""
    region = program_region(text)
    numbers = SAFE_NUMBERS if runnable else REPLACEMENT_NUMBERS
    kind = rng.choice(["operator", "offset", "drop", "duplicate", "grid-name", "constant", "outside",
                       "delete-char", "swap-lines", "index-var"])
    if kind == "operator":
        m = pick_in_region(rng, list(OPERATOR_RE.finditer(text)), region, runnable)
        if not m:
            return None
        new = rng.choice([o for o in OPERATORS if o != m.group(1)])
        return kind, f"'{m.group(1)}' -> '{new}' at offset {m.start(1)}", splice(text, m, new, 1)
    if kind == "offset":
        m = pick_in_region(rng, list(OFFSET_RE.finditer(text)), region, runnable)
        if not m:
            return None
        new = f"{m.group(1)} {rng.choice('+-')} {rng.choice([0, 1, 2, 3, 5])}"
        return kind, f"'{m.group(0)}' -> '{new}' at offset {m.start()}", splice(text, m, new)
    if kind in ("drop", "duplicate", "swap-lines", "outside"):
        lines = region_lines(text, region)
        if len(lines) < 2:
            return None
        s, e = rng.choice(lines[1:])
        if kind == "drop":
            return kind, f"drop line '{text[s:e].strip()}'", text[:s] + text[e:]
        if kind == "duplicate":
            return kind, f"duplicate line '{text[s:e].strip()}'", text[:e] + text[s:e] + text[e:]
        if kind == "outside":
            construct = rng.choice(OUTSIDE_LANGUAGE)
            return kind, f"insert '{construct.strip()}' before '{text[s:e].strip()}'", text[:s] + construct + "\n" + text[s:]
        s2, e2 = rng.choice(lines[1:])
        if s2 == s:
            return None
        (s, e), (s2, e2) = sorted([(s, e), (s2, e2)])
        return kind, f"swap lines '{text[s:e].strip()}' and '{text[s2:e2].strip()}'", \
            text[:s] + text[s2:e2] + text[e:s2] + text[s:e] + text[e2:]
    if kind == "grid-name":
        names = sorted(set(GRID_PARAM_RE.findall(text)))
        if len(names) < 2:
            return None
        a = rng.choice(names)
        uses = list(re.finditer(r"\b%s\b" % re.escape(a), text[region[0]:region[1]]))
        if not uses:
            return None
        m = rng.choice(uses)
        b = rng.choice([n for n in names if n != a])
        at = region[0] + m.start()
        return kind, f"grid '{a}' -> '{b}' at offset {at}", text[:at] + b + text[at + len(a):]
    if kind == "constant":
        m = pick_in_region(rng, list(NUMBER_RE.finditer(text)), region, runnable)
        if not m:
            return None
        new = rng.choice(numbers)
        return kind, f"'{m.group(0)}' -> '{new}' at offset {m.start()}", splice(text, m, new)
    if kind == "delete-char":
        spots = [i for i in range(region[0], region[1]) if text[i] in "(){}[];,&<>"]
        if not spots:
            return None
        i = rng.choice(spots)
        return kind, f"delete '{text[i]}' at offset {i}", text[:i] + text[i + 1:]
    # index-var: one index variable of a grid access for another.
    m = pick_in_region(rng, list(re.finditer(r"\(([ijk])\b", text)), region, runnable)
    if not m:
        return None
    new = rng.choice([v for v in "ijk" if v != m.group(1)])
    return kind, f"index '{m.group(1)}' -> '{new}' at offset {m.start(1)}", splice(text, m, new, 1)


def mutants(samples, count, seed, mutate):
    """count mutants spread over the samples, the same for the same seed: (name, kind, what, text)."""
    rng = random.Random(seed)
    out = []
    per_sample = max(1, count // len(samples))
    for path in samples:
        with open(path) as f:
            text = f.read()
        name = os.path.splitext(os.path.basename(path))[0]
        made = tries = 0
        while made < per_sample and tries < per_sample * 20:
            tries += 1
            m = mutate(text, rng)
            # Some mutants get a second mutation: two changes find what one cannot.
            if m and rng.random() < 0.25:
                m2 = mutate(m[2], rng)
                if m2:
                    m = (m[0], m[1] + "; then " + m2[1], m2[2])
            if m and m[2] != text:
                out.append((name, m[0], m[1], m[2]))
                made += 1
    return out


def run(cmd, stdin=None, timeout=TIMEOUT_S, env=None):
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"


def clean_outcome(rc, err, located):
    """None if the run succeeded or failed cleanly, else what was wrong."""
    if rc is None:
        return err
    if rc < 0 or rc >= 128:
        return f"killed by a signal (exit {rc})"
    for mark in CRASH_MARKS:
        if mark in err:
            return f"'{mark}' in its output"
    if rc != 0 and located and not LOCATED_ERROR.search(err):
        return f"exit {rc} without a located error"
    if rc != 0 and not located and "error" not in err:
        return f"exit {rc} without an error message"
    return None


def save(workdir, label, text, suffix):
    path = os.path.join(workdir, label + suffix)
    with open(path, "w") as f:
        f.write(text)
    return path


def report(failures, total, what):
    for f in failures:
        print("FAIL " + f)
    print(f"{what}: {total - len(failures)} of {total} mutants ended cleanly, {len(failures)} did not")
    return 1 if failures else 0


def sample_paths(opts, names=None):
    paths = sorted(os.path.join(opts.samples, f) for f in os.listdir(opts.samples) if f.endswith(".cpp"))
    return [p for p in paths if names is None or os.path.splitext(os.path.basename(p))[0] in names]


# The CUDA target's stages a front-end mutant that compiles goes through, in turn.
CUDA_STAGES = [["--target=cuda", "--schedule=cpu-free", "--emit=cuda"],
               ["--target=cuda", "--schedule=host-controlled", "--emit=cuda"],
               ["--target=cuda", "--backend=nvshmem", "--emit=cuda"]]


def fuzz_frontend(opts):
    cases = mutants(sample_paths(opts), opts.count, opts.seed, mutate_source)

    def check(k_case):
        k, (name, kind, what, text) = k_case
        path = save(opts.workdir, f"fe-{k:04d}-{name}", text, ".cpp")
        rc, _, err = run([opts.stencilc, "--target=host", "--emit=ir", path, "-o", path + ".ir"])
        problem = clean_outcome(rc, err, located=True)
        if problem:
            return f"{path} ({name}: {kind}: {what}): {problem}\n  repro: {opts.stencilc} --target=host --emit=ir {path}\n" + \
                "\n".join("  | " + l for l in err.splitlines()[-8:])
        if rc == 0:
            stage = CUDA_STAGES[k % len(CUDA_STAGES)]
            crc, _, cerr = run([opts.stencilc, *stage, path, "-o", path + ".cu"])
            problem = clean_outcome(crc, cerr, located=False)
            if problem:
                return f"{path} ({name}: {kind}: {what}): {problem}\n  repro: {opts.stencilc} {' '.join(stage)} {path}\n" + \
                    "\n".join("  | " + l for l in cerr.splitlines()[-8:])
            if os.path.exists(path + ".cu"):
                os.remove(path + ".cu")
        os.remove(path)
        if rc == 0:
            os.remove(path + ".ir")
        return "" if rc == 0 else None

    with ThreadPoolExecutor(opts.jobs) as pool:
        results = list(pool.map(check, enumerate(cases)))
    print(f"front end: {results.count('')} mutants compiled, {results.count(None)} stopped at a located error")
    return report([f for f in results if f], len(cases), "front end")


IR_TOKEN_RE = re.compile(r"%[\w.]+|@\w+|-?\d+(?:\.\d+)?(?:e-?\d+)?f?|\w+|[^\s\w]")


def mutate_ir(text, rng):
    lines = text.splitlines(keepends=True)
    kind = rng.choice(["token", "number", "name", "delete-line", "duplicate-line", "swap-lines", "truncate",
                       "delete-token"])
    tokens = list(IR_TOKEN_RE.finditer(text))
    if kind in ("token", "delete-token", "number", "name"):
        if kind == "number":
            tokens = [t for t in tokens if re.match(r"-?\d", t.group(0))]
        if kind == "name":
            tokens = [t for t in tokens if t.group(0)[0] in "%@"]
        if not tokens:
            return None
        t = rng.choice(tokens)
        if kind == "delete-token":
            new = ""
        elif kind == "number":
            new = rng.choice(REPLACEMENT_NUMBERS + ["99999999999999999999", "-0", "1.5", "0x10", "3f"])
        elif kind == "name":
            names = sorted({x.group(0) for x in IR_TOKEN_RE.finditer(text) if x.group(0)[0] == t.group(0)[0]})
            new = rng.choice(names + [t.group(0)[0] + "undefined", t.group(0)[0]])
        else:
            new = rng.choice(tokens).group(0)
        return kind, f"'{t.group(0)}' -> '{new}' at offset {t.start()}", splice(text, t, new)
    if len(lines) < 3:
        return None
    k = rng.randrange(1, len(lines))
    if kind == "delete-line":
        return kind, f"delete line {k + 1}", "".join(lines[:k] + lines[k + 1:])
    if kind == "duplicate-line":
        return kind, f"duplicate line {k + 1}", "".join(lines[:k + 1] + lines[k:])
    if kind == "swap-lines":
        j = rng.randrange(1, len(lines))
        lines[k], lines[j] = lines[j], lines[k]
        return kind, f"swap lines {k + 1} and {j + 1}", "".join(lines)
    cut = rng.randrange(len(text))
    return kind, f"truncate at offset {cut}", text[:cut]


def fuzz_ir(opts):
    # The IR of every sample as the front end gives it (the input of the passes) and after the
    # CPU-free pipeline (decomposed, with exchanges, roles and signals).
    seeds = []
    for path in sample_paths(opts):
        name = os.path.splitext(os.path.basename(path))[0]
        rc, out, err = run([opts.stencilc, "--target=host", "--emit=ir", "--print-ir-before=infer-halos", path])
        if rc != 0 or "module " not in err:
            print(f"FAIL {name}: the sample does not compile:\n{err}")
            return 1
        for stage, text in (("front", err[err.find("module "):]), ("final", out)):
            seeds.append(save(opts.workdir, f"ir-seed-{name}-{stage}", text, ".ir"))
    cases = mutants(seeds, opts.count, opts.seed, mutate_ir)
    # The CPU-free pipeline, and the host-controlled schedule's (store-faces, defer-host-reads).
    pipelines = ["fold-constants,infer-halos,decompose,insert-exchanges,lower-exchanges,split-boundary,"
                 "place-signaled-puts,persistent-fusion,specialize-blocks",
                 "fold-constants,infer-halos,decompose,insert-exchanges,lower-exchanges,fuse-sweeps,"
                 "place-signaled-puts,store-faces,defer-host-reads"]

    def check(k_case):
        k, (name, kind, what, text) = k_case
        rc, _, err = run([opts.stencilc_opt, "--verify-only", "-"], stdin=text)
        stage = "--verify-only"
        problem = clean_outcome(rc, err, located=False)
        if not problem and rc == 0 and name.endswith("-front"):
            for pipeline in pipelines:  # the first to stop ends the case
                stage = "--pass-pipeline=" + pipeline
                rc, _, err = run([opts.stencilc_opt, stage, "-"], stdin=text)
                problem = clean_outcome(rc, err, located=False)
                if problem or rc != 0:
                    break
        if problem:
            path = save(opts.workdir, f"ir-{k:04d}-{name}", text, ".ir")
            return f"{path} ({name}: {kind}: {what}): {problem}\n  repro: {opts.stencilc_opt} {stage} {path}\n" + \
                "\n".join("  | " + l for l in err.splitlines()[-8:])
        return "" if rc == 0 else None

    with ThreadPoolExecutor(opts.jobs) as pool:
        results = list(pool.map(check, enumerate(cases)))
    print(f"IR: {results.count('')} mutants verified (and went through the pipeline if front-end IR), "
          f"{results.count(None)} stopped at an error")
    return report([f for f in results if f], len(cases), "IR")


def fuzz_host(opts):
    # Mutants that keep the program a program: changed operators, offsets, constants, grid names.
    semantic = ("operator", "offset", "constant", "grid-name", "index-var", "duplicate")
    runnable = lambda text, rng: mutate_source(text, rng, runnable=True)
    candidates = [c for c in mutants(sample_paths(opts, HOST_ARGS), 40 * opts.count, opts.seed, runnable)
                  if c[1] in semantic and "then" not in c[2]]
    random.Random(opts.seed).shuffle(candidates)
    failures, tested, skipped = [], 0, 0
    for k, (name, kind, what, text) in enumerate(candidates):
        if tested >= opts.count:
            break
        label = f"host-{k:04d}-{name}"
        path = save(opts.workdir, label, text, ".cpp")
        rc, _, err = run([opts.stencilc, "--emit=ir", path, "-o", path + ".ir"])
        if rc != 0:
            continue  # rejected at compile time: the front-end campaign checks how
        ref = os.path.join(opts.workdir, label + ".ref")
        rc, _, err = run([opts.cxx, "-std=c++17", "-O1", "-I", opts.include, path, "-o", ref, "-pthread"], timeout=120)
        if rc != 0:
            continue  # stencilc accepts what the host compiler rejects: C++ the language leaves out
        exe = os.path.join(opts.workdir, label + ".host")
        rc, _, err = run([opts.stencilc, "--target=host", path, "-o", exe], timeout=120)
        case = f"{path} ({name}: {kind}: {what})"
        if rc != 0:
            failures.append(f"{case}: passes the front end, but the host build fails:\n{err[-2000:]}")
            tested += 1
            continue
        args = HOST_ARGS[name].split()
        rc, _, rerr = run([ref] + args, timeout=10)
        if rc is None:
            skipped += 1  # the mutant does not finish (a loop that never ends): nothing to compare
            continue
        tested += 1
        if rc != 0:
            # The reference stops with an error: the stencilc build must stop with a clean one.
            for pes in ("1", "3"):
                grc, _, gerr = run([exe] + args, env=dict(os.environ, STENCILC_PES=pes), timeout=20)
                if grc is None or grc == 0 or grc < 0 or grc >= 128 or "stencilc: error:" not in gerr:
                    failures.append(f"{case}: the reference stops ({rerr.strip()[-300:]}), the stencilc build on "
                                    f"{pes} PEs {'ends normally' if grc == 0 else 'exits ' + str(grc)}: {gerr.strip()[-500:]}")
                    break
            print(f"ok   {case}: both stop with an error")
            continue
        rc, out, err = run([sys.executable, opts.compare, "--exe", exe, "--reference", ref, "--sample", path,
                            "--workdir", os.path.join(opts.workdir, label + ".cmp"), "--pes", "1,3",
                            "--args", HOST_ARGS[name]], timeout=120)
        if rc != 0:
            failures.append(f"{case}: the stencilc build differs from the reference:\n{out}{err}")
        else:
            print(f"ok   {case}: matches the reference on 1 and 3 PEs")
    if tested < opts.count:
        failures.append(f"only {tested} of {opts.count} mutants could be run ({skipped} did not finish)")
    return report(failures, tested, "host")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("campaign", choices=["frontend", "ir", "host"])
    ap.add_argument("--stencilc", required=True)
    ap.add_argument("--stencilc-opt")
    ap.add_argument("--compare", help="tools/stencilc-compare/stencilc-compare.py")
    ap.add_argument("--include", help="the directory of <stencilc/stencilc.hpp>, for the reference builds")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--samples", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", required=True)
    opts = ap.parse_args()
    os.makedirs(opts.workdir, exist_ok=True)
    return {"frontend": fuzz_frontend, "ir": fuzz_ir, "host": fuzz_host}[opts.campaign](opts)


if __name__ == "__main__":
    sys.exit(main())
