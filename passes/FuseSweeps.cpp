// fuse-sweeps (see FuseSweeps.h): runs of point updates and a reduction become one sweep.
#include "passes/FuseSweeps.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "passes/GridEffects.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// The base of a versioned run's condition's fresh name (`if %fused_ranges versioned { fused }
/// else { unfused }`).
constexpr const char* kVersionCondition = "fused_ranges";

/// Every name a program declares or uses, so that new ones are fresh.
struct Names : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> used;
  void visit(const Var* op) override { used.insert(op->name); }
  void visit(const VarDecl* op) override {
    used.insert(op->name);
    IRVisitor::visit(op);
  }
  void visit(const For* op) override {
    used.insert(op->var);
    IRVisitor::visit(op);
  }
  void visit(const ForEach* op) override {
    used.insert(op->indices.begin(), op->indices.end());
    IRVisitor::visit(op);
  }
  void visit(const Reduce* op) override {
    used.insert(op->result);
    used.insert(op->indices.begin(), op->indices.end());
    IRVisitor::visit(op);
  }
};

/// The locals a point body declares, at any depth.
std::set<std::string> declared_locals(const Stmt& body) {
  struct Decls : IRVisitor {
    using IRVisitor::visit;
    std::set<std::string> names;
    void visit(const VarDecl* op) override {
      names.insert(op->name);
      IRVisitor::visit(op);
    }
  } decls;
  decls.visit(body);
  return decls.names;
}

std::vector<Stmt> top_level(const Stmt& body) {
  if (auto* b = as<Block>(body)) return b->stmts;
  return {body};
}

/// A statement that may join a sweep: a whole foreach or a reduce, and what its body does.
struct Member {
  Stmt stmt;
  const Range* range = nullptr;
  const std::vector<std::string>* indices = nullptr;
  Stmt body;
  const Reduce* reduce = nullptr;
  PointBodyUse use;
  std::set<std::string> top_stores;  // grids stored only by statements of the body's top level
};

std::optional<Member> member_of(const Stmt& s) {
  Member m;
  m.stmt = s;
  if (auto* f = as<ForEach>(s)) {
    if (f->part != ForEachPart::All) return std::nullopt;
    m.range = &f->range;
    m.indices = &f->indices;
    m.body = f->body;
  } else if (auto* r = as<Reduce>(s)) {
    m.range = &r->range;
    m.indices = &r->indices;
    m.body = r->body;
    m.reduce = r;
  } else {
    return std::nullopt;
  }
  m.use = point_body_use(m.body);
  std::set<std::string> at_top;
  for (const Stmt& t : top_level(m.body))
    if (auto* st = as<Store>(t)) at_top.insert(st->grid);
  // A grid stored also under a condition is not known at the top level.
  std::set<std::string> nested;
  for (const Stmt& t : top_level(m.body)) {
    if (t->kind == StmtKind::Store) continue;
    PointBodyUse inner = point_body_use(t);
    nested.insert(inner.stored.begin(), inner.stored.end());
  }
  for (const std::string& g : at_top)
    if (!nested.count(g)) m.top_stores.insert(g);
  return m;
}

bool same_text(const Range& a, const Range& b) {
  return print(a) == print(b);
}

/// A run of members that fuses, and the pairs of grids whose interiors must be equal for it.
struct Run {
  size_t begin = 0, end = 0;  // statements [begin, end) of the block
  std::vector<Member> members;
  std::set<std::pair<std::string, std::string>> equal_interiors;
};

/// The state of a run while it grows.
struct RunState {
  std::set<std::string> written, read_off_centre;
  std::map<std::string, bool> forwardable;  // written grids: is the last store at a top level?
};

/// Whether `s` may join the run `r` (see FuseSweeps.h); adds the interiors it needs equal.
bool can_join(Run& r, const RunState& st, const Member& s) {
  const Member& first = r.members.front();
  if (s.indices->size() != first.indices->size()) return false;
  std::optional<std::pair<std::string, std::string>> pair;
  if (!same_text(*s.range, *first.range)) {
    if (s.range->kind != Range::Kind::Interior || first.range->kind != Range::Kind::Interior)
      return false;
    pair = std::minmax(first.range->grid, s.range->grid);
  }
  for (const auto& [g, offsets] : s.use.offsets) {
    if (!st.written.count(g)) continue;
    if (s.use.reads_off_centre(g)) return false;  // another point's new value
    if (!st.forwardable.at(g)) return false;      // not known at the point's top level
    // Reads after its own store under a condition would see memory, not the forwarded value.
    if (s.use.stored.count(g) && !s.top_stores.count(g)) return false;
  }
  for (const std::string& g : s.use.stored)
    if (st.read_off_centre.count(g)) return false;  // another point's old value
  if (pair) r.equal_interiors.insert(*pair);
  return true;
}

