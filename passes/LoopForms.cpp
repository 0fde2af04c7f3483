// The dataflow and register-resident forms of a time loop, found on the IR (LoopForms.h), and
// the select-loop-forms pass that records them.
#include "passes/LoopForms.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "passes/DeferHostReads.h"
#include "passes/GridEffects.h"

namespace stencilc::passes {

using namespace ir;

namespace {

/// Statements a dataflow loop may hold besides its update: scalar ones, and reductions (every
/// block takes part; the kernel puts a grid barrier before each, so every block's rows of the
/// step are written), also under an `if` (jacobi2d's norm every k steps).
bool scalar_or_reduction(const Stmt& s) {
  if (!s) return true;
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::VarDecl:
    case StmtKind::AllReduce:
      return true;
    case StmtKind::Reduce:  // not a fused sweep's, which also stores
      return stored_grids(s).empty();
    case StmtKind::If:
      return scalar_or_reduction(as<If>(s)->then_body) && scalar_or_reduction(as<If>(s)->else_body);
    case StmtKind::Block:
      for (const Stmt& t : as<Block>(s)->stmts)
        if (!scalar_or_reduction(t)) return false;
      return true;
    default:
      return false;
  }
}

}  // namespace

/// The grids a statement stores to.
std::set<std::string> stored_grids(const Stmt& s) {
  struct Stores : IRVisitor {
    using IRVisitor::visit;
    std::set<std::string> grids;
    void visit(const Store* st) override {
      grids.insert(st->grid);
      IRVisitor::visit(st);
    }
  } stores;
  stores.visit(s);
  return stores.grids;
}

size_t allreduce_after(const Block& b, size_t i) {
  auto* r = i < b.stmts.size() ? as<Reduce>(b.stmts[i]) : nullptr;
  if (!r) return b.stmts.size();
  for (size_t k = i + 1; k < b.stmts.size(); ++k) {
    const Stmt& t = b.stmts[k];
    if (auto* a = as<AllReduce>(t))
      return a->var == r->result && a->op == r->op ? k : b.stmts.size();
    if (t->kind != StmtKind::PhaseBarrier && t->kind != StmtKind::HaloSend &&
        t->kind != StmtKind::HaloRecv)
      break;
  }
  return b.stmts.size();
}

namespace {

/// The pipeline's form of a step (see FlowLoop); fills `found` and returns true if `b` is one.
bool exchange_step(const Block& b, FlowLoop& found) {
  const HaloSend* send = nullptr;
  const HaloRecv* recv = nullptr;
  std::vector<const ForEach*> parts;
  size_t k = 0;
  const size_t n = b.stmts.size();
  for (; k < n && parts.size() < 2; ++k) {  // the update, up to its second part
    const Stmt& t = b.stmts[k];
    if (t->kind == StmtKind::PhaseBarrier) continue;
    if (auto* h = as<HaloSend>(t)) {
      if (send || !parts.empty()) return false;
      send = h;
    } else if (auto* h = as<HaloRecv>(t)) {
      if (!send || recv || h->grid != send->grid) return false;
      recv = h;
    } else if (auto* e = as<ForEach>(t)) {
      if (e->part == ForEachPart::All) return false;
      parts.push_back(e);
    } else {
      return false;
    }
  }
  if (!recv || parts.size() != 2 || !are_split_parts(*parts[0], *parts[1])) return false;
  if (k < n && b.stmts[k]->kind == StmtKind::PhaseBarrier) ++k;  // the barrier closing the update
  std::vector<const Swap*> swaps;
  for (; k < n; ++k) {  // then swaps, scalar work, reductions
    if (auto* w = as<Swap>(b.stmts[k])) {
      swaps.push_back(w);
    } else if (!scalar_or_reduction(b.stmts[k])) {
      return false;
    }
  }
  const std::set<std::string> written = stored_grids(parts[0]->body);
  if (written.size() != 1 || written.count(send->grid)) return false;
  // The swaps must hand the written buffer to the next step's exchanged name.
  std::map<std::string, std::string> holds;  // name -> the buffer it holds after the swaps
  auto held = [&](const std::string& name) { return holds.count(name) ? holds[name] : name; };
  for (const Swap* w : swaps) {
    const std::string a = held(w->a), c = held(w->b);
    holds[w->a] = c;
    holds[w->b] = a;
  }
  if (held(send->grid) != *written.begin()) return false;
  found.update = parts[0]->part == ForEachPart::Boundary ? parts[0] : parts[1];
  found.put_handle = send->grid;
  found.put_grid = *written.begin();
  return true;
}

/// The walks, exchanged grids and swaps of a step (a Block or If bodies in it) for the general
/// dataflow form; false where a statement has no place in it.
struct StepScan {
  std::vector<Stmt> walks;
  std::vector<std::string> exchanged;
  std::vector<const Swap*> swaps;
  std::vector<const ForEach*> inner_parts;
  std::vector<const ForEach*> boundary_parts;

