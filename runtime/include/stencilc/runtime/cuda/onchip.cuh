// The dataflow loop's on-chip form (PERKS-style; docs/SCHEDULES.md, "The on-chip form"): each
// block keeps its rows of the loop's grids in shared memory for the whole loop, so a step reads
// and writes global memory only where other blocks need it.
//
// A block of the dataflow loop (flow.cuh) owns rows [r0, r1) along dimension 0 and reads at most
// `radius` rows past them. Its tile of a grid holds rows [r0 - radius, r1 + radius), each whole
// (every cell of the other dimensions: halos and padding), in the global layout's order and
// strides; the generated point code indexes it as the global block, with the row counted from the
// tile's first (OnChipTile). Per step:
//   - after its wait (DFlow::wait), the block reloads from global memory the tile cells that
//     others wrote in the step before: the rows past its own (its neighbours' rows, or at the
//     PE's faces the halo rows the neighbour PE's face block stored into), and the halo cells of
//     its own rows in the other dimensions (face stores into this PE's own halos: a periodic
//     dimension on one PE). Only the grid the step reads across points needs it (onchip_reload);
//   - its update reads the tiles, writes its own rows into the tile, and its first and last
//     `radius` rows (the rows its neighbours read) also into the global block; the face stores
//     (FaceWriter) go to the neighbours' halos in global memory as before.
// Cells inside the extent that the update does not write (a fixed boundary) never change and are
// loaded once. After the loop the block writes its rows of the update's range back
// (onchip_store_back), before DFlow::finish's barrier.
//
// The launcher gives the kernel the tiles as dynamic shared memory (compiled::onchip_plan: the
// form runs only where every tile of the block with the most rows fits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "stencilc/runtime/cuda/dblock.cuh"

namespace stencilc::rt::cuda {

// Bytes of one grid's tile: `rows` rows of a block and `radius` more on each side, each of
// `stride0` elements (the layout's row along dimension 0), plus 16 for the shift that gives the
// tile the global rows' alignment; a multiple of 16. The launcher sizes the dynamic shared memory
// with it, every block places its tiles with it.
__host__ __device__ inline std::size_t onchip_tile_bytes(int rows, int radius, long stride0, int element_bytes) {
  const std::size_t bytes = static_cast<std::size_t>(rows + 2 * radius) * static_cast<std::size_t>(stride0) *
                                static_cast<std::size_t>(element_bytes) + 16;
  return (bytes + 15) / 16 * 16;
}

#if defined(__CUDACC__)

// One grid's tile: rows [row0, row0 + rows) of a block, whole, in shared memory. Cell `l` (local
// indices of the block) is at origin[(l[0] - row0) * stride[0] + l[1] * stride[1] + ...]: every
// cell the step touches lies inside the tile, and so does `origin` (the tile's cell of local index
// (row0, 0, ..., 0)), so no pointer is ever formed outside it. (A DBlock whose data pointed at
// local index 0 would point far outside the shared array for most blocks: out-of-object pointer
// arithmetic, which the compiler may treat as unreachable once told the pointer is shared; the
// first form of this file did, and nvcc dropped the loop of advect2d's kernel.)
template <class T, int N>
struct OnChipTile {
  T* origin = nullptr;
  int row0 = 0;
  long stride[N] = {};

  // Local indices, as DBlock's (the generated point code's reads outside its views).
  template <class... Index>
  __device__ T& operator()(int i0, Index... rest) const {
    static_assert(sizeof...(Index) == N - 1, "one index per dimension");
    const int idx[N] = {i0, static_cast<int>(rest)...};
    long offset = static_cast<long>(i0 - row0) * stride[0];
    for (int d = 1; d < N; ++d) offset += idx[d] * stride[d];
    return origin[offset];
  }
};

// The tiles trade buffers with their grids (swap_buffers of the DBlocks beside them).
template <class T, int N>
__device__ __forceinline__ void swap_buffers(OnChipTile<T, N>& a, OnChipTile<T, N>& b) {
  T* const t = a.origin;
  a.origin = b.origin;
  b.origin = t;
}

namespace detail {
// Offset of a row's first cell (the lowest halo cell of the other dimensions) from its local
// index (row, 0, ..., 0).
template <class T, int N>
__device__ inline long row_corner(const DBlock<T, N>& b) {
  long corner = 0;
  for (int d = 1; d < N; ++d) corner += b.halo_lo[d] * b.stride[d];
  return corner;
}
}  // namespace detail

// The tile of `block`'s rows [row_begin - radius, row_end + radius), placed at `smem + used`
// (the block's dynamic shared memory); `used` advances past it. The tile starts as many bytes past
// a 16-byte boundary as the global row does, so both copy with 16-byte moves.
template <class T, int N>
__device__ OnChipTile<T, N> onchip_tile(const DBlock<T, N>& block, unsigned char* smem, int row_begin, int row_end, int radius,
                                        std::size_t& used) {
  OnChipTile<T, N> tile;
  tile.row0 = row_begin - radius;
  for (int d = 0; d < N; ++d) tile.stride[d] = block.stride[d];
  const long corner = detail::row_corner(block);
  const T* const first = block.data + (static_cast<long>(tile.row0) * block.stride[0] - corner);  // address only
  const auto misaligned = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(first) % 16);
  tile.origin = reinterpret_cast<T*>(smem + used + misaligned) + corner;
  used += onchip_tile_bytes(row_end - row_begin, radius, block.stride[0], static_cast<int>(sizeof(T)));
  return tile;
}

