#!/usr/bin/env bash
# CI (no GPU): the host-controlled schedule's generated kernels run on the host, thread by thread
# (harness.cuh), for jacobi2d, heat3d and fused_sweeps: every point of a range computed exactly
# once with the statement's value, nothing else written, faces stored through, reductions over
# every point once. The harnesses call the kernels by their generated names (sc_jacobi::foreach_0,
# ...) with the arguments the launcher passes: a change to either shows up here as a build error.
#   bash tests/codegen/hc_emulation/run.sh STENCILC NVCC WORKDIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
stencilc="$1" nvcc="$2" work="$3"
mkdir -p "$work"
"$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$root/samples/jacobi2d.cpp" -o "$work/jacobi2d.cu"
python3 "$here/extract.py" "$work/jacobi2d.cu" sc_jacobi "$work/jacobi2d.inc"
"$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$root/samples/heat3d.cpp" -o "$work/heat3d.cu"
python3 "$here/extract.py" "$work/heat3d.cu" sc_heat "$work/heat3d.inc"
"$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$root/tests/e2e/inputs/fused_sweeps.cpp" -o "$work/fused_sweeps.cu"
python3 "$here/extract.py" "$work/fused_sweeps.cu" sc_sweeps2d "$work/sweeps2d.inc"
python3 "$here/extract.py" "$work/fused_sweeps.cu" sc_sweeps1d "$work/sweeps1d.inc"
fail=0
for test in jacobi2d heat3d fused_sweeps; do
  "$nvcc" -std=c++17 -O1 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$work" -I "$here" \
    -I "$root/runtime/include" -I "$root/include" "$here/$test.cu" -o "$work/$test.emulated"
  echo "== $test"
  "$work/$test.emulated" || fail=1
done
exit $fail
