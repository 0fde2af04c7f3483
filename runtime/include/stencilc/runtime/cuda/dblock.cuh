// The view the persistent kernel computes on: one PE's block of a global grid with its halos,
// inside a symmetric allocation. The same fields as the host backend's Block<T, N> (block.hpp),
// as plain arrays so that device code can use them, and the same layout rules: row-major over
// extent + halo_lo + halo_hi, local index 0 at `data`, halos at negative indices and past the
// extent. Swapping two DBlocks is the per-step pointer swap of the generated kernel.
//
// One addition for the GPU's wide accesses: blocks that dblock_shape lays out start every row
// 16-byte aligned at local index 0 of the last dimension (kVecBytes). Rows are padded to a
// multiple of 16 bytes (stride[N - 2]) and `lead` cells before the first halo cell shift local 0
// onto the boundary, so a point loop can load and store 16 bytes at once from local column 0 on
// (the generated kernel checks the alignment before it does). Blocks from to_dblock keep the host
// layout (lead 0, rows unpadded).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
#include "stencilc/runtime/decomposition.hpp"

namespace stencilc::rt::cuda {

template <class T, int N>
struct DBlock {
  static_assert(N >= 1 && N <= 3, "grids have 1 to 3 dimensions");

  T* data = nullptr;        // local index (0, ..., 0), on this PE's GPU
  int extent[N] = {};       // owned cells per dimension
  int halo_lo[N] = {};      // halo layers below the owned cells: [-halo_lo, 0)
  int halo_hi[N] = {};      // above: [extent, extent + halo_hi)
  int origin[N] = {};       // global index of local 0
  int global_extent[N] = {};
  long stride[N] = {};      // row-major over extent + halo_lo + halo_hi (rows padded: above)
  long lead = 0;            // cells before the first halo cell in the allocation

  // Local indices, halo cells allowed. Checked only when STENCILC_CHECK_BOUNDS is defined.
  template <class... Index>
  __host__ __device__ T& operator()(Index... index) const {
    static_assert(sizeof...(Index) == N, "one index per dimension");
    const int idx[N] = {static_cast<int>(index)...};
    long offset = 0;
    for (int d = 0; d < N; ++d) {
#if defined(STENCILC_CHECK_BOUNDS)
      if (idx[d] < -halo_lo[d] || idx[d] >= extent[d] + halo_hi[d]) out_of_bounds(idx[d], d);
#endif
      offset += idx[d] * stride[d];
    }
    return data[offset];
  }

  __host__ __device__ int extent_with_halos(int d) const {
    return extent[d] + halo_lo[d] + halo_hi[d];
  }

  // Elements of this block's allocation: the lead, then every row (padding included).
  __host__ __device__ long allocated() const {
    return lead + stride[0] * extent_with_halos(0);
  }

  // Offset of local index (0, ..., 0) from the first halo cell (the lowest corner of the halos).
  __host__ __device__ long halo_offset() const {
    long offset = 0;
    for (int d = 0; d < N; ++d) offset += halo_lo[d] * stride[d];
    return offset;
  }

  // Offset of local index (0, ..., 0) from the start of the allocation.
  __host__ __device__ long data_offset() const {
    return lead + halo_offset();
  }

  // Elements from one row of the last dimension to the next (the whole block when N is 1).
  __host__ __device__ long row_pitch() const {
    return N >= 2 ? stride[N >= 2 ? N - 2 : 0] : extent_with_halos(0);
  }

  // Every field but `data`: the other block's cells sit where this one's do, in another buffer
  // (what swap_buffers needs of a swapped pair).
  __host__ __device__ bool same_buffer_layout(const DBlock& other) const {
    if (!same_layout(other) || lead != other.lead) return false;
    for (int d = 0; d < N; ++d) {
      if (origin[d] != other.origin[d] || global_extent[d] != other.global_extent[d] ||
          stride[d] != other.stride[d]) {
        return false;
      }
    }
    return true;
  }

  // Same extents and halos (the two buffers of a swapped pair always are).
  __host__ __device__ bool same_layout(const DBlock& other) const {
    for (int d = 0; d < N; ++d) {
      if (extent[d] != other.extent[d] || halo_lo[d] != other.halo_lo[d] ||
          halo_hi[d] != other.halo_hi[d]) {
        return false;
      }
    }
    return true;
  }