// Every thread of the block: whole rows [lo, hi) (clipped to the rows the layout has and the
// tile holds) from the global block into its tile.
template <class T, int N>
__device__ void onchip_copy_rows(const OnChipTile<T, N>& tile, const DBlock<T, N>& global, int lo, int hi) {
  lo = max(lo, -global.halo_lo[0]);
  hi = min(hi, global.extent[0] + global.halo_hi[0]);
  if (lo >= hi) return;
  const long corner = detail::row_corner(global);
  const long n = static_cast<long>(hi - lo) * global.stride[0];
  const T* const src = global.data + (static_cast<long>(lo) * global.stride[0] - corner);
  T* const dst = tile.origin + (static_cast<long>(lo - tile.row0) * global.stride[0] - corner);
  const auto step = static_cast<long>(blockDim.x);
  long head = n;  // all of it one element at a time, unless aligned alike (below)
  if constexpr (16 % sizeof(T) == 0) {
    const auto s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
    if ((s - d) % 16 == 0) {
      constexpr long v = 16 / static_cast<long>(sizeof(T));
      head = static_cast<long>((16 - s % 16) % 16 / sizeof(T));
      if (head > n) head = n;
      const long vectors = (n - head) / v;
      const uint4* const s4 = reinterpret_cast<const uint4*>(src + head);
      uint4* const d4 = reinterpret_cast<uint4*>(dst + head);
      for (long i = threadIdx.x; i < vectors; i += step) d4[i] = s4[i];
      for (long i = head + vectors * v + threadIdx.x; i < n; i += step) dst[i] = src[i];
    }
  }
  for (long i = threadIdx.x; i < head; i += step) dst[i] = src[i];
}

// Every thread of the block: the cells of box [lo, hi) (local indices, rows inside the tile)
// between the global block and its tile, into the tile (`load`) or out of it.
template <class T, int N>
__device__ void onchip_copy_box(const OnChipTile<T, N>& tile, const DBlock<T, N>& global, const int (&lo)[N], const int (&hi)[N],
                                bool load) {
  unsigned ext[N];
  unsigned count = 1;
  for (int d = 0; d < N; ++d) {
    if (hi[d] <= lo[d]) return;
    ext[d] = static_cast<unsigned>(hi[d] - lo[d]);
    count *= ext[d];  // a block's rows of one grid: far fewer than 2^32 cells
  }
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
    unsigned rest = i;
    long g = 0, t = 0;
    for (int d = N - 1; d >= 0; --d) {
      const long l = lo[d] + static_cast<long>(rest % ext[d]);
      rest /= ext[d];
      g += l * global.stride[d];
      t += (d == 0 ? l - tile.row0 : l) * global.stride[d];
    }
    if (load) {
      tile.origin[t] = global.data[g];
    } else {
      global.data[g] = tile.origin[t];
    }
  }
}

// Every thread of the block, before a step (after DFlow::wait; a __syncthreads after it): the
// cells of `tile` (of `global`, for rows [row_begin, row_end) and `radius` past them) that others
// may have written in global memory since the step before: the rows past the block's own, whole,
// and the halo cells of its own rows in the other dimensions.
template <class T, int N>
__device__ void onchip_reload(const OnChipTile<T, N>& tile, const DBlock<T, N>& global, int row_begin, int row_end, int radius) {
  onchip_copy_rows(tile, global, row_begin - radius, row_begin);
  onchip_copy_rows(tile, global, row_end, row_end + radius);
  // The halo of [0, extent) in dimensions 1 .. N-1, as slabs: in dimension d below 0 and at or
  // above the extent, inside the extent in the dimensions before d, whole in those after.
  for (int d = 1; d < N; ++d) {
    for (int side = 0; side < 2; ++side) {
      int lo[N], hi[N];
      lo[0] = row_begin;
      hi[0] = row_end;
      for (int e = 1; e < N; ++e) {
        lo[e] = e < d ? 0 : -global.halo_lo[e];
        hi[e] = e < d ? global.extent[e] : global.extent[e] + global.halo_hi[e];
      }
      lo[d] = side == 0 ? -global.halo_lo[d] : global.extent[d];
      hi[d] = side == 0 ? 0 : global.extent[d] + global.halo_hi[d];
      onchip_copy_box(tile, global, lo, hi, true);
    }
  }
}

// Every thread of the block, after the loop (before DFlow::finish's barrier): the block's rows
// [row_begin, row_end) of the local box `range` (the update's range, clipped to the block), the
// cells the loop wrote into the tile, back into `global`.
template <class T, int N, class Box>
__device__ void onchip_store_back(const DBlock<T, N>& global, const OnChipTile<T, N>& tile, const Box& range, int row_begin,
                                  int row_end) {
  int lo[N], hi[N];
  for (int d = 0; d < N; ++d) {
    lo[d] = range.lo[d];
    hi[d] = range.hi[d];
  }
  lo[0] = max(lo[0], row_begin);
  hi[0] = min(hi[0], row_end);
  onchip_copy_box(tile, global, lo, hi, false);
}

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
