// split-boundary: find the foreaches a halo transfer can overlap, and split each in two.
#include "passes/SplitBoundary.h"

#include <algorithm>

#include "ir/IRMutator.h"
#include "passes/GridEffects.h"
#include "passes/SpmdEffects.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// The block walk both splitters share: every whole foreach of `op` that `try_split(f, i, out)`
/// splits (appending its two parts to *out) is replaced by its parts; every other statement is
/// mutated as usual (`mutate`). Returns `op` itself when nothing changed.
template <class TrySplit, class Mutate>
Stmt split_in_block(const Ref<Block>& op, TrySplit&& try_split, Mutate&& mutate) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (size_t i = 0; i < op->stmts.size(); ++i) {
    const Stmt& s = op->stmts[i];
    auto* f = as<ForEach>(s);
    if (f && f->part == ForEachPart::All && try_split(*f, i, &stmts)) {
      changed = true;
      continue;
    }
    Stmt m = mutate(s);
    changed = changed || m != s;
    stmts.push_back(std::move(m));
  }
  return changed ? make_block(std::move(stmts), op->loc) : op;
}

class SplitBoundary : public IRMutator {
 public:
  explicit SplitBoundary(const Program& p) : program_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    std::vector<Effects> effects;
    for (const Stmt& s : op->stmts) effects.push_back(effects_of(program_, s));
    return split_in_block(
        op, [&](const ForEach& f, size_t i, std::vector<Stmt>* out) { return split(f, op->stmts, effects, i, out); },
        [&](const Stmt& s) { return mutate(s); });
  }

 private:
  /// Appends the two parts of stmts[i] to *out and returns true when a transfer can overlap it.
  bool split(const ForEach& f, const std::vector<Stmt>& stmts, const std::vector<Effects>& effects,
             size_t i, std::vector<Stmt>* out) const {
    size_t rank = static_cast<size_t>(f.range.rank);
    std::vector<int> lo(rank, 0), hi(rank, 0);
    auto widen = [&](const std::vector<int>& l, const std::vector<int>& h) {
      for (size_t d = 0; d < rank; ++d) {
        lo[d] = std::max(lo[d], l[d]);
        hi[d] = std::max(hi[d], h[d]);
      }
    };
    PointBodyUse use = point_body_use(f.body);
    bool sends = false, receives = false;
    for (const std::string& g : use.stored) {
      const Param* p = program_.find_param(g);
      if (p && has_halo(*p, rank) && send_follows(g, stmts, effects, i)) {
        sends = true;
        widen(p->halo_hi, p->halo_lo);  // my low layers fill the halo above the neighbour below
      }
    }
    for (const auto& [h, offsets] : use.offsets) {
      if (!use.reads_off_centre(h) || offsets.first.size() != rank ||
          !recv_precedes(h, stmts, effects, i))
        continue;
      receives = true;
      std::vector<int> l(rank), u(rank);
      for (size_t d = 0; d < rank; ++d) {
        l[d] = std::max(0, -offsets.first[d]);
        u[d] = std::max(0, offsets.second[d]);
      }
      widen(l, u);
    }
    if (!sends && !receives) return false;
    Stmt boundary =
        make_for_each_part(ForEachPart::Boundary, lo, hi, f.range, f.indices, f.body, f.loc);
    Stmt inner = make_for_each_part(ForEachPart::Inner, lo, hi, f.range, f.indices, f.body, f.loc);
    out->push_back(receives ? inner : boundary);
    out->push_back(receives ? boundary : inner);
    return true;
  }

  static bool has_halo(const Param& p, size_t rank) {
    if (p.halo_lo.size() != rank || p.halo_hi.size() != rank) return false;
    for (size_t d = 0; d < rank; ++d) {
      if (p.halo_lo[d] > 0 || p.halo_hi[d] > 0) return true;
    }
    return false;
  }

  /// A `halo_send %g` after stmts[i] that place-signaled-puts will bring up to it.
  static bool send_follows(const std::string& g, const std::vector<Stmt>& stmts,
                           const std::vector<Effects>& effects, size_t i) {
    for (size_t k = i + 1; k < stmts.size(); ++k) {
      auto* send = as<HaloSend>(stmts[k]);
      if (send && send->grid == g) return true;
      if (!send_can_rise_past(effects[k], g)) return false;
    }
    return false;
  }

  /// A `halo_recv %h` before stmts[i] that place-signaled-puts will bring down to it.
  static bool recv_precedes(const std::string& h, const std::vector<Stmt>& stmts,
                            const std::vector<Effects>& effects, size_t i) {
    for (size_t k = i; k-- > 0;) {
      auto* recv = as<HaloRecv>(stmts[k]);
      if (recv && recv->grid == h) return true;
      if (!recv_can_sink_past(effects[k], h)) return false;
    }
    return false;
  }

  const Program& program_;
};

