// Device helpers for the persistent kernels stencilc generates (codegen/Cuda*.cpp): index
// boxes, the part of a global range a PE owns, and reductions over the whole grid of one GPU
// whose result every thread gets, the groups of blocks that roles give statements, and their
// barriers. Unless said otherwise, every thread of the grid calls these.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/roles.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/flow.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
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
// The block size of a kernel with a 3-D wide point loop (the emitter's sc_<program>::kBlockThreads:
// block_threads_for below). At 256 threads (up to 128 registers, 2 blocks a SM) ptxas issues such
// a loop's item in two halves (4 of heat3d's 8 16-byte loads, then arithmetic that waits on them,
// then the rest: two memory round trips an item); at 192 (up to 168 registers) the whole item
// first. With 4-row items (STENCILC_WIDE_ROWS_3D) heat3d measured 13-22% faster on 1 and 4 H200s
// and 12% at 512^3 on 2 (docs/BENCHMARKS.md lists the runs). 2-D kernels, whose items are whole at 128
// registers, keep 256.
#ifndef STENCILC_BLOCK_THREADS_3D
#define STENCILC_BLOCK_THREADS_3D 192
#endif
static_assert(STENCILC_BLOCK_THREADS % 32 == 0 && STENCILC_BLOCK_THREADS <= 1024 &&
                  STENCILC_BLOCK_THREADS_3D % 32 == 0 && STENCILC_BLOCK_THREADS_3D <= 1024,
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
// marks, run where compiled::regs_plan finds the band fits): every block holds up to STENCILC_REGS_ROWS rows of
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
// The rows of a wide strip (a strip of 16-byte vectors of points along the last dimension, the
// point loop's form where the layout is aligned), 1 to 4 (STENCILC_WIDE_ROWS). Measured on H200:
// 2 rows for 2-D fp32 Jacobi and 3-D fp64 heat.
#ifndef STENCILC_WIDE_ROWS
#define STENCILC_WIDE_ROWS 2
#endif
// The rows of a 3-D loop's wide items (kWideRowsOf<3>): 4 with 3-D kernels of 192 threads (14
// 16-byte loads for 8 points instead of 8 for 4; see STENCILC_BLOCK_THREADS_3D).
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
/// The threads of a block of a kernel whose widest wide point loop (16-byte items) has
/// `wide_rank` dimensions (0: none): STENCILC_BLOCK_THREADS_3D for 3, else STENCILC_BLOCK_THREADS.
constexpr int block_threads_for(int wide_rank) {
  return wide_rank >= 3 ? STENCILC_BLOCK_THREADS_3D : STENCILC_BLOCK_THREADS;
}
/// The register-resident form's band: columns a thread, rows a block.
constexpr int kRegsVec = STENCILC_REGS_VEC, kRegsRows = STENCILC_REGS_ROWS;
template <int N>
constexpr int kStripRows = N == 2 ? STENCILC_STRIP_ROWS_2D : STENCILC_STRIP_ROWS_3D;
static_assert(kStripRows<2> >= 1 && kStripRows<3> >= 1, "a strip has at least one row");
/// The rows of a wide item of an N-dimensional point loop (the emitter's wide_rows()).
template <int N>
constexpr int kWideRowsOf = N >= 3 ? STENCILC_WIDE_ROWS_3D : STENCILC_WIDE_ROWS;
static_assert(kWideRowsOf<2> >= 1 && kWideRowsOf<2> <= 4 && kWideRowsOf<3> >= 1 && kWideRowsOf<3> <= 4,
              "a wide strip has 1 to 4 rows (the emitter writes 4 at most)");

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
template <int N>
__device__ inline int rows_per_chunk(const DevicePe& pe, const SBox<N>& box, const char* what) {
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
template <int N>
__device__ inline void check_walk(const DevicePe& pe, const BoxWalk<N>& walk, const char* what) {
  if (walk.fits) return;
  pe.fatal_with([&](detail::Message& m) {
    m.str(what).str(": the boundary part of the block holds 2^31 points or more (at most 2^31 - 1)");
  });
}

/// The on-chip form's guard: the block's tiles (`used` bytes, from onchip_tile) must fit in the
/// dynamic shared memory the launch gave it (compiled::onchip_plan sized it for the block with the
/// most rows on any PE). A block with more rows than that reports it and stops the run, instead
/// of writing past its shared memory.
__device__ inline void check_onchip(const DevicePe& pe, std::size_t used, const char* what) {
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

/// A barrier among the blocks of `group` (a role's phase_barrier): the same ordering as a grid
/// barrier, among those blocks only. `counter` is a word of symmetric memory that only this
/// group's barriers use, zero at launch; `passed` counts this group's barriers so far (every
/// thread keeps it). One block: __syncthreads(). A block that waits longer than the runtime's
/// timeout reports it like any other wait and stops the run.
__device__ inline STENCILC_STEP_FN void group_barrier(const DevicePe& pe, const Workers& group, std::uint64_t* counter,
                                     unsigned long long& passed, const char* what) {
  ++passed;
  __syncthreads();
  if (group.count == 1) return;
  if (threadIdx.x == 0) {
    __threadfence();  // this block's writes (ordered before us by __syncthreads) before the arrival
    atomicAdd(reinterpret_cast<unsigned long long*>(counter), 1ULL);
    pe.wait_with(counter, Cmp::GE, passed * static_cast<unsigned long long>(group.count),
                 [&](detail::Message& m) {
                   m.str("the other blocks of ").str(what).str(" (blocks ").num(group.first).str("..");
                   m.num(group.first + group.count - 1).str(") at their barrier #").num(static_cast<long long>(passed));
                 });
    __threadfence();
  }
  __syncthreads();
}

/// What a point update reads past a non-periodic edge of its grid: nothing is there (the
/// reference build stops too). `extent` and `periodic` describe the global grid.
template <int N>
__device__ inline STENCILC_STEP_FN void check_reads(const DevicePe& pe, const SBox<N>& range, const int* extent,
                                   const bool* periodic, const int* lo, const int* hi, const char* what) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;
  for (int d = 0; d < N; ++d) {
    if (periodic[d]) continue;
    if (range.lo[d] + lo[d] < 0 || range.hi[d] - 1 + hi[d] >= extent[d]) {
      // Every thread that gets here (all of the statement's group) reports: the first claims
      // the record, the others wait for it to be written and stop (no barrier: the group may
      // be a role's, not the whole grid).
      pe.fatal_with([&](detail::Message& m) {
        m.str(what).str(": reads outside the grid in dimension ").num(d).str(" (points ");
        m.num(range.lo[d] + lo[d]).str("..").num(range.hi[d] - 1 + hi[d]).str(" of ").num(extent[d]).str(")");
      });
    }
  }
}

/// A global-view point update's range holds grid points only, as on the host target
/// (compiled::check_range, the same messages): a range that reaches outside [0, extent) indexes
/// a grid outside its fixed boundary (the reference build stops there), or wraps a periodic one,
/// which stencilc does not run. `grids` names the `count` grids the update reads or writes,
/// `periodic` their periodic flags; `where` is "file:line:col".
template <int N>
__device__ inline STENCILC_STEP_FN void check_range(const DevicePe& pe, const SBox<N>& range, const int* extent,
                                                  const bool* const* periodic, const char* const* grids, int count,
                                                  const char* program, const char* where) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;  // no points: nothing is indexed
  for (int d = 0; d < N; ++d) {
    if (range.lo[d] >= 0 && range.hi[d] <= extent[d]) continue;
    int fixed = -1;
    for (int g = count - 1; g >= 0; --g)
      if (!periodic[g][d]) fixed = g;
    const int bad = range.lo[d] < 0 ? range.lo[d] : range.hi[d] - 1;
    pe.fatal_with([&](detail::Message& m) {
      m.str(where).str(": program '").str(program);
      if (fixed >= 0) {
        m.str("', grid '").str(grids[fixed]).str("': index ").num(bad).str(" out of range [0, ").num(extent[d]);
        m.str(") in dimension ").num(d).str(" (fixed boundary): the range [").num(range.lo[d]).str(", ");
        m.num(range.hi[d]).str(") reaches outside the grid");
      } else {
        m.str("' runs a point update over [").num(range.lo[d]).str(", ").num(range.hi[d]).str(") in dimension ");
        m.num(d).str(", outside the grids' points [0, ").num(extent[d]);
        m.str("): stencilc runs point updates over grid points only (shrink the range)");
      }
    });
  }
}

template <class T>
__device__ inline T combine(T a, T b, ReduceOp op) {
  if (op == ReduceOp::Sum) return static_cast<T>(a + b);
  if (op == ReduceOp::Max) return b > a ? b : a;
  return b < a ? b : a;
}

/// `value` combined over the 32 lanes of the calling warp where `valid` is set, by shuffles in a
/// fixed order: lane 0's (and `valid`: whether any lane's was). Every lane of the warp calls it.
template <class T>
__device__ inline T warp_combine(T value, bool& valid, ReduceOp op) {
  const unsigned lane = threadIdx.x % 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    const T other = __shfl_down_sync(0xffffffffu, value, offset);
    const bool other_valid = __shfl_down_sync(0xffffffffu, valid, offset) && lane + offset < 32;
    if (other_valid) value = valid ? combine(value, other, op) : other;
    valid = valid || other_valid;
  }
  return value;
}

