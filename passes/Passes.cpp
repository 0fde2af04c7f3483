// The list of built-in passes, one line each (name, summary, entry point), like MLIR's
// Passes.td: adding a pass to stencilc-opt and to pipelines is adding its line here.
#include "passes/Decompose.h"
#include "passes/FoldConstants.h"
#include "passes/InferHalos.h"
#include "passes/InsertExchanges.h"
#include "passes/LowerExchanges.h"
#include "passes/PassManager.h"

namespace stencilc::passes {

void register_builtin_passes(PassRegistry& r) {
  r.add(make_pass("fold-constants", "Fold constant arithmetic, comparisons, casts and selects",
                  fold_constants));
  r.add(make_pass("infer-halos", "Set each grid's halo widths from the offsets it is read at",
                  infer_halos));
  r.add({"decompose", "Run global-view programs on every PE; allreduce after each reduction",
         decompose});
  r.add({"insert-exchanges",
         "Insert an exchange before each read of a grid whose halos may be stale",
         insert_exchanges});
  r.add({"lower-exchanges", "Split each exchange of a decomposed program into halo_send, halo_recv",
         lower_exchanges});
}

}  // namespace stencilc::passes
