// The pass pipelines: the one the driver runs for every target, and its exchange-lowering prefix, as text for PassPipeline::add_pipeline.
#pragma once

namespace stencilc::passes {

/// The exchange-lowering prefix of cpu_free_pipeline: infer the halos, decompose the global-view
/// programs over the PEs, insert the halo exchanges the stencils need, lower each to the
/// runtime's send and receive, and move each send up and each receive down. The pass tests use it
/// to show the exchanges alone; both targets run cpu_free_pipeline (docs/PASSES.md).
inline const char* host_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,place-signaled-puts";
}

/// The whole CPU-free pipeline, which the driver runs for --target=host and --target=cuda: the
/// passes above plus split-boundary (before
/// place-signaled-puts, which moves the transfers between the parts), persistent-fusion and
/// specialize-blocks.
inline const char* cpu_free_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,split-boundary,"
         "place-signaled-puts,persistent-fusion,specialize-blocks";
}

}  // namespace stencilc::passes
