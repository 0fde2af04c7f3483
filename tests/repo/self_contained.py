"""Fails when a file of the repository names a path beside it (a sibling folder such as the
project's steering notes): a user's clone has nothing beside it, so the build, the tests and the
docs may read only what the repository holds."""
import os
import re
import sys

SKIP_DIRS = {".git", "build", "bench-gen", "gpu-gen"}
# A relative path that climbs out of the repository's root into a named sibling folder.
OUTSIDE = re.compile(r"\.\./(shared|steering)\b")


def main():
    root = os.path.abspath(sys.argv[1])
    me = os.path.abspath(__file__)
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        for f in files:
            path = os.path.join(d, f)
            if path == me:
                continue
            try:
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if OUTSIDE.search(line):
                            found.append(f"{os.path.relpath(path, root)}:{n}: {line.strip()}")
            except (UnicodeDecodeError, OSError):
                continue
    for f in found:
        print(f)
    print(f"{len(found)} reference(s) to paths outside the repository")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
