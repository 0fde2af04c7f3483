// insert-exchanges: refresh a grid's halos exactly where a point update reads them stale.
#pragma once

#include "passes/PassManager.h"

namespace stencilc::passes {

/// Inserts `exchange %g` before each point update (foreach or reduce) that reads grid %g at a
/// non-zero offset while %g's halos may be stale, and nowhere else. A forward dataflow over the
/// structured program tracks the set of grids whose halos may be stale: none at program entry
/// (the launcher fills the halos when it scatters the grids), a foreach that stores %g makes it
/// stale, an exchange (explicit, inserted or a lowered halo_recv) makes it fresh, `swap %a, %b`
/// swaps the two states, an `if` joins its branches by union, and a loop's head state is the
/// fixpoint of (entry state) union (state at the end of the body). Exchanges go where that head
/// state says, so one inside a loop body runs on every iteration.
///
/// Explicit exchanges are kept. Global-view programs are handled, decomposed or not; SPMD
/// programs are left alone (their communication is explicit). Never fails.
PassResult insert_exchanges(const ir::Module& m);

}  // namespace stencilc::passes
