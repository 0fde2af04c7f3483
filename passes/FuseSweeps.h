// fuse-sweeps: merge consecutive point updates and a reduction over one range into one sweep,
// so that each point's cells are loaded and stored once for all of them.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// In global-view programs, replaces each run of consecutive statements of one block, point
/// updates (whole foreaches) optionally ended by one reduce, by one point update over their range
/// (a reduce whose body also stores when the run ends in one: docs/IR.md, "Fused sweeps"). A
/// statement joins the run before it when
///   - its range is the run's: the same text, or the interiors of two grids, which are equal
///     only when the grids' boundaries are (checked at run time, see below);
///   - it reads no grid the run writes at a non-zero offset (another point's new value), and
///     writes no grid the run reads at a non-zero offset (another point's old value);
///   - it reads a grid the run writes only where the run's last store of it is a statement of
///     its own body's top level: the value is forwarded through a local, as the unfused program
///     reads what was just stored.
/// Nothing else stands between the statements (an exchange, a scalar statement, a swap all end
/// a run), so every scalar a statement reads is available before the run. A reduction ends a
/// run: its result is read only after its allreduce. A loop whose step has only one point update
/// is left alone: its reductions are folded into the update's walk by select-loop-forms' dataflow
/// form, which a fused reduce would lose.
///
/// Where a run needs two different grids' interiors to be equal, the statements from the first
/// such run to the end of its block are versioned: `if %fused_k versioned { fused } else {
/// unfused }` (If::versioned), with
/// `var %fused_k: bool` at the top of the program comparing the interiors' bounds
/// (`interior_lo`, `interior_hi`); swaps keep shapes, so once is enough. SPMD programs are left
/// alone.
ir::Module fuse_sweeps(const ir::Module& m);

/// Whether `op` is one of fuse_sweeps' versions (marked versioned, with both branches): its then
/// branch is what runs wherever the grids' interiors are equal.
bool is_sweep_version(const ir::If& op);

}  // namespace stencilc::passes
