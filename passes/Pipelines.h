// The pass pipelines the driver runs for each target, as text for PassPipeline::add_pipeline.
#pragma once

namespace stencilc::passes {

/// --target=host: infer the halos, decompose the global-view programs over the PEs, insert the
/// halo exchanges the stencils need, lower each to the runtime's send and receive, and move each
/// send up to the last write of its grid and each receive down to the first read of its halo.
/// The rest of the CPU-free pipeline (cpu_free_pipeline) waits for the host emitter: it does not
/// run split foreach parts yet, and persistent-fusion's barriers change the IR that
/// tests/codegen/host-jacobi2d.test pins (docs/PASSES.md, "The host pipeline").
inline const char* host_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,place-signaled-puts";
}

/// The whole CPU-free pipeline, for emitters of persistent kernels that run split foreach parts,
/// worker roles and phase barriers: the host pipeline's passes plus split-boundary (before
/// place-signaled-puts, which moves the transfers between the parts), persistent-fusion and
/// specialize-blocks.
inline const char* cpu_free_pipeline() {
  return "infer-halos,decompose,insert-exchanges,lower-exchanges,split-boundary,"
         "place-signaled-puts,persistent-fusion,specialize-blocks";
}

}  // namespace stencilc::passes
