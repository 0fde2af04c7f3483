// The dataflow schedule's synchronisation: a time loop with no barrier in it (docs/SCHEDULES.md,
// "The dataflow form"; used by the CUDA emitter's dataflow form of a time loop: 3.3-3.6 us a step
// for jacobi2d 256^2 on 2 GPUs, where a barrier of all blocks alone costs 4-5 us).
//
// The PE's block is cut along dimension 0 into row ranges, one per *active* block (the grid's
// first `active()` blocks; the others take no part in the loop). Each range holds at least
// `radius` rows, so a step of block g, which reads its own rows and `radius` rows on each side,
// reads only rows of blocks g - 1 and g + 1, or at the PE's faces rows of the neighbour PE's face
// block (found in its halo: that block stores its face cells there as it writes them,
// FaceWriter, halo.cuh).
// So before step s + 1 block g waits only for those two to have finished step s, and after its
// stores of step s it says so:
//   RAW: step s + 1 reads the neighbours' rows of step s (their flag >= s);
//   WAR: with two buffers swapped every step, step s + 1 overwrites the buffer the neighbours
//        read in step s, which they finished before publishing s.
// A block therefore runs at most one step ahead of its neighbours. The caller keeps a barrier
// across the PEs before the loop (initial halos) and after it (DFlow::finish).
// A time step of several walks (point updates and fused sweeps that read the grids they store
// only at the point) numbers its walks: each walk is a step here, waited for and published.
//
// Steps are numbered across launches like the halo exchange's epochs: a launch's step s is
// base + s, where base (in the PE's flags, after the blocks') counts the steps of the launches
// before; finish() advances it. Every wait is bounded (the PE's wait_with: a diagnostic, status 3).
//
//   flow.cuh only needs a PE type with remote(), wait_with() and barrier_all() (P2PDevicePe,
//   NvshmemDevicePe). Host side: FlowAlloc (a team's symmetric flags), .on(pe) per PE.
#pragma once

#include <cstdint>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"

namespace stencilc::rt::cuda {

inline constexpr int kMaxFlowBlocks = 1024;  // active blocks per PE, at most
// Flags a line apart (128 bytes: words kFlowStride apart), so that a flag's writer and its two
// readers are all that touch its line. Packed flags (16 to a line, each polled by two blocks)
// made the loop collapse now and then: one step in hundreds took milliseconds, as publishes
// queued behind 32 polls of their line.
inline constexpr int kFlowStride = 16;
inline constexpr std::size_t kFlowFlagWords = static_cast<std::size_t>(kMaxFlowBlocks + 1) * kFlowStride;

// One PE's flow memory (a kernel argument; trivially copyable).
struct FlowSignals {
  std::uint64_t* flags = nullptr;  // [g * kFlowStride]: the last step block g of this PE finished;
                                   // [kMaxFlowBlocks * kFlowStride]: base
  std::uint64_t* edge = nullptr;   // symmetric, [0]: the last step the PE above's last block finished,
                                   // [kFlowStride]: the PE below's first block
};

// The host side: collective over a team (anything whose alloc<T>(count) returns symmetric,
// zero-filled memory with .on(pe), e.g. P2PTeam).
class FlowAlloc {
 public:
  template <class Team>
  explicit FlowAlloc(Team& team) {
    const auto flags = team.template alloc<std::uint64_t>(kFlowFlagWords);
    const auto edge = team.template alloc<std::uint64_t>(2 * kFlowStride);
    for (int pe = 0; pe < team.n(); ++pe) {
      flags_.push_back(flags.on(pe));
      edge_.push_back(edge.on(pe));
    }
  }
  FlowSignals on(int pe) const { return FlowSignals{flags_[pe], edge_[pe]}; }

