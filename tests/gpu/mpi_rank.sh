#!/usr/bin/env bash
# Under mpirun (tests/e2e/run_host.py --launcher): runs one process of a program with its own dump
# directory ($STENCILC_RANK_DIR/rank<r>/, Grid::copy_to dumps) and stdout ($STENCILC_RANK_DIR/rank<r>.stdout),
# so that every process's result can be checked against the reference. When more processes run on
# the node than it has GPUs (tests/gpu/nvshmem-mpg.sh, under CUDA MPS), each sees one GPU (its
# node-local rank mod the GPUs), which the nvshmem backend then takes as its own.
set -euo pipefail
r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}"
mkdir -p "$STENCILC_RANK_DIR/rank$r"
STENCILC_DUMP_DIR="$STENCILC_RANK_DIR/rank$r" exec bash "$(dirname "${BASH_SOURCE[0]}")/mpi_gpu.sh" "$@" \
  > "$STENCILC_RANK_DIR/rank$r.stdout"
