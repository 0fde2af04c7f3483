#!/usr/bin/env bash
# CI (no GPU): no loop of the cpu-free kernels polls with an acquire load (tests/codegen/
# sass_polls.py says why). jacobi2d's kernel holds the register-resident form's waits, the
# dataflow form's, the halo exchange's and the grid barrier; cg2d's the reductions'. Compiles the
# generated .cu for sm_90 and reads the SASS.
#   bash tests/codegen/sass-polls.sh STENCILC NVCC NVDISASM WORKDIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stencilc="$1" nvcc="$2" nvdisasm="$3" work="$4"
mkdir -p "$work"
fail=0
for sample in jacobi2d cg2d; do
  "$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$root/samples/$sample.cpp" -o "$work/$sample.cu"
  "$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    -cubin "$work/$sample.cu" -o "$work/$sample.cubin"
  "$nvdisasm" -c "$work/$sample.cubin" > "$work/$sample.sass"
  echo "$sample: $(python3 "$root/tests/codegen/sass_polls.py" "$work/$sample.sass" | tail -1)"
  python3 "$root/tests/codegen/sass_polls.py" "$work/$sample.sass" > /dev/null || fail=1
done
exit $fail