 private:
  __host__ __device__ void out_of_bounds(int index, int d) const {
#if defined(__CUDA_ARCH__)
    printf("stencilc: error: block index %d out of range [%d, %d) in dimension %d\n", index,
           -halo_lo[d], extent[d] + halo_hi[d], d);
    __trap();
#else
    fatal("block index %d out of range [%d, %d) in dimension %d (owned [0, %d), global origin %d)",
          index, -halo_lo[d], extent[d] + halo_hi[d], d, extent[d], origin[d]);
#endif
  }
};

// Swaps pointers and layouts: what the generated kernel does with its two buffers each step.
template <class T, int N>
__host__ __device__ void swap(DBlock<T, N>& a, DBlock<T, N>& b) noexcept {
  const DBlock<T, N> t = a;
  a = b;
  b = t;
}

// The alignment the GPU layout gives local column 0 of every row, in bytes.
inline constexpr int kVecBytes = 16;

// Cells of T in kVecBytes (1 for a T that 16 bytes do not hold a whole number of).
template <class T>
constexpr int vec_cells() {
  return sizeof(T) <= kVecBytes && kVecBytes % sizeof(T) == 0 ? kVecBytes / static_cast<int>(sizeof(T)) : 1;
}

// The layout of PE `pe`'s block (data left null), from the process grid: the host backend's
// block_shape, with rows padded to kVecBytes and the lead that aligns local column 0 (above).
template <class T, int N>
DBlock<T, N> dblock_shape(const ProcessGrid& grid, int pe, const std::array<int, N>& global_extent,
                          const std::array<int, N>& halo_lo, const std::array<int, N>& halo_hi) {
  const BlockLayout<N> layout = block_layout<N>(grid, pe, global_extent);
  DBlock<T, N> block;
  for (int d = 0; d < N; ++d) {
    block.extent[d] = layout.extent[d];
    block.origin[d] = layout.origin[d];
    block.halo_lo[d] = halo_lo[d];
    block.halo_hi[d] = halo_hi[d];
    block.global_extent[d] = global_extent[d];
  }
  constexpr int v = vec_cells<T>();
  long stride = 1;
  for (int d = N - 1; d >= 0; --d) {
    block.stride[d] = stride;
    stride *= block.extent_with_halos(d);
    if (d == N - 1) stride = (stride + v - 1) / v * v;  // the row's padding
  }
  block.lead = (v - halo_lo[N - 1] % v) % v;
  return block;
}

// Any block with the host backend's field names (rt::Block<T, N>), as a DBlock (same data).
template <class T, int N, class HostBlock>
DBlock<T, N> to_dblock(const HostBlock& b) {
  DBlock<T, N> block;
  block.data = b.data;
  for (int d = 0; d < N; ++d) {
    block.extent[d] = b.extent[d];
    block.halo_lo[d] = b.halo_lo[d];
    block.halo_hi[d] = b.halo_hi[d];
    block.origin[d] = b.origin[d];
    block.global_extent[d] = b.global_extent[d];
    block.stride[d] = b.stride[d];
  }
  return block;
}

// Allocates every PE's block of a global grid in symmetric memory, zero-filled (P2PTeam: the host
// does it for all GPUs at once; NvshmemTeam: collective, every process): the largest halo'd block
// over all PEs, each PE's own layout at its start. Returns one DBlock per PE, each pointing into
// its GPU's copy (NvshmemTeam: the symmetric address, as the process's own PE sees it).
template <class T, int N, class Team>
std::vector<DBlock<T, N>> alloc_blocks(Team& team, const ProcessGrid& grid,
                                       const std::array<int, N>& global_extent,
                                       const std::array<int, N>& halo_lo,
                                       const std::array<int, N>& halo_hi) {
  if (grid.size() != team.n() || grid.rank != N) {
    fatal("alloc_blocks: a %s process grid does not fit %d PEs and a %d-dimensional grid",
          format_dims(grid.dims.data(), grid.rank).c_str(), team.n(), N);
  }
  for (int d = 0; d < N; ++d) {
    if (global_extent[d] < 1 || halo_lo[d] < 0 || halo_hi[d] < 0) {
      fatal(
          "alloc_blocks: dimension %d has extent %d and halos %d, %d (extents must be positive, "
          "halos not negative)",
          d, global_extent[d], halo_lo[d], halo_hi[d]);
    }
  }
  std::vector<DBlock<T, N>> blocks;
  long largest = 0;
  for (int p = 0; p < grid.size(); ++p) {
    blocks.push_back(dblock_shape<T, N>(grid, p, global_extent, halo_lo, halo_hi));
    largest = blocks.back().allocated() > largest ? blocks.back().allocated() : largest;
  }
  const Sym<T> sym = team.template alloc<T>(static_cast<std::size_t>(largest));
  for (int p = 0; p < grid.size(); ++p) blocks[p].data = sym.on(p) + blocks[p].data_offset();
  return blocks;
}

}  // namespace stencilc::rt::cuda
