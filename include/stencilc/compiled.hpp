// What stencilc-generated code needs besides the runtime: the bridge between the user's global
// grids (stencilc::Grid) and the per-PE blocks of the runtime (stencilc::rt::Block). A launcher
// plans the decomposition, each PE scatters its part of every grid (owned and halo cells, with
// periodic wrap) into symmetric memory, runs the program's per-PE code, and gathers its owned
// cells back. Included by generated translation units only.
#pragma once

#include "stencilc/stencilc.hpp"

#include <stencilc/runtime/block.hpp>
#include <stencilc/runtime/decomposition.hpp>
#include <stencilc/runtime/host.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace stencilc::compiled {

/// Keeps an argument out of template deduction (N comes from the Grid or Block alone).
template <typename X>
struct identity {
  using type = X;
};
template <int N>
using Ints = typename identity<std::array<int, N>>::type;

/// One grid argument of a launch, as check_distinct_grids sees it.
struct GridArgument {
  const char* name;  // the parameter's
  const void* grid;
  bool read_only;  // a const parameter
};

/// Two grid parameters given the same grid: the reference build reads and writes one grid through
/// both names, the compiled program gives each parameter its own block, so their results differ.
/// Only two read-only parameters may share a grid.
inline void check_distinct_grids(const char* program, std::initializer_list<GridArgument> grids) {
  for (auto a = grids.begin(); a != grids.end(); ++a) {
    for (auto b = a + 1; b != grids.end(); ++b) {
      if (a->grid != b->grid || (a->read_only && b->read_only)) continue;
      rt::fatal(
          "program '%s' is called with the same grid for parameters '%s' and '%s'; a grid the "
          "program writes must be passed for one parameter only",
          program, a->name, b->name);
    }
  }
}

/// A half-open box in global indices.
template <int N>
struct Box {
  std::array<int, N> lo, hi;
};

/// One grid parameter as the launcher sees it.
template <int N>
struct GridDesc {
  const char* name;
  std::array<int, N> extent;
  std::array<Boundary, N> bounds;
  std::array<int, N> halo_lo, halo_hi;
};

/// A global-view point update runs over the points of its range, and the compiled program has
/// only the grids' points [0, extent): a range that reaches outside them indexes a grid outside
/// its fixed boundary (the reference build stops there: "index -2 out of range"), or wraps a
/// periodic one, which stencilc does not run. `shape`: the grids' common shape; `indexed`: the
/// grids the update reads or writes.
template <int N>
void check_range(const char* program, const GridDesc<N>& shape, const Box<N>& range,
                 std::initializer_list<const GridDesc<N>*> indexed, const char* where) {
  for (int k = 0; k < N; ++k) {
    if (range.hi[k] <= range.lo[k]) return;  // no points: nothing is indexed
  }
  for (int k = 0; k < N; ++k) {
    if (range.lo[k] >= 0 && range.hi[k] <= shape.extent[k]) continue;
    const int bad = range.lo[k] < 0 ? range.lo[k] : range.hi[k] - 1;
    for (const GridDesc<N>* g : indexed) {
      if (g->bounds[k].kind != Boundary::Kind::Fixed) continue;
      rt::fatal(
          "%s: program '%s', grid '%s': index %d out of range [0, %d) in dimension %d (fixed "
          "boundary): the range [%d, %d) reaches outside the grid",
          where, program, g->name, bad, shape.extent[k], k, range.lo[k], range.hi[k]);
    }
    rt::fatal(
        "%s: program '%s' runs a point update over [%d, %d) in dimension %d, outside the grids' "
        "points [0, %d): stencilc runs point updates over grid points only (shrink the range)",
        where, program, range.lo[k], range.hi[k], k, shape.extent[k]);
  }
}

/// The decomposition every grid of one program run shares.
template <int N>
struct Plan {
  int pes = 1;
  rt::ProcessGrid grid;
  std::array<int, N> extent{};
  std::array<int, 3> halo_lo{0, 0, 0}, halo_hi{0, 0, 0};  // the widest of the grids', per dimension
};

