#!/usr/bin/env bash
# One device call (about 5 minutes, on nvidia-h200-x2): the row pipe again after its first run
# (pipe-check.sh, session 16: verified, but 1.07-2.4x slower than the wide strips: its threads
# owned 4 adjacent cells, so a warp's scalar ld.shared of one cell hit 8 banks 4 ways; now a thread
# owns cells blockDim.x apart):
#   1. run_generated's cpu-free-pipe, -rows and -roles variants on the 2-D samples, 1 and 2 GPUs;
#   2. ab.py: the barrier form with and without the pipe, jacobi2d 4096^2 and 16384^2, wave2d
#      8192^2, 1 and 2 GPUs (prediction: rowpipe.cu's 83-90% of the copy bandwidth at 16 M
#      points and up, where the strips reach 70-78%);
#   3. poisson9's store-through kernel with the pipe on 2 GPUs (exit 2 in pipe-check.sh): its
#      message.
#   bash bench/experiments/pipe-check2.sh bench-gen gpu-gen
set -u
out="${OUT:-/tmp/pipe-check2}"
. "$(dirname "${BASH_SOURCE[0]}")/call-common.sh"  # root, stage, left, budget, gpus, counts, verify_generated
bgen="${1:-$root/bench-gen}"
gen="${2:-$root/gpu-gen}"
flags=(-DSTENCILC_ROW_PIPE=1 -DSTENCILC_PIPE_MIN_ROWS=1 -DSTENCILC_PIPE_NARROW=0)

stage "0. poisson9.st with the pipe, built in the background"
( nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$root/include" -I "$root/runtime/include" \
    -I "$root/samples" "${flags[@]}" "$gen/poisson9.st.cu" -o "$out/p9st" > "$out/p9st.log" 2>&1 ) &
stage "1. run_generated: the row pipe on the 2-D samples"
SAMPLES="jacobi2d wave2d poisson9 advect2d multiwrite2d convergence2d fdtd2d" \
  verify_generated "$gen" "cpu-free-pipe cpu-free-pipe-rows cpu-free-pipe-roles" 110
stage "2. ab.py: the barrier form with and without the row pipe"
timeout "$(budget 285)" python3 "$root/bench/experiments/ab.py" --gen "$bgen" --out "$out/ab" \
  --case jacobi2d:4096,16384 --case wave2d:8192 --gpus "$counts" \
  --variant strips= --variant pipe=-DSTENCILC_ROW_PIPE=1 --setting bar=STENCILC_DATAFLOW=0 > "$out/ab.txt" 2>&1
grep '^|' "$out/ab.txt" || tail -5 "$out/ab.txt"
rm -rf "$out/ab"
stage "3. poisson9.st with the pipe on 2 GPUs"
wait
for pipe in 1 0; do
  STENCILC_PIPE=$pipe STENCILC_PES=2 STENCILC_DATAFLOW=0 STENCILC_WAIT_TIMEOUT_MS=3000 timeout 20 "$out/p9st" 64 1e-6 > "$out/p9st.$pipe.txt" 2>&1
  echo "STENCILC_PIPE=$pipe rc=$?"; grep -v "^$" "$out/p9st.$pipe.txt" | head -8
done
rm -f "$out/p9st"
stage "done"
