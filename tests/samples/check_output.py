#!/usr/bin/env python3
"""Runs one program and checks its exit status, its stderr and its stdout.

    check_output.py [options] -- PROGRAM [ARGS...]

--expected FILE      stdout must match FILE line by line. Lines of FILE starting with '#' are
                     comments, except the directives '# rtol: X' and '# atol: X'. Each line is
                     split into numbers and the text between them: the text must be identical,
                     integers (no '.', no exponent) equal, other numbers within
                     |actual - expected| <= rtol * max(|actual|, |expected|) + atol
                     (default rtol 0, atol 0: exact).
--exit-code N        expected exit status (default 0).
--abort              the program must die of SIGABRT (a stencilc fatal error).
--stderr-contains S  stderr must contain S (repeatable).
--stdout-contains S  stdout must contain S (repeatable).
--timeout SECONDS    kill the program and fail after this long (default 60).

With STENCILC_UPDATE_EXPECTED=1 in the environment, --expected FILE is rewritten instead: its
'#' lines are kept and the rest replaced by the program's stdout (exit status checks still apply).
"""
import argparse
import os
import re
import signal
import subprocess
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def tokenize(line):
    """Splits a line into ('text', str) and ('int', int) / ('float', float) tokens."""
    tokens, pos = [], 0
    for m in NUMBER.finditer(line):
        if m.start() > pos:
            tokens.append(("text", line[pos:m.start()]))
        text = m.group(0)
        if re.search(r"[.eE]", text):
            tokens.append(("float", float(text)))
        else:
            tokens.append(("int", int(text)))
        pos = m.end()
    if pos < len(line):
        tokens.append(("text", line[pos:]))
    return tokens


def parse_expected(text):
    """Returns (data lines, rtol, atol) of an expected-output file."""
    rtol = atol = 0.0
    lines = []
    for line in text.splitlines():
        directive = re.match(r"#\s*(rtol|atol):\s*(\S+)", line)
        if directive:
            if directive.group(1) == "rtol":
                rtol = float(directive.group(2))
            else:
                atol = float(directive.group(2))
        elif not line.startswith("#"):
            lines.append(line)
    return lines, rtol, atol


def compare_lines(actual, expected, rtol, atol):
    """Returns a list of human-readable differences (empty when the outputs match)."""
    problems = []
    if len(actual) != len(expected):
        problems.append(f"{len(actual)} lines of output, expected {len(expected)}")
    for n, (got, want) in enumerate(zip(actual, expected), start=1):
        got_tokens, want_tokens = tokenize(got), tokenize(want)
        if [k for k, _ in got_tokens] != [k for k, _ in want_tokens]:
            problems.append(f"line {n}: different shape\n  got:      {got}\n  expected: {want}")
            continue
        for (kind, g), (_, w) in zip(got_tokens, want_tokens):
            if kind == "float":
                ok = abs(g - w) <= rtol * max(abs(g), abs(w)) + atol
            else:
                ok = g == w
            if not ok:
                detail = f" (rtol {rtol:g}, atol {atol:g})" if kind == "float" else ""
                problems.append(f"line {n}: {g!r} instead of {w!r}{detail}\n"
                                f"  got:      {got}\n  expected: {want}")
    return problems


def update_expected(path, stdout):
    header = []
    if os.path.exists(path):
        with open(path) as f:
            header = [line for line in f.read().splitlines() if line.startswith("#")]
    with open(path, "w") as f:
        f.write("\n".join(header + stdout.splitlines()) + "\n")
    print(f"updated {path}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expected")
    parser.add_argument("--exit-code", type=int, default=0)
    parser.add_argument("--abort", action="store_true")
    parser.add_argument("--stderr-contains", action="append", default=[])
    parser.add_argument("--stdout-contains", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no program to run")

    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: {' '.join(command)} still running after {args.timeout:g} s")
        return 1

    problems = []
    if args.abort:
        if run.returncode != -signal.SIGABRT:
            problems.append(f"exit status {run.returncode}, expected death by SIGABRT")
    elif run.returncode != args.exit_code:
        problems.append(f"exit status {run.returncode}, expected {args.exit_code}")
    for text in args.stderr_contains:
        if text not in run.stderr:
            problems.append(f"stderr does not contain {text!r}")
    for text in args.stdout_contains:
        if text not in run.stdout:
            problems.append(f"stdout does not contain {text!r}")
    if args.expected:
        if os.environ.get("STENCILC_UPDATE_EXPECTED") == "1":
            update_expected(args.expected, run.stdout)
        else:
            with open(args.expected) as f:
                expected, rtol, atol = parse_expected(f.read())
            problems += compare_lines(run.stdout.splitlines(), expected, rtol, atol)

    if problems:
        print(f"FAIL: {' '.join(command)}")
        for problem in problems:
            print(f"- {problem}")
        print(f"--- stdout ---\n{run.stdout}--- stderr ---\n{run.stderr}", end="")
        return 1
    print(f"ok: {' '.join(command)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
