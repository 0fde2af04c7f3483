# Sourced by the one-call device scripts (reduce-check.sh, flow-check.sh): the environment every
# GPU run here keeps, the repository root, the stage clock, and the GPUs visible.
#   out=<results folder> . "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$out" || exit 1
t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }  # seconds left of a budget counted from the start
budget() { local t; t=$(left "$1"); [ "$t" -gt 20 ] && echo "$t" || echo 20; }  # the same, at least 20 s (a timeout)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