template <typename T, int N>
GridDesc<N> describe(const char* name, const Grid<T, N>& g, Ints<N> halo_lo, Ints<N> halo_hi) {
  GridDesc<N> d{name, {}, {}, halo_lo, halo_hi};
  for (int k = 0; k < N; ++k) {
    d.extent[k] = g.extent(k);
    d.bounds[k] = g.boundary(k);
  }
  return d;
}

inline std::string shape_text(const int* extent, int n) {
  std::string s;
  for (int k = 0; k < n; ++k) s += (k ? " x " : "") + std::to_string(extent[k]);
  return s;
}

/// Checks the grids fit one decomposition and chooses it for configured_pes() PEs (the
/// process grid can be forced with --stencilc-decomp=2x2 or STENCILC_DECOMP). `swaps` lists the pairs of
/// grids the program swaps: they exchange buffers, so their boundaries must agree too. `pes`: the
/// PE count when the backend fixes it (the NVSHMEM backend: the MPI world size), else 0.
template <int N>
Plan<N> plan(const char* program, const std::vector<GridDesc<N>>& grids, const std::vector<std::array<int, 2>>& swaps,
             int pes = 0) {
  Plan<N> p;
  p.pes = pes > 0 ? pes : configured_pes();
  p.extent = grids.front().extent;
  std::array<int, 3> extent3{1, 1, 1}, lo3{0, 0, 0}, hi3{0, 0, 0};
  for (const GridDesc<N>& g : grids) {
    if (g.extent != p.extent) {
      rt::fatal("program '%s': grids '%s' (%s) and '%s' (%s) differ in shape; the grids of one program share one "
                "decomposition and must have the same extents", program, grids.front().name,
                shape_text(grids.front().extent.data(), N).c_str(), g.name, shape_text(g.extent.data(), N).c_str());
    }
    for (int k = 0; k < N; ++k) {
      lo3[k] = std::max(lo3[k], g.halo_lo[k]);
      hi3[k] = std::max(hi3[k], g.halo_hi[k]);
    }
  }
  for (const auto& s : swaps) {
    const GridDesc<N>& a = grids[s[0]];
    const GridDesc<N>& b = grids[s[1]];
    for (int k = 0; k < N; ++k) {
      if (a.bounds[k].kind != b.bounds[k].kind || a.bounds[k].width != b.bounds[k].width) {
        rt::fatal("program '%s' swaps grids '%s' and '%s', but their boundaries differ in dimension %d", program,
                  a.name, b.name, k);
      }
    }
  }
  for (int k = 0; k < N; ++k) extent3[k] = p.extent[k];
  p.halo_lo = lo3;
  p.halo_hi = hi3;
  std::string error;
  auto grid = rt::choose_process_grid(p.pes, N, extent3, lo3, hi3, configured_decomp(), &error);
  if (!grid) rt::fatal("program '%s': %s", program, error.c_str());
  p.grid = *grid;
  return p;
}

/// The process grid that cuts dimension 0 only ("Nx1"), for `p`'s PEs, grids and halos; nullopt
/// where its blocks would be thinner than their halos.
template <int N>
std::optional<rt::ProcessGrid> rows_grid(const Plan<N>& p) {
  std::array<int, 3> extent3{1, 1, 1};
  for (int k = 0; k < N; ++k) extent3[k] = p.extent[k];
  std::string spec = std::to_string(p.pes);
  for (int k = 1; k < N; ++k) spec += "x1";
  std::string error;
  return rt::choose_process_grid(p.pes, N, extent3, p.halo_lo, p.halo_hi, spec, &error);
}

template <int N>
std::array<bool, N> periodic_dims(const GridDesc<N>& g) {
  std::array<bool, N> p{};
  for (int k = 0; k < N; ++k) p[k] = g.bounds[k].kind == Boundary::Kind::Periodic;
  return p;
}

/// The grid's interior: without the fixed layers (periodic dimensions: all of it).
template <int N>
Box<N> interior(const GridDesc<N>& g) {
  Box<N> b;
  for (int k = 0; k < N; ++k) {
    const int w = g.bounds[k].kind == Boundary::Kind::Fixed ? g.bounds[k].width : 0;
    b.lo[k] = w;
    b.hi[k] = g.extent[k] - w;
  }
  return b;
}

