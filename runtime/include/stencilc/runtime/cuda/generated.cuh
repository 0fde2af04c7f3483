// Device helpers for the persistent kernels stencilc generates (codegen/Cuda*.cpp): the build
// switches' defaults (docs/TUNING.md), index boxes, the part of a global range a PE owns and the
// walks of its parts, the groups of blocks that roles give statements, and their barriers. The
// reductions (over a GPU's grid, across the PEs, in the dataflow loop) are in reduce.cuh, which
// this header includes. Unless said otherwise, every thread of the grid calls these.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/roles.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/flow.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
#include "stencilc/runtime/cuda/reduce.cuh"
#include "stencilc/runtime/cuda/regs.cuh"

// The persistent kernel's block size and the fewest blocks per SM its registers must allow
// (__launch_bounds__): more resident threads keep more loads in flight. Override with -D.
#ifndef STENCILC_BLOCK_THREADS
#define STENCILC_BLOCK_THREADS 256
#endif
// Two blocks of 256 threads per SM: up to 128 registers. With 4 (64 registers) the persistent
// kernel spills (its communication and reduction code share the register budget with the point
// loops); measured on H200: 2 is 3-24% faster than 4 on jacobi2d
// 4096^2 and heat3d 256^3, 1 and 2 GPUs. NVSHMEM's relocatable device code needs more than 64 too.
#ifndef STENCILC_MIN_BLOCKS_PER_SM
#define STENCILC_MIN_BLOCKS_PER_SM 2
#endif
// The block size of a kernel whose tallest wide items have 4 rows (the emitter's
// sc_<program>::kBlockThreads: block_threads_for below). At 256 threads (up to 128 registers, 2
// blocks a SM) ptxas issues such an item in two halves (4 of heat3d's 8 16-byte loads, then
// arithmetic that waits on them, then the rest: two memory round trips an item); at 192 (up to
// 168 registers) the whole item first. With 4-row items heat3d (3-D) measured 13-22% faster on 1
// and 4 H200s and 12% at 512^3 on 2 (docs/BENCHMARKS.md lists the runs); 2-D fp64 loops (4-row
// items of 2 cells, wide_rows) are faster at 192 than at 256 too (1 H200, same run, us a step:
// fdtd2d 4096^2 382.5 -> 364.6, gray_scott 4096^2 170.7 -> 155.5, cg2d 4098^2 441.7 -> 435.2).
// Kernels whose items have at most 2 rows (2-D fp32) are whole at 128 registers and keep 256.
#ifndef STENCILC_BLOCK_THREADS_TALL
#define STENCILC_BLOCK_THREADS_TALL 192
#endif
static_assert(STENCILC_BLOCK_THREADS % 32 == 0 && STENCILC_BLOCK_THREADS <= 1024 &&
                  STENCILC_BLOCK_THREADS_TALL % 32 == 0 && STENCILC_BLOCK_THREADS_TALL <= 1024,
              "a kernel's block is whole warps, at most 1024 threads");
