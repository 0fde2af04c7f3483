// The list of built-in passes, one line each (name, summary, entry point), like MLIR's
// Passes.td: adding a pass to stencilc-opt and to pipelines is adding its line here.
#include "passes/FoldConstants.h"
#include "passes/PassManager.h"

namespace stencilc::passes {

void register_builtin_passes(PassRegistry& r) {
  r.add(make_pass("fold-constants", "Fold constant arithmetic, comparisons, casts and selects",
                  fold_constants));
}

}  // namespace stencilc::passes