  bool scan(const Stmt& s) {
    if (!s) return true;
    switch (s->kind) {
      case StmtKind::Block:
        for (const Stmt& t : as<Block>(s)->stmts)
          if (!scan(t)) return false;
        return true;
      case StmtKind::If:
        return scan(as<If>(s)->then_body) && scan(as<If>(s)->else_body);
      case StmtKind::PhaseBarrier:
      case StmtKind::HaloRecv:
      case StmtKind::Assign:
      case StmtKind::VarDecl:
      case StmtKind::AllReduce:
        return true;
      case StmtKind::HaloSend: {
        const std::string& g = as<HaloSend>(s)->grid;
        if (std::find(exchanged.begin(), exchanged.end(), g) == exchanged.end())
          exchanged.push_back(g);
        return true;
      }
      case StmtKind::Swap:
        swaps.push_back(as<Swap>(s));
        return true;
      case StmtKind::Reduce:
        if (!stored_grids(s).empty()) walks.push_back(s);  // a fused sweep
        return true;
      case StmtKind::ForEach: {
        auto* e = as<ForEach>(s);
        if (e->part == ForEachPart::Inner) {
          inner_parts.push_back(e);  // walked by its boundary part
          return true;
        }
        if (e->part == ForEachPart::Boundary) boundary_parts.push_back(e);
        walks.push_back(s);
        return true;
      }
      default:
        return false;
    }
  }
};

/// Each walk's wait (FlowWalk::wait_back) where the step is a plain sequence: every walk at the
/// top of the step's block (none under an `if`: the walks a step runs are then the same every
/// step), no reduction but the fused sweeps (a reduction waits for the walk before, as before a
/// walk) and no swap (the names stay the buffers they were the step before). Elsewhere every
/// walk waits for the walk before. The walks form a cycle: walk k's candidates are the n walks
/// before it, k - 1 back to itself in the step before.
void flow_waits(const Stmt& body, const StepScan& scan, std::vector<FlowWalk>& walks) {
  auto* b = as<Block>(body);
  if (!b || !scan.swaps.empty()) return;
  for (const FlowWalk& w : walks) {
    if (std::none_of(b->stmts.begin(), b->stmts.end(),
                     [&](const Stmt& t) { return t.get() == w.stmt; }))
      return;
  }
  struct PlainReductions : IRVisitor {
    using IRVisitor::visit;
    bool found = false;  // a reduction that stores nothing
    void visit(const Reduce* r) override { found = found || point_body_use(r->body).stored.empty(); }
  } plain;
  plain.visit(body);
  if (plain.found) return;
  const size_t n = walks.size();
  std::vector<std::set<std::string>> across(n), stored(n);
  for (size_t k = 0; k < n; ++k) {
    const StmtNode* s = walks[k].stmt;
    const Stmt& point = s->kind == StmtKind::ForEach ? static_cast<const ForEach*>(s)->body
                                                     : static_cast<const Reduce*>(s)->body;
    const PointBodyUse use = point_body_use(point);
    stored[k] = use.stored;
    for (const auto& [grid, range] : use.offsets) {
      if (!range.first.empty() && (range.first[0] != 0 || range.second[0] != 0)) across[k].insert(grid);
    }
  }
  auto meet = [](const std::set<std::string>& a, const std::set<std::string>& c) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& g) { return c.count(g) > 0; });
  };
  for (size_t k = 0; k < n; ++k) {
    walks[k].wait_back = 0;
    for (size_t d = 1; d <= n; ++d) {
      const size_t j = (k + n - d) % n;
      if (meet(across[k], stored[j]) || meet(stored[k], across[j])) {
        walks[k].wait_back = static_cast<int>(d);
        break;
      }
    }
  }
}

