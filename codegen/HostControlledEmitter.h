// The CUDA target, host-controlled schedule (`--schedule=host-controlled`): the classic
// CPU-controlled multi-GPU code, generated from the same IR as the CPU-free schedule so that the
// two can be compared on one machine. One host thread runs the program's control flow (loops,
// branches, scalar statements, swaps) and hands each GPU's work to that GPU's worker thread: each
// point update is a kernel launch per GPU, halos are pushed into the neighbours by a small kernel
// per GPU, ordered by events, reductions leave each GPU's result in host memory, combined there
// in PE order. On the nvshmem backend a process per GPU does the same for its own GPU, its marks
// crossing to the other processes as signals. The runtime side is
// runtime/include/stencilc/runtime/cuda/host_controlled.cuh (and host_controlled_nvshmem.cuh);
// docs/SCHEDULES.md describes both.
#pragma once

#include <string>
#include <vector>

#include "codegen/CudaEmitter.h"
#include "codegen/HostEmitter.h"
#include "ir/IR.h"

namespace stencilc::codegen {

/// The namespace inside stencilc_generated that holds a program's code of the host-controlled
/// schedule (its kernels in `sc_<program>`, its launcher `<program>_launch`), apart from the
/// cpu-free schedule's (CudaEmitter.h) and the user's names.
inline constexpr const char* kHostControlledNamespace = "host_controlled";

/// Emits every program of `module` for the host-controlled schedule. Programs must have gone
/// through passes::host_controlled_pipeline() (decomposed, exchanges lowered).
/// SC_SPMD_PROGRAM functions are an error. nvshmem: the code of the program unit only (the
/// schedule has no kernel with NVSHMEM's device calls: docs/RUNTIME-CUDA.md, "Two units").
std::vector<GeneratedProgram> emit_cuda_host_controlled(const ir::Module& module,
                                                        std::vector<std::string>* errors,
                                                        CudaBackend backend = CudaBackend::P2P);

}  // namespace stencilc::codegen
