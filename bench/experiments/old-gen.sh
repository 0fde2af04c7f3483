#!/usr/bin/env bash
# Another version's generated CUDA and runtime headers beside this checkout's, for ab.py's
# --gen-of and --headers-of (the two versions timed side by side in one device call, so a change
# between sessions is told from the run-to-run and machine-to-machine spread). Runs here (it
# needs LLVM): builds stencilc at REV in a temporary worktree (~3 minutes on 2 cores) and writes
# DIR/gen (bench/generate.sh's output), DIR/include and DIR/runtime/include. DIR under the
# repository and ignored (bench-gen-*) travels to the device machine with `carry`.
#   bash bench/experiments/old-gen.sh 5556b2a bench-gen-old
#   (device) python3 bench/experiments/ab.py --gen bench-gen --case heat3d:512 --variant now= \
#       --variant old= --gen-of old=bench-gen-old/gen --headers-of old=bench-gen-old
set -euo pipefail
rev="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tree="$(mktemp -d)/src"
git -C "$root" worktree add -f --detach "$tree" "$rev" > /dev/null
trap 'git -C "$root" worktree remove --force "$tree"' EXIT
cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$tree/build" -j "${STENCILC_JOBS:-$(nproc)}" --target stencilc > /dev/null
rm -rf "$dir/gen" "$dir/include" "$dir/runtime"
STENCILC="$tree/build/tools/stencilc/stencilc" bash "$tree/bench/generate.sh" "$dir/gen"
cp -r "$tree/include" "$dir/include"
mkdir -p "$dir/runtime" && cp -r "$tree/runtime/include" "$dir/runtime/include"
echo "$rev ($(git -C "$root" rev-parse --short "$rev")): $dir/gen, $dir/include, $dir/runtime/include"
