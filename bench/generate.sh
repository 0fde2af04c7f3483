#!/usr/bin/env bash
# On a machine with stencilc: writes the CUDA of every benchmark program (bench/programs/) for both
# schedules, for --schedule=auto (the default: the schedule chosen at run time) and both schedules
# on the nvshmem backend, into $1 (default bench-gen/), for
# bench/run.sh to build, check and time on a GPU machine (which has no LLVM, so stencilc cannot run
# there).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/bench-gen}"
stencilc="${STENCILC:-$root/build/tools/stencilc/stencilc}"
mkdir -p "$out"
for src in "$root"/bench/programs/*.cpp; do
  name=$(basename "$src" .cpp)
  "$stencilc" --target=cuda --schedule=cpu-free --emit=cuda "$src" -o "$out/$name.cpu-free.cu"
  "$stencilc" --target=cuda --schedule=host-controlled --emit=cuda "$src" -o "$out/$name.host-controlled.cu"
  "$stencilc" --target=cuda --emit=cuda "$src" -o "$out/$name.auto.cu"
  "$stencilc" --target=cuda --schedule=cpu-free --backend=nvshmem --emit=cuda "$src" -o "$out/$name.nvshmem.cu"
  "$stencilc" --target=cuda --schedule=host-controlled --backend=nvshmem --emit=cuda "$src" \
    -o "$out/$name.host-controlled-nvshmem.cu"
done
echo "generated $(ls "$out"/*.cu | wc -l) files in $out"
