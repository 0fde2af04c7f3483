// The grid effects of statements (see GridEffects.h).
#include "passes/GridEffects.h"

#include <algorithm>

#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

struct BodyWalk : IRVisitor {
  using IRVisitor::visit;
  PointBodyUse use;
  void visit(const Store* op) override {
    use.stored.insert(op->grid);
    IRVisitor::visit(op);
  }
  void visit(const GridRead* op) override {
    auto [it, fresh] = use.offsets.try_emplace(op->grid, op->offsets, op->offsets);
    for (size_t d = 0; !fresh && d < op->offsets.size() && d < it->second.first.size(); ++d) {
      it->second.first[d] = std::min(it->second.first[d], op->offsets[d]);
      it->second.second[d] = std::max(it->second.second[d], op->offsets[d]);
    }
  }
};

/// True when an inner part with widths lo, hi reads only owned cells at offsets [min, max].
bool reads_within(const std::vector<int>& lo, const std::vector<int>& hi,
                  const std::vector<int>& min, const std::vector<int>& max) {
  if (lo.size() != min.size() || hi.size() != max.size()) return false;
  for (size_t d = 0; d < lo.size(); ++d) {
    if (lo[d] < -min[d] || hi[d] < max[d]) return false;
  }
  return true;
}

std::map<std::string, GridAccess> point_update_accesses(const Program& p, const Stmt& body,
                                                        ForEachPart part,
                                                        const std::vector<int>& lo,
                                                        const std::vector<int>& hi) {
  PointBodyUse use = point_body_use(body);
  std::map<std::string, GridAccess> out;
  for (const std::string& g : use.stored) {
    const Param* param = p.find_param(g);
    bool inner_only = part == ForEachPart::Inner && param && covers_send_layers(*param, lo, hi);
    out[g].written |= inner_only ? kInnerCells : kOwnedCells;
  }
  for (const auto& [g, range] : use.offsets) {
    bool halo = use.reads_off_centre(g) &&
                !(part == ForEachPart::Inner && reads_within(lo, hi, range.first, range.second));
    out[g].read |= halo ? kHalo | kOwnedCells : kOwnedCells;
  }
  return out;
}

struct EffectsWalk : IRVisitor {
  using IRVisitor::visit;
  const Program* program = nullptr;
  Effects effects;
  void visit(const Stmt& s) override {
    if (!s) return;
    for (const auto& [g, a] : grid_accesses(*program, s)) {
      effects.grids[g].read |= a.read;
      effects.grids[g].written |= a.written;
    }
    switch (s->kind) {
      case StmtKind::Swap:
        effects.swapped.insert(as<Swap>(s)->a);
        effects.swapped.insert(as<Swap>(s)->b);
        break;
      case StmtKind::HaloSend:
        effects.sent.insert(as<HaloSend>(s)->grid);
        break;
      case StmtKind::HaloRecv:
        effects.received.insert(as<HaloRecv>(s)->grid);
        break;
      case StmtKind::Exchange:
        effects.sent.insert(as<Exchange>(s)->grid);
        effects.received.insert(as<Exchange>(s)->grid);
        break;
      case StmtKind::PhaseBarrier:
        effects.barrier = true;
        break;
      case StmtKind::ForEach:
      case StmtKind::Reduce:
        return;  // point bodies hold no statements that matter here
      default:
        break;
    }
    IRVisitor::visit(s);
  }
};

}  // namespace

bool PointBodyUse::reads_off_centre(const std::string& grid) const {
  auto it = offsets.find(grid);
  if (it == offsets.end()) return false;
  for (int o : it->second.first) {
    if (o != 0) return true;
  }
  for (int o : it->second.second) {
    if (o != 0) return true;
  }
  return false;
}

PointBodyUse point_body_use(const Stmt& body) {
  BodyWalk walk;
  walk.visit(body);
  return walk.use;
}

bool covers_send_layers(const Param& g, const std::vector<int>& lo, const std::vector<int>& hi) {
  size_t rank = g.halo_lo.size();
  if (rank == 0 || g.halo_hi.size() != rank || lo.size() != rank || hi.size() != rank) return false;
  // The neighbour below reads my lowest halo_hi layers into its high halo, and the one above my
  // highest halo_lo layers.
  for (size_t d = 0; d < rank; ++d) {
    if (lo[d] < g.halo_hi[d] || hi[d] < g.halo_lo[d]) return false;
  }
  return true;
}

std::map<std::string, GridAccess> grid_accesses(const Program& p, const Stmt& s) {
  if (auto* f = as<ForEach>(s))
    return point_update_accesses(p, f->body, f->part, f->width_lo, f->width_hi);
  if (auto* r = as<Reduce>(s)) return point_update_accesses(p, r->body, ForEachPart::All, {}, {});
  std::map<std::string, GridAccess> out;
  if (auto* h = as<HaloSend>(s)) out[h->grid].read = kSendLayers;
  if (auto* h = as<HaloRecv>(s)) out[h->grid].written = kHalo;
  if (auto* x = as<Exchange>(s)) out[x->grid] = GridAccess{kSendLayers, kHalo};
  return out;
}

Effects effects_of(const Program& p, const Stmt& s) {
  EffectsWalk walk;
  walk.program = &p;
  walk.visit(s);
  return walk.effects;
}

bool send_can_rise_past(const Effects& s, const std::string& g) {
  auto it = s.grids.find(g);
  bool writes_layers = it != s.grids.end() && (it->second.written & kSendLayers);
  return !writes_layers && !s.swapped.count(g) && !s.sent.count(g) && !s.received.count(g) &&
         !s.barrier;
}

bool recv_can_sink_past(const Effects& s, const std::string& g) {
  auto it = s.grids.find(g);
  bool touches = it != s.grids.end() && ((it->second.read & kHalo) || it->second.written);
  return !touches && !s.swapped.count(g) && !s.sent.count(g) && !s.received.count(g) && !s.barrier;
}

}  // namespace stencilc::passes
