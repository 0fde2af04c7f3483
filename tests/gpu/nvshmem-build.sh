#!/usr/bin/env bash
# Builds a program stencilc generated for the nvshmem backend (--backend=nvshmem --emit=cuda) from
# its .cu, as the driver does: the file's two units (docs/RUNTIME-CUDA.md, "Two units"), the one
# with NVSHMEM's device calls compiled with -rdc and STENCILC_NVSHMEM_DEVICE_UNIT, the program
# without -rdc, then linked with NVSHMEM and MPI (tests/gpu/nvshmem-flags.sh finds them; nvcc
# device-links the -rdc unit with NVSHMEM's device library). Objects beside EXE. A file generated
# before there were two units (a bench/run.sh BASELINE) is built as one, with -rdc.
#   NVCC=nvcc bash tests/gpu/nvshmem-build.sh EXE SRC [nvcc arguments for both units...]
set -euo pipefail
exe="$1" src="$2"
shift 2
nvcc="${NVCC:-nvcc}"
compile=() link=() part=compile
flags=$(bash "$(dirname "${BASH_SOURCE[0]}")/nvshmem-flags.sh")
while IFS= read -r w; do
  if [ "$w" = "--" ]; then
    part=link
  elif [ "$part" = link ]; then
    link+=("$w")
  elif [ "$w" != "-rdc=true" ]; then
    compile+=("$w")
  fi
done <<< "$flags"
# The link step takes the units' arguments but a source language (-x cu would apply to the objects).
linked=() skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  case "$a" in -x) skip=1 ;; -x*) ;; *) linked+=("$a") ;; esac
done
if ! grep -q STENCILC_NVSHMEM_DEVICE_UNIT "$src"; then
  exec "$nvcc" "$@" "${compile[@]}" -rdc=true "$src" "${link[@]}" -o "$exe"
fi
"$nvcc" "$@" "${compile[@]}" -rdc=true -DSTENCILC_NVSHMEM_DEVICE_UNIT -c "$src" -o "$exe.device.o"
"$nvcc" "$@" "${compile[@]}" -c "$src" -o "$exe.program.o"
"$nvcc" "${linked[@]}" "$exe.program.o" "$exe.device.o" "${link[@]}" -o "$exe"
