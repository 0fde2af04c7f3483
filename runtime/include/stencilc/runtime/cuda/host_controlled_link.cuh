// How the host-controlled schedule's Control (host_controlled.cuh) reaches the GPUs of a run: the
// PEs this process drives, their devices, and how a mark one GPU records reaches the streams of
// the others. p2p (P2PLink, here): one process drives every GPU, and a mark is a CUDA event that
// the other GPUs' streams wait for. nvshmem (NvshmemLink, host_controlled_nvshmem.cuh): a process
// per GPU, and a mark is a signal word the recording GPU sets on each PE that waits for its
// marks, which a bounded wait kernel on the waiting PE's stream polls.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda::hc {

// The most thread blocks a reduction kernel runs per GPU: the size of its partials.
inline constexpr int kReduceBlocks = 1024;

// One wait of a stream for a mark: mark `mark` of PE `pe`.
struct MarkWait {
  int pe;
  long long mark;
};

class Link {
 public:
  virtual ~Link() = default;

  virtual int n() const = 0;
  virtual bool holds(int pe) const = 0;  // whether this process drives PE pe
  virtual int device(int pe) const = 0;  // the GPU of PE pe (held PEs only)
  // kReduceBlocks + 1 words of PE pe's device memory (a held PE's), the last one zero: the
  // reduction kernels' partials and arrival count (ReduceSlot).
  virtual std::uint64_t* scratch(int pe) = 0;

  // Whether marks cross GPUs as signals (signal and wait below) rather than as the events of one
  // process (Control's ring).
  virtual bool signals() const { return false; }
  // PE pe's stream records mark `mark`: the PEs `to` see it once the stream's earlier work is done.
  virtual void signal(int pe, long long mark, const std::vector<int>& to, cudaStream_t stream) {
    (void)pe, (void)mark, (void)to, (void)stream;
  }
  // PE pe's stream waits for every mark of `on`.
  virtual void wait(int pe, const std::vector<MarkWait>& on, cudaStream_t stream) {
    (void)pe, (void)on, (void)stream;
  }

  // `row` holds one value per PE, each filled by the process that holds the PE: afterwards every
  // process has every PE's (p2p: one process holds them all already).
  virtual void gather(std::uint64_t* row) { (void)row; }

  // Waits for everything issued on held PE pe's stream.
  virtual void synchronize(int pe, cudaStream_t stream) {
    (void)pe;
    STENCILC_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

// One process, every GPU (P2PTeam): marks are events.
class P2PLink final : public Link {
 public:
  explicit P2PLink(P2PTeam& team)
      : team_(team), scratch_(team.alloc<std::uint64_t>(kReduceBlocks + 1)) {
    for (int pe = 0; pe < team.n(); ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(team.device(pe)));
      STENCILC_CUDA_CHECK(cudaMemset(scratch_.on(pe) + kReduceBlocks, 0, sizeof(std::uint64_t)));
    }
  }
  int n() const override { return team_.n(); }
  bool holds(int pe) const override { return team_.holds(pe); }
  int device(int pe) const override { return team_.device(pe); }
  std::uint64_t* scratch(int pe) override { return scratch_.on(pe); }

 private:
  P2PTeam& team_;
  Sym<std::uint64_t> scratch_;
};

}  // namespace stencilc::rt::cuda::hc

namespace stencilc::rt::cuda {

// The Control's link of a team (found by argument-dependent lookup: host_controlled_nvshmem.cuh
// has NvshmemTeam's).
inline std::unique_ptr<hc::Link> host_controlled_link(P2PTeam& team) {
  return std::make_unique<hc::P2PLink>(team);
}

}  // namespace stencilc::rt::cuda