// The highest rank of the loops whose barrier form sets up the walk of each boundary part whose
// range is a grid's interior once, before the loop, in the block's shared memory (SharedWalk),
// instead of every step (the CUDA emitter's hoist_boundary_walks): 0 none, 3 every loop. The
// default, 2, is what was measured faster (2 x H200, same-run A/B, us a step,
// 1 GPU / 2 GPUs, every step -> hoisted): jacobi2d 1536^2 14.54 / 15.18 -> 12.71 / 12.64, 4096^2
// 48.94 / 29.20 -> 47.91 / 27.06, 16384^2 704.5 / 363.3 -> 697.5 / 359.6; wave2d 2048^2 20.52 /
// 20.69 -> 20.72 / 19.28, 8192^2 323.2 / 183.4 -> 322.6 / 188.3; heat3d (3-D) 96^3 8.80 / 29.24
// -> 9.03 / 19.49, 256^3 91.55 / 56.54 -> 101.65 / 57.55, 512^3 715.5 / 350.8 -> 791.6 / 406.2.
// heat3d's loss at large sizes is not explained (the streaming loops' SASS has the same
// instructions either way).
#ifndef STENCILC_HOIST_BOUNDARY_WALK
#define STENCILC_HOIST_BOUNDARY_WALK 2
#endif
// The register-resident form of a 2-D dataflow loop (regs.cuh; on the loops select-loop-forms
// marks, run where compiled::choose_form finds the band fits): every block holds up to STENCILC_REGS_ROWS rows of
// STENCILC_REGS_VEC columns a thread in registers across steps. 8 rows fit larger grids on one
// GPU (jacobi2d 2048^2) but spill and cost 20-30% where blocks hold 4 rows or fewer.
#ifndef STENCILC_REGS_VEC
#define STENCILC_REGS_VEC 8
#endif
#ifndef STENCILC_REGS_ROWS
#define STENCILC_REGS_ROWS 4
#endif
// A dataflow block walks its rows of a 2-D update in (wide) strips, as the barrier form's inner
// part does, where it holds at least this many points a thread (flow_strips_pay; below it the
// point walk, a face store a point, is faster: jacobi2d 768^2 on one H200 7.07 against 7.62 us);
// its face cells are then copied into the neighbours' halos after the strips (FaceWriter::copy).
#ifndef STENCILC_FLOW_STRIP_MIN_POINTS
#define STENCILC_FLOW_STRIP_MIN_POINTS 12
#endif
// How many iterations of a point loop the compiler unrolls (their loads can be in flight together).
#ifndef STENCILC_POINT_UNROLL
#define STENCILC_POINT_UNROLL 4
#endif
// The points along dimension 0 that one thread updates as a strip, by the update's rank (two or
// more dimensions). Measured on H200: 2 is best for 2-D fp32 Jacobi, 4 for 3-D fp64 heat.
#ifndef STENCILC_STRIP_ROWS_2D
#define STENCILC_STRIP_ROWS_2D 2
#endif
#ifndef STENCILC_STRIP_ROWS_3D
#define STENCILC_STRIP_ROWS_3D 4
#endif
// The points of a 2-D wide item (a strip of 16-byte vectors of points along the last dimension,
// the point loop's form where the layout is aligned): its rows are this many over the cells of a
// vector (wide_rows): 2 rows of fp32 (4 cells), 4 of fp64 (2 cells). Measured on H200 (1 GPU,
// same run, us a step, 2 -> 4 rows of fp64 at 192 threads): cg2d 4098^2 467.9 -> 435.2, fdtd2d
// 4096^2 380.0 -> 364.6, 1024^2 21.9 -> 20.0, gray_scott 4096^2 162.0 -> 155.5, poisson9 4096^2
// 201.8 -> 190.1; 4 rows of fp32 lose (jacobi2d 4096^2 46.5 -> 53.3, advect2d 8192^2 204.5 ->
// 232.0, wave2d 2048^2 21.4 -> 22.3).
#ifndef STENCILC_WIDE_POINTS_2D
#define STENCILC_WIDE_POINTS_2D 8
#endif
// The rows of a 3-D loop's wide items: 4 with 3-D kernels of 192 threads (14 16-byte loads for 8
// points instead of 8 for 4; see STENCILC_BLOCK_THREADS_TALL).
#ifndef STENCILC_WIDE_ROWS_3D
#define STENCILC_WIDE_ROWS_3D 4
#endif
// A point loop's grid pointer (`STENCILC_GLOBAL_VIEW(sc_a_data)`): they come from DBlock fields
// of the kernel's parameter struct, so the compiler cannot tell they point to global memory and
// would emit generic loads and stores. Every block's cells are global memory (cudaMalloc, or the
// NVSHMEM heap), so the views say so: ld.global/st.global in the PTX. Measured on H200 (one
// GPU, same run): jacobi2d 8192^2 186.8 -> 182.9 us/step, heat3d
// 256^3 120.4 -> 108.7, wave2d 4096^2 104.4 -> 97.5.
#define STENCILC_GLOBAL_VIEW(p) __builtin_assume(__isGlobal(p))

namespace stencilc::rt::cuda {

// For `#pragma unroll` in generated point loops (a pragma's argument is not macro-expanded).
constexpr int kPointUnroll = STENCILC_POINT_UNROLL;

/// Whether the dataflow loop's walk of `total` points over `threads` threads takes its points in
/// batches of kPointUnroll (the emitter's batched_points: every load of a batch in flight
/// together), or one at a time: a thread with one point would compute kPointUnroll (jacobi2d
/// 256^2: 0.2-0.3 us more a step on 2 x H200). The upper bound is a cautious
/// choice, not a measured optimum: heat3d 128^3 on 1 GPU (31 points a thread) read slower
/// batched once, within that case's run-to-run spread of about 2 us, and a bound of 64 measured
/// within noise of 16.
#ifndef STENCILC_BATCH_MAX_POINTS
#define STENCILC_BATCH_MAX_POINTS 16
#endif
__host__ __device__ inline bool batch_walk(unsigned total, int threads) {
  const unsigned t = static_cast<unsigned>(threads);
  return total > t && total <= static_cast<unsigned>(STENCILC_BATCH_MAX_POINTS) * t;
}
/// The rows of a wide item of a point loop of `rank` dimensions whose 16-byte vectors hold `cells`
/// cells (the emitter's wide_rows()): STENCILC_WIDE_ROWS_3D in 3-D, STENCILC_WIDE_POINTS_2D /
/// cells in 2-D, 1 to 4 (the emitter writes 4 at most).
__host__ __device__ constexpr int wide_rows(int rank, int cells) {
  const int rows = rank >= 3 ? STENCILC_WIDE_ROWS_3D : STENCILC_WIDE_POINTS_2D / (cells > 0 ? cells : 1);
  return rows < 1 ? 1 : rows > 4 ? 4 : rows;
}
/// The threads of a block of a kernel whose wide point loops' items have `item_rows` rows (none:
/// no wide point loop): STENCILC_BLOCK_THREADS_TALL where an item has 4, else
/// STENCILC_BLOCK_THREADS.
constexpr int block_threads_for(std::initializer_list<int> item_rows) {
  for (const int rows : item_rows)
    if (rows >= 4) return STENCILC_BLOCK_THREADS_TALL;
  return STENCILC_BLOCK_THREADS;
}
/// The register-resident form's band: columns a thread, rows a block.
constexpr int kRegsVec = STENCILC_REGS_VEC, kRegsRows = STENCILC_REGS_ROWS;
template <int N>
constexpr int kStripRows = N == 2 ? STENCILC_STRIP_ROWS_2D : STENCILC_STRIP_ROWS_3D;
static_assert(kStripRows<2> >= 1 && kStripRows<3> >= 1, "a strip has at least one row");

/// `a / b` for floats through binary64: both floats are exact in binary64, and rounding their
/// correctly rounded binary64 quotient to binary32 gives the correctly rounded binary32 quotient
/// (double rounding is innocuous for a quotient when the wider format has at least 2p + 2 bits:
/// 53 >= 2 * 24 + 2; subnormal and overflowing quotients too: tests/runtime/div_rn.cu checks it on
/// the host). On the device (finite, nonzero operands only: div_rn sends the rest elsewhere),
/// CUDA's own binary64 division without its range check: the reciprocal's approximation refined
/// by three Newton steps, then the remainder's correction (exact here: binary32 operands keep
/// every intermediate far from binary64's subnormal and overflow ranges, where the check would
/// send the division to its slow path).
__host__ __device__ __forceinline__ float div_rn_binary64(float a, float b) {
#if defined(__CUDA_ARCH__)
  const double x = a, y = b;
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(y));
  r = __hiloint2double(__double2hiint(r), 1);
  double e = __fma_rn(-y, r, 1.0);
  e = __fma_rn(e, e, e);
  r = __fma_rn(r, e, r);
  e = __fma_rn(-y, r, 1.0);
  r = __fma_rn(r, e, r);
  const double q = __dmul_rn(x, r);
  return __double2float_rn(__fma_rn(r, __fma_rn(-y, q, x), q));
#else
  return static_cast<float>(static_cast<double>(a) / static_cast<double>(b));
#endif
}