/// The general form of a step (see FlowLoop); fills `found`'s walks and exchanged grids.
bool general_step(const Stmt& body, FlowLoop& found) {
  StepScan scan;
  if (!scan.scan(body) || scan.walks.empty()) return false;
  // Every inner part is walked by its boundary part, which covers the same range.
  for (const ForEach* inner : scan.inner_parts) {
    if (std::none_of(scan.boundary_parts.begin(), scan.boundary_parts.end(),
                     [&](const ForEach* b) { return are_split_parts(*inner, *b); }))
      return false;
  }
  auto exchanged = [&](const std::string& g) {
    return std::find(scan.exchanged.begin(), scan.exchanged.end(), g) != scan.exchanged.end();
  };
  for (const Stmt& w : scan.walks) {
    FlowWalk walk;
    walk.stmt = w.get();
    for (const std::string& g : stored_grids(w)) {
      // The exchange whose channels carry g's faces: g's own, else that of the one exchanged
      // grid g swaps with (the pair shares a layout; the launcher checks it).
      std::set<std::string> handles;
      if (exchanged(g)) {
        handles.insert(g);
      } else {
        for (const Swap* sw : scan.swaps) {
          const std::string other = sw->a == g ? sw->b : sw->b == g ? sw->a : "";
          if (exchanged(other)) handles.insert(other);
        }
      }
      if (handles.size() > 1) return false;  // no one exchange carries its faces
      if (!handles.empty()) walk.faces.emplace_back(g, *handles.begin());
    }
    found.walks.push_back(std::move(walk));
  }
  found.exchanged = scan.exchanged;
  flow_waits(body, scan, found.walks);
  return true;
}

/// The dataflow loop `s` is, a loop at the top of `p`'s body, or none (the form ignores role
/// groups).
FlowLoop flow_loop_at(const Program& p, const Stmt& s) {
  FlowLoop found;
  const Stmt* body = nullptr;
  if (auto* f = as<For>(s)) body = &f->body;
  if (auto* w = as<While>(s)) body = &w->body;
  if (!body || !general_step(*body, found)) return FlowLoop{};
  FlowLoop one;
  if (auto* b = as<Block>(*body); b && found.walks.size() == 1 && exchange_step(*b, one)) {
    found.update = one.update;
    found.put_handle = one.put_handle;
    found.put_grid = one.put_grid;
  }
  found.loop = s.get();
  found.body = *body;
  found.stmt = s;
  for (const Param& g : p.params) {
    if (g.kind != ParamKind::Grid || g.halo_lo.empty()) continue;
    found.radius = std::max({found.radius, g.halo_lo[0], g.halo_hi[0]});
  }
  // A fused sweep walks the block's rows only as a reduction the form combines with no barrier
  // (with its allreduce: allreduce_after).
  const std::vector<FlowReduction> reductions = flow_reductions(found);
  for (const FlowWalk& w : found.walks) {
    if (w.stmt->kind != StmtKind::Reduce) continue;
    if (std::none_of(reductions.begin(), reductions.end(),
                     [&](const FlowReduction& r) { return r.reduce == w.stmt; }))
      return FlowLoop{};
  }
  return found;
}

}  // namespace