void add_to(RunState& st, const Member& m) {
  for (const std::string& g : m.use.stored) {
    st.written.insert(g);
    st.forwardable[g] = m.top_stores.count(g) > 0;
  }
  for (const auto& [g, offsets] : m.use.offsets)
    if (m.use.reads_off_centre(g)) st.read_off_centre.insert(g);
}

/// The runs of a block's statements, in order.
std::vector<Run> find_runs(const std::vector<Stmt>& stmts) {
  std::vector<Run> runs;
  size_t i = 0;
  while (i < stmts.size()) {
    std::optional<Member> first = member_of(stmts[i]);
    if (!first || first->reduce) {  // a reduction ends a run; it does not start one
      ++i;
      continue;
    }
    Run run;
    run.begin = i;
    run.members.push_back(*first);
    RunState st;
    add_to(st, *first);
    size_t j = i + 1;
    for (; j < stmts.size(); ++j) {
      std::optional<Member> next = member_of(stmts[j]);
      if (!next) break;
      Run trial = run;
      if (!can_join(trial, st, *next)) break;
      run = std::move(trial);
      run.members.push_back(*next);
      add_to(st, *next);
      if (next->reduce) {
        ++j;
        break;
      }
    }
    run.end = j;
    if (run.members.size() >= 2) {
      runs.push_back(std::move(run));
      i = j;
    } else {
      ++i;
    }
  }
  return runs;
}

/// Rewrites one member's body into the sweep: its indices and clashing locals renamed, and its
/// reads of grids stored earlier in the sweep at the point taken from the forwarding locals.
class MemberRewrite : public IRMutator {
 public:
  std::map<std::string, std::string> rename;
  const std::map<std::string, std::string>* forwarded = nullptr;  // grid -> local

 protected:
  using IRMutator::visit;
  Expr visit(const Ref<Var>& op) override {
    auto it = rename.find(op->name);
    return it == rename.end() ? Expr(op) : make_var(it->second, op->type);
  }
  Expr visit(const Ref<GridRead>& op) override {
    auto it = forwarded->find(op->grid);
    const bool centre =
        std::all_of(op->offsets.begin(), op->offsets.end(), [](int o) { return o == 0; });
    return it != forwarded->end() && centre ? make_var(it->second, op->type) : Expr(op);
  }
  Stmt visit(const Ref<VarDecl>& op) override {
    auto it = rename.find(op->name);
    Expr init = op->init ? mutate(op->init) : nullptr;
    if (it == rename.end() && init == op->init) return op;
    return make_var_decl(it == rename.end() ? op->name : it->second, op->type, init, op->loc);
  }
  Stmt visit(const Ref<Assign>& op) override {
    auto it = rename.find(op->name);
    Expr value = mutate(op->value);
    if (it == rename.end() && value == op->value) return op;
    return make_assign(it == rename.end() ? op->name : it->second, value, op->loc);
  }
};

/// A copy of a statement sharing no node with it (the unfused version of a versioned block sits
/// beside the fused one, and later passes and the emitters key some maps on nodes).
class Copy : public IRMutator {
 protected:
  using IRMutator::visit;
  Expr visit(const Ref<IntImm>& op) override { return make_int(op->value, op->type); }
  Expr visit(const Ref<FloatImm>& op) override { return make_float(op->value, op->type); }
  Expr visit(const Ref<BoolImm>& op) override { return make_bool(op->value); }
  Expr visit(const Ref<Var>& op) override { return make_var(op->name, op->type); }
  Expr visit(const Ref<GridRead>& op) override {
    return make_grid_read(op->grid, op->offsets, op->type);
  }
  Expr visit(const Ref<GridQuery>& op) override {
    return make_grid_query(op->op, op->grid, op->dim, op->pe ? mutate(op->pe) : nullptr);
  }
  Stmt visit(const Ref<Swap>& op) override { return make_swap(op->a, op->b, op->loc); }
  Stmt visit(const Ref<Exchange>& op) override { return make_exchange(op->grid, op->loc); }
  Stmt visit(const Ref<HaloSend>& op) override {
    return make_halo_send(op->grid, op->loc, op->role);
  }
  Stmt visit(const Ref<HaloRecv>& op) override {
    return make_halo_recv(op->grid, op->loc, op->role);
  }
  Stmt visit(const Ref<AllReduce>& op) override {
    return make_all_reduce(op->var, op->op, op->loc);
  }
  Stmt visit(const Ref<PhaseBarrier>& op) override { return make_phase_barrier(op->loc, op->role); }
};

