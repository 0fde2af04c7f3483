# Sourced by the GPU scripts (run_generated.sh, regs-contract.sh, runtime-checks.sh): the nvcc to
# build with and the GPUs visible; with none the script fails, it never skips (ctest -L gpu must
# not pass without a GPU).
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -lt 1 ]; then
  echo "FAIL no GPU visible (nvidia-smi -L lists none)"
  echo "0 passed, 1 failed"
  exit 1
fi
