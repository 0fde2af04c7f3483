#!/usr/bin/env bash
# On a GPU machine: builds the CUDA that `stencilc --target=cuda --emit=cuda` generated for each
# sample (in $1, made on a machine with stencilc: tests/gpu/generate.sh) with nvcc, for both
# schedules (<name>.cu: cpu-free; <name>.hc.cu: host-controlled), builds each sample's reference
# with the host compiler, and checks every grid element by element on 1 and 2 GPUs, and 4 when
# that many are visible (tests/e2e/run_host.py), on a size that splits evenly and one that does
# not. PES=1,2 (say) overrides the PE counts; SCHEDULES="cpu-free" runs one schedule only.
# Prints a pass/fail line per case and `N passed, M failed` last; exits non-zero on a failure.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
out="${OUT:-/tmp}/generated"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
pes="${PES:-$([ "$gpus" -ge 4 ] && echo 1,2,4 || echo 1,2)}"
schedules="${SCHEDULES:-cpu-free host-controlled}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$out"
passed=0
failed=0
declare -A sizes=(
  [jacobi2d]="256 256 200|67 53 41" [heat3d]="48 30|19 9" [wave2d]="128 60|61 23"
  [poisson9]="64 1e-6|29 1e-5" [advect2d]="96 40|45 31" [multiwrite2d]="96 40|43 17"
  [fdtd2d]="96 80 30|37 45 21" [box27]="32 24 40 10|13 11 17 7" [convergence2d]="64 1e-6|27 1e-5")
samples="jacobi2d heat3d wave2d poisson9 advect2d multiwrite2d fdtd2d box27 convergence2d"
suffix_of() { [ "$1" = host-controlled ] && echo .hc || echo ""; }
# Build everything first, in parallel (each nvcc takes 10-40 s), then check.
t0=$(date +%s)
jobs=0
for schedule in $schedules; do
  suffix=$(suffix_of "$schedule")
  for name in $samples; do
    ( "$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
        -I "$root/samples" "$gen/$name$suffix.cu" -o "$out/$name$suffix.cuda" 2> "$out/$name$suffix.nvcc.log" \
        || rm -f "$out/$name$suffix.cuda" ) &
    jobs=$((jobs + 1))
    if [ "$jobs" -ge "$(nproc)" ]; then wait -n; jobs=$((jobs - 1)); fi
  done
done
for name in $samples; do
  g++ -std=c++17 -O2 -I "$root/include" "$root/samples/$name.cpp" -o "$out/$name.ref" -pthread &
done
wait
echo "built in $(( $(date +%s) - t0 )) s"
for schedule in $schedules; do
  suffix=$(suffix_of "$schedule")
  for name in $samples; do
    t0=$(date +%s)
    exe="$out/$name$suffix.cuda"
    if [ ! -x "$exe" ]; then
      echo "FAIL nvcc $name ($schedule)"; head -20 "$out/$name$suffix.nvcc.log"; failed=$((failed + 1)); continue
    fi
    IFS='|' read -r -a sets <<< "${sizes[$name]}"
    args=()
    for s in "${sets[@]}"; do args+=(--args "$s"); done
    log="$out/$name$suffix.log"
    python3 "$root/tests/e2e/run_host.py" --exe "$exe" --reference "$out/$name.ref" \
        --sample "$root/samples/$name.cpp" --workdir "$out/$name$suffix" --pes "$pes" "${args[@]}" > "$log" 2>&1
    grep -E "^(ok|FAIL)" "$log" | sed "s/^/  [$schedule] /"
    p=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(tail -1 "$log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
    echo "$name ($schedule): $(( $(date +%s) - t0 )) s"
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