/// The number of foreaches in a statement, at any depth.
int point_updates(const Stmt& s) {
  struct Count : IRVisitor {
    using IRVisitor::visit;
    int n = 0;
    void visit(const ForEach* op) override { ++n; }
  } count;
  count.visit(s);
  return count.n;
}

class FuseSweeps {
 public:
  explicit FuseSweeps(const Program& p) : program_(p) {
    Names names;
    names.visit(p.body);
    names_ = std::move(names.used);
    for (const Param& q : p.params) names_.insert(q.name);
    // The conditions of an earlier run of the pass, so that it fuses nothing more.
    for (const Stmt& s : as<Block>(p.body)->stmts)
      if (auto* d = as<VarDecl>(s); d && d->type == ScalarType::Bool && d->init)
        conditions_[print(d->init)] = d->name;
  }

  Program run() {
    Program out = program_;
    Stmt body = block(program_.body, true);
    if (!hoisted_.empty()) {
      std::vector<Stmt> stmts = hoisted_;
      for (const Stmt& s : as<Block>(body)->stmts) stmts.push_back(s);
      body = make_block(std::move(stmts), body->loc);
    }
    out.body = body;
    return out;
  }

 private:
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  /// Rewrites the statements inside `s` (loops, branches, scopes).
  Stmt nested(const Stmt& s, bool fuse) {
    if (auto* i = as<If>(s)) {
      Stmt t = block(i->then_body, fuse);
      // The unfused version of a versioned block: its interiors are known to differ.
      auto* v = as<Var>(i->cond);
      const bool version = v && !unequal_.count(v->name);
      if (version) unequal_.insert(v->name);
      Stmt e = i->else_body ? nested(i->else_body, fuse) : nullptr;
      if (version) unequal_.erase(v->name);
      if (t == i->then_body && e == i->else_body) return s;
      return rebuild_if(*i, i->cond, t, e);
    }
    if (auto* f = as<For>(s)) {
      Stmt b = block(f->body, point_updates(f->body) != 1);
      if (b == f->body) return s;
      auto loop = std::make_shared<For>(*f);
      loop->body = b;
      return loop;
    }
    if (auto* w = as<While>(s)) {
      Stmt b = block(w->body, point_updates(w->body) != 1);
      if (b == w->body) return s;
      auto loop = std::make_shared<While>(*w);
      loop->body = b;
      return loop;
    }
    if (s->kind == StmtKind::Block) return block(s, fuse);
    return s;
  }