// div_rn takes its own path (below) on the GPUs with full-rate binary64 (sm_60, 70, 80, 90,
// 100); elsewhere, and on the host, it is `a / b` (after this block).
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 600 || __CUDA_ARCH__ == 700 || __CUDA_ARCH__ == 800 || \
                               __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
/// div_rn where an operand lies outside [2^-63, 2^63] (r: the reciprocal's approximation of b).
/// No call anywhere (under -rdc a call site costs the loop around it registers). An infinite or
/// NaN numerator: over a finite divisor its own infinity with the quotient's sign (or NaN), over
/// the rest NaN (the reciprocal of an infinity is 0, of a NaN NaN). A divisor that is zero,
/// infinite or NaN: the reciprocal's product (an infinity, a signed zero or NaN, as IEEE says;
/// 0 / 0 is NaN). A zero numerator keeps its signed zero; the rest through binary64.
__device__ __forceinline__ float div_rn_outside(float a, float b, float r) {
  const float finite = 0x1.fffffep127f;  // the largest float: NaN and the infinities compare above
  const float ma = fabsf(a), mb = fabsf(b);
  if (!(ma <= finite)) return mb <= finite ? a * copysignf(1.0f, b) : a * r;
  if (!(mb <= finite) || b == 0.0f) return a * r;
  if (a == 0.0f) return a * copysignf(1.0f, b);
  return div_rn_binary64(a, b);
}

/// A float division of the user's program in generated code: `a / b`, correctly rounded as the
/// language says, without the call CUDA's float division makes where an operand or the quotient
/// leaves the range of its fast path (its slow path, `__cuda_sm3x_div_rn_noftz_f32_slowpath`: on
/// wave2d's decaying pulse half the warps took it for subnormal numerators, and under -rdc, as the
/// nvshmem backend builds, each call saves the caller's live registers). CUDA's fast path itself
/// (the reciprocal's approximation, one Newton step, the remainder's correction), correctly
/// rounded where both operands lie in [2^-63, 2^63] (nothing in it underflows or overflows there,
/// as CUDA's range check FCHK lets it be), computed whatever the operands, so that the reciprocal's
/// steps of a divisor the loop does not change leave the loop; elsewhere div_rn_outside.
__host__ __device__ __forceinline__ float div_rn(float a, float b) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  const float s = __fmaf_rn(r, __fmaf_rn(-b, r, 1.0f), r);
  const float q = __fmaf_rn(a, s, 0.0f);
  const float lo = 0x1p-63f, hi = 0x1p63f;
  const float ma = fabsf(a), mb = fabsf(b);
  if (ma >= lo && ma <= hi && mb >= lo && mb <= hi) return __fmaf_rn(s, __fmaf_rn(-b, q, a), q);
  return div_rn_outside(a, b, r);
}
#else
__host__ __device__ __forceinline__ float div_rn(float a, float b) { return a / b; }
#endif

/// V consecutive cells of T as one aligned value: a 16-byte (or 8-byte) load or store.
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <int V, class T>
__device__ __forceinline__ Vec<T, V> load_vec(const T* p) {
  return *reinterpret_cast<const Vec<T, V>*>(p);
}

template <int V, class T>
__device__ __forceinline__ void store_vec(T* p, const Vec<T, V>& x) {
  *reinterpret_cast<Vec<T, V>*>(p) = x;
}

