// What the statements of an SPMD program do to the PE's blocks, signals and scalars: the analysis
// behind split-boundary, place-signaled-puts, persistent-fusion and specialize-blocks for
// SC_SPMD_PROGRAMs, whose communication the user wrote (put_signal, wait_until, quiet,
// barrier_all). GridEffects.h is the same for decomposed programs, whose transfers the compiler
// placed; both describe accesses with the same regions (halo, send layers, inner cells), so that
// the phase-barrier analysis serves both kinds of program.
//
// The regions of an SPMD block: the **halo** is every cell outside its owned box; the **send
// layers** are the owned cells within the block's *edge widths* of its faces, the smallest widths
// of the split foreaches measured from blocks of its layout (so that every inner part writes
// inner cells only); the **inner cells** are the other owned cells. Blocks that the program swaps
// with each other share a layout (stencilc::swap requires it; the reference build stops at a swap
// of blocks with different layouts), so extent(%a, d) and extent(%b, d) are one value for them.
//
// Every PE runs the same program text, so what peers put into this PE's memory is what the
// program's put_signal statements write, their destination regions read in the receiver's
// coordinates: once a PE has set any signal its peers may write the destinations of every put
// (the "peer-writable" cells), and a wait guards all of them (a user may rely on a put with
// another signal having landed before the one it waits for).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "passes/GridEffects.h"

namespace stencilc::passes {

/// Everything a statement of an SPMD program and the statements inside it do.
struct SpmdEffects {
  std::map<std::string, GridAccess> blocks;  // regions read and written, by block name
  std::set<std::string> swapped;             // blocks a swap exchanges
  std::set<std::string> named;               // blocks accessed, queried or named in a region
  std::set<std::string> reads, writes;       // scalars read; scalars assigned or declared
  bool communicates = false;  // put_signal, wait_until, quiet, barrier_all, signal declarations
  bool barrier = false;       // a phase_barrier
  void add(const SpmdEffects& o);
};

/// True when statements with these effects give the same results in either order: no block
/// region or scalar that one writes and the other reads or writes, no swap of a block the other
/// names, not both communication (the user's protocol keeps its order), no phase_barrier.
bool commute(const SpmdEffects& a, const SpmdEffects& b);

/// The cells within `width` layers of one face of a block, in dimension `dim`.
struct Slab {
  int dim = 0;
  bool high = false;  // the face at the end of the owned box (else at its start)
  int width = 0;
};

class SpmdAnalysis {
 public:
  explicit SpmdAnalysis(const ir::Program& p);

  /// The analysis as it will be once one more split foreach, of the layout of `block`, has the
  /// widths lo, hi (the edge widths can only shrink).
  SpmdAnalysis with_split(const std::string& block, const std::vector<int>& lo,
                          const std::vector<int>& hi) const;

  const ir::Program& program() const { return *program_; }
  bool same_layout(const std::string& a, const std::string& b) const;

  /// The regions of each block that `s` by itself reads and writes: a foreach (by part) or
  /// reduce; a put_signal reads its source; a wait_until writes what it guards (the
  /// peer-writable cells: the peers' puts wrote them).
  std::map<std::string, GridAccess> accesses(const ir::Stmt& s) const;
  /// The cells peers may write into this PE's blocks once it sets a signal, by block.
  const std::map<std::string, GridAccess>& peer_writable() const { return peer_writable_; }

  /// What `s` and the statements inside it do. A put_signal also writes the peer-writable cells:
  /// once its signal is set, a peer may write them, so it must not run before a statement that
  /// still uses them.
  SpmdEffects effects(const ir::Stmt& s) const;

  /// The face slab, of the block it names, that holds a put's source region, if provable.
  std::optional<Slab> source_slab(const ir::PutSignal& p) const;
  /// True when every put of the program writes only halo cells of the receiver, so that what a
  /// wait guards lies outside every owned box. False when the program has no put.
  bool peers_write_halos_only() const;

 private:
  struct Bound {
    bool known = false, from_extent = false;  // c, or E + c with E the owned extent
    int64_t c = 0;
  };
  struct Box {
    std::vector<Bound> lo, hi;
  };
  Bound bound(const ir::Expr& e, const std::string& block, int dim, const ir::Expr* receiver_pe,
              int depth) const;
  Box box(const std::vector<ir::Expr>& lo, const std::vector<ir::Expr>& hi,
          const std::string& block, const ir::Expr* receiver_pe) const;
  static bool outside_owned(const Box& b);
  static bool inside_owned(const Box& b);
  static std::optional<Slab> slab_of(const Box& b);
  bool range_inside_owned(const ir::Range& r, const std::string& block) const;
  unsigned slab_regions(const std::string& block, const Slab& s) const;
  unsigned destination_regions(const ir::PutSignal& p) const;
  std::map<std::string, GridAccess> point_update(const ir::Stmt& s) const;
  std::string layout_of(const std::string& block) const;

  const ir::Program* program_;
  std::map<std::string, std::string> layout_;  // block -> a representative of its swap class
  std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> edge_;  // by layout
  std::map<std::string, ir::Expr> constants_;  // scalars declared once and never assigned
  std::vector<const ir::PutSignal*> puts_;
  std::map<std::string, GridAccess> peer_writable_;
};

/// Where the put_signal at stmts[k] can rise to in its block: the index it lands at (k when it
/// cannot move; never above `floor`), and the scalar declarations between that it takes along
/// because it reads what they declare. It crosses each statement it commutes with; the
/// statements at indices in `skip` (other puts that rise before it) are neither crossed nor
/// carried.
struct Rise {
  size_t to;
  std::vector<size_t> carried;
};
Rise put_rise(const std::vector<ir::Stmt>& stmts, const std::vector<SpmdEffects>& effects, size_t k,
              size_t floor, const std::set<size_t>& skip = {});

/// Where the wait_until at stmts[k] can sink to in its block: the last index of the statements
/// it commutes with, in a row after it (k when it cannot move).
size_t wait_sink(const std::vector<ir::Stmt>& stmts, const std::vector<SpmdEffects>& effects,
                 size_t k);

}  // namespace stencilc::passes
