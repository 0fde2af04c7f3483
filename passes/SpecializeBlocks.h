// specialize-blocks: let a few workers of each PE do the boundary and the communication while
// the others do the inner points.
#pragma once

#include "passes/PassManager.h"

namespace stencilc::passes {

/// In persistent programs, specialises each split foreach (split-boundary) inside a time loop that
/// has transfers next to it: its boundary part and the halo_send / halo_recv statements (in SPMD
/// programs, put_signal / wait_until) around its parts (the run of transfers right before the first
/// part, between the parts and right after the second) get `role(comm)`, its inner part
/// `role(compute)` with the cost model's bytes per point (`cost(N bytes/point)`: the element sizes
/// of the grids the body reads and of those it stores). The barriers are then placed again, and
/// each one that only orders one group's work with that group's later work is narrowed to that
/// group (`phase_barrier role(comm)`), so that the other group runs on through it.
///
/// Whether a PE actually splits its workers, and how many go to comm, is decided at run time
/// from its block's extents (docs/PASSES.md gives the model); a PE that does not runs every
/// statement on all its workers and every group barrier as a PE-wide one. Split foreaches outside
/// loops, or without transfers next to them, are left unspecialised: a one-off exchange does not
/// pay for a specialised phase, and with no transfer there is nothing to overlap.
///
/// Errors: split foreaches in a program that is not persistent (run persistent-fusion first).
PassResult specialize_blocks(const ir::Module& m);

}  // namespace stencilc::passes