/// Whether a block's rows can be read and written V cells at a time from local column 0 on: its
/// local 0 is aligned to V cells and so is every row (dblock_shape lays blocks out so; other
/// layouts take the scalar loop).
template <int V, class T>
__device__ __forceinline__ bool wide_ok(const T* data, long row_stride) {
  return reinterpret_cast<unsigned long long>(data) % (sizeof(T) * V) == 0 && row_stride % V == 0;
}

/// `swap %a, %b` of a global-view program: only the buffers trade places. The two blocks share
/// their layout (one extent for every grid of a program, halos united over the swap group by
/// infer-halos, the same process grid; the launcher checks it: compiled::check_swap_layouts), so
/// every other field stays what the kernel parameter holds, loop-invariant: ptxas need not keep
/// two DBlocks (18 registers each in 2-D) live across the time loop and swap them every step
/// (jacobi2d at 4 blocks per SM: 308 -> 100 bytes of spill stores). SPMD blocks are the user's
/// and may differ: check_swap, swap.
template <class T, int N>
__device__ __forceinline__ void swap_buffers(DBlock<T, N>& a, DBlock<T, N>& b) {
  T* const t = a.data;
  a.data = b.data;
  b.data = t;
}

/// The first multiple of v at or above x, and the last at or below it (x may be negative).
__host__ __device__ inline int round_up(int x, int v) { return x + ((v - x % v) % v); }
__host__ __device__ inline int round_down(int x, int v) { return x - ((x % v) + v) % v; }

/// A half-open index box, usable on the device (global indices, or local after clip()).
template <int N>
struct SBox {
  int lo[N];
  int hi[N];
};

/// The part of a global box that block `b` owns, in its local indices (possibly empty).
template <class T, int N>
__host__ __device__ inline SBox<N> clip(const SBox<N>& global, const DBlock<T, N>& b) {
  SBox<N> local;
  for (int d = 0; d < N; ++d) {
    const int lo = global.lo[d] - b.origin[d];
    const int hi = global.hi[d] - b.origin[d];
    local.lo[d] = lo > 0 ? lo : 0;
    local.hi[d] = hi < b.extent[d] ? hi : b.extent[d];
    if (local.hi[d] < local.lo[d]) local.hi[d] = local.lo[d];
  }
  return local;
}

/// The boxes of one part of a split point update (split-boundary): the inner part is the points
/// of `local` at least `width_lo`/`width_hi` from the block's faces, one box; the boundary part is
/// the rest, as 2N disjoint slabs (some empty).
template <int N>
struct PartBoxes {
  SBox<N> box[2 * N];
  int count;
};

/// The dataflow loop's part of `local` (the update's range on this PE's block, local indices) for
/// this block: its rows along dimension 0 (flow.cuh's DFlow), one box, maybe empty.
template <int N, class Flow>
__device__ PartBoxes<N> flow_rows(const SBox<N>& local, const Flow& flow) {
  PartBoxes<N> parts;
  parts.box[0] = local;
  parts.box[0].lo[0] = max(local.lo[0], flow.row_begin());
  parts.box[0].hi[0] = max(parts.box[0].lo[0], min(local.hi[0], flow.row_end()));
  parts.count = 1;
  return parts;
}

/// Whether a dataflow block walks `rows` (its rows of the update, flow_rows) in strips under
/// STENCILC_FLOW_STRIPS: at least STENCILC_FLOW_STRIP_MIN_POINTS points a thread of the block.
template <int N>
__device__ bool flow_strips_pay(const SBox<N>& rows) {
  long long points = 1;
  for (int d = 0; d < N; ++d) points *= rows.hi[d] > rows.lo[d] ? rows.hi[d] - rows.lo[d] : 0;
  return points >= static_cast<long long>(STENCILC_FLOW_STRIP_MIN_POINTS) * blockDim.x;
}

/// A split point update's boundary widths where the exchanges act: a face of the block that
/// neither receives halos nor has layers sent (`sides`: DHaloExchange::faces of the exchanged
/// grids the update reads or writes, or-ed) keeps its points in the inner part.
__host__ __device__ inline void keep_exchanged_faces(int* width_lo, int* width_hi, int n, unsigned sides) {
  for (int d = 0; d < n; ++d) {
    if (((sides >> (2 * d)) & 1u) == 0) width_lo[d] = 0;
    if (((sides >> (2 * d + 1)) & 1u) == 0) width_hi[d] = 0;
  }
}

template <class T, int N>
__host__ __device__ inline SBox<N> inner_part(const SBox<N>& local, const DBlock<T, N>& b, const int* width_lo,
                                              const int* width_hi) {
  SBox<N> inner;
  for (int d = 0; d < N; ++d) {
    // local.lo <= inner.lo <= inner.hi <= local.hi, so the slabs of boundary_part partition the rest.
    const int lo = local.lo[d] > width_lo[d] ? local.lo[d] : width_lo[d];
    inner.lo[d] = lo < local.hi[d] ? lo : local.hi[d];
    const int hi = local.hi[d] < b.extent[d] - width_hi[d] ? local.hi[d] : b.extent[d] - width_hi[d];
    inner.hi[d] = hi > inner.lo[d] ? hi : inner.lo[d];
  }
  return inner;
}

