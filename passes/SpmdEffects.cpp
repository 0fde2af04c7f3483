// The effects of the statements of an SPMD program (see SpmdEffects.h).
#include "passes/SpmdEffects.h"

#include <algorithm>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

constexpr unsigned kAllCells = kHalo | kOwnedCells;

/// The program's swaps, scalar declarations and assignments, and put_signals.
struct ProgramFacts : IRVisitor {
  using IRVisitor::visit;
  std::vector<std::pair<std::string, std::string>> swaps;
  std::map<std::string, std::vector<Expr>> decls;  // initializers (null: none), by name
  std::set<std::string> assigned;
  std::vector<const PutSignal*> puts;
  std::vector<const ForEach*> parts;
  void visit(const Swap* op) override { swaps.emplace_back(op->a, op->b); }
  void visit(const VarDecl* op) override {
    decls[op->name].push_back(op->init);
    IRVisitor::visit(op);
  }
  void visit(const Assign* op) override {
    assigned.insert(op->name);
    IRVisitor::visit(op);
  }
  void visit(const For* op) override {
    assigned.insert(op->var);
    IRVisitor::visit(op);
  }
  void visit(const Reduce* op) override {
    assigned.insert(op->result);
    IRVisitor::visit(op);
  }
  void visit(const PutSignal* op) override {
    puts.push_back(op);
    IRVisitor::visit(op);
  }
  void visit(const ForEach* op) override {
    if (op->part != ForEachPart::All) parts.push_back(op);
    IRVisitor::visit(op);
  }
};

void merge(std::map<std::string, GridAccess>& into, const std::map<std::string, GridAccess>& a) {
  for (const auto& [b, x] : a) {
    into[b].read |= x.read;
    into[b].written |= x.written;
  }
}

bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  for (const std::string& x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

}  // namespace

void SpmdEffects::add(const SpmdEffects& o) {
  merge(blocks, o.blocks);
  swapped.insert(o.swapped.begin(), o.swapped.end());
  named.insert(o.named.begin(), o.named.end());
  reads.insert(o.reads.begin(), o.reads.end());
  writes.insert(o.writes.begin(), o.writes.end());
  communicates = communicates || o.communicates;
  barrier = barrier || o.barrier;
}