FlowLoop find_flow_loop(const Program& p) {
  if (p.kind != ProgramKind::Global || !p.decomposed) return FlowLoop{};
  auto* top = as<Block>(p.body);
  if (!top) return FlowLoop{};
  for (const Stmt& s : top->stmts) {
    if (FlowLoop found = flow_loop_at(p, s); found.loop) return found;  // one per program
  }
  return FlowLoop{};
}

FlowLoop marked_flow_loop(const Program& p) {
  auto* top = as<Block>(p.body);
  if (!top || p.kind != ProgramKind::Global || !p.decomposed) return FlowLoop{};
  for (const Stmt& s : top->stmts) {
    if (loop_forms(s) & kFormDataflow) return flow_loop_at(p, s);
  }
  return FlowLoop{};
}

namespace {

/// Folds a flow reduction's walk into the update's, where the dataflow form's step is the
/// update, its barriers (publish) and then the reduction, directly or as the first statement of
/// an `if` with no else (`if (t % k == 0) norm = reduce(...)`): the update's range is a grid's
/// interior (the walk set up before the loop) and the reduction's is the same, its indices are
/// the update's or none of them, and it reads every grid at the point itself (offsets all 0).
/// Then each thread adds up the values of its points in the update's own loop, right after the
/// point's store (so a read of the written grid is the thread's own store, through its
/// `__restrict__` pointer), and the reduction's second walk of the block's rows (re-reading both
/// grids from L2, a division per point) goes. The condition is evaluated before the update
/// instead of after it: nothing between them assigns a variable.
void fold_into_update(const FlowLoop& f, std::vector<FlowReduction>& reductions) {
  const ForEach* u = f.update;
  auto* body = f.body ? as<Block>(f.body) : nullptr;
  if (!u || !body || u->range.kind != Range::Kind::Interior) return;
  size_t k = 0;
  while (k < body->stmts.size() && body->stmts[k].get() != u) ++k;
  ++k;  // past the update, then its barriers
  while (k < body->stmts.size() && body->stmts[k]->kind == StmtKind::PhaseBarrier) ++k;
  if (k >= body->stmts.size()) return;
  const Reduce* r = as<Reduce>(body->stmts[k]);
  Expr when;
  if (auto* i = as<If>(body->stmts[k]); i && !i->else_body) {
    auto* then = as<Block>(i->then_body);
    if (then && !then->stmts.empty()) r = as<Reduce>(then->stmts[0]);
    when = i->cond;
  }
  if (!r || r->range.kind != Range::Kind::Interior || r->range.grid != u->range.grid ||
      r->indices.size() != u->indices.size())
    return;
  const std::set<std::string> names(u->indices.begin(), u->indices.end());
  const bool same = r->indices == u->indices;
  if (!same && std::any_of(r->indices.begin(), r->indices.end(),
                           [&](const std::string& n) { return names.count(n); }))
    return;
  struct AtPoint : IRVisitor {
    using IRVisitor::visit;
    bool ok = true;
    void visit(const GridRead* g) override {
      ok = ok && std::all_of(g->offsets.begin(), g->offsets.end(), [](int o) { return o == 0; });
    }
    void visit(const Store*) override { ok = false; }
  } reads;
  reads.visit(r->body);
  if (!reads.ok) return;
  for (FlowReduction& found : reductions) {
    if (found.reduce != r) continue;
    found.folded = true;
    found.when = when;
  }
}

}  // namespace