template <int N>
__host__ __device__ inline PartBoxes<N> part_boxes(const SBox<N>& local, const SBox<N>& inner, bool boundary) {
  PartBoxes<N> parts;
  if (!boundary) {
    parts.box[0] = inner;
    parts.count = 1;
    return parts;
  }
  parts.count = 2 * N;
  for (int d = 0; d < N; ++d) {
    for (int side = 0; side < 2; ++side) {
      SBox<N>& s = parts.box[2 * d + side];
      for (int k = 0; k < N; ++k) {
        s.lo[k] = k < d ? inner.lo[k] : local.lo[k];
        s.hi[k] = k < d ? inner.hi[k] : local.hi[k];
      }
      if (side == 0) s.hi[d] = inner.lo[d];
      else s.lo[d] = inner.hi[d];
    }
  }
  return parts;
}

/// A boundary part's boxes as one sequence of points, box after box, each row-major: a group's
/// threads walk it with one grid-stride loop, so the points a thread has in flight may lie in
/// different boxes (walked box after box, a boundary of thin slabs waited a load round trip per
/// box). `total` < 2^31 (the flat index is 32-bit; the caller
/// checks `fits`).
/// Only the boxes with points are kept (in order: the same sequence), and only their entries are
/// written: the barrier form builds its boundary part's walk every step, by every thread of the
/// group, and a walk of 2N boxes zero-filled with a divisor (a 64-bit division) for each box and
/// dimension cost 5 us a step of heat3d 96^3 on 1 GPU, where all six boxes are empty (14.4 us a
/// step against 9.1 with the walk built once).
template <int N>
struct BoxWalk {
  int count = 0;                           // boxes with points
  unsigned end[2 * N];                     // points of boxes [0, b], b < count
  int lo[2 * N][N];                        // of boxes [0, count)
  int extent[2 * N][N];
  FastDiv div[2 * N][N > 1 ? N - 1 : 1];  // extent[b][d] for d >= 1, at div[b][d - 1]
  unsigned total = 0;
  bool fits = true;

  __host__ __device__ explicit BoxWalk(const PartBoxes<N>& parts) {
    unsigned long long sum = 0;
    for (int k = 0; k < parts.count; ++k) {
      const SBox<N>& box = parts.box[k];
      unsigned long long points = 1;
      for (int d = 0; d < N; ++d) points *= static_cast<unsigned long long>(box.hi[d] > box.lo[d] ? box.hi[d] - box.lo[d] : 0);
      if (points == 0) continue;
      const int b = count++;
      for (int d = 0; d < N; ++d) {
        lo[b][d] = box.lo[d];
        extent[b][d] = box.hi[d] - box.lo[d];
        if (d > 0) div[b][d - 1] = FastDiv(static_cast<unsigned>(extent[b][d]));
      }
      sum += points;
      fits = fits && sum < (1ULL << 31);
      end[b] = fits ? static_cast<unsigned>(sum) : 0;
    }
    total = fits ? static_cast<unsigned>(sum) : 0;
  }

  /// Point p (< total): its local indices l[0..N), row-major within its box.
  __host__ __device__ void locate(unsigned p, int* l) const {
    int b = 0;
    while (b + 1 < count && p >= end[b]) ++b;
    unsigned rest = p - (b > 0 ? end[b - 1] : 0u);
    for (int d = N - 1; d > 0; --d) {
      const unsigned q = div[b][d - 1].div(rest);
      l[d] = lo[b][d] + static_cast<int>(rest - q * static_cast<unsigned>(extent[b][d]));
      rest = q;
    }
    l[0] = lo[b][0] + static_cast<int>(rest);
  }
};

#ifdef __CUDACC__
/// A walk set up once before a loop, in the block's shared memory (a __shared__ variable has no
/// constructor: this is its storage). Every thread of a block walks the same boxes, so one copy
/// a block serves them all and the loop keeps none in registers or local memory (heat3d's
/// kernel: ptxas' stack 1408 bytes a thread, as without the hoisting; 1704 with a copy a thread).
template <int N>
struct SharedWalk {
  alignas(BoxWalk<N>) unsigned char bytes[sizeof(BoxWalk<N>)];

  __device__ const BoxWalk<N>& get() const { return *reinterpret_cast<const BoxWalk<N>*>(bytes); }
};

/// Every thread of the block, before the loop (a __syncthreads inside): thread 0 builds the walk
/// of `parts` into `walk`; the others read it once the barrier is passed.
template <int N>
__device__ inline const BoxWalk<N>& build_shared_walk(SharedWalk<N>& walk, const PartBoxes<N>& parts) {
  if (threadIdx.x == 0) new (walk.bytes) BoxWalk<N>(parts);
  __syncthreads();
  return walk.get();
}
#endif  // __CUDACC__

template <int N>
__host__ __device__ inline long long box_points(const SBox<N>& b) {
  long long n = 1;
  for (int d = 0; d < N; ++d) n *= b.hi[d] - b.lo[d];
  return n;
}

