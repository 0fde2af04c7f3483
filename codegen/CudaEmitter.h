// The CUDA target, cpu-free schedule: one persistent cooperative kernel per GPU runs the whole
// program; point updates are grid-stride loops over the GPU's block, halos move with the
// runtime's device halo exchange (signaled puts, bounded waits), reductions combine over the
// GPU's grid and then across the GPUs on the device. p2p backend: one host process drives every
// GPU over NVLink; nvshmem backend: one process per GPU (runtime/include/stencilc/runtime/cuda/).
#pragma once

#include "codegen/HostEmitter.h"
#include "ir/IR.h"

#include <string>
#include <vector>

namespace stencilc::codegen {

/// How the GPUs of a CUDA run communicate: one process driving every GPU over NVLink peer
/// pointers (p2p), or one process per GPU started by mpirun, through NVSHMEM (nvshmem). The kernel
/// is the same text for both; the launcher and the included runtime differ.
enum class CudaBackend { P2P, Nvshmem };

/// The nvshmem backend's generated file is compiled twice: as the program (its kernels take
/// P2PDevicePe: the launch where NVSHMEM maps every peer, built without -rdc) and, with this
/// macro defined and -rdc, as the unit holding only the kernels that take NvshmemDevicePe and
/// each program's launch of them (peers behind NVSHMEM's proxy). docs/RUNTIME-CUDA.md.
inline constexpr const char* kNvshmemDeviceUnit = "STENCILC_NVSHMEM_DEVICE_UNIT";

/// The namespace inside stencilc_generated that holds a program's code of the cpu-free schedule
/// (its kernel in `sc_<program>`, its launcher `<program>_launch`), apart from the
/// host-controlled schedule's (HostControlledEmitter.h) and the user's names.
inline constexpr const char* kCpuFreeNamespace = "cpu_free";

/// Emits every program of `module` for the CUDA target (after the same pipeline as the host
/// target): global-view programs, and SC_SPMD_PROGRAM functions with a launcher that
/// stencilc::spmd finds (as the host target's).
std::vector<GeneratedProgram> emit_cuda(const ir::Module& module, std::vector<std::string>* errors,
                                        CudaBackend backend = CudaBackend::P2P);

}  // namespace stencilc::codegen
