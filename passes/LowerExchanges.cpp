// lower-exchanges: check that every exchange can be lowered, then split each into its send and
// its receive.
#include "passes/LowerExchanges.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "passes/Diagnostics.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// Every exchange of a program, with the nearest valid loc (its own, or an enclosing one).
struct Exchanges : IRVisitor {
  using IRVisitor::visit;
  std::vector<std::pair<const Exchange*, SourceLoc>> found;
  SourceLoc loc;
  void visit(const Stmt& s) override {
    SourceLoc saved = loc;
    if (s && s->loc.valid()) loc = s->loc;
    IRVisitor::visit(s);
    loc = saved;
  }
  void visit(const Exchange* op) override { found.emplace_back(op, loc); }
};

std::vector<std::string> check_lowerable(const Module& m, const Program& p) {
  Exchanges walk;
  walk.loc = p.loc;
  walk.visit(p.body);
  std::vector<std::string> errors;
  for (const auto& [op, loc] : walk.found) {
    const std::string what = "cannot lower the exchange of %" + op->grid + ": ";
    const Param* g = p.find_param(op->grid);
    if (!p.decomposed) {
      errors.push_back(program_error(
          m, p, loc,
          what + "the program is not decomposed (run decompose before lower-exchanges)"));
    } else if (g && g->halo_lo.empty()) {
      errors.push_back(program_error(
          m, p, loc, what + "its halos are not inferred (run infer-halos before lower-exchanges)"));
    }
  }
  return errors;
}

class SplitExchanges : public IRMutator {
 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<Block>& op) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      if (auto* x = as<Exchange>(s)) {
        stmts.push_back(make_halo_send(x->grid, x->loc));
        stmts.push_back(make_halo_recv(x->grid, x->loc));
        changed = true;
        continue;
      }
      Stmt m = mutate(s);
      changed = changed || m != s;
      stmts.push_back(std::move(m));
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
  }
};

}  // namespace

PassResult lower_exchanges(const ir::Module& m) {
  PassResult result{m, {}};
  for (Program& p : result.module.programs) {
    if (p.kind != ProgramKind::Global) continue;
    std::vector<std::string> errors = check_lowerable(m, p);
    result.errors.insert(result.errors.end(), errors.begin(), errors.end());
    if (errors.empty()) p.body = SplitExchanges().mutate(p.body);
  }
  if (!result.ok()) result.module = m;
  return result;
}

}  // namespace stencilc::passes
