#!/usr/bin/env bash
# On a GPU machine: builds the CUDA that `stencilc --target=cuda --emit=cuda` generated for each
# sample (in $1, made on a machine with stencilc: tests/gpu/generate.sh) with nvcc, builds each
# sample's reference with the host compiler, and checks every grid element by element
# (tests/e2e/run_host.py), on a size that splits evenly and one that does not:
#   - <name>.cu, the p2p backend, on 1 and 2 GPUs (PES=1,2) in one process;
#   - <name>.nvshmem.cu, the nvshmem backend, under `mpirun -np 1` and `-np 2` (and -np 4 when 4
#     GPUs are visible; NVSHMEM_PES to choose), every process's grids and output checked.
# NVSHMEM comes from tests/gpu/nvshmem-flags.sh (NVSHMEM_HOME, python3's nvidia-nvshmem-cu13
# wheel, /opt/torch/.venv); MPI from mpicc. BACKENDS=p2p or BACKENDS=nvshmem runs one of them;
# SAMPLES="jacobi2d heat3d" runs some samples only.
# Prints a pass/fail line per case and `N passed, M failed` last; exits non-zero on a failure.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI in containers: no CMA single-copy (needs ptrace rights) for the large MPI_Allgatherv.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
out="${OUT:-/tmp}/generated"
pes="${PES:-1,2}"
backends="${BACKENDS:-p2p,nvshmem}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
nvshmem_pes="${NVSHMEM_PES:-1,2}"
if [ -z "${NVSHMEM_PES:-}" ] && [ "${gpus:-0}" -ge 4 ]; then nvshmem_pes="1,2,4"; fi
mkdir -p "$out"
passed=0
failed=0
common=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include"
        -I "$root/samples")
nvshmem_compile=() nvshmem_link=()
if [[ ",$backends," == *",nvshmem,"* ]]; then
  if flags=$(bash "$root/tests/gpu/nvshmem-flags.sh"); then
    mapfile -t words <<< "$flags"
    part=compile
    for w in "${words[@]}"; do
      if [ "$w" = "--" ]; then part=link; elif [ "$part" = compile ]; then nvshmem_compile+=("$w"); else nvshmem_link+=("$w"); fi
    done
    echo "nvshmem: $(printf '%s ' "${nvshmem_compile[@]}" "${nvshmem_link[@]}")"
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
      --sample "$root/samples/$name.cpp" --workdir "$out/$label.runs" --pes "$counts" "${args[@]}" "$@" > "$log" 2>&1
  grep -E "^(ok|FAIL)" "$log" | sed "s/^/  [$label] /"
  local p f
  p=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [ -z "$f" ]; then tail -5 "$log" | sed "s/^/  [$label] /"; fi
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-1}))
}

declare -A sizes=(
  [jacobi2d]="256 256 200|67 53 41" [heat3d]="48 30|19 9" [wave2d]="128 60|61 23"
  [poisson9]="64 1e-6|29 1e-5" [advect2d]="96 40|45 31" [multiwrite2d]="96 40|43 17"
  [fdtd2d]="96 80 30|37 45 21" [box27]="32 24 40 10|13 11 17 7" [convergence2d]="64 1e-6|27 1e-5")
for name in ${SAMPLES:-jacobi2d heat3d wave2d poisson9 advect2d multiwrite2d fdtd2d box27 convergence2d}; do
  t0=$(date +%s)
  g++ -std=c++17 -O2 -I "$root/include" "$root/samples/$name.cpp" -o "$out/$name.ref" -pthread
  IFS='|' read -r -a sets <<< "${sizes[$name]}"
  args=()
  for s in "${sets[@]}"; do args+=(--args "$s"); done
  if [[ ",$backends," == *",p2p,"* ]]; then
    if "$nvcc" "${common[@]}" "$gen/$name.cu" -o "$out/$name.cuda" 2> "$out/$name.nvcc.log"; then
      check "$name.p2p" "$out/$name.cuda" "$pes"
    else
      echo "FAIL nvcc $name (p2p)"; head -20 "$out/$name.nvcc.log"; failed=$((failed + 1))
    fi
  fi
  if [[ ",$backends," == *",nvshmem,"* ]]; then
    if "$nvcc" "${common[@]}" "${nvshmem_compile[@]}" "$gen/$name.nvshmem.cu" -o "$out/$name.nvshmem" \
        "${nvshmem_link[@]}" 2> "$out/$name.nvshmem.nvcc.log"; then
      check "$name.nvshmem" "$out/$name.nvshmem" "$nvshmem_pes" \
          --launcher "mpirun -np {pes} --oversubscribe --bind-to none bash $root/tests/gpu/mpi_rank.sh"
    else
      echo "FAIL nvcc $name (nvshmem)"; head -20 "$out/$name.nvshmem.nvcc.log"; failed=$((failed + 1))
    fi
  fi
  echo "$name: $(( $(date +%s) - t0 )) s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
