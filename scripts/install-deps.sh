#!/usr/bin/env bash
# Installs what stencilc needs to build and test on Debian 12 (bookworm), if it is missing.
# Needs root or sudo. Safe to run again: it installs nothing when everything is there.
#
# Also NVSHMEM for the CUDA target's nvshmem backend: the nvidia-nvshmem-cu13 wheel, pinned, with
# python3's pip (python3-pip from apt when pip is missing). Debian's Python is "externally
# managed" (PEP 668); the wheel holds only NVSHMEM's headers and libraries (no Python code, no
# dependencies), so it is installed next to Debian's packages with PIP_BREAK_SYSTEM_PACKAGES=1
# (as root: the system's site-packages; otherwise: the user's, --user). stencilc and its CMake
# functions find it through `python3 -c 'import nvidia.nvshmem'`. STENCILC_SKIP_NVSHMEM=1 skips it.
# Where nvcc is installed, also nvdisasm (the nvidia-cuda-nvdisasm wheel, pinned; the CUDA toolkit
# here has none): the test cuda.sass.wide_items reads the generated kernels' SASS with it.
# STENCILC_SKIP_NVDISASM=1 skips it.
set -euo pipefail

nvshmem_wheel="nvidia-nvshmem-cu13==3.4.5"
nvdisasm_wheel="nvidia-cuda-nvdisasm==13.2.51"

packages=(cmake g++ make python3 git
          llvm-19-dev libclang-19-dev clang-19 llvm-19-tools
          libgtest-dev libopenmpi-dev)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# Whether python3 has the wheel NAME==VERSION.
have_wheel() {
  command -v python3 > /dev/null && python3 - "$1" <<'PY' 2>/dev/null
import importlib.metadata, sys
name, version = sys.argv[1].split("==")
sys.exit(0 if importlib.metadata.version(name) == version else 1)
PY
}
wheels=()
if [ "${STENCILC_SKIP_NVSHMEM:-0}" != 1 ] && ! have_wheel "$nvshmem_wheel"; then wheels+=("$nvshmem_wheel"); fi
if [ "${STENCILC_SKIP_NVDISASM:-0}" != 1 ] && { command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } &&
   ! have_wheel "$nvdisasm_wheel"; then
  wheels+=("$nvdisasm_wheel")
fi
if [ ${#wheels[@]} -gt 0 ] && ! python3 -m pip --version > /dev/null 2>&1; then packages+=(python3-pip); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "stencilc: installing ${missing[*]}" >&2
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ${#wheels[@]} -gt 0 ]; then
  echo "stencilc: installing ${wheels[*]} (NVSHMEM for --backend=nvshmem; nvdisasm for the SASS test)" >&2
  user=()
  if [ "$(id -u)" -ne 0 ]; then user=(--user); fi
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check --no-warn-script-location \
      "${user[@]}" "${wheels[@]}"
fi