 private:
  std::vector<std::uint64_t*> flags_, edge_;
};

// The executions whose words a dataflow loop's blocking reduction keeps (DFlowReduce::reduce,
// reduce.cuh: a block writes execution e's words only after it has read all of e - 1's).
inline constexpr int kFlowReduceSlots = 2;

// The reductions of the dataflow loop's step (DFlowReduce, reduce.cuh): per reduction on a team
// of `pes` PEs, its LL words, kFlowReduceSlots slots (by execution) of pes x kMaxFlowBlocks
// entries of 2 words (a block's value as LL words), then a header (flow_reduce_header(pes)):
// each PE's block count, then the executions of the launches before; then, for the deferred
// post, pes x kFlowLazyEntries entries of 2 words, a warp's latest value each (one slot: each
// entry has one writer, and only the last execution's values are read, after the loop).
inline constexpr std::size_t kFlowLazyEntries = 16384;  // warps a PE (an H200: 132 x 64 resident)
__host__ __device__ inline std::size_t flow_reduce_header(int pes) {
  return static_cast<std::size_t>(kFlowReduceSlots) * static_cast<std::size_t>(pes) * kMaxFlowBlocks * 2;
}
__host__ __device__ inline std::size_t flow_reduce_words(int pes) {
  const auto n = static_cast<std::size_t>(pes);
  return flow_reduce_header(pes) + n + 1 + n * kFlowLazyEntries * 2;
}

// The host side of `count` such reductions (symmetric, zero-filled: tags count from 1).
class FlowReduceAlloc {
 public:
  template <class Team>
  FlowReduceAlloc(Team& team, int count) : per_(flow_reduce_words(team.n())) {
    if (count <= 0) return;
    const auto words = team.template alloc<std::uint64_t>(per_ * static_cast<std::size_t>(count));
    for (int pe = 0; pe < team.n(); ++pe) words_.push_back(words.on(pe));
  }
  // Reduction k's words on PE `pe`.
  std::uint64_t* on(int pe, int k) const { return words_[pe] + per_ * static_cast<std::size_t>(k); }
  // What `count` of them take of the symmetric heap on a team of `pes` PEs.
  static std::size_t bytes(int count, int pes) {
    return flow_reduce_words(pes) * sizeof(std::uint64_t) * static_cast<std::size_t>(count);
  }

 private:
  std::size_t per_;
  std::vector<std::uint64_t*> words_;
};

// The partition of a PE's `rows` (along dimension 0) over `grid_blocks` blocks for a stencil of
// `radius`: the active blocks, min(grid_blocks, rows / radius, kMaxFlowBlocks) but at least 1, and
// block g's rows [begin, end) (empty for an inactive block). Every active block holds at least
// `radius` rows when rows >= radius, and the ranges cover [0, rows) once, in order.
struct FlowPart {
  int active = 1, begin = 0, end = 0;
};

__host__ __device__ inline FlowPart flow_part(int rows, int radius, int grid_blocks, int g) {
  FlowPart f;
  const int by_rows = radius > 0 ? rows / radius : rows;
  int active = grid_blocks < kMaxFlowBlocks ? grid_blocks : kMaxFlowBlocks;
  if (by_rows < active) active = by_rows;
  f.active = active > 1 ? active : 1;
  if (g < f.active) {
    f.begin = static_cast<int>(static_cast<long long>(rows) * g / f.active);
    f.end = static_cast<int>(static_cast<long long>(rows) * (g + 1) / f.active);
  }
  return f;
}

#if defined(__CUDACC__)

// Device side: every thread of the grid constructs one (block-uniform values).
template <class Pe>
class DFlow {
 public:
  // `rows`: this PE's rows along dimension 0; `radius`: the stencil's reach along it (>= 1);
  // `up`, `down`: the PEs holding the rows before the first and after the last (-1: none, a
  // non-periodic edge; this PE itself on one periodic PE).
  __device__ DFlow(const Pe& pe, const FlowSignals& s, int rows, int radius, int up, int down)
      : pe_(&pe), s_(s), up_(up), down_(down) {
    g_ = static_cast<int>(blockIdx.x);
    const FlowPart part = flow_part(rows, radius, static_cast<int>(gridDim.x), g_);
    active_ = part.active;
    r0_ = part.begin;
    r1_ = part.end;
    base_ = *static_cast<volatile std::uint64_t*>(&s_.flags[kMaxFlowBlocks * kFlowStride]);
    // The face blocks' signals on the neighbour PEs, resolved once: a publish reads no peer table.
    if (g_ == 0 && up_ >= 0) up_edge_ = pe.remote(&s_.edge[kFlowStride], up_);
    if (g_ == active_ - 1 && down_ >= 0) down_edge_ = pe.remote(&s_.edge[0], down_);
  }

