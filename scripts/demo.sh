#!/usr/bin/env bash
# Installs what is missing, builds stencilc, and runs the demo: the Jacobi sample built by the
# host C++ compiler (the reference semantics), then the same source through stencilc's front end.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${STENCILC_BUILD_DIR:-$root/build}"
sample="$root/samples/jacobi2d.cpp"

echo "== reference build of samples/jacobi2d.cpp (serial CPU), 256x256, 500 iterations"
"$build/tests/samples/ref_jacobi2d" 256 256 500

echo
echo "== stencilc --emit=ir samples/jacobi2d.cpp"
"$build/tools/stencilc/stencilc" --emit=ir "$sample"

echo
echo "== stencilc --target=host samples/jacobi2d.cpp, run on 1 and 4 PEs (threads)"
exe="$build/jacobi2d.host"
"$build/tools/stencilc/stencilc" --target=host "$sample" -o "$exe"
"$exe" 256 256 500 --stencilc-pes=1
"$exe" 256 256 500 --stencilc-pes=4