/// Combines `value` over the threads of this block whose `valid` is set, in a fixed order (warps
/// by shuffles, then the warps' results in warp order); the result (valid if any thread's was)
/// is thread 0's. Every thread of the block calls it.
template <class T>
__device__ inline T block_combine(T value, bool valid, ReduceOp op, bool* any_valid) {
  __shared__ std::uint64_t warp_value[32];
  __shared__ bool warp_valid[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_combine(value, valid, op);
  if (lane == 0) {
    memcpy(&warp_value[warp], &value, sizeof(T));
    warp_valid[warp] = valid;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    valid = false;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      if (!warp_valid[w]) continue;
      T next;
      memcpy(&next, &warp_value[w], sizeof(T));
      value = valid ? combine(value, next, op) : next;
      valid = true;
    }
  }
  __syncthreads();  // the shared words are read before a later call rewrites them
  *any_valid = valid;
  return value;
}

/// Combines every thread's `value` over this GPU's whole grid and returns the result to every
/// thread: each block combines its threads (block_combine) into its word of `scratch`; after a
/// grid barrier block 0's threads combine the blocks' words (thread t the words t, t + blockDim,
/// ..., then block_combine: deterministic for a given grid size) into scratch[0]; after a second
/// grid barrier every thread reads it. `scratch` holds one word per block plus one for the result.
/// `across_pes`: thread 0 of block 0 also combines the GPUs' values (DevicePe::allreduce_leader,
/// in PE order) before the second barrier: a reduction and its allreduce in two grid barriers
/// (grid_reduce then team_allreduce take four on more than one GPU).
template <class T>
__device__ inline STENCILC_STEP_FN T grid_reduce(const DevicePe& pe, T value, ReduceOp op, std::uint64_t* scratch,
                                                 bool across_pes = false) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "scalars of at most 8 bytes");
  bool valid = true;
  value = block_combine(value, valid, op, &valid);
  if (threadIdx.x == 0) memcpy(&scratch[1 + blockIdx.x], &value, sizeof(T));
  pe.grid_barrier();
  if (block_rank() == 0) {
    T total{};
    bool have = false;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      T next;
      memcpy(&next, (const void*)&scratch[1 + b], sizeof(T));
      total = have ? combine(total, next, op) : next;
      have = true;
    }
    total = block_combine(total, have, op, &have);
    if (threadIdx.x == 0) {
      if (across_pes && pe.n > 1) total = pe.allreduce_leader(total, op);
      memcpy(&scratch[0], &total, sizeof(T));
    }
  }
  pe.grid_barrier();
  T result;
  memcpy(&result, (const void*)&scratch[0], sizeof(T));
  __syncthreads();  // every thread has read scratch[0] before a later reduction reuses it
  return result;
}

