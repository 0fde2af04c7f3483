// place-signaled-puts: hoist sends, sink receives, one block at a time.
#include "passes/PlaceSignaledPuts.h"

#include <algorithm>

#include "ir/IRMutator.h"
#include "passes/GridEffects.h"
#include "passes/SpmdEffects.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// `stmts`, each mutated by `m`; *changed says whether any of them changed.
std::vector<Stmt> mutate_each(IRMutator& m, const std::vector<Stmt>& stmts, bool* changed) {
  std::vector<Stmt> out;
  for (const Stmt& s : stmts) {
    Stmt r = m.mutate(s);
    *changed = *changed || r != s;
    out.push_back(std::move(r));
  }
  return out;
}

class PlaceSignaledPuts : public IRMutator {
 public:
  explicit PlaceSignaledPuts(const Program& p) : program_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    bool changed = false;
    std::vector<Stmt> stmts = mutate_each(*this, op->stmts, &changed);  // nested blocks first: moves never cross block edges
    std::vector<Effects> effects;
    for (const Stmt& s : stmts) effects.push_back(effects_of(program_, s));
    // Sends rise in program order, receives sink in reverse order. Transfers of other grids do
    // not stop a move, but one that ends next to them settles behind them (a send after the
    // sends already there, a receive before the receives), which keeps their order stable.
    for (size_t i = 0; i < stmts.size(); ++i) {
      auto* send = as<HaloSend>(stmts[i]);
      if (!send) continue;
      size_t j = i;
      while (j > 0 && send_can_rise_past(effects[j - 1], send->grid)) --j;
      while (j < i && as<HaloSend>(stmts[j])) ++j;
      changed = move(stmts, effects, i, j) || changed;
    }
    for (size_t i = stmts.size(); i-- > 0;) {
      auto* recv = as<HaloRecv>(stmts[i]);
      if (!recv) continue;
      size_t j = i;
      while (j + 1 < stmts.size() && recv_can_sink_past(effects[j + 1], recv->grid)) ++j;
      while (j > i && as<HaloRecv>(stmts[j])) --j;
      changed = move(stmts, effects, i, j) || changed;
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
  }

 private:
  /// Moves v[from] to index `to`, shifting what lies between by one.
  template <typename T>
  static void rotate(std::vector<T>& v, size_t from, size_t to) {
    if (from > to) {
      std::rotate(v.begin() + to, v.begin() + from, v.begin() + from + 1);
    } else {
      std::rotate(v.begin() + from, v.begin() + from + 1, v.begin() + to + 1);
    }
  }
  /// Moves a statement and its effects; true when it moved.
  static bool move(std::vector<Stmt>& stmts, std::vector<Effects>& effects, size_t from,
                   size_t to) {
    if (from == to) return false;
    rotate(stmts, from, to);
    rotate(effects, from, to);
    return true;
  }

  const Program& program_;
};

/// The same for the user's put_signal and wait_until in SPMD programs (SpmdEffects.h): a put
/// rises past every statement it commutes with, taking along the scalar declarations it reads
/// (the epoch of a signal), and a wait sinks past every statement it commutes with. Neither
/// crosses other communication, so the user's protocol keeps its order.
class PlaceSpmdTransfers : public IRMutator {
 public:
  explicit PlaceSpmdTransfers(const Program& p) : analysis_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    bool changed = false;
    std::vector<Stmt> stmts = mutate_each(*this, op->stmts, &changed);  // nested blocks first: moves never cross block edges
    std::vector<SpmdEffects> effects;
    for (const Stmt& s : stmts) effects.push_back(analysis_.effects(s));
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (!as<PutSignal>(stmts[i])) continue;
      Rise r = put_rise(stmts, effects, i, 0);
      r.carried.push_back(i);
      changed = move_to_front(stmts, effects, r.to, i, r.carried) || changed;
    }
    for (size_t i = stmts.size(); i-- > 0;) {
      if (!as<WaitUntil>(stmts[i])) continue;
      size_t to = wait_sink(stmts, effects, i);
      std::vector<size_t> rest;
      for (size_t k = i + 1; k <= to; ++k) rest.push_back(k);
      changed = move_to_front(stmts, effects, i, to, rest) || changed;
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
  }

 private:
  /// Reorders v[from..to] so that the indices in `first` (ascending) come first, the others after
  /// them, each in their order; true when something moved.
  static bool move_to_front(std::vector<Stmt>& stmts, std::vector<SpmdEffects>& effects,
                            size_t from, size_t to, const std::vector<size_t>& first) {
    std::vector<size_t> order(first);
    for (size_t k = from; k <= to; ++k) {
      if (std::find(first.begin(), first.end(), k) == first.end()) order.push_back(k);
    }
    bool moved = false;
    for (size_t k = 0; k < order.size(); ++k) moved = moved || order[k] != from + k;
    if (!moved) return false;
    std::vector<Stmt> s;
    std::vector<SpmdEffects> e;
    for (size_t k : order) {
      s.push_back(stmts[k]);
      e.push_back(effects[k]);
    }
    std::copy(s.begin(), s.end(), stmts.begin() + from);
    std::copy(e.begin(), e.end(), effects.begin() + from);
    return true;
  }

  SpmdAnalysis analysis_;
};

}  // namespace

ir::Module place_signaled_puts(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind == ProgramKind::Global && p.decomposed) p.body = PlaceSignaledPuts(p).mutate(p.body);
    if (p.kind == ProgramKind::Spmd) p.body = PlaceSpmdTransfers(p).mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
