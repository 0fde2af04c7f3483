// What the host target's generated code includes: compiled.hpp, the host runtime's halo exchange,
// and the run-time checks that stand in for the reference build's own where the compiled
// program's storage differs from the reference's (one block per grid parameter, point updates
// over the grids' points only). Each check stops the run with a message that names the program
// and the source location, as the reference build stops at a bad index.
#pragma once

#include "stencilc/compiled.hpp"

#include <stencilc/runtime/halo.hpp>

#include <initializer_list>

namespace stencilc::compiled {

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

}  // namespace stencilc::compiled
