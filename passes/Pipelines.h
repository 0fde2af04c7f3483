// The pass pipelines, as text for PassPipeline::add_pipeline: the CPU-free one the driver runs
// for both targets, its exchange-lowering prefix, and the host-controlled schedule's prefix.
#pragma once

namespace stencilc::passes {

/// The exchange-lowering prefix of cpu_free_pipeline: infer the halos, decompose the global-view
/// programs over the PEs, insert the halo exchanges the stencils need, lower each to the
/// runtime's send and receive, and move each send up and each receive down. The pass tests use it
/// to show the exchanges alone; both targets run cpu_free_pipeline, and the CUDA target's
/// host-controlled schedule runs this one (host_controlled_pipeline, docs/PASSES.md).
inline const char* host_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,place-signaled-puts";
}

/// The whole CPU-free pipeline, which the driver runs for --target=host and --target=cuda: the
/// passes above plus fuse-sweeps (after lower-exchanges, so that every later pass and both
/// emitters see the fused sweeps), split-boundary (before place-signaled-puts, which moves the transfers
/// between the parts), persistent-fusion, specialize-blocks and select-loop-forms (the forms each
/// time loop may take; the host target runs the barrier form).
inline const char* cpu_free_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,fuse-sweeps,split-boundary,"
         "place-signaled-puts,persistent-fusion,specialize-blocks,select-loop-forms";
}

/// The pipeline of the CUDA target's host-controlled schedule (--schedule=host-controlled, the
/// CPU-controlled baseline: docs/SCHEDULES.md), after fold-constants. The host runs the program's
/// control flow and launches a kernel per point update, so it needs the halos, the decomposition
/// and the exchanges, lowered to send and receive so that the pushes can start right after what
/// they send is written and be waited for right before the halo is read. Not split-boundary: each
/// GPU runs its work on one stream, where an inner part would only add launches; nor
/// persistent-fusion and specialize-blocks: there is no persistent kernel whose workers need
/// barriers or roles (kernel boundaries order the updates).
/// It fuses sweeps too (fuse-sweeps, before the transfers move): one kernel for each fused run.
/// Then store-faces marks the point updates that store their faces into the neighbours' halos
/// as they write them (an exchange of what they wrote then moves nothing: one launch an update),
/// and defer-host-reads moves the combination of each reduction the loop does not read after the
/// loop (the host waits for the GPUs once, not every time the loop runs the reduction).
inline const char* host_controlled_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,fuse-sweeps,place-signaled-puts,"
         "store-faces,defer-host-reads";
}

}  // namespace stencilc::passes
