#!/usr/bin/env bash
# Installs what stencilc needs to build and test on Debian 12 (bookworm), if it is missing.
# Needs root or sudo. Safe to run again: it installs nothing when everything is there.
set -euo pipefail

packages=(cmake g++ make python3 git
          llvm-19-dev libclang-19-dev clang-19 llvm-19-tools
          libfmt-dev libgtest-dev libopenmpi-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "stencilc: installing ${missing[*]}" >&2
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
