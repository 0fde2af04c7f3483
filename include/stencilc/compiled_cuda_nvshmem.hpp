// What stencilc-generated CUDA for the NVSHMEM backend needs on the host besides the runtime and
// compiled_cuda.hpp: the PE count from the MPI world, the size of the symmetric heap a program
// needs, and bringing every PE's part of the result back into every process's grids. Included by
// generated .cu files only (stencilc --target=cuda --backend=nvshmem).
//
// Such a file is compiled twice (docs/RUNTIME-CUDA.md, "Two units"): as the program, without
// -rdc, its kernels taking P2PDevicePe (the launch where NVSHMEM maps every peer: one node) and
// NVSHMEM seen through its host API only; and with -rdc and STENCILC_NVSHMEM_DEVICE_UNIT, where
// it holds only the kernels taking NvshmemDevicePe (NVSHMEM's device calls: peers behind its
// proxy, other nodes) and each program's launch of them.
#pragma once

// First: they select the device PE (DevicePe) for the runtime headers compiled_cuda.hpp includes.
#if defined(STENCILC_NVSHMEM_DEVICE_UNIT)
#include <stencilc/runtime/cuda/nvshmem.cuh>
#else
#include <stencilc/runtime/cuda/p2p.cuh>
#include <stencilc/runtime/cuda/nvshmem_team.cuh>
#endif

#include "stencilc/compiled_cuda.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace stencilc::compiled {

/// Whether every process of the MPI world is on this node: the host-controlled schedule on the
/// nvshmem backend needs every PE mapped (host_controlled_nvshmem.cuh), which NVSHMEM does within
/// a node.
inline bool nvshmem_one_node() {
  const rt::cuda::MpiWorld& world = rt::cuda::MpiWorld::get();
  return world.local_size() == world.size();
}

/// The PE count of an NVSHMEM run: the MPI world's size (MPI_Init here if the program did not).
/// --stencilc-pes / STENCILC_PES, when given, must agree: a clear error on every process
/// otherwise.
inline int nvshmem_pes(const char* program) {
  rt::cuda::MpiWorld& world = rt::cuda::MpiWorld::get();
  const bool agree = !configured_pes_given() || configured_pes() == world.size();
  world.check_all(agree, rt::format("program '%s': %d PEs were asked for (--stencilc-pes or STENCILC_PES), but "
                                    "mpirun started %d processes; the nvshmem backend runs one PE per process "
                                    "(use mpirun -np %d, or drop the option)",
                                    program, configured_pes(), world.size(), configured_pes()));
  return world.size();
}

/// The MPI datatype of a grid's elements.
template <typename T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else return MPI_INT32_T;
}

namespace detail_nvshmem {

/// Copies the box [origin, origin + extent) of `g` to or from `buffer`, row-major.
template <typename T, int N>
void copy_box(Grid<T, N>& g, const int* origin, const int* extent, T* buffer, bool to_buffer) {
  std::array<int, N> l{};
  for (int k = 0; k < N; ++k)
    if (extent[k] == 0) return;
  for (std::size_t i = 0;; ++i) {
    std::array<int, N> gi;
    for (int k = 0; k < N; ++k) gi[k] = origin[k] + l[k];
    T* cell = nullptr;
    if constexpr (N == 1) cell = &g(gi[0]);
    if constexpr (N == 2) cell = &g(gi[0], gi[1]);
    if constexpr (N == 3) cell = &g(gi[0], gi[1], gi[2]);
    if (to_buffer) {
      buffer[i] = *cell;
    } else {
      *cell = buffer[i];
    }
    int k = N - 1;
    while (k >= 0 && ++l[k] == extent[k]) l[k] = 0, --k;
    if (k < 0) break;
  }
}

}  // namespace detail_nvshmem

template <typename T, int N>
void allgather_block(rt::cuda::NvshmemTeam& team, const rt::ProcessGrid& grid, const rt::cuda::DBlock<T, N>& mine,
                     Grid<T, N>& g, const char* name);

/// Collective: every process's grid `g` gets the owned cells of every PE's block that the kernels
/// ended with (`final` holds where each PE's block of `g` ended up, swaps included): this PE's from
/// its GPU, the others' through MPI_Allgatherv.
template <typename T, int N>
void allgather_grid(rt::cuda::NvshmemTeam& team, const rt::ProcessGrid& grid,
                    const rt::cuda::Sym<rt::cuda::DBlock<T, N>>& final, Grid<T, N>& g, const char* name) {
  rt::cuda::DBlock<T, N> mine;
  team.download(team.my_pe(), &mine, final.on(team.my_pe()), 1);
  allgather_block(team, grid, mine, g, name);
}

