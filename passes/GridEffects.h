// What statements of a decomposed program do to the PE's copies of its grids: which parts of each
// copy (its halo, the layers the neighbours need, the other owned cells) a statement reads and
// writes, and which grids it swaps, sends or receives. The analysis behind split-boundary,
// place-signaled-puts, persistent-fusion and specialize-blocks, kept in one place so that the
// passes agree on it (split-boundary splits exactly where place-signaled-puts will then move).
// SpmdEffects.h is the same for SPMD programs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::passes {

/// Parts of one PE's copy of a grid, as bit flags.
enum GridRegion : unsigned {
  kHalo = 1u,        // the halo cells around the PE's block: what halo_recv writes
  kSendLayers = 2u,  // the owned cells within halo_hi[d] of the block's low face or halo_lo[d] of
                     // its high face in some dimension d: what halo_send packs
  kInnerCells = 4u,  // the other owned cells
};
constexpr unsigned kOwnedCells = kSendLayers | kInnerCells;

/// The regions one statement reads and writes of one grid.
struct GridAccess {
  unsigned read = 0, written = 0;
};

/// What a point body does: the grids it stores to, and per grid read the smallest and largest
/// offset in each dimension.
struct PointBodyUse {
  std::set<std::string> stored;
  std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> offsets;
  /// True when `grid` is read at a non-zero offset.
  bool reads_off_centre(const std::string& grid) const;
};
PointBodyUse point_body_use(const ir::Stmt& body);

/// True when split widths (`lo` layers along the block's low faces, `hi` along its high faces)
/// cover grid `g`'s send layers, so that an inner part with them never writes what halo_send
/// packs. False when g's halos are not inferred.
bool covers_send_layers(const ir::Param& g, const std::vector<int>& lo, const std::vector<int>& hi);

/// The accesses of one statement by itself, by grid name: ForEach (by part), Reduce, HaloSend,
/// HaloRecv and Exchange; every other statement has none.
std::map<std::string, GridAccess> grid_accesses(const ir::Program& p, const ir::Stmt& s);

/// Everything a statement and the statements inside it do (names as written in it).
struct Effects {
  std::map<std::string, GridAccess> grids;
  std::set<std::string> swapped, sent, received;  // an exchange both sends and receives
  bool barrier = false;                           // holds a phase_barrier
};
Effects effects_of(const ir::Program& p, const ir::Stmt& s);

/// True when `halo_send %g` may move from just after `s` to just before it: `s` does not write
/// g's send layers, swap g, send or receive g, nor hold a phase_barrier (which may be what orders
/// a write of g before the send).
bool send_can_rise_past(const Effects& s, const std::string& g);

/// True when `halo_recv %g` may move from just before `s` to just after it: `s` does not read g's
/// halo, write g at all, swap, send or receive g, nor hold a phase_barrier.
bool recv_can_sink_past(const Effects& s, const std::string& g);

}  // namespace stencilc::passes
