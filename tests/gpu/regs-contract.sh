#!/usr/bin/env bash
# On a GPU machine: the register-resident form's contract on the device. tests/gpu/inputs/
# regs_contract.cpp (its grids' fixed cells differ) built from $1/regs_contract.cu (written by
# tests/gpu/generate.sh) and run with STENCILC_FORM=regs on 1 and 2 PEs
# (sharing a GPU where there is one): the launcher plans the form, the kernel must find the
# contract broken, say so, and run the loop from global memory: output equal to the reference
# build's. Prints PASS/FAIL lines and `N passed, M failed`; exits non-zero on a failure.
#   bash tests/gpu/regs-contract.sh [gen-dir]
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gen="${1:-$root/gpu-gen}"
out="${OUT:-/tmp}/regs-contract"
mkdir -p "$out"
source "$root/tests/gpu/common.sh"  # nvcc, gpus; fails without a GPU
"$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
  "$gen/regs_contract.cu" -o "$out/rc" 2> "$out/rc.nvcc.log" || { echo "FAIL nvcc"; head "$out/rc.nvcc.log"; exit 1; }
g++ -std=c++17 -O2 -I "$root/include" "$root/tests/gpu/inputs/regs_contract.cpp" -o "$out/rc.ref" -pthread || exit 1
passed=0 failed=0
for pes in 1 2; do
  share=0; [ "$pes" -gt "$gpus" ] && share=1
  for args in "96 80 25" "67 53 41"; do
    ref=$("$out/rc.ref" $args)
    got=$(STENCILC_P2P_SHARE_GPUS=$share STENCILC_PES=$pes STENCILC_FORM=regs timeout 60 "$out/rc" $args 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && grep -q "the register-resident form runs" <<< "$got" && grep -q "contract does not hold" <<< "$got" &&
       [ "$(grep '^regs_contract' <<< "$got")" = "$ref" ]; then
      passed=$((passed + 1)); echo "PASS regs_contract [$args] pes=$pes: planned, contract broken, ran from global memory, output matches"
    else
      failed=$((failed + 1)); echo "FAIL regs_contract [$args] pes=$pes (rc=$rc)"; echo "$got" | head -8; echo "want:"; echo "$ref"
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