/// The thread blocks a statement runs on: `count` blocks from `first` (specialize-blocks' roles;
/// the whole grid when the kernel is not specialised). Point updates spread over the group's
/// threads; every block of the group calls a group barrier.
struct Workers {
  int first;
  int count;

  __device__ bool has_me() const { return static_cast<unsigned>(blockIdx.x - first) < static_cast<unsigned>(count); }
  __device__ unsigned thread() const { return (blockIdx.x - first) * blockDim.x + threadIdx.x; }
  __device__ unsigned threads() const { return static_cast<unsigned>(count) * blockDim.x; }
};

/// The barrier form's point loops of the compute group share their work out at run time
/// (Rounds): the group's threads first stride over a fixed share of the items as a plain loop
/// does, then each block takes the remaining rounds a chunk at a time from a counter, so that
/// blocks the memory system serves faster do more of the work and none waits long at the step's
/// barrier for a slower one. STENCILC_BALANCE_STATIC is the fixed share in percent (100: the
/// plain grid-stride loop alone); STENCILC_BALANCE_CHUNKS about how many chunks a block takes in
/// the shared part.
#ifndef STENCILC_BALANCE_STATIC
#define STENCILC_BALANCE_STATIC 50
#endif
#ifndef STENCILC_BALANCE_CHUNKS
#define STENCILC_BALANCE_CHUNKS 8
#endif
/// The words of a kernel's sync array the shared loops' counter takes: the chunks taken, with the
/// shared executions so far in the high 32 bits, and the blocks done.
constexpr int kBalanceWords = 2;
/// A loop shares its rounds where each thread has at least this many: below it the counter's
/// round trips cost more than the imbalance.
constexpr unsigned kBalanceMinRounds = 8;

/// The counter every shared loop of a kernel takes its chunks from (kBalanceWords words of the
/// sync array, zero at launch), the block's slot that shares a chunk among its threads, and the
/// shared executions so far as this thread counts them: every thread of the compute group runs
/// the same shared loops in the same order, and each execution waits for the one before to
/// release the counter, so one counter serves them all.
struct Balance {
  std::uint64_t* words;
  unsigned* slot;  // __shared__
  unsigned executions;
};

/// The rounds of one execution of a point loop over `items` items for a worker group, each
/// thread taking `batch` items a round, `stride()` apart, the first `first()`:
///
///   for (Rounds r(pe, group, items, batch, balance); r.next();) { ... r.first() ... }
///
/// Every thread of the group runs the loop. The fixed share: round k of a thread is items
/// thread + k * batch * threads, as in a plain grid-stride loop; the shared part: a block's
/// round is batch * blockDim.x consecutive items, and a chunk some rounds, which thread 0 takes
/// from the counter (the next one asked for while a chunk runs) and __syncthreads shares. An
/// execution's first chunk waits until the previous shared execution has released the counter
/// (its last block resets it): at once where a barrier lies between them, else a bounded wait
/// like every other. Items past `items` in a round: the caller's to skip.
template <class Pe>
class Rounds {
 public:
  __device__ Rounds(const Pe& pe, const Workers& group, unsigned items, unsigned batch,
                    Balance& balance)
      : balance_(balance),
        group_(group),
        items_(items),
        batch_(batch),
        end_(items),
        step_(batch * group.threads()),
        stride_(group.threads()) {
    first_ = group.thread() - step_;  // next() adds step_ (unsigned: wraps back)
    if (balance.words == nullptr || items / step_ < kBalanceMinRounds ||
        STENCILC_BALANCE_STATIC >= 100)
      return;
    shared_ = true;
    end_ = fixed_end();
    execution_ = balance.executions++;
    if (threadIdx.x == 0) {  // the first chunk comes while the fixed share runs
      const unsigned execution = execution_;  // copied: the message must not take our address
      pe.wait_with(balance.words, Cmp::GE, static_cast<std::uint64_t>(execution) << 32,
                   [execution](detail::Message& m) {
                     m.str("the other blocks to finish shared point loop execution #")
                         .num(static_cast<long long>(execution) - 1);
                   });
      ticket_ = take();
    }
  }

  /// The next round of this thread; false past the last.
  __device__ bool next() {
    first_ += step_;
    return first_ < end_ || more();
  }
  __device__ unsigned first() const { return first_; }
  __device__ unsigned stride() const { return stride_; }