/// A global box clipped to the block's owned part, in local indices (may be empty).
template <typename T, int N>
Box<N> clip(const Box<N>& global, const rt::Block<T, N>& b) {
  Box<N> local;
  for (int k = 0; k < N; ++k) {
    local.lo[k] = std::max(global.lo[k] - b.origin[k], 0);
    local.hi[k] = std::min(global.hi[k] - b.origin[k], b.extent[k]);
    if (local.hi[k] < local.lo[k]) local.hi[k] = local.lo[k];
  }
  return local;
}

/// The parts of a split point update (split-boundary): the points of a block's part of a range
/// (`local`) that are at least `width_lo`/`width_hi` away from the block's faces are inner, the
/// others boundary. The boundary comes as up to 2N disjoint boxes (empty ones included).
template <typename T, int N>
Box<N> inner_part(const Box<N>& local, const rt::Block<T, N>& b, Ints<N> width_lo, Ints<N> width_hi) {
  Box<N> inner = local;
  for (int k = 0; k < N; ++k) {
    // local.lo <= inner.lo <= inner.hi <= local.hi, so the slabs below partition the rest.
    inner.lo[k] = std::min(std::max(local.lo[k], width_lo[k]), local.hi[k]);
    inner.hi[k] = std::max(inner.lo[k], std::min(local.hi[k], b.extent[k] - width_hi[k]));
  }
  return inner;
}

template <int N>
std::array<Box<N>, 2 * N> boundary_part(const Box<N>& local, const Box<N>& inner) {
  // Slab 2d (2d+1): below (above) the inner box in dimension d, inside it in the dimensions
  // before d and anywhere in the local box in the dimensions after d.
  std::array<Box<N>, 2 * N> slabs;
  for (int d = 0; d < N; ++d) {
    for (int side = 0; side < 2; ++side) {
      Box<N>& s = slabs[2 * d + side];
      for (int k = 0; k < N; ++k) {
        s.lo[k] = k < d ? inner.lo[k] : local.lo[k];
        s.hi[k] = k < d ? inner.hi[k] : local.hi[k];
      }
      if (side == 0) s.hi[d] = inner.lo[d];
      else s.lo[d] = inner.hi[d];
    }
  }
  return slabs;
}

/// A point update over `range` reads `grid` at offsets within [lo, hi] per dimension: past a
/// non-periodic edge there is nothing to read (the reference build stops there too).
template <int N>
void check_reads(const char* program, const GridDesc<N>& grid, const Box<N>& range, Ints<N> lo, Ints<N> hi,
                 const char* where) {
  for (int k = 0; k < N; ++k) {
    if (range.hi[k] <= range.lo[k] || grid.bounds[k].kind == Boundary::Kind::Periodic) continue;
    if (range.lo[k] + lo[k] < 0 || range.hi[k] - 1 + hi[k] >= grid.extent[k]) {
      rt::fatal("%s: program '%s' reads '%s' outside the grid in dimension %d (points %d..%d of %d): widen its "
                "fixed boundary or shrink the range", where, program, grid.name, k, range.lo[k] + lo[k],
                range.hi[k] - 1 + hi[k], grid.extent[k]);
    }
  }
}

namespace detail_io {
inline int wrap(int i, int n) { return ((i % n) + n) % n; }
}  // namespace detail_io

/// NaN for floating types (so that a read of a cell nothing wrote shows), 0 otherwise.
template <typename T>
T poison() {
  return std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
}

/// A block's layout as plain arrays, so that host blocks (rt::Block) and device blocks
/// (rt::cuda::DBlock) share the copying below.
template <int N>
struct CellLayout {
  const int* origin;
  const int* extent;
  const int* halo_lo;
  const int* halo_hi;
  const long* stride;
};

template <typename B, int N>
CellLayout<N> layout_of(const B& b) {
  return CellLayout<N>{&b.origin[0], &b.extent[0], &b.halo_lo[0], &b.halo_hi[0], &b.stride[0]};
}

