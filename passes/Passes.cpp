// The list of built-in passes, one line each (name, summary, entry point), like MLIR's
// Passes.td: adding a pass to stencilc-opt and to pipelines is adding its line here.
#include "passes/Decompose.h"
#include "passes/DeferHostReads.h"
#include "passes/FoldConstants.h"
#include "passes/FuseSweeps.h"
#include "passes/InferHalos.h"
#include "passes/InsertExchanges.h"
#include "passes/LoopForms.h"
#include "passes/LowerExchanges.h"
#include "passes/PassManager.h"
#include "passes/PersistentFusion.h"
#include "passes/PlaceSignaledPuts.h"
#include "passes/SpecializeBlocks.h"
#include "passes/SplitBoundary.h"
#include "passes/StoreFaces.h"

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
  r.add(make_pass("fuse-sweeps",
                  "Fuse consecutive point updates and a reduction over one range into one sweep",
                  fuse_sweeps));
  r.add(make_pass("split-boundary",
                  "Split each foreach a halo transfer can overlap into boundary and inner parts",
                  split_boundary));
  r.add(make_pass(
      "place-signaled-puts",
      "Move each halo_send up to the last write and each halo_recv down to the first read",
      place_signaled_puts));
  r.add(make_pass("persistent-fusion",
                  "Make each decomposed program one persistent kernel per PE; place phase_barriers",
                  persistent_fusion));
  r.add({"specialize-blocks",
         "Give split foreaches in loops and their transfers comm/compute roles; narrow barriers",
         specialize_blocks});
  r.add(make_pass("select-loop-forms",
                  "Record on each time loop the forms it may run in besides the barrier form (dataflow, regs)",
                  select_loop_forms));
  r.add(make_pass("store-faces",
                  "Mark each point update that stores an exchanged grid to write its faces into the neighbours' halos",
                  store_faces));
  r.add(make_pass("defer-host-reads",
                  "Combine a loop's reduction after the loop where the loop does not read it (host-controlled)",
                  defer_host_reads));
}

}  // namespace stencilc::passes