/// The reductions of the dataflow loop's step that its dataflow form combines with no barrier,
/// in the order of the kernel's arguments: those its allreduce follows (allreduce_after; every
/// global-view reduction has one) that read the grid the step writes only in their own rows along
/// dimension 0. A block walks its own rows of the range after its update (its own stores; the
/// halos the neighbours write in the step are not read), and no block begins the next step,
/// which overwrites the other grid, before every block has given its value, so any read of that
/// grid is in place. Deferred, a block's neighbours may begin the next step before it has walked
/// this one's rows (they wait only for the execution before), so a deferred reduction must read
/// every grid in its own rows along dimension 0 (cells only its own block writes).
std::vector<FlowReduction> flow_reductions(const FlowLoop& f) {
  if (!f.loop || !f.body) return {};
  struct Find : IRVisitor {
    using IRVisitor::visit;
    const FlowLoop* f = nullptr;
    std::vector<FlowReduction> found;
    void visit(const Block* b) override {
      for (size_t i = 0; i < b->stmts.size(); ++i) {
        const size_t at = allreduce_after(*b, i);
        if (at == b->stmts.size()) continue;
        auto* r = as<Reduce>(b->stmts[i]);
        struct Reads : IRVisitor {
          using IRVisitor::visit;
          const std::string* written = nullptr;
          bool own_rows = true, all_own_rows = true;  // the written grid's reads; every grid's
          void visit(const GridRead* g) override {
            const bool across = !g->offsets.empty() && g->offsets[0] != 0;
            if (across && g->grid == *written) own_rows = false;
            if (across) all_own_rows = false;
          }
        } reads;
        reads.written = &f->put_grid;
        reads.visit(r->body);
        if (!reads.own_rows) continue;
        FlowReduction found_one{r, false, {}, false, nullptr};
        std::set<std::string> names{r->result};
        found_one.tail = reduction_tail(*b, at + 1, r->result);
        for (const Stmt& t : found_one.tail) names.insert(as<Assign>(t)->name);
        found_one.deferred = reads.all_own_rows && unread_in_loop(f->stmt, found_one.tail, names);
        if (!found_one.deferred) found_one.tail.clear();
        found.push_back(std::move(found_one));
      }
      IRVisitor::visit(b);
    }
  } find;
  find.f = &f;
  find.visit(f.body);
  fold_into_update(f, find.found);
  return find.found;
}

