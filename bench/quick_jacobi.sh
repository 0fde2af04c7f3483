#!/usr/bin/env bash
# A first measurement (not the full benchmark of issue 5): the generated CUDA of samples/jacobi2d
# (cpu-free, p2p; L2 norm every 100 steps as the sample does) on 1 and 2 GPUs. Each size runs with
# two step counts; time per step = (t2 - t1) / (n2 - n1), so launch, setup and copies cancel.
# Input: gpu-gen/jacobi2d.cu from tests/gpu/generate.sh. Prints a markdown table.
set -eu
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-/tmp}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
"$nvcc" -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
  "$root/gpu-gen/jacobi2d.cu" -o "$out/jacobi2d.cuda"
kernel_ms() {  # size gpus steps
  STENCILC_TIMING=1 STENCILC_PES=$2 "$out/jacobi2d.cuda" "$1" "$1" "$3" 2>&1 >/dev/null |
    sed -n 's/.*: \([0-9.]*\) ms$/\1/p'
}
echo "| size | GPUs | us/step | blocks x threads per GPU |"
echo "|---|---|---|---|"
for spec in "256 200 2200" "1024 200 2200" "4096 100 600" "16384 20 120"; do
  read -r n n1 n2 <<< "$spec"
  for g in 1 2; do
    t1=$(kernel_ms "$n" "$g" "$n1"); t2=$(kernel_ms "$n" "$g" "$n2")
    grid=$(STENCILC_TIMING=1 STENCILC_PES=$g "$out/jacobi2d.cuda" "$n" "$n" 1 2>&1 >/dev/null | sed -n 's/.*(\(.*\) each).*/\1/p')
    us=$(python3 -c "print(f'{($t2 - $t1) * 1000 / ($n2 - $n1):.2f}')")
    echo "| ${n}^2 | $g | $us | $grid |"
  done
done
