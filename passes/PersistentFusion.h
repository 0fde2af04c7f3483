// persistent-fusion: the whole program becomes one persistent kernel per PE, its phases
// separated by the barriers the dependences between them need.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// Marks each decomposed program `persistent` (each PE runs all of it, time loops included, as
/// one kernel whose workers never return to the host) and places the phase_barriers its workers
/// need (PhaseBarriers.h): before a statement that reads, at any offset, a region of a grid that
/// a statement since the last barrier wrote (a point update, or a halo_recv writing the halo; a
/// halo_send reads the send layers it packs), and before one that writes a region read or
/// written since then. An allreduce synchronises the workers itself (each hands in its partial
/// value and waits for the result), so no barrier goes before it, and none is needed after it.
/// Swaps rename the buffers the pending accesses refer to; a loop's body is walked from the
/// fixpoint of its head state, so its back edge counts. Existing phase_barriers are replaced.
/// SPMD programs become persistent too, by the same rules on their blocks' regions: a put_signal
/// reads its source and must follow every access to a cell its peers may write once it signals,
/// a wait_until makes what the peers' puts wrote visible, and barrier_all, quiet, signal
/// declarations and the end of a reduce synchronise the workers. Undecomposed programs are left
/// alone.
ir::Module persistent_fusion(const ir::Module& m);

}  // namespace stencilc::passes
