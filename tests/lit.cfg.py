# lit configuration for the FileCheck tests (front end -> IR, passes, diagnostics).
import os
import sys

import lit.formats

config.name = "stencilc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".ir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.stencilc_build_root, "tests")
# Inputs of lit tests. tests/ir and tests/samples hold ctest programs; their lit.local.cfg files
# turn discovery off there.
config.excludes = ["Inputs", "CMakeLists.txt"]

config.substitutions.append(("%stencilc-opt", os.path.join(config.stencilc_tools_dir, "stencilc-opt", "stencilc-opt")))
config.substitutions.append(("%stencilc", os.path.join(config.stencilc_tools_dir, "stencilc", "stencilc")))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%samples", os.path.join(config.stencilc_src_root, "samples")))
config.substitutions.append(("%reference", os.path.join(config.stencilc_build_root, "tests", "samples")))
# The host C++ compiler, for reference builds of test inputs.
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%include", os.path.join(config.stencilc_src_root, "include")))