/// The same where the host knows the block this PE ended with (`blocks[my_pe()]`: the
/// host-controlled schedule's, swaps included).
template <typename T, int N>
void allgather_grid(rt::cuda::NvshmemTeam& team, const rt::ProcessGrid& grid,
                    const std::vector<rt::cuda::DBlock<T, N>>& blocks, Grid<T, N>& g, const char* name) {
  allgather_block(team, grid, blocks[static_cast<std::size_t>(team.my_pe())], g, name);
}

/// Collective: `g` gets this PE's block `mine` from its GPU and every other PE's owned cells.
template <typename T, int N>
void allgather_block(rt::cuda::NvshmemTeam& team, const rt::ProcessGrid& grid, const rt::cuda::DBlock<T, N>& mine,
                     Grid<T, N>& g, const char* name) {
  const int me = team.my_pe();
  {
    std::vector<T> cells(static_cast<std::size_t>(mine.allocated()));
    team.download(me, cells.data(), mine.data - mine.data_offset(), cells.size());
    gather_cells<T, N>(cells.data() + mine.data_offset(), layout_of<rt::cuda::DBlock<T, N>, N>(mine), g);
  }
  std::array<int, N> extent;
  for (int k = 0; k < N; ++k) extent[k] = g.extent(k);
  std::vector<int> counts(static_cast<std::size_t>(team.n())), displs(counts.size());
  std::vector<rt::BlockLayout<N>> layouts;
  long long total = 0;
  for (int pe = 0; pe < team.n(); ++pe) {
    layouts.push_back(rt::block_layout<N>(grid, pe, extent));
    long long cells = 1;
    for (int k = 0; k < N; ++k) cells *= layouts.back().extent[k];
    if (total + cells > 0x7fffffffLL) {
      rt::fatal("grid '%s' is too large to gather through MPI_Allgatherv (more than 2^31 elements)", name);
    }
    counts[pe] = static_cast<int>(cells);
    displs[pe] = static_cast<int>(total);
    total += cells;
  }
  std::vector<T> own(static_cast<std::size_t>(counts[me]));
  detail_nvshmem::copy_box<T, N>(g, layouts[me].origin.data(), layouts[me].extent.data(), own.data(), true);
  std::vector<T> all(static_cast<std::size_t>(total));
  rt::cuda::detail::check_mpi(MPI_Allgatherv(own.data(), counts[me], mpi_type<T>(), all.data(), counts.data(),
                                             displs.data(), mpi_type<T>(), team.comm()),
                              "MPI_Allgatherv");
  for (int pe = 0; pe < team.n(); ++pe) {
    if (pe == me) continue;
    detail_nvshmem::copy_box<T, N>(g, layouts[pe].origin.data(), layouts[pe].extent.data(), all.data() + displs[pe],
                                   false);
  }
}

/// Collective: a scalar result, PE 0's on every process (the kernels' values agree: reductions
/// are combined in PE order, bit-identically on every PE).
template <typename T>
void broadcast_result(rt::cuda::NvshmemTeam& team, const rt::cuda::Sym<T>& out, T& value) {
  team.download(team.my_pe(), &value, out.on(team.my_pe()), 1);
  rt::cuda::detail::check_mpi(MPI_Bcast(&value, sizeof(T), MPI_BYTE, 0, team.comm()), "MPI_Bcast");
}

/// The nvshmem backend's launch: a PE's kernel gets the blocks resident on its GPU, and its
/// STENCILC_TIMING line is this PE's kernel, launch to done (host wall time).
template <>
struct TeamLaunch<rt::cuda::NvshmemTeam> {
  template <class... KArgs>
  static int workers(rt::cuda::NvshmemTeam& team, int, void (*kernel)(KArgs...),
                     const rt::cuda::LaunchConfig& config) {
    return team.resident_blocks(kernel, config);  // this PE's share where PEs share a GPU
  }
  template <class F>
  static int least(rt::cuda::NvshmemTeam& team, F&& f) {
    return team.min_all(f(team.my_pe()));
  }
  static void print_timing(rt::cuda::NvshmemTeam& team, const char* program,
                           const rt::cuda::LaunchResult& launched, const std::vector<int>& comm) {
    std::fprintf(stderr,
                 "stencilc: %s on PE %d of %d (%d blocks of %d threads, %d comm): %.3f ms\n",
                 program, team.my_pe(), team.n(), launched.blocks[team.my_pe()],
                 launched.block_threads, comm[team.my_pe()], launched.wall_ms);
  }
};

}  // namespace stencilc::compiled
