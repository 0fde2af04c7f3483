#!/usr/bin/env bash
# On a GPU machine: builds the CUDA that tests/gpu/generate.sh wrote into $1 (on a machine with
# stencilc) for every sample (global-view and SPMD), builds each sample's reference with the host compiler,
# and checks every grid element by element against it (tests/e2e/run_host.py), on a size that
# splits evenly and one that does not, on 1 and 2 GPUs (1 to 4 when 4 are visible; PES=1,2 to choose).
# The variants (VARIANTS="..." to choose some):
#   - cpu-free-auto:   <name>.cu, one persistent kernel per GPU, p2p backend, one process, its time
#                      loop's form as the launcher's cost model chooses it (what a user runs);
#   - cpu-free:        the same binary with STENCILC_FORM=barrier: the barrier form;
#   - cpu-free-roles:  the same with STENCILC_COMM_BLOCKS=2 (block roles forced on, so both the
#                      specialised and the unspecialised kernels are checked);
#   - cpu-free-dataflow: the same with STENCILC_FORM=dataflow: the dataflow form from
#                      global memory (flow.cuh; its blocks' rows in strips where they hold enough
#                      points a thread) where the process grid cuts dimension 0 only (elsewhere it
#                      says so and keeps its barriers); -rows: on 5 blocks a GPU
#                      (STENCILC_MAX_BLOCKS=5: many rows a block, the strips);
#   - cpu-free-regs:   the same with STENCILC_FORM=regs: the register-resident form
#                      (regs.cuh: each block's band of rows in registers across steps) where the
#                      sample's loop has one and the band fits (compiled::choose_form says on stderr
#                      where it does not); -rows: built with -DSTENCILC_REGS_ROWS=2 (twice the
#                      blocks: more edges between them);
#   - host-controlled: <name>.hc.cu, the CPU-controlled baseline (global-view samples only: the
#                      SPMD samples spmd_ring and spmd_heat2d run the other variants);
#   - host-controlled-nvshmem: <name>.hc-nvshmem.cu, the same on the nvshmem backend (a process
#                      per GPU under mpirun, as nvshmem below);
#   - auto:            <name>.auto.cu (--schedule=auto, the default), as chosen at run time; and
#                      where every program of the sample holds the host-controlled code too, the
#                      same binary with STENCILC_SCHEDULE=host-controlled (label <name>.auto-hc);
#   - nvshmem:         <name>.nvshmem.cu (--schedule=auto on the nvshmem backend) under `mpirun
#                      -np 1` and `-np 2` (and -np 4 when 4 GPUs are visible: 1 to 4; NVSHMEM_PES
#                      to choose), every process's grids and output checked; where every program
#                      holds the host-controlled code too, again with STENCILC_SCHEDULE=host-controlled
#                      (label <name>.nvshmem-hc). NVSHMEM comes from tests/gpu/nvshmem-flags.sh (NVSHMEM_HOME,
#                      python3's nvidia-nvshmem-cu13 wheel, /opt/torch/.venv), MPI from mpicc;
#   - nvshmem-dataflow: the same with STENCILC_FORM=dataflow (the dataflow form on the nvshmem
#                      backend, its face signals stored through NVSHMEM's mapping of the peers).
# With fewer GPUs than PEs: STENCILC_P2P_SHARE_GPUS=1 PES=1,2,3,4 runs the p2p variants in the p2p
# team's shared-GPU test mode (PE p on GPU p mod the visible GPUs, each with its share of the SMs:
# the multi-PE paths checked, not their timing); set NVSHMEM_PES to the GPUs' count (or leave
# nvshmem out of VARIANTS): NVSHMEM runs one PE a GPU.
# SAMPLES="jacobi2d heat3d" runs some samples only (INSTANCES=k: in k copies side by side,
# below); NVCC_FLAGS="-DSTENCILC_REGS_ROWS=8" adds
# flags to every build (an experiment's switch checked on every sample). Everything is built
# first, in parallel.
# Prints a pass/fail line per case and `N passed, M failed` last; exits non-zero on a failure.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI in containers: no CMA single-copy (needs ptrace rights) for the large MPI_Allgatherv.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Every sample and test program it checks unless SAMPLES chooses (the larger first); `--list`
# prints them, one a line (tests/gpu/CMakeLists.txt makes a ctest of each).
default_samples="jacobi2d heat3d wave2d poisson9 advect2d multiwrite2d fdtd2d box27 convergence2d jacobi1d cg2d spmd_ring spmd_heat2d user_names parameter_names point_batches float_division fused_sweeps several_walks"
if [ "${1:-}" = --list ]; then tr ' ' '\n' <<< "$default_samples"; exit 0; fi
gen="${1:-$root/gpu-gen}"
out="${OUT:-/tmp}/generated"
gpus_visible=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
pes="${PES:-$([ "${gpus_visible:-0}" -ge 4 ] && echo 1,2,3,4 || echo 1,2)}"
variants="${VARIANTS:-cpu-free-auto cpu-free cpu-free-roles cpu-free-dataflow cpu-free-dataflow-rows cpu-free-regs cpu-free-regs-rows host-controlled host-controlled-nvshmem auto nvshmem nvshmem-dataflow}"
backends=p2p
[[ " $variants " == *"nvshmem"* ]] && backends=p2p,nvshmem
source "$root/tests/gpu/common.sh"  # nvcc, gpus; fails without a GPU
nvshmem_pes="${NVSHMEM_PES:-1,2}"
if [ -z "${NVSHMEM_PES:-}" ] && [ "${gpus:-0}" -ge 4 ]; then nvshmem_pes="1,2,3,4"; fi
mkdir -p "$out"
passed=0
failed=0
common=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include"
        -I "$root/samples")
