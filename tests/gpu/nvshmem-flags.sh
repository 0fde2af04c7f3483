#!/usr/bin/env bash
# Prints the nvcc arguments that build a program against the NVSHMEM backend, one per line:
# relocatable device code, NVSHMEM's and MPI's headers, then (after a line `--`) the libraries:
# libnvshmem_device.a, libnvshmem_host.so.3 by full path with an rpath to its directory, MPI.
# NVSHMEM is looked for in NVSHMEM_HOME, the nvidia-nvshmem-cu13 wheel of python3 (or of
# $STENCILC_PYTHON), then /opt/torch/.venv (the GPU machines), /usr/local/nvshmem,
# /opt/nvidia/nvshmem. MPI flags come from `mpicc --showme` (Open MPI). Exits 1 with a message
# on stderr when either is missing.
#   mapfile -t f < <(tests/gpu/nvshmem-flags.sh); split at "--" into compile and link arguments.
set -euo pipefail
candidates=()
if [ -n "${NVSHMEM_HOME:-}" ]; then
  candidates+=("$NVSHMEM_HOME")
else
  for py in "${STENCILC_PYTHON:-}" python3 /opt/torch/.venv/bin/python; do
    [ -n "$py" ] && command -v "$py" > /dev/null 2>&1 || continue
    dir=$("$py" -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null) || continue
    candidates+=("$dir")
  done
  for dir in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem /usr/local/nvshmem /opt/nvidia/nvshmem; do
    [ -d "$dir" ] && candidates+=("$dir")
  done
fi
home=""
for dir in "${candidates[@]}"; do
  if [ -f "$dir/include/nvshmem.h" ] && [ -f "$dir/lib/libnvshmem_device.a" ] &&
     { [ -e "$dir/lib/libnvshmem_host.so" ] || [ -e "$dir/lib/libnvshmem_host.so.3" ]; }; then
    home="$dir"
    break
  fi
done
if [ -z "$home" ]; then
  echo "nvshmem-flags: no NVSHMEM (looked in: ${candidates[*]:-nothing}); pip install nvidia-nvshmem-cu13==3.4.5 or set NVSHMEM_HOME" >&2
  exit 1
fi
host="$home/lib/libnvshmem_host.so"
[ -e "$host" ] || host="$home/lib/libnvshmem_host.so.3"
mpicc="${MPICC:-mpicc}"
if ! command -v "$mpicc" > /dev/null 2>&1 && [ -z "${MPICC:-}" ]; then mpicc=mpicxx; fi
if ! mpi_compile=$("$mpicc" --showme:compile 2>/dev/null) || ! mpi_link=$("$mpicc" --showme:link 2>/dev/null); then
  echo "nvshmem-flags: no Open MPI compiler wrapper '$mpicc' (set MPICC; Debian: apt-get install libopenmpi-dev)" >&2
  exit 1
fi
translate() {  # compiler-driver words -> nvcc words
  for w in "$@"; do
    case "$w" in
      -I*|-L*|-l*|-D*) echo "$w" ;;
      -Wl,*) echo "-Xlinker=${w#-Wl,}" ;;
      *) echo "-Xcompiler=$w" ;;
    esac
  done
}
echo "-rdc=true"
echo "-I$home/include"
# shellcheck disable=SC2086
translate $mpi_compile
echo "--"
echo "-L$home/lib"
echo "-lnvshmem_device"
echo "-Xlinker=$host"
echo "-Xlinker=-rpath,$home/lib"
# shellcheck disable=SC2086
translate $mpi_link
