// lower-exchanges: each exchange of a decomposed program becomes the runtime's two halves.
#pragma once

#include "passes/PassManager.h"

namespace stencilc::passes {

/// Replaces each `exchange %g` of a decomposed program by `halo_send %g` then `halo_recv %g`
/// (same loc). The runtime's HaloExchange does the rest: per-neighbour signaled puts with
/// epoch-valued signals into double-buffered slots. Splitting the exchange lets a later pass
/// (place-signaled-puts) move the send earlier and the receive later, to overlap them with work.
///
/// Errors: an exchange in a global-view program that is not decomposed (run decompose first),
/// or of a grid whose halos are not inferred (run infer-halos first).
PassResult lower_exchanges(const ir::Module& m);

}  // namespace stencilc::passes
