#!/usr/bin/env bash
# On a GPU machine: the CUDA target's run-time checks where the compiled program would otherwise
# differ from the reference build, with the host target's messages (tests/codegen/
# host-runtime-checks.cpp, built from $1/runtime_checks.cu and runtime_checks.hc.cu, both
# schedules, that tests/gpu/generate.sh writes): a
# range that reaches outside the grids stops the run with the source location, a fixed grid's
# index or the periodic grids' points; ranges inside or empty give the reference's results; one
# grid passed for two parameters stops the run. On 1 and 2 PEs (sharing a GPU where there is one).
# Prints PASS/FAIL lines and `N passed, M failed`; exits non-zero on a failure.
#   bash tests/gpu/runtime-checks.sh [gen-dir]
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
out="${OUT:-/tmp}/runtime-checks"
mkdir -p "$out"
source "$root/tests/gpu/common.sh"  # nvcc, gpus; fails without a GPU
for s in "" .hc; do
  "$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    "$gen/runtime_checks$s.cu" -o "$out/checks$s" 2> "$out/nvcc$s.log" || { echo "FAIL nvcc $s"; head "$out/nvcc$s.log"; exit 1; }
done
g++ -std=c++17 -O2 -I "$root/include" "$root/tests/codegen/host-runtime-checks.cpp" -o "$out/checks.ref" -pthread || exit 1
passed=0 failed=0
# expect MODE PES RC TEXT: the run exits with RC (0 or non-zero) and prints TEXT.
expect() {
  local mode="$1" pes="$2" want_rc="$3" text="$4" share=0
  [ "$pes" -gt "$gpus" ] && share=1
  local got rc
  got=$(STENCILC_P2P_SHARE_GPUS=$share STENCILC_PES=$pes timeout 60 "$out/checks$schedule" "$mode" 2>&1)
  rc=$?
  if { [ "$want_rc" = 0 ] && [ $rc -eq 0 ]; } || { [ "$want_rc" != 0 ] && [ $rc -ne 0 ] && [ $rc -ne 124 ]; }; then
    if grep -qF -- "$text" <<< "$got"; then
      passed=$((passed + 1)); echo "PASS checks$schedule $mode pes=$pes: $text"; return
    fi
  fi
  failed=$((failed + 1)); echo "FAIL checks$schedule $mode pes=$pes (rc=$rc), want: $text"; echo "$got" | head -6
}
for schedule in "" .hc; do for pes in 1 2; do
  [ "$schedule" = .hc ] && [ "$pes" -gt "$gpus" ] && continue  # host-controlled: a GPU a PE
  for mode in distinct inside empty; do
    expect "$mode" "$pes" 0 "$("$out/checks.ref" "$mode")"
  done
  expect range "$pes" 1 "host-runtime-checks.cpp:22:3: program 'fill_range', grid 'a': index -2 out of range [0, 8) in dimension 0 (fixed boundary): the range [-2, 12) reaches outside the grid"
  expect reduce "$pes" 1 "host-runtime-checks.cpp:28:9: program 'sum_range', grid 'a': index 11 out of range [0, 8) in dimension 0 (fixed boundary): the range [2, 12) reaches outside the grid"
  expect periodic "$pes" 1 "host-runtime-checks.cpp:22:3: program 'fill_range' runs a point update over [-2, 12) in dimension 0, outside the grids' points [0, 8): stencilc runs point updates over grid points only (shrink the range)"
  expect alias "$pes" 1 "program 'smooth' is called with the same grid for parameters 'a' and 'b'"
done; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