 private:
  // The end of the fixed share: whole rounds of the group, so every thread leaves it together.
  __device__ unsigned fixed_end() const {
    const unsigned round = batch_ * group_.threads();
    return static_cast<unsigned>(static_cast<unsigned long long>(items_ / round) *
                                 STENCILC_BALANCE_STATIC / 100) *
           round;
  }
  // Past the fixed share or a chunk: the block's next chunk, or false. The chunk's size is
  // worked out here, not kept: registers stay with the loop's body.
  __device__ bool more() {
    if (!shared_) return false;
    const unsigned start = fixed_end(), block_round = batch_ * blockDim.x;
    const unsigned block_rounds = (items_ - start + block_round - 1) / block_round;
    const unsigned even = block_rounds / (static_cast<unsigned>(group_.count) * STENCILC_BALANCE_CHUNKS);
    const unsigned chunk = even > 0 ? even : 1u, chunks = (block_rounds + chunk - 1) / chunk;
    __syncthreads();  // every thread has read the slot
    if (threadIdx.x == 0) {
      *balance_.slot = ticket_;
      if (ticket_ < chunks) ticket_ = take();
    }
    __syncthreads();
    const unsigned t = *balance_.slot;
    if (t >= chunks) {
      shared_ = false;
      if (threadIdx.x == 0) done();
      return false;
    }
    const unsigned from = start + t * chunk * block_round;
    first_ = from + threadIdx.x;
    end_ = from + chunk * block_round;
    step_ = block_round;
    stride_ = blockDim.x;
    return true;
  }
  __device__ unsigned take() {
    return static_cast<unsigned>(
        atomicAdd(reinterpret_cast<unsigned long long*>(balance_.words), 1ULL));
  }
  // Thread 0 of the last block out resets the counter for the next shared execution.
  __device__ void done() {
    auto* finished = reinterpret_cast<unsigned long long*>(balance_.words + 1);
    if (atomicAdd(finished, 1ULL) + 1 == static_cast<unsigned long long>(group_.count)) {
      atomicExch(finished, 0ULL);
      __threadfence();
      atomicExch(reinterpret_cast<unsigned long long*>(balance_.words),
                 static_cast<unsigned long long>(execution_ + 1ULL) << 32);
    }
  }

  const Balance& balance_;
  Workers group_;
  unsigned items_, batch_, first_, end_, step_, stride_;
  unsigned ticket_ = 0, execution_ = 0;
  bool shared_ = false;
};

/// How many blocks of `kernel` are resident at once on the current GPU under `config` (the
/// occupancy times the SMs, capped by config.max_blocks): what a cooperative launch gets.
template <class... KArgs>
inline int resident_blocks(void (*kernel)(KArgs...), const LaunchConfig& config) {
  int device = 0, sms = 0, per_sm = 0;
  STENCILC_CUDA_CHECK(cudaGetDevice(&device));
  STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  STENCILC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, config.block_threads,
                                                                    config.dynamic_smem));
  if (config.blocks_per_sm > 0 && config.blocks_per_sm < per_sm) per_sm = config.blocks_per_sm;
  const int blocks = per_sm * sms;
  return config.max_blocks > 0 && config.max_blocks < blocks ? config.max_blocks : blocks;
}

/// The flat index of a point loop is 32-bit: a box is walked in chunks of whole slices along
/// dimension 0 of fewer than 2^31 points each (one chunk, unless a block holds more points than
/// that): this many slices, at least 1 and at most the box's extent (so the chunk loop's index
/// cannot overflow). A slice alone must fit.
template <int N, class Pe>
__device__ inline int rows_per_chunk(const Pe& pe, const SBox<N>& box, const char* what) {
  long long slice = 1;
  for (int d = 1; d < N; ++d) slice *= box.hi[d] - box.lo[d];
  const long long limit = (1LL << 31) - 1;
  if (slice > limit) {
    if (block_rank() == 0 && thread_rank() == 0) {
      pe.fatal_with([&](detail::Message& m) {
        m.str(what).str(": one slice of the block holds ").num(slice).str(" points (at most 2^31 - 1)");
      });
    }
    __trap();
  }
  const long long rows = slice > 0 ? limit / slice : limit;
  const long long extent = box.hi[0] - box.lo[0];
  return static_cast<int>(rows < extent ? rows : (extent > 0 ? extent : 1));
}

/// A boundary part's walk must fit the 32-bit flat index (BoxWalk::fits); otherwise the run stops
/// with a message (every thread that gets here reports: the first claims the record).
template <int N, class Pe>
__device__ inline void check_walk(const Pe& pe, const BoxWalk<N>& walk, const char* what) {
  if (walk.fits) return;
  pe.fatal_with([&](detail::Message& m) {
    m.str(what).str(": the boundary part of the block holds 2^31 points or more (at most 2^31 - 1)");
  });
}

/// The on-chip form's guard: the block's tiles (`used` bytes, from onchip_tile) must fit in the
/// dynamic shared memory the launch gave it (compiled::onchip_plan sized it for the block with the
/// most rows on any PE). A block with more rows than that reports it and stops the run, instead
/// of writing past its shared memory.
template <class Pe>
__device__ inline void check_onchip(const Pe& pe, std::size_t used, const char* what) {
  unsigned size = 0;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
  if (used <= size) return;
  if (threadIdx.x == 0) {
    pe.fatal_with([&](detail::Message& m) {
      m.str(what).str(": the on-chip form's tiles of this block take ").num(static_cast<long long>(used))
          .str(" bytes of shared memory, the launch gave ").num(static_cast<long long>(size));
    });  // traps
  }
  __syncthreads();  // the others wait here for thread 0's record and trap
  __trap();
}