namespace detail_io {
/// Element (gi[0], ..., gi[N-2], 0) of `g`: the start of a row of its last dimension (a Grid is
/// row-major, its rows contiguous). The indices are inside the grid.
template <typename G>
auto row_of(G& g, const std::array<int, 1>&) {
  return &g(0);
}
template <typename G>
auto row_of(G& g, const std::array<int, 2>& gi) {
  return &g(gi[0], 0);
}
template <typename G>
auto row_of(G& g, const std::array<int, 3>& gi) {
  return &g(gi[0], gi[1], 0);
}

/// Advances the leading indices l[0..N-2] through [lo, hi) row-major; false after the last.
template <int N>
bool next_row(std::array<int, N>& l, const std::array<int, N>& lo, const std::array<int, N>& hi) {
  int k = N - 2;
  while (k >= 0 && ++l[k] == hi[k]) l[k] = lo[k], --k;
  return k >= 0;
}
}  // namespace detail_io

/// Fills a block's owned and halo cells (`data` is its local index 0) from the global grid;
/// periodic dimensions wrap, and halo cells with no source get `no_source`. Row by row of the
/// last dimension: the part of a row inside the grid is one copy, the halo cells at its ends
/// are wrapped or poisoned one by one (a 16384^2 grid's upload took seconds cell by cell).
template <typename T, int N>
void fill_cells(const Grid<T, N>& g, const CellLayout<N>& b, T* data, T no_source) {
  std::array<int, N> lo, hi;
  for (int k = 0; k < N; ++k) {
    lo[k] = -b.halo_lo[k];
    hi[k] = b.extent[k] + b.halo_hi[k];
    if (hi[k] <= lo[k]) return;
  }
  const int last = N - 1, n = g.extent(last);
  const bool wraps = g.boundary(last).kind == Boundary::Kind::Periodic;
  // The local columns whose global index lies in [0, n) without wrapping: one copy per row.
  const int direct_lo = std::max(lo[last], -b.origin[last]);
  const int direct_hi = std::min(hi[last], n - b.origin[last]);
  std::array<int, N> l = lo;
  do {
    std::array<int, N> gi{};
    bool inside = true;
    long offset = 0;
    for (int k = 0; k < last; ++k) {
      gi[k] = b.origin[k] + l[k];
      if (g.boundary(k).kind == Boundary::Kind::Periodic) gi[k] = detail_io::wrap(gi[k], g.extent(k));
      inside = inside && gi[k] >= 0 && gi[k] < g.extent(k);
      offset += l[k] * b.stride[k];
    }
    T* out = data + offset;  // local column 0 of this row
    if (!inside) {
      std::fill(out + lo[last], out + hi[last], no_source);
      continue;
    }
    const T* row = detail_io::row_of(g, gi);
    // Outside [0, n) along the last dimension: wrapped, or no source.
    auto edge = [&](int x) { out[x] = wraps ? row[detail_io::wrap(b.origin[last] + x, n)] : no_source; };
    if (direct_hi <= direct_lo) {  // no cell of this row lies inside the grid unwrapped
      for (int x = lo[last]; x < hi[last]; ++x) edge(x);
      continue;
    }
    for (int x = lo[last]; x < direct_lo; ++x) edge(x);
    std::copy(row + b.origin[last] + direct_lo, row + b.origin[last] + direct_hi, out + direct_lo);
    for (int x = direct_hi; x < hi[last]; ++x) edge(x);
  } while (detail_io::next_row<N>(l, lo, hi));
}

/// Writes a block's owned cells back into the global grid (PEs write disjoint parts), one copy
/// per row of the last dimension.
template <typename T, int N>
void gather_cells(const T* data, const CellLayout<N>& b, Grid<T, N>& g) {
  std::array<int, N> lo{}, hi;
  for (int k = 0; k < N; ++k) {
    hi[k] = b.extent[k];
    if (b.extent[k] == 0) return;
  }
  const int last = N - 1;
  std::array<int, N> l{};
  do {
    std::array<int, N> gi{};
    long offset = 0;
    for (int k = 0; k < last; ++k) {
      gi[k] = b.origin[k] + l[k];
      offset += l[k] * b.stride[k];
    }
    T* row = detail_io::row_of(g, gi);
    std::copy(data + offset, data + offset + b.extent[last], row + b.origin[last]);
  } while (detail_io::next_row<N>(l, lo, hi));
}

