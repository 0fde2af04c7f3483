// insert-exchanges: the stale-halo dataflow, as a mutator that carries the state through the
// statements in execution order and inserts an exchange where a stale halo would be read.
#include "passes/InsertExchanges.h"

#include <set>
#include <string>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// Grids whose halos may be stale (a neighbour wrote their boundary since the last exchange).
using Stale = std::set<std::string>;

/// The grids a point body reads at a non-zero offset (only those need halos).
struct OffCentreReads : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> grids;
  void visit(const GridRead* op) override {
    for (int o : op->offsets) {
      if (o != 0) grids.insert(op->grid);
    }
  }
};

/// The grids a foreach body stores to.
struct Stores : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> grids;
  void visit(const Store* op) override { grids.insert(op->grid); }
};

class InsertExchanges : public IRMutator {
 public:
  explicit InsertExchanges(const Program& p) : program_(p) {}

 protected:
  using IRMutator::visit;

  Stmt visit(const Ref<Block>& op) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      for (const std::string& g : stale_reads(s)) {
        stmts.push_back(make_exchange(g, s->loc));
        stale_.erase(g);
        changed = true;
      }
      Stmt m = mutate(s);
      changed = changed || m != s;
      stmts.push_back(std::move(m));
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
  }

  Stmt visit(const Ref<If>& op) override {
    const Stale entry = stale_;
    Stmt then_body = mutate(op->then_body);
    const Stale after_then = stale_;
    stale_ = entry;
    Stmt else_body = mutate(op->else_body);  // null stays null: the state passes through
    stale_.insert(after_then.begin(), after_then.end());
    if (then_body == op->then_body && else_body == op->else_body) return op;
    return rebuild_if(*op, op->cond, then_body, else_body);
  }

  Stmt visit(const Ref<For>& op) override {
    Stmt body = loop_body(op->body);
    if (body == op->body) return op;
    return make_for(op->var, op->type, op->lo, op->hi, op->step, body, op->loc);
  }

  Stmt visit(const Ref<While>& op) override {
    Stmt body = loop_body(op->body);
    if (body == op->body) return op;
    return make_while(op->cond, body, op->loc);
  }

  // Point bodies hold no statements that communicate; only what a foreach stores matters.
  Stmt visit(const Ref<ForEach>& op) override {
    Stores stores;
    stores.visit(op->body);
    stale_.insert(stores.grids.begin(), stores.grids.end());
    return op;
  }
  Stmt visit(const Ref<Reduce>& op) override {  // a fused sweep's reduction also stores
    Stores stores;
    stores.visit(op->body);
    stale_.insert(stores.grids.begin(), stores.grids.end());
    return op;
  }

  Stmt visit(const Ref<Exchange>& op) override {
    stale_.erase(op->grid);
    return op;
  }
  Stmt visit(const Ref<HaloRecv>& op) override {
    stale_.erase(op->grid);
    return op;
  }

  Stmt visit(const Ref<Swap>& op) override {
    bool a = stale_.erase(op->a) > 0, b = stale_.erase(op->b) > 0;
    if (a) stale_.insert(op->b);
    if (b) stale_.insert(op->a);
    return op;
  }

 private:
  /// The grids point update `s` reads off-centre while they may be stale, in parameter order.
  std::vector<std::string> stale_reads(const Stmt& s) const {
    Stmt body;
    if (auto* f = as<ForEach>(s)) body = f->body;
    if (auto* r = as<Reduce>(s)) body = r->body;
    if (!body) return {};
    OffCentreReads reads;
    reads.visit(body);
    std::vector<std::string> out;
    for (const Param& p : program_.params) {
      if (reads.grids.count(p.name) && stale_.count(p.name)) out.push_back(p.name);
    }
    return out;
  }

  /// Rewrites a loop body under the fixpoint of its head state; leaves stale_ at the loop's
  /// exit state, which is the head state (the loop exits from its head).
  Stmt loop_body(const Stmt& body) {
    Stale head = stale_;
    for (;;) {
      stale_ = head;
      mutate(body);  // only for the state at the end of the body
      Stale next = head;
      next.insert(stale_.begin(), stale_.end());
      if (next == head) break;
      head = std::move(next);
    }
    stale_ = head;
    Stmt out = mutate(body);
    stale_ = head;
    return out;
  }

  const Program& program_;
  Stale stale_;  // at program entry the launcher has filled every halo
};

}  // namespace

PassResult insert_exchanges(const ir::Module& m) {
  PassResult result{m, {}};
  for (Program& p : result.module.programs) {
    if (p.kind == ProgramKind::Global) p.body = InsertExchanges(p).mutate(p.body);
  }
  return result;
}

}  // namespace stencilc::passes
