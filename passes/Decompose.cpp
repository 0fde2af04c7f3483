// decompose: check that a program can be split over PEs, mark it, and follow every reduction
// by the allreduce that combines the PEs' partial results.
#include "passes/Decompose.h"

#include "ir/IRMutator.h"
#include "passes/Diagnostics.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// Inserts `allreduce %r op` right after each `reduce %r`, with the reduction's loc.
class InsertAllReduces : public IRMutator {
 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<Block>& op) override {
    Stmt mutated = IRMutator::visit(op);  // nested bodies first
    auto* block = as<Block>(mutated);
    std::vector<Stmt> stmts;
    bool inserted = false;
    for (const Stmt& s : block->stmts) {
      stmts.push_back(s);
      if (auto* r = as<Reduce>(s)) {
        stmts.push_back(make_all_reduce(r->result, r->op, r->loc));
        inserted = true;
      }
    }
    return inserted ? make_block(std::move(stmts), block->loc) : mutated;
  }
};

/// What keeps `p` from being decomposed, one message per problem.
std::vector<std::string> check_decomposable(const Module& m, const Program& p) {
  std::vector<std::string> errors;
  const Param* first_grid = nullptr;
  for (const Param& param : p.params) {
    if (param.kind != ParamKind::Grid) continue;
    if (param.halo_lo.empty()) {
      errors.push_back(program_error(
          m, p, p.loc,
          "the halos of %" + param.name + " are not inferred (run infer-halos before decompose)"));
    }
    if (!first_grid) {
      first_grid = &param;
    } else if (param.rank != first_grid->rank) {
      errors.push_back(
          program_error(m, p, p.loc,
                        "grid parameters of different ranks cannot share one process grid: %" +
                            first_grid->name + " has rank " + std::to_string(first_grid->rank) +
                            ", %" + param.name + " has rank " + std::to_string(param.rank)));
    }
  }
  return errors;
}

}  // namespace

PassResult decompose(const ir::Module& m) {
  PassResult result{m, {}};
  for (Program& p : result.module.programs) {
    if (p.kind != ProgramKind::Global || p.decomposed) continue;
    std::vector<std::string> errors = check_decomposable(m, p);
    result.errors.insert(result.errors.end(), errors.begin(), errors.end());
    if (!errors.empty()) continue;
    p.decomposed = true;
    p.body = InsertAllReduces().mutate(p.body);
  }
  if (!result.ok()) result.module = m;
  return result;
}

}  // namespace stencilc::passes
