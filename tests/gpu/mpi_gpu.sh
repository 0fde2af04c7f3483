#!/usr/bin/env bash
# Under mpirun: runs the command given; when more processes run on this node than it has GPUs,
# with CUDA_VISIBLE_DEVICES set to one GPU, its node-local rank mod the GPUs (of
# CUDA_VISIBLE_DEVICES where that is set), so that several processes share each GPU (the nvshmem
# backend takes a process's one visible GPU as its own). Otherwise the command runs as it is.
set -euo pipefail
local_rank="${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}"
local_size="${OMPI_COMM_WORLD_LOCAL_SIZE:-${MPI_LOCALNRANKS:-1}}"
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a gpus <<< "$CUDA_VISIBLE_DEVICES"
else
  mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null || true)
fi
if [ "${#gpus[@]}" -ge 1 ] && [ "$local_size" -gt "${#gpus[@]}" ]; then
  export CUDA_VISIBLE_DEVICES="${gpus[$((local_rank % ${#gpus[@]}))]// /}"
fi
exec "$@"