/// The form applies to the default pipeline's form of the loop, a `for` that does not assign its
/// variable, whose step touches grids only in its update and in one flow reduction folded into it
/// (fold_into_update): a 2-D update over a grid's interior that stores one value to %out at the
/// point, unconditionally and once, computed from %in within one cell along both dimensions and
/// from scalars; the reduction reads %in and %out at the point only; the loop swaps %in and %out
/// once and nothing else. The band then holds every cell a step reads or writes but the rows past
/// it (the neighbour blocks' pushes) and the fixed cells around it (the same in both grids: the
/// kernel checks that contract before it takes the form).
RegsForm regs_form(const Program& p, const FlowLoop& f,
                   const std::vector<FlowReduction>& reductions) {
  RegsForm none, found;
  if (!f.loop || !f.update || f.exchanged.empty() || !f.body || f.loop->kind != StmtKind::For ||
      f.update->range.kind != Range::Kind::Interior || f.update->indices.size() != 2)
    return none;
  const std::string var = static_cast<const For*>(f.loop)->var;
  const Reduce* fold = nullptr;  // flow_reductions folded it (fold_into_update)
  for (const FlowReduction& r : reductions)
    if (r.folded) fold = r.reduce;
  // The update's body: locals, then one store to %out (the only one: locals hold no statements);
  // reads of one other grid, within a cell.
  const auto* body = as<Block>(f.update->body);
  const std::vector<Stmt> stmts = body ? body->stmts : std::vector<Stmt>{f.update->body};
  const Store* store = nullptr;
  for (const Stmt& t : stmts) {
    if (auto* st = as<Store>(t)) {
      if (store) return none;
      store = st;
    } else if (t->kind != StmtKind::VarDecl && t->kind != StmtKind::Assign) {
      return none;
    }
  }
  if (!store) return none;
  found.out = store->grid;
  struct Reads : IRVisitor {
    using IRVisitor::visit;
    std::set<std::string> grids;
    bool near = true;
    void visit(const GridRead* g) override {
      grids.insert(g->grid);
      near = near && std::all_of(g->offsets.begin(), g->offsets.end(),
                                 [](int o) { return o >= -1 && o <= 1; });
    }
  } reads;
  reads.visit(f.update->body);
  if (reads.grids.size() != 1 || !reads.near || reads.grids.count(found.out)) return none;
  found.in = *reads.grids.begin();
  // The step: grids only there and in the folded reduction (%in and %out at the point), one swap
  // of the two, the loop's variable not assigned.
  struct Step : IRVisitor {
    using IRVisitor::visit;
    const ForEach* update = nullptr;
    const Reduce* fold = nullptr;
    const RegsForm* form = nullptr;
    std::string var;
    int swaps = 0;
    bool inside = false, ok = true;
    void visit(const ForEach* e) override {
      if (e->part == ForEachPart::Inner)
        return;  // the update's other part: a comment in the dataflow form
      ok = ok && e == update;
    }
    void visit(const Reduce* r) override {
      if (r != fold) return void(ok = false);
      inside = true;
      IRVisitor::visit(r);
      inside = false;
    }
    void visit(const GridRead* g) override {
      ok = ok && inside && (g->grid == form->in || g->grid == form->out);
    }
    void visit(const Store*) override { ok = false; }
    void visit(const Swap* w) override {
      ++swaps;
      ok = ok &&
           ((w->a == form->in && w->b == form->out) || (w->a == form->out && w->b == form->in));
    }
    void visit(const Assign* a) override {
      ok = ok && a->name != var;
      IRVisitor::visit(a);
    }
  } step;
  step.update = f.update;
  step.fold = fold;
  step.form = &found;
  step.var = var;
  step.visit(f.body);
  if (!step.ok || step.swaps != 1) return none;
  const Param* in = p.find_param(found.in);
  const Param* out = p.find_param(found.out);
  if (!in || !out || in->kind != ParamKind::Grid || out->kind != ParamKind::Grid || in->rank != 2 ||
      out->rank != 2 || in->type != out->type ||
      (in->type != ScalarType::F32 && in->type != ScalarType::F64))
    return none;
  found.type = in->type;
  return found;
}

RegsForm marked_regs_form(const Program& p, const FlowLoop& f) {
  if (!f.loop || !(loop_forms(f.stmt) & kFormRegs)) return RegsForm{};
  return regs_form(p, f, flow_reductions(f));
}

std::string loop_forms_mismatch(const Program& p) {
  const FlowLoop f = marked_flow_loop(p);
  auto* top = as<Block>(p.body);
  const bool marked = top && std::any_of(top->stmts.begin(), top->stmts.end(), [](const Stmt& s) {
                        return loop_forms(s) & kFormDataflow;
                      });
  if (marked && !f.loop)
    return "a loop marked forms(dataflow) has no dataflow form (see select-loop-forms)";
  if (f.loop && (loop_forms(f.stmt) & kFormRegs) && marked_regs_form(p, f).in.empty())
    return "a loop marked forms(regs) has no register-resident form (see select-loop-forms)";
  return "";
}

Module select_loop_forms(const Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    auto* top = as<Block>(p.body);
    if (!top) continue;
    // One dataflow loop a program (the kernel's flags and reductions are sized for one).
    const FlowLoop f = find_flow_loop(p);
    unsigned found = 0;
    if (f.loop)
      found = kFormDataflow | (regs_form(p, f, flow_reductions(f)).in.empty() ? 0u : kFormRegs);
    std::vector<Stmt> stmts = top->stmts;
    bool changed = false;
    for (Stmt& s : stmts) {
      const unsigned forms = s.get() == f.loop ? found : 0;
      if (forms == loop_forms(s)) continue;
      s = with_forms(s, forms);
      changed = true;
    }
    if (changed) p.body = make_block(std::move(stmts), top->loc);
  }
  return out;
}

}  // namespace stencilc::passes
