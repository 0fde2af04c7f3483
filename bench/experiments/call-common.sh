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
counts=1; [ "$gpus" -ge 2 ] && counts=1,2  # the GPU counts to run on
# The GPUs as the call finds them (clocks and temperature: a call's timings are read against them).
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>/dev/null || true

# verify_generated GEN VARIANTS UNTIL: tests/gpu/run_generated.sh's VARIANTS on every sample in
# GEN, on $counts GPUs (nvshmem: as many processes; 2 on one GPU are refused by design, status 2),
# until UNTIL seconds from the call's start: a line of counts, the failures, its last lines (full
# output in $out/rg.txt).
verify_generated() {
  OUT="$out/rg" VARIANTS="$2" PES="$counts" NVSHMEM_PES="$counts" timeout "$(budget "$3")" bash "$root/tests/gpu/run_generated.sh" "$1" \
    > "$out/rg.txt" 2>&1
  echo "run_generated rc=$?: $(grep -c '\] ok' "$out/rg.txt") ok, $(grep -c 'FAIL' "$out/rg.txt") FAIL"
  grep -E "FAIL|on-chip form does not run" "$out/rg.txt" | head -20
  tail -2 "$out/rg.txt"
  rm -rf "$out/rg"
}
