"""Fails where the product outgrows the sizes it keeps to (docs/STATUS.md, "Issue 32"):

- a C++ or CUDA source file of the compiler, the runtime or the tools over MAX_FILE_LINES lines;
- a function body over MAX_FUNCTION_LINES lines (from its `{` to its `}`; LONG_FUNCTIONS lists
  the one exception and why);
- README.md over MAX_README_LINES, docs/BENCHMARKS.md over MAX_BENCHMARKS_LINES lines;
- more than MAX_BUILD_SWITCHES build switches or MAX_ENV_VARS environment variables in
  docs/TUNING.md's table, a switch or variable the code reads that the table does not list, or a
  row of the table the code no longer reads.

Usage: sizes.py REPO_ROOT. `sizes.py --self-test` checks the function finder on small sources.
"""
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 900
MAX_FUNCTION_LINES = 100
MAX_README_LINES = 300
MAX_BENCHMARKS_LINES = 400
MAX_BUILD_SWITCHES = 15
MAX_ENV_VARS = 12

PRODUCT_DIRS = ("frontend", "ir", "passes", "codegen", "runtime", "tools", "include")
SOURCE = re.compile(r"\.(cpp|h|hpp|cuh|cu)$")
# Functions allowed past MAX_FUNCTION_LINES, each with its own limit and the measurement that
# keeps it whole.
LONG_FUNCTIONS = {
    # The register-resident form's step: split into its three phases (or only its update moved
    # out, __forceinline__ either way) ptxas allocates the kernel's registers differently
    # (jacobi2d 128 -> 127) and jacobi2d 1024^2 ran 2.50 -> 2.54-2.60 us a step (1 H200, session
    # 44, same runs, verified).
    ("runtime/include/stencilc/runtime/cuda/regs.cuh", "step"): 155,
}
# Macros the driver or the headers set for themselves: not a user's switch.
INTERNAL_MACROS = {
    "STENCILC_BACKEND_NVSHMEM",
    "STENCILC_BACKEND_P2P_SELECTED",
    "STENCILC_FRONTEND__",
    "STENCILC_NVSHMEM_DEVICE_UNIT",
}


def blank_out(text):
    """The text with comments, string and character literals and preprocessor lines replaced by
    spaces (newlines kept, so line numbers hold): what is left is the braces and parentheses
    that shape the code."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":  # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        raw = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            at_line_start = True
        i += 1
    return "".join(out)


CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof",
           "static_assert", "noexcept", "requires"}
# What may stand between a function's `)` and its body's `{`.
TRAILER = re.compile(
    r"\)\s*((const|noexcept|override|final|mutable|volatile|&&|&|__device__|__host__|"
    r"->\s*[\w:<>,\s\*&]+?)\s*)*$")


def functions(text):
    """(name, first line, body lines) of each function defined in `text` outside another
    function's body: a `{` after a parameter list's `)` (and its qualifiers, a trailing return
    type or a constructor's member initialisers) opens a body."""
    code = blank_out(text)
    found = []
    stack = []  # per open brace: True where it opens a function body or lies inside one
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            inside = bool(stack) and stack[-1][0]
            if inside:
                stack.append((True, None, line))
                continue
            name = function_name(code, i)
            stack.append((name is not None, name, line))
        elif c == "}" and stack:
            is_fn, name, start = stack.pop()
            if name is not None:
                found.append((name, start, line - start + 1))
    return found


def function_name(code, brace):
    """The name of the function whose body opens at `brace`, or None where the brace opens
    something else (a namespace, a class, an initialiser, an enum)."""
    head = code[max(0, brace - 2000):brace].rstrip()
    if re.search(r"\w$", head) and not TRAILER.search(head):
        return None  # `struct S {`, `namespace n {`, a member's `y_{...}` initialiser
    # A constructor's member initialisers: `) : a_(x), b_{y} {` -- skip back over them.
    init = re.search(r"\)\s*:\s*(?:[^;{}]|\{[^;{}]*\})*$", head)
    if init and not re.search(r"\?\s*[^;{}]*$", head):
        colon = head.rfind(":", init.start())
        cut = head[:init.start() + 1]
        # `::` is a scope, not the initialisers' colon.
        if head[colon - 1] != ":" and not head[colon + 1:colon + 2] == ":":
            head = cut
    while True:
        m = TRAILER.search(head)
        if not m:
            return None
        before = head[:matching_open(head, m.start())].rstrip()
        word = re.search(r"(~?[A-Za-z_][\w:~]*|operator\s*\S+)$", before)
        if not word:
            return None  # a lambda or a cast
        name = word.group(1)
        front = before[:word.start()].rstrip()
        if name == "decltype" and front.endswith("->"):  # a trailing `-> decltype(...)`
            head = front[:-2].rstrip()
            continue
        return None if name.split("::")[-1] in CONTROL else name


def matching_open(text, close):
    """The index of the `(` that the `)` at `close` closes (0 where none does)."""
    depth = 0
    for j in range(close, -1, -1):
        if text[j] == ")":
            depth += 1
        elif text[j] == "(":
            depth -= 1
            if depth == 0:
                return j
    return 0


def product_sources(root):
    """The compiler's, the runtime's and the tools' C++ and CUDA sources, relative to `root`: the
    files git tracks, or every file under PRODUCT_DIRS outside a git checkout."""
    try:
        files = subprocess.check_output(["git", "-C", root, "ls-files", *PRODUCT_DIRS], text=True,
                                        stderr=subprocess.DEVNULL).split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), root)
                 for top in PRODUCT_DIRS for d, _, names in os.walk(os.path.join(root, top))
                 for f in names]
    return sorted(f for f in files if SOURCE.search(f))


