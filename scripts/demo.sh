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

# On a machine with NVIDIA GPUs (and nvcc): the same source as one persistent kernel per GPU.
if command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') && [ "$gpus" -gt 0 ]; then
  echo
  echo "== stencilc --target=cuda samples/jacobi2d.cpp, run on $gpus GPU(s)"
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
  cuda_exe="$build/jacobi2d.cuda"
  "$build/tools/stencilc/stencilc" --target=cuda "$sample" -o "$cuda_exe"
  STENCILC_TIMING=1 "$cuda_exe" 256 256 500 --stencilc-pes="$gpus"
fi
