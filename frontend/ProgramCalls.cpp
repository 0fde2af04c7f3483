// Checks of the calls of stencil programs in the user's file: what the program's own lowering
// cannot see because it happens at the call.
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "frontend/Lowering.h"

namespace stencilc::frontend {

using namespace clang;

namespace {

/// The variable an argument names (`a`, not `a.x` or `*p`), or null.
const ValueDecl* named_variable(const Expr* arg) {
  auto* ref = dyn_cast<DeclRefExpr>(strip(arg));
  return ref ? ref->getDecl() : nullptr;
}

class ProgramCallChecker : public RecursiveASTVisitor<ProgramCallChecker> {
 public:
  ProgramCallChecker(LoweringContext& cx, const std::vector<const FunctionDecl*>& programs)
      : cx_(cx) {
    for (const FunctionDecl* fd : programs) programs_.insert(fd->getCanonicalDecl());
  }

  bool VisitCallExpr(CallExpr* call) {
    const SourceManager& sm = cx_.ast().getSourceManager();
    if (!sm.isInMainFile(sm.getExpansionLoc(call->getBeginLoc()))) return true;
    const FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return true;
    if (programs_.count(callee->getCanonicalDecl())) {
      check_arguments(callee, call, 0);
    } else if (is_stencilc_function(callee, "spmd") && call->getNumArgs() > 2) {
      // stencilc::spmd(program, split, args...): the arguments of the program's parameters.
      auto* ref = dyn_cast<DeclRefExpr>(strip(call->getArg(0))->IgnoreImpCasts());
      if (auto* u = dyn_cast<UnaryOperator>(strip(call->getArg(0))->IgnoreImpCasts());
          u && u->getOpcode() == UO_AddrOf)
        ref = dyn_cast<DeclRefExpr>(u->getSubExpr()->IgnoreParenImpCasts());
      auto* program = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
      if (program && programs_.count(program->getCanonicalDecl()))
        check_arguments(program, call, 2);
    }
    return true;
  }

 private:
  /// One grid for two grid parameters: the reference reads and writes it through both names
  /// (for_each writes one while it reads the other), the compiled program gives each parameter
  /// its own storage, so the results would differ. Two read-only parameters may share one.
  void check_arguments(const FunctionDecl* program, const CallExpr* call, unsigned first_arg) {
    std::vector<std::pair<const ParmVarDecl*, const Expr*>> grids;
    for (unsigned k = 0; k < program->getNumParams() && first_arg + k < call->getNumArgs(); ++k) {
      const ParmVarDecl* param = program->getParamDecl(k);
      auto type = cx_.grid_type(param->getType());
      const Expr* arg = call->getArg(first_arg + k);
      if (!type || !named_variable(arg)) continue;
      for (const auto& [earlier, earlier_arg] : grids) {
        if (named_variable(earlier_arg) != named_variable(arg)) continue;
        if (type->is_const && cx_.grid_type(earlier->getType())->is_const) continue;
        std::string grid = named_variable(arg)->getNameAsString();
        cx_.error(
            arg->getExprLoc(),
            "grid '" + grid + "' is passed for both '" + earlier->getNameAsString() + "' and '" +
                param->getNameAsString() + "' of program '" + program->getNameAsString() +
                "'; a grid the program writes must be passed for one parameter only (the compiled "
                "program gives each grid parameter its own storage)",
            arg->getSourceRange());
        cx_.note(earlier_arg->getExprLoc(),
                 "'" + grid + "' is first passed here, for '" + earlier->getNameAsString() + "'");
        break;
      }
      grids.emplace_back(param, arg);
    }
  }

  LoweringContext& cx_;
  std::set<const FunctionDecl*> programs_;
};

}  // namespace

void check_program_calls(LoweringContext& cx, const std::vector<const FunctionDecl*>& programs) {
  ProgramCallChecker checker(cx, programs);
  checker.TraverseDecl(cx.ast().getTranslationUnitDecl());
}

}  // namespace stencilc::frontend
