// The NVSHMEM backend of the stencilc device communication runtime: one process per GPU (started
// by `mpirun -np N`), NVSHMEM bootstrapped through MPI, one persistent kernel per GPU launched
// collectively. The device PE has the p2p backend's members (generated kernels and the halo
// exchange do not change), implemented with NVSHMEM's signaled puts.
//
//   host:   auto& team = NvshmemTeam::get(heap_bytes);   // MPI + NVSHMEM on first use; one PE
//           Sym<float> buf = team.alloc<float>(count);    // collective: nvshmem_malloc
//           team.launch_cooperative(kernel, [&](int pe) { return std::make_tuple(team.device_pe(pe), ...); });
//   device: the same as p2p.cuh: put_signal_block, wait_until, grid_barrier, barrier_all, allreduce.
//
// Include this header before any other runtime header: it makes `DevicePe` name NvshmemDevicePe
// (STENCILC_BACKEND_NVSHMEM). Build with nvcc -rdc=true and link libnvshmem_host.so.3,
// libnvshmem_device.a and MPI. docs/RUNTIME-CUDA.md, "The NVSHMEM backend", has the whole story.
// nvshmem_pe.cuh holds the device PE, nvshmem_team.cuh the host side.
#pragma once

#if defined(STENCILC_BACKEND_P2P_SELECTED)
#error "include <stencilc/runtime/cuda/nvshmem.cuh> before the other stencilc CUDA runtime headers"
#endif
#define STENCILC_BACKEND_NVSHMEM 1

#include "stencilc/runtime/cuda/nvshmem_pe.cuh"
#include "stencilc/runtime/cuda/nvshmem_team.cuh"