namespace detail {
// Thread 0 of each block of the group: the arrival and the bounded wait (one thread makes the
// call, so under -rdc its ABI saves cost one thread's registers, not the block's).
template <class Pe>
__device__ inline STENCILC_STEP_FN void group_arrive(const Pe& pe, const Workers& group,
                                                     std::uint64_t* counter,
                                                     unsigned long long passed, const char* what) {
  __threadfence();  // this block's writes (ordered before us by __syncthreads) before the arrival
  atomicAdd(reinterpret_cast<unsigned long long*>(counter), 1ULL);
  pe.wait_with(
      counter, Cmp::GE, passed * static_cast<unsigned long long>(group.count),
      [&](detail::Message& m) {
        m.str("the other blocks of ").str(what).str(" (blocks ").num(group.first).str("..");
        m.num(group.first + group.count - 1)
            .str(") at their barrier #")
            .num(static_cast<long long>(passed));
      });
  __threadfence();
}
}  // namespace detail

/// A barrier among the blocks of `group` (a role's phase_barrier): the same ordering as a grid
/// barrier, among those blocks only. `counter` is a word of symmetric memory that only this
/// group's barriers use, zero at launch; `passed` counts this group's barriers so far (every
/// thread keeps it). One block: __syncthreads(). A block that waits longer than the runtime's
/// timeout reports it like any other wait and stops the run.
template <class Pe>
__device__ __forceinline__ void group_barrier(const Pe& pe, const Workers& group,
                                              std::uint64_t* counter, unsigned long long& passed,
                                              const char* what) {
  ++passed;
  __syncthreads();
  if (group.count == 1) return;
  if (threadIdx.x == 0) detail::group_arrive(pe, group, counter, passed, what);
  __syncthreads();
}

namespace detail {
template <int N, class Pe>
__device__ inline STENCILC_STEP_FN void report_reads(const Pe& pe, const SBox<N>& range,
                                                     const int* extent, const int* lo,
                                                     const int* hi, int d, const char* what) {
  // Every thread that gets here (all of the statement's group) reports: the first claims the
  // record, the others wait for it to be written and stop (no barrier: the group may be a
  // role's, not the whole grid).
  pe.fatal_with([&](detail::Message& m) {
    m.str(what).str(": reads outside the grid in dimension ").num(d).str(" (points ");
    m.num(range.lo[d] + lo[d])
        .str("..")
        .num(range.hi[d] - 1 + hi[d])
        .str(" of ")
        .num(extent[d])
        .str(")");
  });
}
}  // namespace detail

/// What a point update reads past a non-periodic edge of its grid: nothing is there (the
/// reference build stops too). `extent` and `periodic` describe the global grid.
template <int N, class Pe>
__device__ __forceinline__ void check_reads(const Pe& pe, const SBox<N>& range,
                                            const int* extent, const bool* periodic, const int* lo,
                                            const int* hi, const char* what) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;
  for (int d = 0; d < N; ++d) {
    if (periodic[d]) continue;
    if (range.lo[d] + lo[d] < 0 || range.hi[d] - 1 + hi[d] >= extent[d]) {
      detail::report_reads(pe, range, extent, lo, hi, d, what);
    }
  }
}

namespace detail {
template <int N, class Pe>
__device__ inline STENCILC_STEP_FN void report_range(const Pe& pe, const SBox<N>& range,
                                                     const int* extent, const bool* const* periodic,
                                                     const char* const* grids, int count,
                                                     const char* program, const char* where,
                                                     int d) {
  int fixed = -1;
  for (int g = count - 1; g >= 0; --g)
    if (!periodic[g][d]) fixed = g;
  const int bad = range.lo[d] < 0 ? range.lo[d] : range.hi[d] - 1;
  pe.fatal_with([&](detail::Message& m) {
    m.str(where).str(": program '").str(program);
    if (fixed >= 0) {
      m.str("', grid '")
          .str(grids[fixed])
          .str("': index ")
          .num(bad)
          .str(" out of range [0, ")
          .num(extent[d]);
      m.str(") in dimension ")
          .num(d)
          .str(" (fixed boundary): the range [")
          .num(range.lo[d])
          .str(", ");
      m.num(range.hi[d]).str(") reaches outside the grid");
    } else {
      m.str("' runs a point update over [")
          .num(range.lo[d])
          .str(", ")
          .num(range.hi[d])
          .str(") in dimension ");
      m.num(d).str(", outside the grids' points [0, ").num(extent[d]);
      m.str("): stencilc runs point updates over grid points only (shrink the range)");
    }
  });
}
}  // namespace detail

/// A global-view point update's range holds grid points only, as on the host target
/// (compiled::check_range, the same messages): a range that reaches outside [0, extent) indexes
/// a grid outside its fixed boundary (the reference build stops there), or wraps a periodic one,
/// which stencilc does not run. `grids` names the `count` grids the update reads or writes,
/// `periodic` their periodic flags; `where` is "file:line:col".
template <int N, class Pe>
__device__ __forceinline__ void check_range(const Pe& pe, const SBox<N>& range,
                                            const int* extent, const bool* const* periodic,
                                            const char* const* grids, int count,
                                            const char* program, const char* where) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;  // no points: nothing is indexed
  for (int d = 0; d < N; ++d) {
    if (range.lo[d] >= 0 && range.hi[d] <= extent[d]) continue;
    detail::report_range(pe, range, extent, periodic, grids, count, program, where, d);
  }
}

}  // namespace stencilc::rt::cuda
