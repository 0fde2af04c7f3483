// The CUDA target's --schedule=auto (the default): every program's cpu-free code and, for those
// where the host-controlled schedule can win, its host-controlled code too, each in its own
// namespace, behind an entry `stencilc_generated::<program>_launch` that asks the runtime's
// compiled::choose_schedule which one runs (docs/SCHEDULES.md, "The schedule of a run").
#pragma once

#include <string>
#include <vector>

#include "codegen/CudaEmitter.h"
#include "codegen/HostEmitter.h"
#include "ir/IR.h"

namespace stencilc::codegen {

/// Emits every program of `cpu_free` (after passes::cpu_free_pipeline()) with both schedules
/// where `host_controlled` (the same front-end module after passes::host_controlled_pipeline(),
/// holding only the programs that get host-controlled code: passes::cpu_free_only is "" for them
/// and the backend is p2p) has the program, else with the cpu-free schedule alone.
std::vector<GeneratedProgram> emit_cuda_auto(const ir::Module& cpu_free,
                                             const ir::Module& host_controlled,
                                             std::vector<std::string>* errors,
                                             CudaBackend backend = CudaBackend::P2P);

}  // namespace stencilc::codegen
