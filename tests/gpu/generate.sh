#!/usr/bin/env bash
# On a machine with stencilc: writes each sample's generated CUDA into $1 (default gpu-gen/) for
# tests/gpu/run_generated.sh to build and check on a GPU machine: <name>.cu (the cpu-free
# schedule, p2p backend), <name>.hc.cu (the host-controlled schedule; global-view samples only;
# <name>.hc-nvshmem.cu: on the nvshmem backend),
# <name>.auto.cu (--schedule=auto, the default: both schedules where the host-controlled one can
# win, chosen at run time) and <name>.nvshmem.cu (the default on the nvshmem backend: the same
# choice there); and regs_contract.cu
# (tests/gpu/inputs/regs_contract.cpp) for tests/gpu/regs-contract.sh. Besides the samples, the
# test programs tests/e2e/inputs/user_names.cpp (programs named like library names: barrier, put,
# grid, team, launch, cg), parameter_names.cpp (parameters named like the generated code's own),
# point_batches.cpp (deferred and batched point loops), float_division.cpp (float divisions over
# subnormal tails), fused_sweeps.cpp (fuse-sweeps' sweeps,
# versioned ones with equal and different interiors) and several_walks.cpp (steps of several
# walks in 3-D and 1-D, a reduction read in the loop) run as samples do.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/gpu-gen}"
stencilc="${STENCILC:-$root/build/tools/stencilc/stencilc}"
mkdir -p "$out"
for name in jacobi2d heat3d wave2d poisson9 advect2d multiwrite2d fdtd2d box27 convergence2d jacobi1d cg2d spmd_ring spmd_heat2d user_names parameter_names point_batches float_division fused_sweeps several_walks; do
  src="$root/samples/$name.cpp"
  [ -f "$src" ] || src="$root/tests/e2e/inputs/$name.cpp"
  "$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$src" -o "$out/$name.cu"
  "$stencilc" --target=cuda --emit=cuda "$src" -o "$out/$name.auto.cu"
  if [[ "$name" != spmd_* ]]; then  # the host-controlled schedule takes global-view programs only
    "$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$src" -o "$out/$name.hc.cu"
    "$stencilc" --target=cuda --schedule=host-controlled --backend=nvshmem --emit=cuda "$src" -o "$out/$name.hc-nvshmem.cu"
  fi
  "$stencilc" --target=cuda --backend=nvshmem --emit=cuda "$src" -o "$out/$name.nvshmem.cu"
done
# Inputs of the GPU-only checks: tests/gpu/regs-contract.sh.
"$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$root/tests/gpu/inputs/regs_contract.cpp" -o "$out/regs_contract.cu"
# ... and tests/gpu/runtime-checks.sh.
"$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$root/tests/codegen/host-runtime-checks.cpp" -o "$out/runtime_checks.cu"
"$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$root/tests/codegen/host-runtime-checks.cpp" \
  -o "$out/runtime_checks.hc.cu"
echo "generated $(ls "$out"/*.cu | wc -l) files in $out"
