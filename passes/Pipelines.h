// The pass pipelines the driver runs for each target, as text for PassPipeline::add_pipeline.
#pragma once

namespace stencilc::passes {

/// --target=host: infer the halos, decompose the global-view programs over the PEs, insert the
/// halo exchanges the stencils need, and lower each to the runtime's send and receive.
inline const char* host_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges";
}

}  // namespace stencilc::passes