/// The same for SPMD programs, whose transfers are the user's put_signal and wait_until
/// (SpmdEffects.h). A foreach splits when place-signaled-puts can then move a transfer past its
/// inner part: a put of a region it writes whose source lies in a face slab of the block
/// (widths: the slabs), or a wait before it that guards only halo cells of a block it reads
/// off-centre (widths: the offsets of those reads). The widths are measured from the faces of
/// the block the foreach stores to (ir::split_reference_block).
class SplitSpmdBoundary : public IRMutator {
 public:
  explicit SplitSpmdBoundary(const Program& p) : analysis_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    std::vector<SpmdEffects> effects;
    for (const Stmt& s : op->stmts) effects.push_back(analysis_.effects(s));
    return split_in_block(
        op, [&](const ForEach& f, size_t i, std::vector<Stmt>* out) { return split(f, op->stmts, effects, i, out); },
        [&](const Stmt& s) { return mutate(s); });
  }

 private:
  using Widths = std::pair<std::vector<int>, std::vector<int>>;

  /// Appends the two parts of stmts[i] to *out and returns true when a transfer can overlap it.
  bool split(const ForEach& f, const std::vector<Stmt>& stmts,
             const std::vector<SpmdEffects>& effects, size_t i, std::vector<Stmt>* out) const {
    std::string block = split_reference_block(f);
    const Param* ref = analysis_.program().find_param(block);
    size_t rank = static_cast<size_t>(f.range.rank);
    if (!ref || ref->kind != ParamKind::Block || static_cast<size_t>(ref->rank) != rank)
      return false;
    Widths none{std::vector<int>(rank, 0), std::vector<int>(rank, 0)};
    Widths send = none, receive = none;
    std::vector<size_t> puts = rising_puts(f, block, stmts, effects, i, &send);
    std::vector<size_t> waits = sinking_waits(f, block, stmts, effects, i, &receive);
    // A receive puts the inner part first, so the sends then only follow the boundary part.
    if (!waits.empty()) {
      Widths w = widest(send, receive);
      if (overlaps(f, block, w, stmts, waits)) return emit(f, w, /*inner_first=*/true, out);
    }
    if (!puts.empty() && overlaps(f, block, send, stmts, puts))
      return emit(f, send, /*inner_first=*/false, out);
    return false;
  }

  static Widths widest(const Widths& a, const Widths& b) {
    Widths w = a;
    for (size_t d = 0; d < w.first.size(); ++d) {
      w.first[d] = std::max(w.first[d], b.first[d]);
      w.second[d] = std::max(w.second[d], b.second[d]);
    }
    return w;
  }

  /// The put_signals after stmts[i] that send a face slab of a block it writes and that
  /// place-signaled-puts can bring up to it, with the declarations they take along; widens *w
  /// to their slabs.
  std::vector<size_t> rising_puts(const ForEach& f, const std::string& block,
                                  const std::vector<Stmt>& stmts,
                                  const std::vector<SpmdEffects>& effects, size_t i,
                                  Widths* w) const {
    std::set<std::string> stored = point_body_use(f.body).stored;
    std::set<size_t> risen;
    std::vector<size_t> out;
    for (size_t k = i + 1; k < stmts.size(); ++k) {
      auto* put = as<PutSignal>(stmts[k]);
      if (!put || !stored.count(put->src.block) || !analysis_.same_layout(put->src.block, block))
        continue;
      std::optional<Slab> slab = analysis_.source_slab(*put);
      if (!slab || slab->width <= 0 || static_cast<size_t>(slab->dim) >= w->first.size()) continue;
      Rise rise = put_rise(stmts, effects, k, i + 1, risen);
      if (rise.to != i + 1) continue;
      risen.insert(k);
      out.push_back(k);
      out.insert(out.end(), rise.carried.begin(), rise.carried.end());
      risen.insert(rise.carried.begin(), rise.carried.end());
      int& width = slab->high ? w->second[slab->dim] : w->first[slab->dim];
      width = std::max(width, slab->width);
    }
    return out;
  }

  /// The wait_untils before stmts[i] that place-signaled-puts can bring down to it, when what they
  /// guard is halo cells only, of blocks it reads off-centre; widens *w to the offsets of those
  /// reads.
  std::vector<size_t> sinking_waits(const ForEach& f, const std::string& block,
                                    const std::vector<Stmt>& stmts,
                                    const std::vector<SpmdEffects>& effects, size_t i,
                                    Widths* w) const {
    PointBodyUse use = point_body_use(f.body);
    std::vector<size_t> out;
    for (size_t k = i; k-- > 0;) {
      auto* wait = as<WaitUntil>(stmts[k]);
      if (!wait || !analysis_.peers_write_halos_only()) continue;
      bool reaches = true;
      for (size_t j = k + 1; j < i && reaches; ++j) {
        bool sinking = std::find(out.begin(), out.end(), j) != out.end();
        reaches = sinking || commute(effects[k], effects[j]);
      }
      if (!reaches) continue;
      bool concerns = false;
      for (const auto& [z, guard] : analysis_.peer_writable()) {
        auto it = use.offsets.find(z);
        if (it == use.offsets.end() || !use.reads_off_centre(z) ||
            !analysis_.same_layout(z, block) || it->second.first.size() != w->first.size())
          continue;
        concerns = true;
        for (size_t d = 0; d < w->first.size(); ++d) {
          w->first[d] = std::max(w->first[d], -it->second.first[d]);
          w->second[d] = std::max(w->second[d], it->second.second[d]);
        }
      }
      if (concerns) out.push_back(k);
    }
    return out;
  }

  /// True when every transfer at `moving` (and what a put carries) commutes with the inner part
  /// of f with widths w, so that place-signaled-puts will move it past that part.
  bool overlaps(const ForEach& f, const std::string& block, const Widths& w,
                const std::vector<Stmt>& stmts, const std::vector<size_t>& moving) const {
    bool any = false;
    for (size_t d = 0; d < w.first.size(); ++d) any = any || w.first[d] > 0 || w.second[d] > 0;
    if (!any) return false;
    SpmdAnalysis after = analysis_.with_split(block, w.first, w.second);
    Stmt inner = make_for_each_part(ForEachPart::Inner, w.first, w.second, f.range, f.indices,
                                    f.body, f.loc);
    SpmdEffects inner_effects = after.effects(inner);
    for (size_t k : moving) {
      if (!commute(after.effects(stmts[k]), inner_effects)) return false;
    }
    return true;
  }

  static bool emit(const ForEach& f, const Widths& w, bool inner_first, std::vector<Stmt>* out) {
    Stmt boundary = make_for_each_part(ForEachPart::Boundary, w.first, w.second, f.range, f.indices,
                                       f.body, f.loc);
    Stmt inner = make_for_each_part(ForEachPart::Inner, w.first, w.second, f.range, f.indices,
                                    f.body, f.loc);
    out->push_back(inner_first ? inner : boundary);
    out->push_back(inner_first ? boundary : inner);
    return true;
  }

  SpmdAnalysis analysis_;
};

}  // namespace

ir::Module split_boundary(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind == ProgramKind::Global && p.decomposed) p.body = SplitBoundary(p).mutate(p.body);
    if (p.kind == ProgramKind::Spmd) p.body = SplitSpmdBoundary(p).mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
