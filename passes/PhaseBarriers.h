// Where the workers of a persistent PE must synchronise: the dependence analysis behind
// persistent-fusion (which places phase_barriers) and specialize-blocks (which narrows them to a
// group of workers), and a checker that tests use to show that every barrier is needed.
//
// The model: a persistent PE runs the program on several workers (the thread blocks of its
// kernel), which share its copies of the grids. A point update spreads its points over the
// workers that run it, in any way the emitter likes (a point need not go to the same worker in
// two updates, so even a dependence at offset 0 crosses workers); halo_send and halo_recv are
// done by some of those workers; scalars are computed redundantly by every worker. Two statements
// depend on each other when one writes a region of a grid's copy (GridEffects.h: halo, send
// layers, inner cells) that the other reads or writes; the later one may then only start after a
// phase_barrier (or an allreduce, which combines every worker's partial result and so
// synchronises them too) that all the workers of both statements pass. The two parts of one
// split foreach never depend on each other: their points are disjoint. In SPMD programs the
// regions are those of SpmdEffects.h: a put_signal reads its source and, since peers may write
// into this PE once it signals, depends on every access to those cells; a wait_until records the
// cells the peers' puts write as written; barrier_all, quiet, signal declarations and the end of
// a reduce (its workers combine their partial values) synchronise the workers.
#pragma once

#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::passes {

/// The body of decomposed or SPMD program `p` with its phase_barriers removed and the fewest
/// PE-wide ones inserted that order every dependence: each goes right before the first statement
/// that needs it (inside a loop body or a branch if that is where the statement is), a loop's back
/// edge counts (the end of the body flows into its start), and a dependence from before a loop is
/// ordered by one barrier before the loop when that saves one inside it.
ir::Stmt place_phase_barriers(const ir::Program& p);

/// The dependences of `p` that no phase_barrier of the right group and no allreduce orders, one
/// message each; empty when `p` is correctly synchronised. A role(comm) barrier orders what the
/// comm workers did before it with what they do after it, and nothing for the compute workers
/// (and the other way round); statements without a role run on both groups.
std::vector<std::string> unordered_dependences(const ir::Program& p);

}  // namespace stencilc::passes
