#!/usr/bin/env bash
# Builds (compile-only.sh) and runs the GPU tests of the p2p backend on the GPUs of this machine:
# every test on 1 GPU, and on 2, 3 and 4 where there are that many; then the NVSHMEM backend's
# test under mpirun -np 1 to 4 (as many as GPUs), its timeout report, and too many processes for
# the GPUs and processes sharing a GPU without MPS. SHARE_PES=4: the p2p tests on 1 to 4 PEs even
# with fewer GPUs (several PEs a GPU); and always some p2p tests on 9, 16 and 40 PEs that way.
# Prints one PASS/FAIL line per case, the timings, and last "N passed, M failed"; exits non-zero
# if anything failed.
#   bash tests/gpu/run.sh [build-dir]      (logs also under $OUT when it is set)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# NVLink multicast stays off on shared machines (see the device notes); nothing here uses it.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
BUILD="${1:-build/gpu-tests}"
LOGDIR="${OUT:-$BUILD}"
mkdir -p "$BUILD" "$LOGDIR"
LOG="$LOGDIR/gpu-tests.log"
: > "$LOG"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*" | tee -a "$LOG"; }
fail() { failed=$((failed + 1)); echo "FAIL $*" | tee -a "$LOG"; }

echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)" | tee -a "$LOG"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi -L 2>&1 | tee -a "$LOG"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$LOG"
  nvidia-smi topo -m 2>&1 | head -n 6 | tee -a "$LOG"
  ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
else
  ngpus=0
fi
echo "GPUs: $ngpus" | tee -a "$LOG"

t0=$(date +%s)
if bash tests/gpu/compile-only.sh "$BUILD" >> "$LOG" 2>&1; then
  pass "build ($(($(date +%s) - t0)) s)"
else
  fail "build"
  tail -n 40 "$LOG"
  echo "$passed passed, $failed failed"
  exit 1
fi
if [ "$ngpus" -lt 1 ]; then
  fail "no GPU visible"
  echo "$passed passed, $failed failed"
  exit 1
fi
pes_list=(1)
[ "$ngpus" -ge 2 ] && pes_list+=(2)
[ "$ngpus" -ge 3 ] && pes_list+=(3)
[ "$ngpus" -ge 4 ] && pes_list+=(4)
# SHARE_PES=P (P > the visible GPUs): the p2p tests run on 1..P PEs in the p2p team's shared-GPU
# test mode (STENCILC_P2P_SHARE_GPUS=1: several PEs on one GPU, each with its share of the SMs),
# which checks the multi-PE paths on a machine with fewer GPUs. Timings (bench) stay on real GPUs.
p2p_list=("${pes_list[@]}")
if [ "${SHARE_PES:-0}" -gt "$ngpus" ]; then
  mapfile -t p2p_list < <(seq 1 "$SHARE_PES")
  export STENCILC_P2P_SHARE_GPUS=1
  echo "p2p tests on 1..$SHARE_PES PEs over $ngpus GPU(s) (STENCILC_P2P_SHARE_GPUS=1)" | tee -a "$LOG"
fi

# A test program that prints its own PASS/FAIL line: status 0 passes.
run_test() {
  local name="$1"; shift
  local out="$BUILD/$name.out" start end status
  start=$(date +%s.%N)
  timeout 90 "$@" > "$out" 2>&1
  status=$?
  end=$(date +%s.%N)
  cat "$out" >> "$LOG"
  grep -E '^  (timing|perf)' "$out"
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  if [ "$status" -eq 0 ] && grep -q '^PASS' "$out"; then
    pass "$name (${secs} s)"
  else
    grep -E 'check failed|FAIL|error' "$out" | head -n 12
    fail "$name (status $status, ${secs} s)"
  fi
}

