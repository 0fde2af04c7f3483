// The host-controlled schedule on the nvshmem backend (`--schedule=host-controlled
// --backend=nvshmem`): the classic CPU-controlled NVSHMEM code. One process per GPU under mpirun
// runs the program's control flow and launches its own GPU's kernels, the same kernels and
// commands as on p2p (host_controlled.cuh). The point updates store their faces into the
// neighbours' halos, and the push kernels push them, through the addresses NVSHMEM maps for the
// PEs of the node (nvshmem_ptr: peer_blocks); a mark is a signal word on each PE that waits for
// it (NvshmemLink: the recording stream sets it with a release store once its earlier work is
// done, the waiting stream polls it in a one-warp kernel whose wait is bounded like every device
// wait, STENCILC_WAIT_TIMEOUT_MS); a reduction's per-GPU results travel to every process by
// MPI_Allgather and are combined in PE order, so every process gets the same value.
//
// It needs every PE's memory mapped into every GPU (NVSHMEM over NVLink: one node); where a PE is
// reached only through NVSHMEM's proxy the run stops with a message (the cpu-free schedule runs
// there).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/host_controlled.cuh"
#include "stencilc/runtime/cuda/nvshmem_team.cuh"

namespace stencilc::rt::cuda::hc {

// The PEs a mark signal goes to, or the marks a stream waits for: one warp's lanes, one each.
inline constexpr int kMarkLanes = 32;

struct MarkTargets {
  int pe[kMarkLanes];
  int count;
};

struct MarkWaits {
  int pe[kMarkLanes];
  std::uint64_t value[kMarkLanes];
  int count;
};

#if defined(__CUDACC__)
// Sets this PE's word of every PE of `to` (words_sym[pe.id] there) to `value`, after everything
// the stream's earlier kernels stored (into those PEs' halos too: the fence, then release stores).
__global__ void signal_mark(const __grid_constant__ P2PDevicePe pe, std::uint64_t* words_sym,
                            std::uint64_t value, const __grid_constant__ MarkTargets to) {
  __threadfence_system();
  const int k = static_cast<int>(threadIdx.x);
  if (k < to.count) pe.signal_set(words_sym + pe.id, value, to.pe[k]);
}

// Waits until each word of `on` (this PE's word of PE on.pe[k]) is at least on.value[k]: lane k
// polls word k, bounded (P2PDevicePe::wait_with: a timeout fills the PE's error record and traps).
__global__ void wait_marks(const __grid_constant__ P2PDevicePe pe, const std::uint64_t* words_sym,
                           const __grid_constant__ MarkWaits on) {
  const int k = static_cast<int>(threadIdx.x);
  if (k >= on.count) return;
  const int from = on.pe[k];
  const std::uint64_t value = on.value[k];
  pe.wait_with(words_sym + from, Cmp::GE, value, [from, value](cuda::detail::Message& m) {
    m.str("mark ").num(static_cast<long long>(value) - 1).str(" of PE ").num(from);
    m.str(" (the host-controlled schedule's halo exchange)");
  });
}
#endif  // __CUDACC__

// This process's PE of an NvshmemTeam: marks are signal words, one per PE on every PE (PE p
// sets word p on the PEs that wait for its marks, to its latest mark + 1).
class NvshmemLink final : public Link {
 public:
  explicit NvshmemLink(NvshmemTeam& team)
      : team_(team),
        pe_(mapped_pe(team)),
        words_(team.alloc<std::uint64_t>(static_cast<std::size_t>(team.n()))),
        scratch_(team.alloc<std::uint64_t>(kReduceBlocks + 1)) {}

  int n() const override { return team_.n(); }
  bool holds(int pe) const override { return team_.holds(pe); }
  int device(int pe) const override {
    (void)pe;
    return team_.device();
  }
  std::uint64_t* scratch(int pe) override { return scratch_.on(pe); }
  bool signals() const override { return true; }

#if defined(__CUDACC__)
  void signal(int pe, long long mark, const std::vector<int>& to, cudaStream_t stream) override {
    if (to.empty()) return;
    if (to.size() > static_cast<std::size_t>(kMarkLanes))
      fatal("host-controlled schedule: PE %d exchanges halos with %zu PEs (at most %d)", pe,
            to.size(), kMarkLanes);
    MarkTargets targets{};
    for (int q : to) targets.pe[targets.count++] = q;
    signal_mark<<<1, kMarkLanes, 0, stream>>>(pe_, words_.on(pe),
                                              static_cast<std::uint64_t>(mark) + 1, targets);
    STENCILC_CUDA_CHECK(cudaGetLastError());
  }

  void wait(int pe, const std::vector<MarkWait>& on, cudaStream_t stream) override {
    MarkWaits waits{};
    for (const MarkWait& w : on) {
      if (waits.count == kMarkLanes)
        fatal("host-controlled schedule: PE %d waits for %zu marks at once", pe, on.size());
      waits.pe[waits.count] = w.pe;
      waits.value[waits.count++] = static_cast<std::uint64_t>(w.mark) + 1;
    }
    wait_marks<<<1, kMarkLanes, 0, stream>>>(pe_, words_.on(pe), waits);
    STENCILC_CUDA_CHECK(cudaGetLastError());
  }
#endif  // __CUDACC__

  void gather(std::uint64_t* row) override {
    cuda::detail::check_mpi(
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, row, 1, MPI_UINT64_T, team_.comm()),
        "MPI_Allgather");
  }

  void synchronize(int pe, cudaStream_t stream) override {
    (void)pe;
    team_.synchronize(stream);
  }

 private:
  // The PE's handle for the mark kernels; every peer must be mapped (one node).
  static P2PDevicePe mapped_pe(NvshmemTeam& team) {
    if (!team.all_direct()) {
      fatal(
          "PE %d of %d: the host-controlled schedule on the nvshmem backend needs every PE's "
          "memory mapped into every GPU (NVSHMEM over NVLink, one node), and some PE is "
          "reached only through NVSHMEM's proxy; run the cpu-free schedule "
          "(--schedule=cpu-free, or STENCILC_SCHEDULE=cpu-free)",
          team.my_pe(), team.n());
    }
    return team.device_pe<P2PDevicePe>(team.my_pe());
  }

  NvshmemTeam& team_;
  P2PDevicePe pe_;
  Sym<std::uint64_t> words_;
  Sym<std::uint64_t> scratch_;
};

// Every PE's block of a grid as this GPU reaches it: upload_grid's blocks hold symmetric addresses
// (this PE's), so another PE's data becomes its mapping here (the halo copies' pushes and stores
// write into it). The link checked that every PE is mapped.
template <class T, int N>
std::vector<DBlock<T, N>> peer_blocks(NvshmemTeam& team, std::vector<DBlock<T, N>> blocks) {
  const int me = team.my_pe();
  for (int pe = 0; pe < team.n(); ++pe) {
    if (pe == me) continue;
    char* there = reinterpret_cast<char*>(blocks[static_cast<std::size_t>(pe)].data) +
                  team.heap_distance(me, pe);
    blocks[static_cast<std::size_t>(pe)].data = reinterpret_cast<T*>(there);
  }
  return blocks;
}

}  // namespace stencilc::rt::cuda::hc

namespace stencilc::rt::cuda {

inline std::unique_ptr<hc::Link> host_controlled_link(NvshmemTeam& team) {
  return std::make_unique<hc::NvshmemLink>(team);
}

}  // namespace stencilc::rt::cuda
