#!/usr/bin/env bash
# Builds every GPU test of the p2p backend with nvcc and runs nothing: CI (no GPU) checks that the
# runtime's CUDA headers and the tests compile (warnings are errors). Where NVSHMEM and MPI are
# found (tests/gpu/nvshmem-flags.sh), also the NVSHMEM backend's tests, compiled and linked.
#   tests/gpu/compile-only.sh [build-dir]        (default build/gpu-tests)
#   NVCC=...            the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   STENCILC_GPU_JOBS   parallel compiles (default: the number of cores)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD="${1:-build/gpu-tests}"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
JOBS="${STENCILC_GPU_JOBS:-$(nproc)}"
TESTS=(ping_pong jacobi2d allreduce halo_check flow flow_reduce regs rounds rounds_shared timeout bench div_rn)
FLAGS=(-arch=sm_90 -std=c++17 -O2 -lineinfo -I runtime/include
       --Werror all-warnings -Xcompiler -Wall,-Wextra)
if [ ! -x "$NVCC" ]; then
  echo "compile-only: no nvcc found (set NVCC)" >&2
  exit 2
fi
mkdir -p "$BUILD"
NVSHMEM_COMPILE=() NVSHMEM_LINK=()
if flags=$(bash tests/gpu/nvshmem-flags.sh); then
  mapfile -t words <<< "$flags"
  target=compile
  for w in "${words[@]}"; do
    if [ "$w" = "--" ]; then target=link; elif [ "$target" = compile ]; then NVSHMEM_COMPILE+=("$w"); else NVSHMEM_LINK+=("$w"); fi
  done
  TESTS+=(nvshmem_team nvshmem_heap_bound)
else
  echo "compile-only: no NVSHMEM, skipping nvshmem_team and nvshmem_heap_bound"
fi
echo "compile-only: $("$NVCC" --version | grep -o 'release [0-9.]*'), ${#TESTS[@]} tests -> $BUILD"
compile() {
  local t="$1"
  rm -f "$BUILD/$t" "$BUILD/$t.status"
  local status=0
  if [[ "$t" == nvshmem_* ]]; then
    "$NVCC" "${FLAGS[@]}" -I include "${NVSHMEM_COMPILE[@]}" -o "$BUILD/$t" "tests/gpu/$t.cu" "${NVSHMEM_LINK[@]}" \
        > "$BUILD/$t.log" 2>&1 || status=$?
  else
    "$NVCC" "${FLAGS[@]}" -o "$BUILD/$t" "tests/gpu/$t.cu" > "$BUILD/$t.log" 2>&1 || status=$?
  fi
  echo "$status" > "$BUILD/$t.status"
}
running=0
for t in "${TESTS[@]}"; do
  compile "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=0
for t in "${TESTS[@]}"; do
  if [ "$(cat "$BUILD/$t.status" 2>/dev/null || echo 1)" = 0 ]; then
    echo "compiled $t"
  else
    echo "FAILED to compile $t:"
    cat "$BUILD/$t.log"
    failed=1
  fi
done
exit "$failed"
