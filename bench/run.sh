#!/usr/bin/env bash
# The benchmark of issue 5, on a GPU machine, in one command:
#   bench/generate.sh bench-gen        # first, on a machine with stencilc (the GPU machines have no LLVM)
#   bash bench/run.sh bench-gen        # then here
# Measures each GPU's copy bandwidth, builds every program of the matrix for each schedule and its
# reference, checks each build against the reference element by element on every GPU count,
# times the matrix (bench/measure.py: median of RUNS runs, CUDA events) and writes latest.csv and
# table.md into $OUT (default /tmp/bench), for docs/benchmarks/ and docs/BENCHMARKS.md, where
# bench/report.py draws the plots.
# MATRIX, GPUS, SCHEDULES and RUNS choose the matrix (SCHEDULES: cpu-free, host-controlled, auto
# (--schedule=auto: the one compiled::choose_schedule picks for each run) and nvshmem, the
# cpu-free code on the nvshmem backend; defaults: the whole of issue 5, which takes
# more than one 10-minute device call: run it in parts, each with its own OUT, and join them with
# `python3 bench/measure.py --merge <part>/latest.csv ... --out DIR`).
# NVCC_FLAGS adds flags to every CUDA build (a build switch measured across the matrix, e.g.
# "-DSTENCILC_REGS_ROWS=8").
# LANES=k times the one-GPU configurations k at a time, each program and size on a GPU of its own
# (GPUs 0..k-1; its schedules, and a BASELINE's builds, back to back there), then the multi-GPU
# ones alone; the builds' verifications also run k at a time (measure.py --lanes).
# REUSE_BUILD=1 keeps executables an earlier invocation built (one device call running several
# parts of the matrix, each with its own OUT, builds once; by name: a variant renamed, not reflagged).
# BASELINE=DIR compares a change with the code before it in the same run: DIR is a snapshot made
# before the change (bench/snapshot.sh DIR: its generated CUDA and the headers it includes); each
# schedule is built from it too (`<schedule>@base`), verified and timed right after the change's
# build, and the table gives their ratio.
# VARIANTS="name:flags|name:flags" measures build switches across the matrix in the same run: each
# schedule is built again with each variant's nvcc flags (`<schedule>@<name>`, e.g.
# VARIANTS="rows16:-DSTENCILC_WIDE_POINTS_2D=16|t128:-DSTENCILC_BLOCK_THREADS=128"), verified and
# timed right after the schedule's own build; the table gives `<schedule> / <schedule>@<name>`
# (above 1: the variant is faster). A name is letters, digits and _, not "base".
set -euo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gen="${1:-$root/bench-gen}"
out="${OUT:-/tmp/bench}"
baseline="${BASELINE:-}"
if [ -n "$baseline" ] && [ ! -d "$baseline/gen" ]; then
  echo "BASELINE=$baseline: no gen/ there (bench/snapshot.sh DIR makes a baseline)" >&2
  exit 2
fi
# The variants' names and flags, checked before anything needs a GPU.
variant_names=() variant_flags=()
if [ -n "${VARIANTS:-}" ]; then
  IFS='|' read -r -a variant_list <<< "$VARIANTS"
  for v in "${variant_list[@]}"; do
    name="${v%%:*}"
    if [[ "$v" != *:* || ! "$name" =~ ^[A-Za-z0-9_]+$ || "$name" == base ]]; then
      echo "VARIANTS: '$v' is not name:flags (a name of letters, digits and _, not base)" >&2
      exit 2
    fi
    variant_names+=("$name")
    variant_flags+=("${v#*:}")
  done
