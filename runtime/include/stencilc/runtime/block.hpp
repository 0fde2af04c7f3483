// The view generated code computes on: one PE's block of a global grid, with its halos, inside
// a symmetric allocation. A Block is a plain value (pointer and layout); swapping two of them is
// what the GPU code does with its two buffer pointers, and is legal because both are symmetric.
#pragma once

#include <array>
#include <cstddef>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/decomposition.hpp"
#include "stencilc/runtime/host.hpp"

namespace stencilc::rt {

template <class T, int N>
struct Block {
  static_assert(N >= 1 && N <= 3, "grids have 1 to 3 dimensions");

  T* data = nullptr;  // local index (0, ..., 0); owned cells are [0, extent), halos around them
  std::array<int, N> extent{};         // owned cells per dimension
  std::array<int, N> halo_lo{};        // halo layers below the owned cells: [-halo_lo, 0)
  std::array<int, N> halo_hi{};        // above: [extent, extent + halo_hi)
  std::array<int, N> origin{};         // global index of local 0
  std::array<int, N> global_extent{};  // of the whole grid
  std::array<long, N> stride{};        // row-major over extent + halo_lo + halo_hi

  // Local indices; halo cells allowed. Unchecked unless STENCILC_CHECK_BOUNDS is defined.
  template <class... Index>
  T& operator()(Index... index) const {
    static_assert(sizeof...(Index) == N, "one index per dimension");
    const std::array<int, N> idx{static_cast<int>(index)...};
#if defined(STENCILC_CHECK_BOUNDS)
    check_bounds(idx);
#endif
    long offset = 0;
    for (int d = 0; d < N; ++d) offset += idx[d] * stride[d];
    return data[offset];
  }

  int extent_with_halos(int d) const {
    return extent[d] + halo_lo[d] + halo_hi[d];
  }

  // Elements of this block's layout, halos included.
  long allocated() const {
    long count = 1;
    for (int d = 0; d < N; ++d) count *= extent_with_halos(d);
    return count;
  }

 private:
  void check_bounds(const std::array<int, N>& idx) const {
    for (int d = 0; d < N; ++d) {
      if (idx[d] < -halo_lo[d] || idx[d] >= extent[d] + halo_hi[d]) {
        fatal(
            "block index %d out of range [%d, %d) in dimension %d (owned [0, %d), global "
            "origin %d)",
            idx[d], -halo_lo[d], extent[d] + halo_hi[d], d, extent[d], origin[d]);
      }
    }
  }
};

// Swaps pointers and layouts, which is what the GPU code does with its two buffer pointers: both
// buffers are symmetric, so peers address either one the same way. At namespace scope (not a
// hidden friend) so that generated code can say `using ::stencilc::rt::swap;`.
template <class T, int N>
void swap(Block<T, N>& a, Block<T, N>& b) noexcept {
  const Block<T, N> t = a;
  a = b;
  b = t;
}

// The layout of PE `pe`'s block (data left null): origin and extent from the process grid.
template <class T, int N>
Block<T, N> block_shape(const ProcessGrid& grid, int pe, const std::array<int, N>& global_extent,
                        const std::array<int, N>& halo_lo, const std::array<int, N>& halo_hi) {
  const BlockLayout<N> layout = block_layout<N>(grid, pe, global_extent);
  Block<T, N> block;
  block.extent = layout.extent;
  block.origin = layout.origin;
  block.halo_lo = halo_lo;
  block.halo_hi = halo_hi;
  block.global_extent = global_extent;
  long stride = 1;
  for (int d = N - 1; d >= 0; --d) {
    block.stride[d] = stride;
    stride *= block.extent_with_halos(d);
  }
  return block;
}

// Collective: allocates this PE's block of a global grid, zero-filled, in symmetric memory.
// Every PE allocates the largest halo'd block over all PEs, since a symmetric allocation has one
// size everywhere; each PE then lays out its own block at the start of it.
template <class T, int N>
Block<T, N> alloc_block(Pe& pe, const ProcessGrid& grid, const std::array<int, N>& global_extent,
                        const std::array<int, N>& halo_lo, const std::array<int, N>& halo_hi) {
  if (grid.size() != pe.n() || grid.rank != N) {
    fatal("alloc_block on PE %d: a %s process grid does not fit %d PEs and a %d-dimensional grid",
          pe.id(), format_dims(grid.dims.data(), grid.rank).c_str(), pe.n(), N);
  }
  for (int d = 0; d < N; ++d) {
    if (global_extent[d] < 1 || halo_lo[d] < 0 || halo_hi[d] < 0) {
      fatal(
          "alloc_block: dimension %d has extent %d and halos %d, %d (extents must be positive, "
          "halos not negative)",
          d, global_extent[d], halo_lo[d], halo_hi[d]);
    }
  }
  long largest = 0;
  for (int p = 0; p < grid.size(); ++p) {
    const long size = block_shape<T, N>(grid, p, global_extent, halo_lo, halo_hi).allocated();
    largest = size > largest ? size : largest;
  }
  Block<T, N> block = block_shape<T, N>(grid, pe.id(), global_extent, halo_lo, halo_hi);
  T* base = pe.sym_alloc_array<T>(static_cast<std::size_t>(largest));
  long offset = 0;
  for (int d = 0; d < N; ++d) offset += halo_lo[d] * block.stride[d];
  block.data = base + offset;
  return block;
}

}  // namespace stencilc::rt