/// Combines a value every thread of every GPU holds identically (a GPU's reduced value) across
/// the PEs, in PE order, and returns it to every thread.
template <class T>
__device__ inline STENCILC_STEP_FN T team_allreduce(const DevicePe& pe, T value, ReduceOp op, std::uint64_t* scratch) {
  if (pe.n == 1) return value;  // one PE: nothing to combine (every thread holds it already)
  if (block_rank() == 0 && thread_rank() == 0) {
    T total = pe.allreduce_leader(value, op);
    memcpy(&scratch[0], &total, sizeof(T));
  }
  pe.grid_barrier();
  T result;
  memcpy(&result, (const void*)&scratch[0], sizeof(T));
  pe.grid_barrier();  // scratch[0] is read by everyone before it is written again
  return result;
}

/// A reduction and its allreduce in the dataflow loop's step (docs/SCHEDULES.md), with no barrier:
/// grid_reduce takes three grid barriers and a round trip across the PEs (9.5 us a step of
/// jacobi2d 256^2 on 2 GPUs). Each block combines its own rows' values and writes the
/// result to every PE, this one too, as LL words (4 bytes of the value and the 4-byte tag of the
/// execution in each 8-byte word, as halo.cuh's LL faces) at [its PE][its block]; then every block
/// of every PE polls all of them and combines them in one fixed order (thread t the entries t,
/// t + blockDim, ... in PE order, each warp's by shuffles, then the warps' by the first warp's
/// shuffles), so every thread of every PE returns the same value. It ends the step for everyone,
/// as a barrier would, but in one exchange of words and no fence. Inside the block an execution
/// takes two __syncthreads (reduce(): three): the warps stage their values and their shares of
/// the entries in shared memory, the first warp combines them, sends the block's value and
/// publishes the result, which every thread reads (a form with two
/// block_combines and a broadcast, six __syncthreads and thread 0 walking the warps' words, cost
/// 0.9 us more a step of jacobi2d+norm 256^2 on 2 GPUs).
/// Tags count the executions (base, in the header, counts those of the launches before; finish()
/// advances it), not the steps: a reduction that runs every k steps still gets consecutive tags.
/// post() and complete() are its deferred form, for a result nothing in the loop reads (post()
/// says how). Two slots suffice for reduce(): a block writes execution e's words only after it
/// has read all of e - 1's, which every block wrote after it had read all of e - 2's. Every wait
/// is bounded.
/// Requires: every block of the grid calls reduce() the same number of times (blocks with no rows
/// pass the identity); setup() on every PE, then a barrier_all, before the first.
template <class Pe>
class DFlowReduce {
  // The entries whose loads a thread issues before it looks at any (poll). Measured on H200,
  // jacobi2d+norm on 1 and 2 GPUs: 1 is 0.3 us a step faster than 4 at 256^2 (one entry a
  // thread: the other three's index arithmetic is pure cost) and 0.4 us slower at 1024^2 on 2
  // GPUs (528 entries); a kernel with both, chosen by the entry count, was slower at 1024^2.
  static constexpr int kPollInFlight = 1;