  __device__ bool active() const { return g_ < active_; }
  __device__ int blocks() const { return active_; }
  __device__ int row_begin() const { return r0_; }
  __device__ int row_end() const { return r1_; }

  // After block g's stores of step `step` (1, 2, ... in this launch). Every thread of the block
  // (nothing in an inactive one). The releases are cumulative over the block's stores
  // (__syncthreads, then thread 0): at a face st.release.sys of the neighbour PE's edge signal
  // orders the face rows put into its halo before the signal; then st.release.gpu of the block's
  // own flag, which only this GPU's blocks read.
  __device__ void publish(std::uint64_t step) const {
    if (!active()) return;
    __syncthreads();
    if (threadIdx.x != 0) return;
    const std::uint64_t v = base_ + step;
    if (up_edge_ != nullptr) detail::store_release_sys(up_edge_, v);
    if (down_edge_ != nullptr) detail::store_release_sys(down_edge_, v);
    detail::store_release_gpu(&s_.flags[g_ * kFlowStride], v);  // read by this GPU's blocks only
  }

  // Before step `step` + 1: the blocks whose rows it reads have finished `step`. Every thread of
  // the block (nothing in an inactive one); bounded.
  __device__ void wait(std::uint64_t step) const {
    if (!active()) return;
    if (threadIdx.x == 0) {
      const std::uint64_t v = base_ + step;
      if (g_ > 0) wait_local(&s_.flags[(g_ - 1) * kFlowStride], v, "block ", g_ - 1);
      if (g_ + 1 < active_) wait_local(&s_.flags[(g_ + 1) * kFlowStride], v, "block ", g_ + 1);
      if (g_ == 0 && up_ >= 0) wait_for(&s_.edge[0], v, "the last block of PE ", up_);
      if (g_ == active_ - 1 && down_ >= 0) wait_for(&s_.edge[kFlowStride], v, "the first block of PE ", down_);
    }
    __syncthreads();
  }

  // After the loop, every thread of the grid: a barrier across the PEs (every block of every PE
  // is done with this launch's steps), then the leader counts them into the base.
  __device__ void finish(std::uint64_t steps) const {
    pe_->barrier_all("the dataflow loop's end");
    if (block_rank() == 0 && thread_rank() == 0) {
      *static_cast<volatile std::uint64_t*>(&s_.flags[kMaxFlowBlocks * kFlowStride]) = base_ + steps;
    }
  }

 private:
  // A flag of this PE's blocks: acquire at GPU scope (its writer released at GPU scope; no
  // other GPU's data is read through it), polled with a short backoff for about a millisecond at
  // most, then the PE's bounded wait (which also stops when another PE failed, and reports).
  __device__ void wait_local(const std::uint64_t* sig, std::uint64_t v, const char* who, int which) const {
    if (detail::poll_at_least<MemScope::gpu>(sig, v, 1 << 11, 128)) return;
    wait_for(sig, v, who, which);
  }

  __device__ void wait_for(const std::uint64_t* sig, std::uint64_t v, const char* who, int which) const {
    pe_->wait_with(sig, Cmp::GE, v, [&](detail::Message& m) {
      m.str("dataflow step ").num(static_cast<long long>(v - base_)).str(": block ").num(g_);
      m.str(" waits for ").str(who).num(which).str(" to finish it");
    });
  }

  const Pe* pe_;
  FlowSignals s_;
  int up_, down_;
  std::uint64_t* up_edge_ = nullptr;    // block 0's signal on PE up_ (a face block only)
  std::uint64_t* down_edge_ = nullptr;  // the last active block's on PE down_
  int active_ = 1, g_ = 0, r0_ = 0, r1_ = 0;
  std::uint64_t base_ = 0;
};

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