bool commute(const SpmdEffects& a, const SpmdEffects& b) {
  if ((a.communicates && b.communicates) || a.barrier || b.barrier) return false;
  if (intersects(a.swapped, b.named) || intersects(a.swapped, b.swapped) ||
      intersects(b.swapped, a.named))
    return false;
  if (intersects(a.reads, b.writes) || intersects(a.writes, b.reads) ||
      intersects(a.writes, b.writes))
    return false;
  for (const auto& [block, x] : a.blocks) {
    auto it = b.blocks.find(block);
    if (it == b.blocks.end()) continue;
    const GridAccess& y = it->second;
    if ((x.written & (y.read | y.written)) || (x.read & y.written)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The analysis

SpmdAnalysis::SpmdAnalysis(const Program& p) : program_(&p) {
  ProgramFacts facts;
  facts.visit(p.body);
  // Layout classes: union-find over the swaps, each named by its alphabetically first block.
  for (const Param& q : p.params) {
    if (q.kind == ParamKind::Block) layout_[q.name] = q.name;
  }
  auto find = [&](std::string b) {
    while (layout_.count(b) && layout_[b] != b) b = layout_[b];
    return b;
  };
  for (const auto& [a, b] : facts.swaps) {
    if (!layout_.count(a) || !layout_.count(b)) continue;
    std::string ra = find(a), rb = find(b);
    if (ra != rb) layout_[std::max(ra, rb)] = std::min(ra, rb);
  }
  for (auto& [b, root] : layout_) root = find(b);
  for (const auto& [name, inits] : facts.decls) {
    if (inits.size() == 1 && inits[0] && !facts.assigned.count(name)) constants_[name] = inits[0];
  }
  for (const ForEach* f : facts.parts) {
    std::string block = split_reference_block(*f);
    const Param* q = p.find_param(block);
    if (!q || q->rank != f->range.rank) continue;
    auto [it, fresh] = edge_.try_emplace(layout_of(block), f->width_lo, f->width_hi);
    for (size_t d = 0; !fresh && d < f->width_lo.size(); ++d) {
      it->second.first[d] = std::min(it->second.first[d], f->width_lo[d]);
      it->second.second[d] = std::min(it->second.second[d], f->width_hi[d]);
    }
  }
  puts_ = facts.puts;
  for (const PutSignal* put : puts_) {
    unsigned cells = destination_regions(*put);
    for (const auto& [b, root] : layout_) {
      if (root == layout_of(put->dst.block)) peer_writable_[b].written |= cells;
    }
  }
}

SpmdAnalysis SpmdAnalysis::with_split(const std::string& block, const std::vector<int>& lo,
                                      const std::vector<int>& hi) const {
  SpmdAnalysis out = *this;
  auto [it, fresh] = out.edge_.try_emplace(layout_of(block), lo, hi);
  for (size_t d = 0; !fresh && d < lo.size() && d < it->second.first.size(); ++d) {
    it->second.first[d] = std::min(it->second.first[d], lo[d]);
    it->second.second[d] = std::min(it->second.second[d], hi[d]);
  }
  return out;
}

std::string SpmdAnalysis::layout_of(const std::string& block) const {
  auto it = layout_.find(block);
  return it == layout_.end() ? "" : it->second;
}

bool SpmdAnalysis::same_layout(const std::string& a, const std::string& b) const {
  std::string la = layout_of(a);
  return !la.empty() && la == layout_of(b);
}

SpmdAnalysis::Bound SpmdAnalysis::bound(const Expr& e, const std::string& block, int dim,
                                        const Expr* receiver_pe, int depth) const {
  if (!e || depth > 16) return {};
  if (auto* i = as<IntImm>(e)) return {true, false, i->value};
  if (auto* v = as<Var>(e)) {
    auto it = constants_.find(v->name);
    return it == constants_.end() ? Bound{} : bound(it->second, block, dim, receiver_pe, depth + 1);
  }
  if (auto* q = as<GridQuery>(e)) {
    if (q->dim != dim || !same_layout(q->grid, block)) return {};
    // In the receiver's coordinates only its own extent is E: extent_on the put's target PE.
    if (!receiver_pe && q->op == GridQueryOp::Extent) return {true, true, 0};
    if (receiver_pe && q->op == GridQueryOp::ExtentOn && q->pe && *receiver_pe &&
        print(q->pe) == print(*receiver_pe))
      return {true, true, 0};
    return {};
  }
  if (auto* b = as<Binary>(e)) {
    if (b->op != BinaryOp::Add && b->op != BinaryOp::Sub) return {};
    Bound x = bound(b->a, block, dim, receiver_pe, depth + 1);
    Bound y = bound(b->b, block, dim, receiver_pe, depth + 1);
    if (!x.known || !y.known || y.from_extent) {
      // c + E is E + c.
      if (b->op == BinaryOp::Add && x.known && y.known && !x.from_extent)
        return {true, true, x.c + y.c};
      return {};
    }
    return {true, x.from_extent, b->op == BinaryOp::Add ? x.c + y.c : x.c - y.c};
  }
  return {};
}

SpmdAnalysis::Box SpmdAnalysis::box(const std::vector<Expr>& lo, const std::vector<Expr>& hi,
                                    const std::string& block, const Expr* receiver_pe) const {
  Box b;
  for (size_t d = 0; d < lo.size() && d < hi.size(); ++d) {
    b.lo.push_back(bound(lo[d], block, static_cast<int>(d), receiver_pe, 0));
    b.hi.push_back(bound(hi[d], block, static_cast<int>(d), receiver_pe, 0));
  }
  return b;
}

bool SpmdAnalysis::outside_owned(const Box& b) {
  for (size_t d = 0; d < b.lo.size(); ++d) {
    const Bound &lo = b.lo[d], &hi = b.hi[d];
    if ((hi.known && !hi.from_extent && hi.c <= 0) || (lo.known && lo.from_extent && lo.c >= 0))
      return true;
  }
  return false;
}

bool SpmdAnalysis::inside_owned(const Box& b) {
  // Owned extents are at least 1: grids have positive extents and stencilc::spmd gives every PE
  // a slab at least one cell thick. So [0, 1) and [E - 1, E) are owned cells.
  if (b.lo.empty()) return false;
  for (size_t d = 0; d < b.lo.size(); ++d) {
    const Bound &lo = b.lo[d], &hi = b.hi[d];
    if (!lo.known || (lo.from_extent ? lo.c < -1 : lo.c < 0)) return false;
    if (!hi.known || (hi.from_extent ? hi.c > 0 : hi.c > 1)) return false;
  }
  return true;
}

std::optional<Slab> SpmdAnalysis::slab_of(const Box& b) {
  std::optional<Slab> best;
  for (size_t d = 0; d < b.lo.size(); ++d) {
    const Bound &lo = b.lo[d], &hi = b.hi[d];
    if (!lo.known || !hi.known) continue;
    std::optional<Slab> s;
    if (!lo.from_extent && !hi.from_extent && lo.c >= 0 && hi.c >= 0)
      s = Slab{static_cast<int>(d), false, static_cast<int>(hi.c)};  // [c0, c1) within [0, c1)
    if (lo.from_extent && hi.from_extent && lo.c <= 0 && hi.c <= 0)
      s = Slab{static_cast<int>(d), true, static_cast<int>(-lo.c)};  // within [E + c0, E)
    if (s && (!best || s->width < best->width)) best = s;
  }
  return best;
}

bool SpmdAnalysis::range_inside_owned(const Range& r, const std::string& block) const {
  if (r.kind == Range::Kind::Owned) return same_layout(r.grid, block);
  if (r.kind != Range::Kind::Box) return false;
  return inside_owned(box(r.lo, r.hi, block, nullptr));
}

unsigned SpmdAnalysis::slab_regions(const std::string& block, const Slab& s) const {
  auto it = edge_.find(layout_of(block));
  if (it == edge_.end()) return kOwnedCells;
  const std::vector<int>& edge = s.high ? it->second.second : it->second.first;
  bool in_edge = static_cast<size_t>(s.dim) < edge.size() && s.width <= edge[s.dim];
  return in_edge ? kSendLayers : kOwnedCells;
}

unsigned SpmdAnalysis::destination_regions(const PutSignal& p) const {
  return outside_owned(box(p.dst.lo, p.dst.hi, p.dst.block, &p.pe)) ? kHalo : kAllCells;
}

std::optional<Slab> SpmdAnalysis::source_slab(const PutSignal& p) const {
  return slab_of(box(p.src.lo, p.src.hi, p.src.block, nullptr));
}

bool SpmdAnalysis::peers_write_halos_only() const {
  for (const PutSignal* put : puts_) {
    if (destination_regions(*put) != kHalo) return false;
  }
  return !puts_.empty();
}

std::map<std::string, GridAccess> SpmdAnalysis::point_update(const Stmt& s) const {
  auto* f = as<ForEach>(s);
  auto* r = as<Reduce>(s);
  const Range& range = f ? f->range : r->range;
  ForEachPart part = f ? f->part : ForEachPart::All;
  std::string ref = f && part != ForEachPart::All ? split_reference_block(*f) : "";
  PointBodyUse use = point_body_use(f ? f->body : r->body);
  std::map<std::string, GridAccess> out;
  for (const std::string& y : use.stored) {
    bool owned_range = range_inside_owned(range, y);
    unsigned w = owned_range ? kOwnedCells : kAllCells;
    if (part == ForEachPart::Inner && same_layout(y, ref)) {
      w = kInnerCells;  // widths at least the edge widths: no send layer
    } else if (part == ForEachPart::Boundary && same_layout(y, ref) && owned_range) {
      auto it = edge_.find(layout_of(y));
      if (it != edge_.end() && it->second.first == f->width_lo && it->second.second == f->width_hi)
        w = kSendLayers;
    }
    out[y].written |= w;
  }
  for (const auto& [z, offsets] : use.offsets) {
    unsigned cells = kAllCells;
    if (!use.reads_off_centre(z) && range_inside_owned(range, z)) cells = kOwnedCells;
    if (part == ForEachPart::Inner && same_layout(z, ref)) {
      // Inner points lie width_lo / width_hi inside the faces, so offsets within the widths
      // stay in the owned box.
      bool covered = offsets.first.size() == f->width_lo.size();
      for (size_t d = 0; covered && d < offsets.first.size(); ++d) {
        covered = f->width_lo[d] >= -offsets.first[d] && f->width_hi[d] >= offsets.second[d];
      }
      if (covered) cells = kOwnedCells;
    }
    out[z].read |= cells;
  }
  return out;
}

std::map<std::string, GridAccess> SpmdAnalysis::accesses(const Stmt& s) const {
  if (as<ForEach>(s) || as<Reduce>(s)) return point_update(s);
  std::map<std::string, GridAccess> out;
  if (auto* p = as<PutSignal>(s)) {
    Box b = box(p->src.lo, p->src.hi, p->src.block, nullptr);
    std::optional<Slab> slab = slab_of(b);
    unsigned cells = inside_owned(b) ? kOwnedCells : kAllCells;
    if (slab) cells = slab_regions(p->src.block, *slab) | (inside_owned(b) ? 0u : kHalo);
    out[p->src.block].read |= cells;
  }
  if (as<WaitUntil>(s)) {
    // What the wait guards: every cell peers write (a user may rely on a put with another signal
    // having landed before this signal was set).
    for (const auto& [b, a] : peer_writable_) out[b].written |= a.written;
  }
  return out;
}

namespace {

struct EffectsWalk : IRVisitor {
  using IRVisitor::visit;
  const SpmdAnalysis* analysis = nullptr;
  SpmdEffects e;

  void visit(const Stmt& s) override {
    if (!s) return;
    for (const auto& [b, a] : analysis->accesses(s)) {
      e.blocks[b].read |= a.read;
      e.blocks[b].written |= a.written;
      e.named.insert(b);
    }
    switch (s->kind) {
      case StmtKind::Swap:
        e.swapped.insert(as<Swap>(s)->a);
        e.swapped.insert(as<Swap>(s)->b);
        break;
      case StmtKind::VarDecl:
        e.writes.insert(as<VarDecl>(s)->name);
        break;
      case StmtKind::Assign:
        e.writes.insert(as<Assign>(s)->name);
        break;
      case StmtKind::For:
        e.writes.insert(as<For>(s)->var);
        break;
      case StmtKind::Reduce:
        e.writes.insert(as<Reduce>(s)->result);
        break;
      case StmtKind::SignalDecl:
        e.communicates = true;  // a collective allocation
        e.writes.insert(as<SignalDecl>(s)->name);
        break;
      case StmtKind::PutSignal:
        e.communicates = true;
        e.reads.insert(as<PutSignal>(s)->signal);
        for (const auto& [b, a] : analysis->peer_writable()) {
          e.blocks[b].written |= a.written;
          e.named.insert(b);
        }
        break;
      case StmtKind::WaitUntil:
        e.communicates = true;
        e.reads.insert(as<WaitUntil>(s)->signal);
        break;
      case StmtKind::Quiet:
      case StmtKind::BarrierAll:
      case StmtKind::HaloSend:
      case StmtKind::HaloRecv:
      case StmtKind::AllReduce:
      case StmtKind::Exchange:
        e.communicates = true;
        break;
      case StmtKind::PhaseBarrier:
        e.barrier = true;
        break;
      default:
        break;
    }
    IRVisitor::visit(s);
  }
  void visit(const Var* op) override { e.reads.insert(op->name); }
  void visit(const GridRead* op) override {
    e.named.insert(op->grid);
    IRVisitor::visit(op);
  }
  void visit(const GridQuery* op) override {
    e.named.insert(op->grid);
    IRVisitor::visit(op);
  }
  void visit(const Range& r) override {
    if (!r.grid.empty()) e.named.insert(r.grid);
    IRVisitor::visit(r);
  }
  void visit(const Region& r) override {
    e.named.insert(r.block);
    IRVisitor::visit(r);
  }
};

}  // namespace

SpmdEffects SpmdAnalysis::effects(const Stmt& s) const {
  EffectsWalk walk;
  walk.analysis = this;
  walk.visit(s);
  return walk.e;
}

// ---------------------------------------------------------------------------------------------
// Moves

Rise put_rise(const std::vector<Stmt>& stmts, const std::vector<SpmdEffects>& effects, size_t k,
              size_t floor, const std::set<size_t>& skip) {
  Rise r{k, {}};
  SpmdEffects group = effects[k];
  for (size_t j = k; j-- > floor;) {
    if (skip.count(j) || commute(group, effects[j])) {
      r.to = j;
      continue;
    }
    // A scalar declaration the put (or what it carries) reads comes along.
    auto* decl = as<VarDecl>(stmts[j]);
    if (decl && group.reads.count(decl->name) && !effects[j].communicates && !effects[j].barrier &&
        effects[j].blocks.empty() && effects[j].swapped.empty()) {
      r.carried.insert(r.carried.begin(), j);
      group.add(effects[j]);
      r.to = j;
      continue;
    }
    break;
  }
  return r;
}

size_t wait_sink(const std::vector<Stmt>& stmts, const std::vector<SpmdEffects>& effects,
                 size_t k) {
  size_t to = k;
  while (to + 1 < stmts.size() && commute(effects[k], effects[to + 1])) ++to;
  return to;
}

}  // namespace stencilc::passes
