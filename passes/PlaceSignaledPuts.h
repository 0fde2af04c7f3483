// place-signaled-puts: start each halo transfer as early and finish it as late as the data allow.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// Within each block of a decomposed program, moves every `halo_send %g` up to just after the
/// nearest earlier statement that writes g's send layers (a whole foreach or the boundary part of
/// a split one writing g; the inner part of a split foreach does not: its widths keep it off the
/// layers the neighbours need), and every `halo_recv %g` down to just before the nearest later
/// statement that reads g's halo (an off-centre read, unless by an inner part whose widths keep
/// it inside the block) or writes g. Neither crosses a swap involving g (halo_send packs the
/// block the name refers to *now*, so a swap would send the other buffer), a transfer of g (a
/// send stays before its receive, and the exchanges of one grid stay in order: the runtime
/// numbers them), a phase_barrier (it may be what orders the data), nor the start or end of its
/// block: a statement never enters or leaves a loop or a branch. Compound statements in the same
/// block are crossed whole when nothing inside them stops the move. Every PE moves the same
/// statements the same way, so all PEs still run the transfers in one order (no deadlock).
/// Undecomposed programs are left alone.
///
/// In SPMD programs the transfers are the user's: each put_signal rises past every statement it
/// commutes with (SpmdEffects.h), to just after the last one that writes its source or uses a
/// cell that a peer may write once its signal is set, taking along the scalar declarations it
/// reads (its epoch); each wait_until sinks to just before the first statement that reads or
/// writes a cell the peers' puts write. Neither crosses other communication (put_signal,
/// wait_until, quiet, barrier_all, signal declarations), so the user's protocol keeps its order
/// and no wait moves before a put a peer waits for; nor a swap of a block it names, a
/// phase_barrier, an assignment of what it reads, or the edge of its block.
ir::Module place_signaled_puts(const ir::Module& m);

}  // namespace stencilc::passes
