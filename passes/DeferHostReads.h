// defer-host-reads: the host-controlled schedule combines a loop's reduction once, after the
// loop, where nothing in the loop reads its result, instead of the host waiting for every GPU
// each time the loop runs it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::passes {

/// The assignments from statement `from` of `b` on that read only `result` and nothing else (what
/// the program makes of a reduction's value: `%norm = sqrt(%red)`), up to the first statement
/// that is not one.
std::vector<ir::Stmt> reduction_tail(const ir::Block& b, size_t from, const std::string& result);

/// Whether nothing in `loop` but the statements of `tail` reads or assigns any of `names` (a
/// reduction's result and what its tail makes of it).
bool unread_in_loop(const ir::Stmt& loop, const std::vector<ir::Stmt>& tail,
                    const std::set<std::string>& names);

/// In decomposed global-view programs, for each `reduce %r` followed by its `allreduce %r` inside
/// a loop (the loop around them; not under another loop inside it) where nothing in the loop but
/// the allreduce's tail (reduction_tail) reads %r or what the tail assigns, and the loop holds no
/// `return`: the allreduce and its tail leave the loop. In the loop a flag says the reduction
/// ran; after it, where the flag is set, the allreduce combines the GPUs' results of its last run
/// (`allreduce ... last`) and the tail assigns them:
///
///   var %sc_deferred0: bool = false
///   for ... { ...  reduce %r: f32 = ...  %sc_deferred0 = true ... }
///   if %sc_deferred0 { var %r: f32  allreduce %r sum last  %norm = sqrt(%r) }
///
/// Each GPU's run of the reduction leaves its result in the same place (the host-controlled
/// runtime's slot of that reduction), so the last run's is what the allreduce combines, and the
/// host waits for the GPUs once instead of once a step. The host-controlled pipeline runs it
/// (passes/Pipelines.h); the CPU-free one combines reductions on the devices and defers them in
/// the dataflow form itself (LoopForms.h, FlowReduction::deferred).
ir::Module defer_host_reads(const ir::Module& m);

}  // namespace stencilc::passes