read -r -a extra_flags <<< "${NVCC_FLAGS:-}"
common+=("${extra_flags[@]}")
if [[ ",$backends," == *",nvshmem,"* ]]; then
  if flags=$(bash "$root/tests/gpu/nvshmem-flags.sh"); then
    echo "nvshmem: $(tr '\n' ' ' <<< "$flags")"
  else
    echo "FAIL nvshmem: no NVSHMEM or MPI (tests/gpu/nvshmem-flags.sh)"; failed=$((failed + 1))
    backends="${backends//nvshmem/}"
  fi
fi

# check <label> <exe> <pes> [run_host.py arguments...]: one sample's runs against its reference.
check() {
  local label="$1" exe="$2" counts="$3"
  shift 3
  local log="$out/$label.log"
  python3 "$root/tests/e2e/run_host.py" --exe "$exe" --reference "$out/$name.ref" \
      --sample "$(source_of "$name")" --workdir "$out/$label.runs" --pes "$counts" "${args[@]}" "$@" > "$log" 2>&1
  grep -E "^(ok|FAIL)" "$log" | sed "s/^/  [$label] /"
  local p f
  p=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [ -z "$f" ]; then tail -5 "$log" | sed "s/^/  [$label] /"; fi
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-1}))
}

declare -A sizes=(
  [jacobi2d]="256 256 200|67 53 41 4" [heat3d]="48 30|19 9" [wave2d]="128 60|61 23"
  [poisson9]="64 1e-6|29 1e-5" [advect2d]="96 40|45 31" [multiwrite2d]="96 40|43 17"
  [fdtd2d]="96 80 30|37 45 21" [box27]="32 24 40 10|13 11 17 7" [convergence2d]="64 1e-6|27 1e-5"
  [jacobi1d]="4096 60|997 41" [cg2d]="130 40|61 25"
  [spmd_ring]="96 40|97 51" [spmd_heat2d]="48 20 30|37 23 41" [user_names]="40 10|37 7" [parameter_names]="40 10|37 9" [point_batches]="64 5|37 3" [float_division]="64 10|37 7" [fused_sweeps]="48 5|37 4" [several_walks]="24 6|17 4")