 public:
  __device__ DFlowReduce(const Pe& pe, std::uint64_t* words) : pe_(&pe), w_(words) {
    base_ = *static_cast<volatile std::uint64_t*>(&w_[kFlowReduceHeader + kMaxPes]);
  }

  /// Every thread: this PE's block count into every PE's header (thread 0 of block 0; the
  /// caller's barrier_all then makes it visible).
  __device__ void setup() const {
    if (gridDim.x > static_cast<unsigned>(kMaxFlowBlocks)) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's reductions take at most ").num(kMaxFlowBlocks).str(" blocks a GPU, launched with ");
        m.num(static_cast<long long>(gridDim.x));
      });
    }
    if (gridDim.x * warps() > static_cast<unsigned>(kFlowLazyEntries)) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's lazy reductions take at most ").num(static_cast<long long>(kFlowLazyEntries));
        m.str(" warps a GPU, launched with ").num(static_cast<long long>(gridDim.x * warps()));
      });
    }
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int p = 0; p < pe_->n; ++p) {
      *static_cast<volatile std::uint64_t*>(peer(&w_[kFlowReduceHeader + pe_->id], p)) = gridDim.x;
    }
  }

  /// Every thread of every block: `value` combined over every thread of every PE.
  template <class T>
  __device__ T reduce(T value, ReduceOp op) {
    stage(value, true, op, kOwn);
    __syncthreads();  // the warps' values are staged
    ++done_;
    if (threadIdx.x < 32) send(collect<T>(kOwn, op));
    poll<T>(op);  // this execution's entries, this block's too
    __syncthreads();  // the warps' shares are staged
    if (threadIdx.x < 32) publish(collect<T>(kAll, op));
    return broadcast<T>();
  }

  /// The deferred form (a result nothing in the loop reads): every thread of every block posts
  /// this execution's `value` and returns T{} (the tail then assigns values nothing reads). It
  /// waits for nothing and meets nothing: each warp combines its threads' values by shuffles and
  /// its lane 0 sends the warp's to every PE, tagged with the execution (no shared memory, no
  /// __syncthreads). complete() gathers the last execution's warp entries, in one order. Each
  /// entry has one writer and every PE's warps post the same executions, so at the end each
  /// entry holds the last one, and nothing writes over it before complete() reads it: the
  /// barrier_all after the loop keeps the next loop's posts behind every complete(). Measured on
  /// 1, 2 and 4 H200s against a post that waited for execution e - 1 (jacobi2d+norm 256^2 in the
  /// register-resident form: 4.00 -> 2.76 us a step on one).
  template <class T>
  __device__ T post(T value, ReduceOp op) {
    bool valid = true;
    value = warp_combine(value, valid, op);  // lane 0's: the warp's
    ++done_;
    if (threadIdx.x % 32 == 0) {
      send_to(value, lazy_entry(pe_->id, static_cast<int>(blockIdx.x) * warps() + static_cast<int>(threadIdx.x / 32)));
    }
    pending_ = true;
    return T{};
  }

  /// Whether post() left an execution to complete().
  __device__ bool pending() const { return pending_; }

  /// After the loop, every thread of every block: the last posted execution's value.
  template <class T>
  __device__ T complete(ReduceOp op) {
    pending_ = false;
    lazy_poll<T>(op);
    __syncthreads();  // the warps' shares are staged
    if (threadIdx.x < 32) publish(collect<T>(kAll, op));
    return broadcast<T>();
  }

  /// After the loop's last barrier_all: the executions so far, for the next launch's tags.
  __device__ void finish() const {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      *static_cast<volatile std::uint64_t*>(&w_[kFlowReduceHeader + kMaxPes]) = base_ + done_;
    }
  }

 private:
  // The entry of block b of PE p in tag `tag`'s slot (this PE's copy).
  __device__ std::uint64_t* entry(std::uint32_t tag, int p, int b) const {
    static_assert((kFlowReduceSlots & (kFlowReduceSlots - 1)) == 0, "slots by the tag's low bits");
    return w_ + ((static_cast<std::size_t>(tag & (kFlowReduceSlots - 1u)) * kMaxPes + static_cast<std::size_t>(p)) * kMaxFlowBlocks +
                 static_cast<std::size_t>(b)) * 2;
  }
  __device__ std::uint64_t* peer(std::uint64_t* mine, int p) const {
    std::uint64_t* const there = pe_->remote(mine, p);
    if (there == nullptr) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's reductions: PE ").num(p).str(" cannot be reached with loads and stores from PE ").num(pe_->id);
      });
    }
    return there;
  }
  // Block b of PE p's value once each of its words holds `tag`: polled, then the PE's bounded
  // wait; a later tag means the parities were overrun (a fatal error, never a wrong value).
  template <class T>
  __device__ T take(const std::uint64_t* words, std::uint32_t tag, int p, int b) const {
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    std::uint32_t half[kWords];
    for (int k = 0; k < kWords; ++k) {
      const volatile std::uint64_t* word = &words[k];
      std::uint64_t v = *word;
      for (int spin = 0; (v >> 32) < tag && spin < (1 << 12); ++spin) v = *word;
      if ((v >> 32) < tag) {
        pe_->wait_with(&words[k], Cmp::GE, static_cast<std::uint64_t>(tag) << 32, [&](detail::Message& m) {
          m.str("the dataflow loop's reduction #").num(static_cast<long long>(tag)).str(": the value of block ").num(b);
          m.str(" of PE ").num(p);
        });
        v = *word;
      }
      if ((v >> 32) != tag) {
        pe_->fatal_with([&](detail::Message& m) {
          m.str("the dataflow loop's reduction #").num(static_cast<long long>(tag)).str(": block ").num(b).str(" of PE ");
          m.num(p).str(" wrote #").num(static_cast<long long>(v >> 32)).str(" over it");
        });
      }
      half[k] = static_cast<std::uint32_t>(v);
    }
    T value;
    memcpy(&value, half, sizeof(T));
    return value;
  }

  // The lazy post's entry i (warp i % warps of block i / warps) of PE p (this PE's copy).
  __device__ std::uint64_t* lazy_entry(int p, int i) const {
    return w_ + kFlowReduceHeader + kMaxPes + 1 + (static_cast<std::size_t>(p) * kFlowLazyEntries + static_cast<std::size_t>(i)) * 2;
  }
  __device__ static int warps() { return static_cast<int>((blockDim.x + 31) / 32); }

  // Every thread (complete() after lazy posts): its share of the latest execution's warp entries
  // of every PE (thread i the entries i, i + blockDim, ... in PE order), staged in kAll: one
  // fixed order, the same in every block of every PE. Every PE's blocks have as many warps as
  // this one's (one kernel, one block size).
  template <class T>
  __device__ void lazy_poll(ReduceOp op) {
    read_counts();
    const std::uint32_t t = tag();
    T acc{};
    bool have = false;
    for (int p = 0; p < pe_->n; ++p) {
      const int n = __shfl_sync(0xffffffffu, lane_blocks_, p % 32) * warps();
      for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) {
        const T v = take<T>(lazy_entry(p, i), t, p, i / warps());
        acc = have ? combine(acc, v, op) : v;
        have = true;
      }
    }
    stage(acc, have, op, kAll);
  }

  // The tag of the latest execution.
  __device__ std::uint32_t tag() const { return static_cast<std::uint32_t>(base_ + done_); }

  // Thread 0 (the others return): this block's value to every PE, tagged with the latest execution.
  template <class T>
  __device__ void send(const T& value) const {
    if (threadIdx.x != 0) return;
    send_to(value, entry(tag(), pe_->id, static_cast<int>(blockIdx.x)));
  }

  // `value` as LL words tagged with the latest execution into the entry `mine` (this PE's copy)
  // on every PE.
  template <class T>
  __device__ void send_to(const T& value, std::uint64_t* mine) const {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "LL words carry 4-byte parts of a value");
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    const std::uint32_t t = tag();
    std::uint32_t half[kWords];
    memcpy(half, &value, sizeof(T));
    for (int p = 0; p < pe_->n; ++p) {
      std::uint64_t* const words = peer(mine, p);
      for (int k = 0; k < kWords; ++k) {
        *static_cast<volatile std::uint64_t*>(&words[k]) = (static_cast<std::uint64_t>(t) << 32) | half[k];
      }
    }
  }

  // The block's values staged for the first warp, in two sets (kOwn: the block's own value for
  // send; kAll: the entries of every block of every PE): one slot a warp (its value and whether
  // any of its threads had one), and the first warp's result for broadcast(). Every call writes
  // a slot before a __syncthreads, reads it (the first warp) before the next, and writes the
  // result between the last two it takes; a later call writes after the last: one copy suffices.
  static constexpr int kOwn = 0, kAll = 1;
  struct Shared {
    std::uint64_t slot[2][32];
    bool valid[2][32];
    std::uint64_t result;
  };
  template <class T>
  __device__ static Shared& shared() {
    __shared__ Shared words;  // one a scalar type
    return words;
  }

  // Every thread: its warp's values where `valid`, combined into the warp's slot of `set`.
  template <class T>
  __device__ static void stage(T value, bool valid, ReduceOp op, int set) {
    value = warp_combine(value, valid, op);
    if (threadIdx.x % 32 == 0) {
      memcpy(&shared<T>().slot[set][threadIdx.x / 32], &value, sizeof(T));
      shared<T>().valid[set][threadIdx.x / 32] = valid;
    }
  }

  // The first warp, after the __syncthreads that follows stage: the warps' slots of `set`
  // combined in warp order (lane l takes warp l's; lane 0's).
  template <class T>
  __device__ static T collect(int set, ReduceOp op) {
    const unsigned lane = threadIdx.x;
    T value{};
    bool valid = lane < (blockDim.x + 31) / 32 && shared<T>().valid[set][lane];
    if (valid) memcpy(&value, &shared<T>().slot[set][lane], sizeof(T));
    return warp_combine(value, valid, op);
  }

  // Lane 0 of the first warp: the result every thread reads in broadcast (after a __syncthreads).
  template <class T>
  __device__ static void publish(const T& value) {
    if (threadIdx.x == 0) memcpy(&shared<T>().result, &value, sizeof(T));
  }
  template <class T>
  __device__ static T broadcast() {
    __syncthreads();  // the first warp published it
    T out;
    memcpy(&out, (const void*)&shared<T>().result, sizeof(T));
    return out;
  }

  // Every thread: its share of the values of execution tag() (the latest) of every block of
  // every PE (the entries in PE order, thread i the entries i, i + blockDim, ..., kPollInFlight
  // of them a round), staged in kAll. Each PE's block count is read once a launch (lane p of
  // every warp holds PE p's). The first warp's collect then combines the warps' in warp order:
  // one fixed order, the same in every block of every PE.
  template <class T>
  __device__ void poll(ReduceOp op) {
    read_counts();
    const int total = pe_->n * per_pe_;
    T acc{};
    bool have = false;
    for (int base = 0; base < total; base += kPollInFlight * static_cast<int>(blockDim.x)) {
      poll_round<T, kPollInFlight>(base, total, op, acc, have);
    }
    stage(acc, have, op, kAll);
  }

  // Every thread of the warp, once a launch: each PE's block count (lane p holds PE p's) and
  // the most of any PE.
  __device__ void read_counts() {
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (per_pe_ < 0) {
      lane_blocks_ = lane < pe_->n ? static_cast<int>(*static_cast<volatile std::uint64_t*>(&w_[kFlowReduceHeader + lane])) : 0;
      per_pe_ = lane_blocks_;
      for (int offset = 16; offset > 0; offset /= 2) per_pe_ = max(per_pe_, __shfl_xor_sync(0xffffffffu, per_pe_, offset));
    }
  }

  // Entry i of the entries in PE order (per_pe_ a PE): block *b of PE *p.
  __device__ void split_entry(int i, int* p, int* b) const {
    *p = i / per_pe_;
    *b = i - *p * per_pe_;
  }
  // The same, and whether it is one (i < total, and PE p has a block b). Every lane of the warp
  // calls it (the block counts' shuffle: never under a condition that differs between lanes).
  __device__ bool entry_at(int i, int total, int* p, int* b) const {
    split_entry(i, p, b);
    const int blocks = __shfl_sync(0xffffffffu, lane_blocks_, *p % 32);
    return i < total && *b < blocks;
  }

  // Execution tag()'s entries base + k * blockDim + threadIdx.x for k < kInFlight (of `total`)
  // into `acc`.
  // Every thread of the warp calls it (the block counts' shuffles).
  template <class T, int kInFlight>
  __device__ void poll_round(int base, int total, ReduceOp op, T& acc, bool& have) const {
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    const std::uint32_t t = tag();
    const int threads = static_cast<int>(blockDim.x);
    std::uint64_t v[kInFlight][kWords];
    bool in[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      int p, b;
      in[k] = entry_at(base + k * threads + static_cast<int>(threadIdx.x), total, &p, &b);
      if (in[k]) {
        const volatile std::uint64_t* words = entry(t, p, b);
#pragma unroll
        for (int w = 0; w < kWords; ++w) v[k][w] = words[w];
      }
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      if (!in[k]) continue;
      bool ready = true;
#pragma unroll
      for (int w = 0; w < kWords; ++w) ready = ready && (v[k][w] >> 32) == t;
      T next;
      if (ready) {
        std::uint32_t half[kWords];
#pragma unroll
        for (int w = 0; w < kWords; ++w) half[w] = static_cast<std::uint32_t>(v[k][w]);
        memcpy(&next, half, sizeof(T));
      } else {
        int p, b;
        split_entry(base + k * threads + static_cast<int>(threadIdx.x), &p, &b);
        next = take<T>(entry(t, p, b), t, p, b);
      }
      acc = have ? combine(acc, next, op) : next;
      have = true;
    }
  }

  const Pe* pe_;
  std::uint64_t* w_;
  std::uint64_t base_ = 0;
  std::uint64_t done_ = 0;  // executions in this launch
  bool pending_ = false;    // post() left one to complete()
  int per_pe_ = -1;         // the most blocks of any PE (-1: not read yet)
  int lane_blocks_ = 0;     // lane p of each warp: PE p's blocks
};

}  // namespace stencilc::rt::cuda
