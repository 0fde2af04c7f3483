#!/usr/bin/env bash
# On a GPU machine: the nvshmem backend with more PEs than GPUs, several processes a GPU, under
# CUDA MPS. NVSHMEM 3.x runs several PEs on one GPU ("multiple PEs per GPU", MPG) in full only
# when MPS runs and the PEs of a GPU ask for at most 100% of its threads together
# (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE); without MPS the processes' kernels on one GPU take turns,
# and persistent kernels that wait for each other cannot run that way. The script starts a private
# MPS daemon (pipe and log directories under $OUT, else /tmp), gives each client 100/k % of its
# GPU (k processes a GPU), runs nvshmem_team under mpirun -np P (tests/gpu/mpi_gpu.sh binds rank r
# to GPU r mod the GPUs) and the nvshmem variants (both schedules) of tests/gpu/run_generated.sh with
# NVSHMEM_PES=P, each persistent kernel at most STENCILC_MAX_BLOCKS=16 blocks (k of them fit a
# GPU at once); then it stops the daemon. Prints PASS/FAIL lines and `N passed, M failed` last.
#   bash tests/gpu/nvshmem-mpg.sh <generated-dir> [P]     (P: default twice the GPUs, at least 9)
#   SAMPLES="jacobi2d heat3d" picks run_generated.sh's samples (default: jacobi2d heat3d box27 spmd_heat2d)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:?usage: nvshmem-mpg.sh <generated-dir> [P]}"
source "$root/tests/gpu/common.sh"  # nvcc, gpus; fails without a GPU
pes="${2:-$(( 2 * gpus > 9 ? 2 * gpus : 9 ))}"
per_gpu=$(( (pes + gpus - 1) / gpus ))
build="${OUT:-/tmp}/nvshmem-mpg"
mkdir -p "$build"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export CUDA_MPS_PIPE_DIRECTORY="$build/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$build/mps-log"
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
passed=0 failed=0
echo "nvshmem with $pes PEs on $gpus GPU(s): $per_gpu a GPU, each with $((100 / per_gpu))% of its threads (MPS)"
if ! nvidia-cuda-mps-control -d; then
  echo "FAIL the MPS control daemon did not start (nvidia-cuda-mps-control -d)"
  echo "0 passed, 1 failed"
  exit 1
fi
trap 'echo quit | nvidia-cuda-mps-control' EXIT
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / per_gpu))
if mapfile -t words < <(bash "$root/tests/gpu/nvshmem-flags.sh") && [ "${#words[@]}" -gt 0 ]; then
  comp=() link=() part=compile
  for w in "${words[@]}"; do
    if [ "$w" = "--" ]; then part=link; elif [ "$part" = compile ]; then comp+=("$w"); else link+=("$w"); fi
  done
  "$nvcc" -arch=sm_90 -std=c++17 -O2 -I "$root/runtime/include" -I "$root/include" "${comp[@]}" \
    -o "$build/nvshmem_team" "$root/tests/gpu/nvshmem_team.cu" "${link[@]}" 2> "$build/nvshmem_team.nvcc.log"
fi
if [ -x "$build/nvshmem_team" ] &&
   timeout 120 mpirun -np "$pes" --oversubscribe --bind-to none bash "$root/tests/gpu/mpi_gpu.sh" \
     "$build/nvshmem_team" > "$build/nvshmem_team.log" 2>&1 && grep -q '^PASS' "$build/nvshmem_team.log"; then
  echo "PASS nvshmem_team -np $pes"; passed=$((passed + 1))
else
  echo "FAIL nvshmem_team -np $pes"; tail -n 20 "$build/nvshmem_team.log" "$build/nvshmem_team.nvcc.log" 2>/dev/null
  failed=$((failed + 1))
fi
OUT="$build" VARIANTS="nvshmem host-controlled-nvshmem" NVSHMEM_PES="$pes" STENCILC_MAX_BLOCKS=16 \
  SAMPLES="${SAMPLES:-jacobi2d heat3d box27 spmd_heat2d}" bash "$root/tests/gpu/run_generated.sh" "$gen" \
  > "$build/run_generated.log" 2>&1
grep -E "^(  \[|FAIL|built)" "$build/run_generated.log"
p=$(tail -1 "$build/run_generated.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(tail -1 "$build/run_generated.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