# A run that must fail: expected status, every pattern in stderr, and within `limit` seconds.
run_failure() {
  local name="$1" expect_status="$2" limit="$3"; shift 3
  local patterns=()
  while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  local out="$BUILD/$name.err" start end status ok=1
  start=$(date +%s.%N)
  STENCILC_WAIT_TIMEOUT_MS=500 timeout 30 "$@" > "$out" 2>&1
  status=$?
  end=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  { echo "-- $name: status $status, $secs s"; cat "$out"; } >> "$LOG"
  sed "s/^/    | /" "$out" | cut -c1-400 | head -n 4
  [ "$status" -eq "$expect_status" ] || ok=0
  for p in "${patterns[@]}"; do grep -qF -- "$p" "$out" || { echo "    missing: $p"; ok=0; }; done
  awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s < l) }' || { echo "    too slow: $secs s"; ok=0; }
  if [ "$ok" = 1 ]; then
    pass "$name (status $status in ${secs} s)"
  else
    fail "$name (status $status in ${secs} s, expected $expect_status within $limit s)"
  fi
}

run_test "div_rn" "$BUILD/div_rn"  # the generated code's float division against __fdiv_rn
for n in "${p2p_list[@]}"; do
  [ "$n" -le 2 ] && run_test "ping_pong --pes=$n" "$BUILD/ping_pong" --pes="$n"  # a pair (or one PE) by design
  run_test "allreduce --pes=$n" "$BUILD/allreduce" --pes="$n"
  run_test "halo_check --pes=$n" "$BUILD/halo_check" --pes="$n"
  # Its timings only on a GPU of its own (not with PEs sharing one).
  run_test "jacobi2d --pes=$n" "$BUILD/jacobi2d" --pes="$n" --perf="$([ "$n" -le "$ngpus" ] && echo 1 || echo 0)"
  run_test "flow --pes=$n" "$BUILD/flow" --pes="$n"
  run_test "flow_reduce --pes=$n" "$BUILD/flow_reduce" --pes="$n"
  run_test "regs --pes=$n" "$BUILD/regs" --pes="$n"
  run_test "rounds --pes=$n" "$BUILD/rounds" --pes="$n"
  run_test "rounds_shared --pes=$n" "$BUILD/rounds_shared" --pes="$n"
done
for n in "${p2p_list[@]}"; do
  last=$((n - 1))
  run_failure "timeout missing signal --pes=$n" 3 10 \
    "PE 0 of $n waited" "for a signal that nobody sends: signal is 0, waiting for >= 1" \
    "giving up after STENCILC_WAIT_TIMEOUT_MS=500 ms" -- \
    "$BUILD/timeout" --pes="$n" --mode=missing
  run_failure "timeout missing halo --pes=$n" 3 10 \
    "for the halo of grid 'u' from PE $last" "waiting for >= 2" \
    "giving up after STENCILC_WAIT_TIMEOUT_MS=500 ms" -- \
    "$BUILD/timeout" --pes="$n" --mode=halo
  # The blocks that wait for the stalled one (block 1 of PE $last; the last block of the PE
  # before, or of PE 0 itself on one PE, through the periodic edge), then those behind them,
  # time out within microseconds of each other: any of them may be the one a PE reports.
  run_failure "timeout dataflow stall --pes=$n" 3 10 \
    "PE $last of $n waited" "for dataflow step " " to finish it" \
    "giving up after STENCILC_WAIT_TIMEOUT_MS=500 ms" -- \
    "$BUILD/flow" --pes="$n" --mode=stall
  run_failure "timeout dataflow reduction stall --pes=$n" 3 10 \
    "of $n waited" "for the dataflow loop's reduction #" " of PE $last" \
    "giving up after STENCILC_WAIT_TIMEOUT_MS=500 ms" -- \
    "$BUILD/flow_reduce" --pes="$n" --mode=stall
  run_failure "device fatal: register-resident contract --pes=$n" 2 10 \
    "regs test: the register-resident form needs the cells the update does not write to be the same" -- \
    "$BUILD/regs" --pes="$n" --mode=differ
  run_failure "device fatal: epoch out of order --pes=$n" 2 10 \
    "halo exchange of grid 'u' on PE" "send of epoch 3 after epoch 1" -- \
    "$BUILD/timeout" --pes="$n" --mode=epoch
