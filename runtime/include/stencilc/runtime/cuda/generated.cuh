// Device helpers for the persistent kernels stencilc generates (codegen/CudaEmitter.cpp): index
// boxes, the part of a global range a PE owns, and reductions over the whole grid of one GPU
// whose result every thread gets. Everything here is called by every thread of the grid.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda {

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

template <int N>
__host__ __device__ inline long long box_points(const SBox<N>& b) {
  long long n = 1;
  for (int d = 0; d < N; ++d) n *= b.hi[d] - b.lo[d];
  return n;
}

/// What a point update reads past a non-periodic edge of its grid: nothing is there (the
/// reference build stops too). `extent` and `periodic` describe the global grid.
template <int N>
__device__ inline void check_reads(const DevicePe& pe, const SBox<N>& range, const int* extent,
                                   const bool* periodic, const int* lo, const int* hi, const char* what) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;
  for (int d = 0; d < N; ++d) {
    if (periodic[d]) continue;
    if (range.lo[d] + lo[d] < 0 || range.hi[d] - 1 + hi[d] >= extent[d]) {
      if (block_rank() == 0 && thread_rank() == 0) {
        pe.fatal_with([&](detail::Message& m) {
          m.str(what).str(": reads outside the grid in dimension ").num(d).str(" (points ");
          m.num(range.lo[d] + lo[d]).str("..").num(range.hi[d] - 1 + hi[d]).str(" of ").num(extent[d]).str(")");
        });
      }
      pe.grid_barrier();
      __trap();
    }
  }
}

template <class T>
__device__ inline T combine(T a, T b, ReduceOp op) {
  if (op == ReduceOp::Sum) return static_cast<T>(a + b);
  if (op == ReduceOp::Max) return b > a ? b : a;
  return b < a ? b : a;
}

/// Combines every thread's `value` over this GPU's whole grid and returns the result to every
/// thread: warps, then the block through shared memory, then the blocks' partials in block order
/// (deterministic for a given grid size) by the leader. `scratch` holds one word per block plus
/// one for the result. Two grid barriers.
template <class T>
__device__ inline T grid_reduce(const DevicePe& pe, T value, ReduceOp op, std::uint64_t* scratch) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "scalars of at most 8 bytes");
  __shared__ std::uint64_t warp_partials[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value = combine(value, __shfl_down_sync(0xffffffffu, value, offset), op);
  if (lane == 0) memcpy(&warp_partials[warp], &value, sizeof(T));
  __syncthreads();
  if (threadIdx.x == 0) {
    T block_value;
    memcpy(&block_value, &warp_partials[0], sizeof(T));
    for (unsigned w = 1; w < (blockDim.x + 31) / 32; ++w) {
      T next;
      memcpy(&next, &warp_partials[w], sizeof(T));
      block_value = combine(block_value, next, op);
    }
    memcpy(&scratch[1 + blockIdx.x], &block_value, sizeof(T));
  }
  pe.grid_barrier();
  if (block_rank() == 0 && thread_rank() == 0) {
    T total;
    memcpy(&total, &scratch[1], sizeof(T));
    for (unsigned b = 1; b < gridDim.x; ++b) {
      T next;
      memcpy(&next, &scratch[1 + b], sizeof(T));
      total = combine(total, next, op);
    }
    memcpy(&scratch[0], &total, sizeof(T));
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
__device__ inline T team_allreduce(const DevicePe& pe, T value, ReduceOp op, std::uint64_t* scratch) {
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

}  // namespace stencilc::rt::cuda