/// Collective: allocates this PE's block of `g` in symmetric memory and fills its owned and halo
/// cells from the global grid (see fill_cells).
template <typename T, int N>
rt::Block<T, N> scatter(rt::Pe& pe, const rt::ProcessGrid& grid, const Grid<T, N>& g, Ints<N> halo_lo,
                        Ints<N> halo_hi, T no_source) {
  std::array<int, N> extent;
  for (int k = 0; k < N; ++k) extent[k] = g.extent(k);
  rt::Block<T, N> b = rt::alloc_block<T, N>(pe, grid, extent, halo_lo, halo_hi);
  fill_cells<T, N>(g, layout_of<rt::Block<T, N>, N>(b), b.data, no_source);
  return b;
}

template <typename T, int N>
void gather(const rt::Block<T, N>& b, Grid<T, N>& g) {
  gather_cells<T, N>(b.data, layout_of<rt::Block<T, N>, N>(b), g);
}

// ---------------------------------------------------------------------------------------------
// SPMD programs (stencilc::spmd): slabs along one dimension, user-chosen halos, explicit puts.

/// The process grid of stencilc::spmd(program, Split{dim, halo}, ...): configured_pes() slabs
/// along `dim` (`pes` slabs when the backend fixes the count: the NVSHMEM backend's MPI world).
/// Every grid argument must give each PE a slab at least `halo` thick (when there is more than
/// one PE), as the reference build requires.
template <int N>
rt::ProcessGrid spmd_grid(const char* program, Split split, const std::vector<GridDesc<N>>& grids, int fixed_pes = 0) {
  const int pes = fixed_pes > 0 ? fixed_pes : configured_pes();
  if (split.dim < 0 || split.dim >= N || split.halo < 0) {
    rt::fatal("stencilc::spmd(%s): Split{%d, %d} does not fit %d-dimensional grids", program, split.dim, split.halo, N);
  }
  rt::ProcessGrid grid;
  grid.rank = N;
  grid.dims = {1, 1, 1};
  grid.dims[split.dim] = pes;
  for (const GridDesc<N>& g : grids) {
    const int thinnest = g.extent[split.dim] / pes;
    if (thinnest < 1 || (pes > 1 && thinnest < split.halo)) {
      rt::fatal("stencilc::spmd(%s): grid '%s' has %d points in dimension %d; split over %d PEs a slab would be %d "
                "thick, thinner than the halo (%d) or empty; use fewer PEs", program, g.name, g.extent[split.dim],
                split.dim, pes, thinnest, split.halo);
    }
  }
  return grid;
}

/// Halo widths of a Split: `halo` in the split dimension, none elsewhere.
template <int N>
std::array<int, N> split_halo(Split split) {
  std::array<int, N> h{};
  h[split.dim] = split.halo;
  return h;
}

/// The owned extent / origin of the same symmetric block on PE `pe` (slabs differ by one point).
template <typename T, int N>
int extent_on(const rt::ProcessGrid& grid, const rt::Block<T, N>& b, int pe, int d) {
  return rt::block_shape<T, N>(grid, pe, b.global_extent, b.halo_lo, b.halo_hi).extent[d];
}
template <typename T, int N>
int origin_on(const rt::ProcessGrid& grid, const rt::Block<T, N>& b, int pe, int d) {
  return rt::block_shape<T, N>(grid, pe, b.global_extent, b.halo_lo, b.halo_hi).origin[d];
}

/// The owned box of a block, in local indices.
template <typename T, int N>
Box<N> owned(const rt::Block<T, N>& b) {
  Box<N> box;
  for (int k = 0; k < N; ++k) box.lo[k] = 0, box.hi[k] = b.extent[k];
  return box;
}

