#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (ctest) but the checks that need
# GPUs (label gpu: `ctest --test-dir build -L gpu` on a GPU machine, docs/GPU-VERIFICATION.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${STENCILC_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --label-exclude gpu --output-on-failure -j "${STENCILC_JOBS:-$(nproc)}"
