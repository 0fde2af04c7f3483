// specialize-blocks: give the split foreaches of time loops and their transfers roles, then
// place the barriers again and narrow those that one group alone needs.
#include "passes/SpecializeBlocks.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "passes/Diagnostics.h"
#include "passes/GridEffects.h"
#include "passes/PhaseBarriers.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// The cost model's bytes per point: every grid the body reads is loaded once per point (its
/// neighbours come from cache) and every grid it stores to is written once.
int bytes_per_point(const Program& p, const ForEach& f) {
  PointBodyUse use = point_body_use(f.body);
  int bytes = 0;
  for (const auto& [g, offsets] : use.offsets) {
    if (const Param* q = p.find_param(g)) bytes += byte_size(q->type);
  }
  for (const std::string& g : use.stored) {
    if (const Param* q = p.find_param(g)) bytes += byte_size(q->type);
  }
  return bytes;
}

bool is_transfer(const Stmt& s) {
  return as<HaloSend>(s) || as<HaloRecv>(s) || as<PutSignal>(s) || as<WaitUntil>(s);
}

class AssignRoles : public IRMutator {
 public:
  explicit AssignRoles(const Program& p) : program_(p) {}
  int specialised = 0;

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<For>& op) override {
    return in_loop([&] { return IRMutator::visit(op); });
  }
  Stmt visit(const Ref<While>& op) override {
    return in_loop([&] { return IRMutator::visit(op); });
  }

  Stmt visit(const Ref<Block>& op) override {
    Stmt visited = IRMutator::visit(op);  // nested blocks first
    if (loops_ == 0) return visited;
    std::vector<Stmt> stmts = as<Block>(visited)->stmts;
    bool changed = visited != op;
    std::vector<bool> paired(stmts.size(), false);
    for (size_t i = 0; i < stmts.size(); ++i) {
      auto* a = as<ForEach>(stmts[i]);
      if (!a || a->part == ForEachPart::All || paired[i]) continue;
      for (size_t j = i + 1; j < stmts.size(); ++j) {
        auto* b = as<ForEach>(stmts[j]);
        if (paired[j] || !b || !are_split_parts(*a, *b)) continue;
        paired[i] = paired[j] = true;
        changed = specialise(stmts, i, j) || changed;
        break;
      }
    }
    return changed ? make_block(std::move(stmts), op->loc) : visited;
  }

 private:
  template <typename F>
  Stmt in_loop(F f) {
    ++loops_;
    Stmt s = f();
    --loops_;
    return s;
  }

  /// Gives the pair at i < j and the transfers around it their roles, when it has transfers.
  bool specialise(std::vector<Stmt>& stmts, size_t i, size_t j) {
    size_t first = i, last = j;
    auto skippable = [&](size_t k) { return is_transfer(stmts[k]) || as<PhaseBarrier>(stmts[k]); };
    while (first > 0 && skippable(first - 1)) --first;
    while (last + 1 < stmts.size() && skippable(last + 1)) ++last;
    std::vector<size_t> transfers;
    for (size_t k = first; k <= last; ++k) {
      if (k != i && k != j && is_transfer(stmts[k])) transfers.push_back(k);
    }
    if (transfers.empty()) return false;
    for (size_t k : transfers) stmts[k] = with_role(stmts[k], WorkerRole::Comm);
    for (size_t k : {i, j}) {
      auto* f = as<ForEach>(stmts[k]);
      stmts[k] = f->part == ForEachPart::Boundary
                     ? with_role(stmts[k], WorkerRole::Comm)
                     : with_role(stmts[k], WorkerRole::Compute, bytes_per_point(program_, *f));
    }
    ++specialised;
    return true;
  }

  const Program& program_;
  int loops_ = 0;
};

/// Replaces the k-th phase_barrier (in program order) by one with `role`.
class SetBarrierRole : public IRMutator {
 public:
  SetBarrierRole(int k, WorkerRole role) : k_(k), role_(role) {}

 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<PhaseBarrier>& op) override {
    return n_++ == k_ ? make_phase_barrier(op->loc, role_) : op;
  }

 private:
  int k_, n_ = 0;
  WorkerRole role_;
};

struct Barriers : IRVisitor {
  using IRVisitor::visit;
  std::vector<WorkerRole> roles;
  bool split = false;
  void visit(const PhaseBarrier* op) override { roles.push_back(op->role); }
  void visit(const ForEach* op) override { split = split || op->part != ForEachPart::All; }
};

/// Narrows each PE-wide barrier of p to one group when the program stays correctly ordered.
void narrow_barriers(Program& p) {
  Barriers found;
  found.visit(p.body);
  for (size_t k = 0; k < found.roles.size(); ++k) {
    if (found.roles[k] != WorkerRole::All) continue;
    for (WorkerRole role : {WorkerRole::Comm, WorkerRole::Compute}) {
      Program narrowed = p;
      narrowed.body = SetBarrierRole(static_cast<int>(k), role).mutate(p.body);
      if (unordered_dependences(narrowed).empty()) {
        p = std::move(narrowed);
        break;
      }
    }
  }
}

}  // namespace

PassResult specialize_blocks(const ir::Module& m) {
  PassResult result{m, {}};
  for (Program& p : result.module.programs) {
    if (p.kind == ProgramKind::Global && !p.decomposed) continue;
    if (!p.persistent) {
      Barriers found;
      found.visit(p.body);
      if (found.split)
        result.errors.push_back(
            program_error(m, p, p.loc,
                          "cannot specialise the workers: the program is not persistent "
                          "(run persistent-fusion before specialize-blocks)"));
      continue;
    }
    AssignRoles roles(p);
    Stmt body = roles.mutate(p.body);
    if (roles.specialised == 0) continue;
    p.body = body;
    p.body = place_phase_barriers(p);
    narrow_barriers(p);
  }
  if (!result.ok()) result.module = m;
  return result;
}

}  // namespace stencilc::passes