fi
bin="/tmp/bench-bin"  # not under $OUT: only the results come back
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
visible=$(nvidia-smi -L | wc -l)
gpus="${GPUS:-$([ "$visible" -ge 4 ] && echo 1,2,4 || echo 1,2)}"
schedules="${SCHEDULES:-cpu-free,host-controlled,auto}"
matrix="${MATRIX:-jacobi2d:256,1024,2048,4096,16384;jacobi2d+norm:256,1024;heat3d:64,256,512;wave2d:512,2048,10240;jacobi1d:16384,1048576,67108864;smooth2d:512,4096,12288;cg2d:258,1026,4098,6146;fdtd2d:512,2048,8192;gray_scott:512,2048,8192;box27:64,256,512;poisson9:512,2048,8192;advect2d:512,2048,16384}"
mkdir -p "$bin" "$out"
t0=$(date +%s)
# SCHEDULES' "nvshmem": the cpu-free code on the nvshmem backend (<program>.nvshmem.cu), and
# "host-controlled-nvshmem" the host-controlled code there, built with NVSHMEM and MPI as
# tests/gpu/nvshmem-flags.sh finds them, run by measure.py under mpirun.
if [[ ",$schedules," == *"nvshmem,"* ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  bash "$root/tests/gpu/nvshmem-flags.sh" > /dev/null || { echo "nvshmem: no NVSHMEM or MPI" >&2; exit 1; }
fi
# compile <exe> <source> <include root> <schedule> [flags]: one build (nvshmem: nvshmem-build.sh),
# with NVCC_FLAGS and the flags given.
compile() {
  local exe="$1" src="$2" inc="$3" schedule="$4"
  read -r -a extra <<< "${NVCC_FLAGS:-} ${5:-}"
  local args=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -x cu -I "$inc/include" -I "$inc/runtime/include" "${extra[@]}")
  if [[ "$schedule" == *nvshmem ]]; then
    NVCC="$nvcc" bash "$root/tests/gpu/nvshmem-build.sh" "$exe" "$src" "${args[@]}"
  else
    "$nvcc" "${args[@]}" "$src" -o "$exe"
  fi
}
reuse() { [ -n "${REUSE_BUILD:-}" ] && [ -x "$1" ]; }
# build <name> <schedule> <tag> <generated dir> <include root> [flags]: the build
# <name>.<schedule><tag> (tag: "", @base or @<variant>) in the background, unless reused.
build() {
  local exe="$bin/$1.$2$3"
  reuse "$exe" || compile "$exe" "$4/$1.$2.cu" "$5" "$2" "${6:-}" 2> "$exe.nvcc.log" &
}
reuse "$bin/bandwidth" || "$nvcc" -O2 -arch=sm_90 "$root/bench/bandwidth.cu" -o "$bin/bandwidth" &
# Only the matrix's programs are built (measure.py: "jacobi2d+norm" and "cg2d@weak" are jacobi2d's and cg2d's).
programs=" $(python3 "$root/bench/measure.py" --programs "$matrix" | paste -sd' ') "
for src in "$root"/bench/programs/*.cpp; do
  name=$(basename "$src" .cpp)
  [[ "$programs" == *" $name "* ]] || continue
  for schedule in ${schedules//,/ }; do
    build "$name" "$schedule" "" "$gen" "$root"
    [ -z "$baseline" ] || build "$name" "$schedule" @base "$baseline/gen" "$baseline"
    for ((k = 0; k < ${#variant_names[@]}; ++k)); do
      build "$name" "$schedule" "@${variant_names[k]}" "$gen" "$root" "${variant_flags[k]}"
    done
  done
  reuse "$bin/$name.ref" || g++ -std=c++17 -O2 -I "$root/include" "$src" -o "$bin/$name.ref" -pthread &
done
wait
echo "built in $(( $(date +%s) - t0 )) s"
"$bin/bandwidth" | tee "$out/bandwidth.txt"
bandwidth=$(awk '{ s += $4; n += 1 } END { printf "%.1f", s / n }' "$out/bandwidth.txt")
device="$visible x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
# Each schedule, then its baseline's build and its variants' (measure.py times them back to back).
timed=$(for schedule in ${schedules//,/ }; do
  echo "$schedule"
  [ -n "$baseline" ] && echo "$schedule@base"
  for v in "${variant_names[@]}"; do echo "$schedule@$v"; done
done | paste -sd,)
python3 "$root/bench/measure.py" --bin "$bin" --root "$root" --out "$out" --matrix "$matrix" --gpus "$gpus" \
  --schedules "$timed" --runs "${RUNS:-5}" --bandwidth "$bandwidth" --device "$device" --lanes "${LANES:-1}"
echo "total $(( $(date +%s) - t0 )) s"