samples="${SAMPLES:-$default_samples}"
# INSTANCES=k: k copies of this script side by side, each on its share of the samples (dealt in
# turn from the list, the larger first) with its own OUT (OUT/part<i>); their lines printed as
# they come, each marked with its part (a run cut off by a time limit keeps what it printed),
# then the total. The GPUs are shared: for checking, never for timing.
instances="${INSTANCES:-1}"
if [ "$instances" -gt 1 ]; then
  read -r -a all_samples <<< "$samples"
  shares=()
  for ((i = 0; i < ${#all_samples[@]}; ++i)); do shares[i % instances]+="${all_samples[i]} "; done
  for ((i = 0; i < ${#shares[@]}; ++i)); do
    mkdir -p "$out/part$i"
    echo "== part $i: ${shares[i]}"
    INSTANCES=1 SAMPLES="${shares[i]}" OUT="$out/part$i" bash "${BASH_SOURCE[0]}" "$gen" 2>&1 |
      tee "$out/part$i.log" | sed -u "s/^/[part $i] /" &
  done
  wait
  for ((i = 0; i < ${#shares[@]}; ++i)); do
    last=$(tail -1 "$out/part$i.log")
    p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<< "$last")
    f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<< "$last")
    [ -n "$f" ] || echo "FAIL part $i ended without its count: $last"
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
  done
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi
# A sample's source: samples/, else the e2e tests' inputs (user_names, parameter_names, point_batches, float_division, fused_sweeps, several_walks).
source_of() { if [ -f "$root/samples/$1.cpp" ]; then echo "$root/samples/$1.cpp"; else echo "$root/tests/e2e/inputs/$1.cpp"; fi; }
has() { [[ " $variants " == *" $1 "* ]]; }
# The host-controlled schedule of a sample: not for SPMD programs (stencilc rejects them there).
has_hc() { has host-controlled && [[ "$1" != spmd_* ]]; }
has_hc_nvshmem() { has host-controlled-nvshmem && [[ "$1" != spmd_* ]] && [[ ",$backends," == *",nvshmem,"* ]]; }

# Build: every variant's binary and every reference, in parallel (each nvcc takes 10-40 s).
t0=$(date +%s)
jobs=0
build() {  # log exe nvcc-arguments...
  local log="$1" exe="$2"
  shift 2
  ( "$nvcc" "$@" -o "$exe" 2> "$log" || rm -f "$exe" ) &
  jobs=$((jobs + 1))
  if [ "$jobs" -ge "$(nproc)" ]; then wait -n; jobs=$((jobs - 1)); fi
}
for name in $samples; do
  if has cpu-free-regs-rows && grep -q "args.sc_regs" "$gen/$name.cu"; then
    build "$out/$name.regs2.nvcc.log" "$out/$name.regs2.cuda" "${common[@]}" -DSTENCILC_REGS_ROWS=2 "$gen/$name.cu"
  fi
  if has cpu-free-auto || has cpu-free || has cpu-free-roles || has cpu-free-dataflow || has cpu-free-dataflow-rows || has cpu-free-regs; then
    build "$out/$name.nvcc.log" "$out/$name.cuda" "${common[@]}" "$gen/$name.cu"
  fi
  if has_hc "$name"; then build "$out/$name.hc.nvcc.log" "$out/$name.hc.cuda" "${common[@]}" "$gen/$name.hc.cu"; fi
  if has auto; then build "$out/$name.auto.nvcc.log" "$out/$name.auto.cuda" "${common[@]}" "$gen/$name.auto.cu"; fi
  if { has nvshmem || has nvshmem-dataflow; } && [[ ",$backends," == *",nvshmem,"* ]]; then
    # Its two units (nvshmem-build.sh: the -rdc one with NVSHMEM's device calls, the program).
    ( NVCC="$nvcc" bash "$root/tests/gpu/nvshmem-build.sh" "$out/$name.nvshmem" "$gen/$name.nvshmem.cu" \
        "${common[@]}" 2> "$out/$name.nvshmem.nvcc.log" || rm -f "$out/$name.nvshmem" ) &
    jobs=$((jobs + 1))
    if [ "$jobs" -ge "$(nproc)" ]; then wait -n; jobs=$((jobs - 1)); fi
  fi
  if has_hc_nvshmem "$name"; then
    ( NVCC="$nvcc" bash "$root/tests/gpu/nvshmem-build.sh" "$out/$name.hc-nvshmem" "$gen/$name.hc-nvshmem.cu" \
        "${common[@]}" 2> "$out/$name.hc-nvshmem.nvcc.log" || rm -f "$out/$name.hc-nvshmem" ) &
    jobs=$((jobs + 1))
    if [ "$jobs" -ge "$(nproc)" ]; then wait -n; jobs=$((jobs - 1)); fi
  fi
  g++ -std=c++17 -O2 -I "$root/include" "$(source_of "$name")" -o "$out/$name.ref" -pthread &
done
wait
echo "built in $(( $(date +%s) - t0 )) s"

# run <label> <exe> <nvcc log> <pes> [run_host.py arguments...]
run() {
  local label="$1" exe="$2" log="$3" counts="$4"
  shift 4
  if [ ! -x "$exe" ]; then
    echo "FAIL nvcc $label"; head -20 "$log"; failed=$((failed + 1)); return
  fi
  check "$label" "$exe" "$counts" "$@"
}
for name in $samples; do
  t0=$(date +%s)
  IFS='|' read -r -a sets <<< "${sizes[$name]}"
  args=()
  for s in "${sets[@]}"; do args+=(--args "$s"); done
  if has cpu-free-auto; then run "$name.cpu-free-auto" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"; fi
  if has cpu-free; then STENCILC_FORM=barrier run "$name.cpu-free" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"; fi
  if has cpu-free-roles; then
    STENCILC_FORM=barrier STENCILC_COMM_BLOCKS=2 run "$name.cpu-free-roles" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"
  fi
  if has cpu-free-dataflow && [[ "$name" != spmd_* ]]; then
    STENCILC_FORM=dataflow run "$name.cpu-free-dataflow" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"
  fi
  if has cpu-free-dataflow-rows && [[ "$name" != spmd_* ]]; then
    STENCILC_FORM=dataflow STENCILC_MAX_BLOCKS=5 run "$name.cpu-free-dataflow-rows" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"
  fi
  if [[ "$name" != spmd_* ]] && grep -q "args.sc_regs" "$gen/$name.cu"; then
    if has cpu-free-regs; then
      STENCILC_FORM=regs run "$name.cpu-free-regs" "$out/$name.cuda" "$out/$name.nvcc.log" "$pes"
    fi
    if has cpu-free-regs-rows; then
      STENCILC_FORM=regs run "$name.cpu-free-regs-rows" "$out/$name.regs2.cuda" "$out/$name.regs2.nvcc.log" "$pes"
    fi
  fi
  if has_hc "$name"; then run "$name.host-controlled" "$out/$name.hc.cuda" "$out/$name.hc.nvcc.log" "$pes"; fi
  if has auto; then
    run "$name.auto" "$out/$name.auto.cuda" "$out/$name.auto.nvcc.log" "$pes"
    # The host-controlled code inside the auto build, where every program holds it.
    if grep -q "host_controlled::" "$gen/$name.auto.cu" && ! grep -q "no host-controlled code compiled" "$gen/$name.auto.cu"; then
      STENCILC_SCHEDULE=host-controlled run "$name.auto-hc" "$out/$name.auto.cuda" "$out/$name.auto.nvcc.log" "$pes"
    fi
  fi
  if has_hc_nvshmem "$name"; then
    run "$name.host-controlled-nvshmem" "$out/$name.hc-nvshmem" "$out/$name.hc-nvshmem.nvcc.log" "$nvshmem_pes" \
        --launcher "mpirun -np {pes} --oversubscribe --bind-to none bash $root/tests/gpu/mpi_rank.sh"
  fi
  if has nvshmem && [[ ",$backends," == *",nvshmem,"* ]]; then
    run "$name.nvshmem" "$out/$name.nvshmem" "$out/$name.nvshmem.nvcc.log" "$nvshmem_pes" \
        --launcher "mpirun -np {pes} --oversubscribe --bind-to none bash $root/tests/gpu/mpi_rank.sh"
    # The host-controlled code inside it (--schedule=auto), where every program holds it.
    if grep -q "host_controlled::" "$gen/$name.nvshmem.cu" && ! grep -q "no host-controlled code compiled" "$gen/$name.nvshmem.cu"; then
      STENCILC_SCHEDULE=host-controlled run "$name.nvshmem-hc" "$out/$name.nvshmem" "$out/$name.nvshmem.nvcc.log" \
          "$nvshmem_pes" --launcher "mpirun -np {pes} --oversubscribe --bind-to none bash $root/tests/gpu/mpi_rank.sh"
    fi
  fi
  if has nvshmem-dataflow && [[ ",$backends," == *",nvshmem,"* ]]; then
    STENCILC_FORM=dataflow run "$name.nvshmem-dataflow" "$out/$name.nvshmem" "$out/$name.nvshmem.nvcc.log" "$nvshmem_pes" \
        --launcher "mpirun -np {pes} --oversubscribe --bind-to none bash $root/tests/gpu/mpi_rank.sh"
  fi
  echo "$name: $(( $(date +%s) - t0 )) s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
