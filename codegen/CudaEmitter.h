// The CUDA target, cpu-free schedule, p2p backend: one persistent cooperative kernel per GPU runs
// the whole program; point updates are grid-stride loops over the GPU's block, halos move with
// the runtime's device halo exchange (signaled puts over NVLink, bounded waits), reductions
// combine over the GPU's grid and then across the GPUs on the device. One host process drives
// every GPU (runtime/include/stencilc/runtime/cuda/).
#pragma once

#include "codegen/HostEmitter.h"
#include "ir/IR.h"

#include <string>
#include <vector>

namespace stencilc::codegen {

/// Emits every program of `module` for the CUDA target (after the same pipeline as the host
/// target). SC_SPMD_PROGRAM functions are not supported yet: an error says so.
std::vector<GeneratedProgram> emit_cuda(const ir::Module& module, std::vector<std::string>* errors);

}  // namespace stencilc::codegen