done
run_failure "more PEs than GPUs" 2 10 "only $ngpus GPU" "STENCILC_P2P_SHARE_GPUS=1 runs several PEs" -- \
  env -u STENCILC_P2P_SHARE_GPUS "$BUILD/timeout" --pes="$ngpus" --mode=toomany
# Past 8 PEs (the runtime sizes its tables from the PE count): 9 and 16 PEs, and 40 (20 a GPU on
# 2 GPUs: past CUDA's default 8 hardware queues, which the shared mode raises to 32) in the
# shared-GPU test mode, whatever the GPUs; heaps of 256 MiB. Every PE launches the blocks of the
# most shared GPU's PEs, so flow_reduce's closed forms hold on uneven splits (9 PEs on 2 GPUs).
for n in 9 16 40; do
  share=(env STENCILC_P2P_SHARE_GPUS=1 STENCILC_SYM_HEAP_MB=256)
  run_test "allreduce --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/allreduce" --pes="$n"
  run_test "flow_reduce --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/flow_reduce" --pes="$n"
  [ "$n" -le 16 ] && run_test "jacobi2d --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/jacobi2d" --pes="$n" --perf=0
  [ "$n" -le 16 ] && run_test "flow --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/flow" --pes="$n"
  [ "$n" -eq 9 ] && run_test "halo_check --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/halo_check" --pes="$n"
  [ "$n" -eq 9 ] && run_test "rounds --pes=$n (shared GPUs)" "${share[@]}" "$BUILD/rounds" --pes="$n"
done
unset STENCILC_P2P_SHARE_GPUS  # the bench's timings and the NVSHMEM runs: one PE a GPU
for n in "${pes_list[@]}"; do
  run_test "bench --pes=$n" "$BUILD/bench" --pes="$n"
done

# The NVSHMEM backend (built when compile-only.sh found NVSHMEM): one process per GPU, mpirun.
if [ -x "$BUILD/nvshmem_team" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  mpi_list=("${pes_list[@]}")
  run_test "nvshmem_heap_bound" "$BUILD/nvshmem_heap_bound"
  for n in "${mpi_list[@]}"; do
    run_test "nvshmem_team -np $n" mpirun -np "$n" --oversubscribe --bind-to none "$BUILD/nvshmem_team"
  done
  run_failure "nvshmem timeout -np 1" 3 20 \
    "PE 0 of 1 waited" "for a signal nobody sends: signal is 0, waiting for >= 1" \
    "giving up after STENCILC_WAIT_TIMEOUT_MS=500 ms" -- \
    mpirun -np 1 --bind-to none "$BUILD/nvshmem_team" --mode=timeout
  if [ "$ngpus" -ge 2 ]; then
    run_failure "nvshmem timeout -np 2" 3 20 \
      "PE 0 of 2 waited" "for a signal nobody sends" "PE 1 of 2 waited" -- \
      mpirun -np 2 --bind-to none "$BUILD/nvshmem_team" --mode=timeout
    run_failure "nvshmem more processes than GPUs" 2 20 "GPUs are visible" -- \
      mpirun -np $((ngpus + 1)) --oversubscribe --bind-to none "$BUILD/nvshmem_team"
  fi
  # Two processes on one GPU (each bound to it by mpi_gpu.sh) without CUDA MPS: a configuration
  # error naming MPS, found before NVSHMEM starts (tests/gpu/nvshmem-mpg.sh runs them under MPS).
  run_failure "nvshmem PEs sharing a GPU without MPS" 2 30 "share one GPU without CUDA MPS" -- \
    mpirun -np $((ngpus + 1)) --oversubscribe --bind-to none bash tests/gpu/mpi_gpu.sh "$BUILD/nvshmem_team"
else
  fail "nvshmem_team was not built (no NVSHMEM found: tests/gpu/nvshmem-flags.sh)"
fi

echo "log: $LOG"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
