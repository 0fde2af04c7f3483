#!/usr/bin/env bash
# Configures and builds stencilc into build/ (incremental: reruns only what changed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${STENCILC_BUILD_DIR:-$root/build}"
jobs="${STENCILC_JOBS:-$(nproc)}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" -j "$jobs"