/// A point update of an SPMD program reads block `b` at offsets within [lo, hi] over the local
/// `range`: it must stay inside the block and its halos (the reference build checks every access).
template <typename T, int N>
void check_local_reads(const char* program, const char* name, const rt::Block<T, N>& b, const Box<N>& range,
                       Ints<N> lo, Ints<N> hi, const char* where) {
  for (int k = 0; k < N; ++k) {
    if (range.hi[k] <= range.lo[k]) return;
  }
  for (int k = 0; k < N; ++k) {
    if (range.lo[k] + lo[k] < -b.halo_lo[k] || range.hi[k] - 1 + hi[k] >= b.extent[k] + b.halo_hi[k]) {
      rt::fatal("%s: program '%s' reads block '%s' at local index %d..%d in dimension %d, outside its cells "
                "[%d, %d) (owned [0, %d) and halos)", where, program, name, range.lo[k] + lo[k], range.hi[k] - 1 + hi[k],
                k, -b.halo_lo[k], b.extent[k] + b.halo_hi[k], b.extent[k]);
    }
  }
}

/// put_signal of an SPMD program: copies the box [slo, shi) of this PE's block `src` into the
/// same-shaped box [dlo, dhi) (in PE `pe`'s local indices) of PE `pe`'s copy of the symmetric
/// buffer `dst` refers to, row by row, then sets `sig` there to `value` (release).
template <typename T, int N>
void put_region(rt::Pe& me, const rt::ProcessGrid& grid, const rt::Block<T, N>& dst, Ints<N> dlo, Ints<N> dhi,
                const rt::Block<T, N>& src, Ints<N> slo, Ints<N> shi,
                std::uint64_t* sig, std::uint64_t value, int pe, const char* where) {
  if (pe < 0 || pe >= me.n()) rt::fatal("%s: put_signal to PE %d, but there are %d PEs", where, pe, me.n());
  const rt::Block<T, N> remote = rt::block_shape<T, N>(grid, pe, dst.global_extent, dst.halo_lo, dst.halo_hi);
  for (int k = 0; k < N; ++k) {
    if (dhi[k] - dlo[k] != shi[k] - slo[k] || dhi[k] < dlo[k]) {
      rt::fatal("%s: put_signal regions differ in shape in dimension %d ([%d, %d) and [%d, %d))", where, k, dlo[k],
                dhi[k], slo[k], shi[k]);
    }
    if (dlo[k] < -remote.halo_lo[k] || dhi[k] > remote.extent[k] + remote.halo_hi[k] || slo[k] < -src.halo_lo[k] ||
        shi[k] > src.extent[k] + src.halo_hi[k]) {
      rt::fatal("%s: put_signal region outside a block in dimension %d: destination [%d, %d) on PE %d, source [%d, "
                "%d) on PE %d", where, k, dlo[k], dhi[k], pe, slo[k], shi[k], me.id());
    }
  }
  // dst's buffer starts at the same symmetric address on every PE; PE pe lays it out its own way.
  long local_origin = 0, remote_origin = 0;
  for (int k = 0; k < N; ++k) {
    local_origin += dst.halo_lo[k] * dst.stride[k];
    remote_origin += remote.halo_lo[k] * remote.stride[k];
  }
  T* buffer = dst.data - local_origin;
  const long row = dhi[N - 1] - dlo[N - 1];
  std::array<int, N> i = dlo;
  bool empty = row == 0;
  for (int k = 0; k < N; ++k) empty = empty || dhi[k] == dlo[k];
  while (!empty) {
    long doff = remote_origin, soff = 0;
    for (int k = 0; k < N; ++k) {
      doff += i[k] * remote.stride[k];
      soff += (slo[k] + i[k] - dlo[k]) * src.stride[k];
    }
    me.put(buffer + doff, src.data + soff, sizeof(T) * row, pe);
    int k = N - 2;
    while (k >= 0 && ++i[k] == dhi[k]) i[k] = dlo[k], --k;
    if (k < 0) break;
  }
  me.quiet();
  me.signal_set(sig, value, pe);
}

}  // namespace stencilc::compiled