  Stmt block(const Stmt& s, bool fuse) {
    auto* b = as<Block>(s);
    if (!b) return nested(s, fuse);
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt& x : b->stmts) {
      stmts.push_back(nested(x, fuse));
      changed |= stmts.back() != x;
    }
    std::vector<Run> runs = fuse ? find_runs(stmts) : std::vector<Run>{};
    if (runs.empty()) return changed ? make_block(std::move(stmts), s->loc) : s;
    auto versioned = std::find_if(runs.begin(), runs.end(),
                                  [](const Run& r) { return !r.equal_interiors.empty(); });
    if (versioned == runs.end())
      return make_block(fused(stmts, runs, 0, stmts.size(), true), s->loc);
    // From the first run that needs equal interiors to the end of the block: both versions. The
    // transfers right before the run go with it, so that the unfused version keeps the overlap
    // split-boundary gives its first update with them.
    size_t from = versioned->begin;
    while (from > 0 &&
           (stmts[from - 1]->kind == StmtKind::HaloSend ||
            stmts[from - 1]->kind == StmtKind::HaloRecv) &&
           std::none_of(runs.begin(), runs.end(), [&](const Run& r) { return r.end == from; }))
      --from;
    std::vector<Stmt> out = fused(stmts, runs, 0, from, true);
    std::set<std::pair<std::string, std::string>> pairs;
    for (auto r = versioned; r != runs.end(); ++r)
      pairs.insert(r->equal_interiors.begin(), r->equal_interiors.end());
    const Expr equal = interiors_equal(pairs);
    auto known = conditions_.find(print(equal));
    if (known != conditions_.end() && unequal_.count(known->second))
      return make_block(fused(stmts, runs, 0, stmts.size(), false), s->loc);
    std::string cond;
    if (known != conditions_.end()) {
      cond = known->second;
    } else {
      cond = fresh(kVersionCondition);
      conditions_[print(equal)] = cond;
      hoisted_.push_back(make_var_decl(cond, ScalarType::Bool, equal, stmts[from]->loc));
    }
    std::vector<Stmt> unfused = fused(stmts, runs, from, stmts.size(), false);
    for (Stmt& x : unfused) x = Copy().mutate(x);
    out.push_back(make_versions(make_var(cond, ScalarType::Bool),
                          make_block(fused(stmts, runs, from, stmts.size(), true)),
                          make_block(std::move(unfused)), stmts[from]->loc));
    return make_block(std::move(out), s->loc);
  }

  /// Statements [lo, hi) with the runs inside fused (all of them, or only those that need no
  /// equal interiors).
  std::vector<Stmt> fused(const std::vector<Stmt>& stmts, const std::vector<Run>& runs, size_t lo,
                          size_t hi, bool all) {
    std::vector<Stmt> out;
    size_t k = lo;
    for (const Run& r : runs) {
      if (r.begin < lo || r.end > hi) continue;
      if (!all && !r.equal_interiors.empty()) continue;
      out.insert(out.end(), stmts.begin() + k, stmts.begin() + r.begin);
      out.push_back(sweep(r));
      k = r.end;
    }
    out.insert(out.end(), stmts.begin() + k, stmts.begin() + hi);
    return out;
  }

  Expr interiors_equal(const std::set<std::pair<std::string, std::string>>& pairs) {
    Expr all;
    for (const auto& [a, b] : pairs) {
      const int rank = program_.find_param(a)->rank;
      for (int d = 0; d < rank; ++d) {
        for (GridQueryOp op : {GridQueryOp::InteriorLo, GridQueryOp::InteriorHi}) {
          Expr eq = make_binary(BinaryOp::Eq, make_grid_query(op, a, d), make_grid_query(op, b, d));
          all = all ? make_binary(BinaryOp::And, all, eq) : eq;
        }
      }
    }
    return all;
  }

  /// One run as one sweep over the first member's range and indices.
  Stmt sweep(const Run& run) {
    const Member& first = run.members.front();
    std::set<std::string> declared(first.indices->begin(), first.indices->end());
    std::map<std::string, std::string> forwarded;  // grid -> the local holding its new value
    std::vector<Stmt> body;
    for (size_t k = 0; k < run.members.size(); ++k) {
      const Member& m = run.members[k];
      // The grids later members read at the point, which this one stores at its top level.
      std::set<std::string> forward;
      for (size_t j = k + 1; j < run.members.size(); ++j)
        for (const auto& [g, offsets] : run.members[j].use.offsets)
          if (m.top_stores.count(g)) forward.insert(g);
      MemberRewrite rw;
      rw.forwarded = &forwarded;
      for (const std::string& local : declared_locals(m.body)) {
        if (declared.count(local)) rw.rename[local] = fresh(local);
        declared.insert(rw.rename.count(local) ? rw.rename[local] : local);
      }
      for (size_t d = 0; d < m.indices->size(); ++d)
        if ((*m.indices)[d] != (*first.indices)[d])
          rw.rename[(*m.indices)[d]] = (*first.indices)[d];
      for (const Stmt& t : top_level(m.body)) {
        Stmt u = rw.mutate(t);
        auto* st = as<Store>(u);
        if (!st || !forward.count(st->grid)) {
          body.push_back(u);
          continue;
        }
        const std::string local = fresh(st->grid + "_fwd");
        declared.insert(local);
        const ScalarType type = program_.find_param(st->grid)->type;
        body.push_back(make_var_decl(local, type, st->value, st->loc));
        body.push_back(make_store(st->grid, make_var(local, type), st->loc));
        forwarded[st->grid] = local;
      }
      // A store under a condition leaves the grid's value to memory (no later member reads it).
      for (const std::string& g : m.use.stored)
        if (!m.top_stores.count(g)) forwarded.erase(g);
    }
    const Member& last = run.members.back();
    if (last.reduce) {
      const Reduce* r = last.reduce;
      return make_reduce(r->result, r->type, r->op, *first.range, *first.indices,
                         make_block(std::move(body)), first.stmt->loc);
    }
    return make_for_each(*first.range, *first.indices, make_block(std::move(body)),
                         first.stmt->loc);
  }

  const Program& program_;
  std::set<std::string> names_;
  std::vector<Stmt> hoisted_;  // the versions' conditions, for the top of the program
  std::map<std::string, std::string> conditions_;  // a condition's text -> its variable
  std::set<std::string> unequal_;  // conditions known false here (in their unfused versions)
};

}  // namespace

ir::Module fuse_sweeps(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind != ProgramKind::Global) continue;
    p = FuseSweeps(p).run();
  }
  return out;
}

bool is_sweep_version(const If& op) { return op.versioned && op.else_body; }

}  // namespace stencilc::passes