def tuning_rows(root):
    """(build switches, environment variables) the table of docs/TUNING.md lists."""
    switches, env = set(), set()
    with open(os.path.join(root, "docs", "TUNING.md"), encoding="utf-8") as fh:
        for row in fh:
            cells = [c.strip() for c in row.strip().strip("|").split("|")]
            if len(cells) < 3 or not cells[0].startswith("`STENCILC_"):
                continue
            names = re.findall(r"`(STENCILC_\w+|_\w+)`", cells[0])
            full = []
            for name in names:  # `STENCILC_STRIP_ROWS_2D`, `_3D`: the second shares the stem
                full.append(name if name.startswith("STENCILC_")
                            else full[0].rsplit("_", 1)[0] + name)
            (switches if cells[1].startswith("build") else env).update(full)
    return switches, env


def code_knobs(root, files):
    """(build switches, environment variables) the product's sources read."""
    switches, env = set(), set()
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        for m in re.finditer(r"^\s*#\s*(?:ifndef|ifdef|if|elif)\b(.*)$", text, re.M):
            switches.update(re.findall(r"\bSTENCILC_[A-Z0-9_]+\b", m.group(1)))
        env.update(re.findall(r"\w*env\w*\(\s*\"(STENCILC_[A-Z0-9_]+)\"", text))
    return switches - INTERNAL_MACROS, env


def check(root):
    problems = []
    files = product_sources(root)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            problems.append(f"{f}: {lines} lines (at most {MAX_FILE_LINES})")
        for name, start, length in functions(text):
            limit = LONG_FUNCTIONS.get((f, name), MAX_FUNCTION_LINES)
            if length > limit:
                problems.append(f"{f}:{start}: function {name}: {length} lines (at most {limit})")
    for doc, limit in (("README.md", MAX_README_LINES),
                       (os.path.join("docs", "BENCHMARKS.md"), MAX_BENCHMARKS_LINES)):
        with open(os.path.join(root, doc), encoding="utf-8") as fh:
            lines = sum(1 for _ in fh)
        if lines >= limit:
            problems.append(f"{doc}: {lines} lines (fewer than {limit})")
    doc_switches, doc_env = tuning_rows(root)
    code_switches, code_env = code_knobs(root, files)
    if len(doc_switches) > MAX_BUILD_SWITCHES:
        problems.append(f"docs/TUNING.md: {len(doc_switches)} build switches "
                        f"(at most {MAX_BUILD_SWITCHES})")
    if len(doc_env) > MAX_ENV_VARS:
        problems.append(f"docs/TUNING.md: {len(doc_env)} environment variables "
                        f"(at most {MAX_ENV_VARS})")
    for name in sorted(code_switches - doc_switches):
        problems.append(f"build switch {name}: read by the code, not in docs/TUNING.md")
    for name in sorted(doc_switches - code_switches):
        problems.append(f"build switch {name}: in docs/TUNING.md, read by no code")
    for name in sorted(code_env - doc_env):
        problems.append(f"environment variable {name}: read by the code, not in docs/TUNING.md")
    for name in sorted(doc_env - code_env):
        problems.append(f"environment variable {name}: in docs/TUNING.md, read by no code")
    for p in problems:
        print(p)
    print(f"{len(files)} product sources; {len(doc_switches)} build switches, "
          f"{len(doc_env)} environment variables; {len(problems)} problem(s)")
    return 1 if problems else 0


def self_test():
    src = '''
namespace a {
struct S {
  S(int x) : x_(x), y_{x} {
    if (x) { x_ = 1; }
  }
  int f() const { return [] (int v) { return v; }(x_); }
  int x_, y_;
};
template <class T>
auto g(T t) -> decltype(t) {
  const char* s = "}{";  // }
  for (int i = 0; i < 2; ++i) {
    t = t;
  }
  return t;
}
int table[] = {1, 2};
}  // namespace a
#define M(x) { x }
static const char* r = R"cu(int k() {
})cu";
int h(int v)
{
  return v > 0 ? v : 0;
}
'''
    got = [(n, s, l) for n, s, l in functions(src)]
    want = [("S", 4, 3), ("f", 7, 1), ("g", 11, 7), ("h", 24, 3)]
    if got != want:
        print(f"self-test: functions() found {got}, expected {want}")
        return 1
    long_fn = "void big() {\n" + "  x();\n" * (MAX_FUNCTION_LINES) + "}\n"
    if functions(long_fn) != [("big", 1, MAX_FUNCTION_LINES + 2)]:
        print(f"self-test: a long function not measured: {functions(long_fn)}")
        return 1
    print("self-test passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    sys.exit(check(os.path.abspath(sys.argv[1])))
