// split-boundary: find the foreaches a halo transfer can overlap, and split each in two.
#include "passes/SplitBoundary.h"

#include <algorithm>

#include "ir/IRMutator.h"
#include "passes/GridEffects.h"

namespace stencilc::passes {

namespace {

using namespace ir;

class SplitBoundary : public IRMutator {
 public:
  explicit SplitBoundary(const Program& p) : program_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    std::vector<Effects> effects;
    for (const Stmt& s : op->stmts) effects.push_back(effects_of(program_, s));
    std::vector<Stmt> stmts;
    bool changed = false;
    for (size_t i = 0; i < op->stmts.size(); ++i) {
      const Stmt& s = op->stmts[i];
      auto* f = as<ForEach>(s);
      if (f && f->part == ForEachPart::All) {
        if (split(*f, op->stmts, effects, i, &stmts)) {
          changed = true;
          continue;
        }
      }
      Stmt m = mutate(s);
      changed = changed || m != s;
      stmts.push_back(std::move(m));
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
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

}  // namespace

ir::Module split_boundary(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind == ProgramKind::Global && p.decomposed) p.body = SplitBoundary(p).mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
