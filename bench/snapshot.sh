#!/usr/bin/env bash
# The baseline of a same-run comparison (bench/run.sh's BASELINE=DIR), made where stencilc is,
# before a change to the compiler or the runtime: every benchmark program's generated CUDA
# (bench/generate.sh) in DIR/gen, and the headers that code includes (include/, runtime/include/)
# as they are now. Then make the change, bench/generate.sh its own CUDA, and on the GPU machine:
#   BASELINE=DIR bash bench/run.sh bench-gen
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bench/snapshot.sh DIR}"
bash "$root/bench/generate.sh" "$out/gen"
mkdir -p "$out/runtime"
rm -rf "$out/include" "$out/runtime/include"
cp -r "$root/include" "$out/include"
cp -r "$root/runtime/include" "$out/runtime/include"
echo "baseline in $out: $(ls "$out/gen" | wc -l) generated files and the headers"
