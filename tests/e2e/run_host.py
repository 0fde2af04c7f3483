"""The end-to-end check of tests/e2e is stencilc-compare (tools/stencilc-compare/, installed as
bin/stencilc-compare); this path stays for the scripts that name it."""
import os
import runpy
import sys

tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "stencilc-compare",
                    "stencilc-compare.py")
sys.argv[0] = tool
runpy.run_path(tool, run_name="__main__")
