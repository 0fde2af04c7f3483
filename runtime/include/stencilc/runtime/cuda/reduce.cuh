// Reductions in the persistent kernels stencilc generates (codegen/Cuda*.cpp): a value combined
// over a warp, a block and one GPU's whole grid in a fixed order (so every run gives the same
// bits), across the PEs (team_allreduce), and the dataflow loop's barrier-free reduction and
// allreduce (DFlowReduce). Included by generated.cuh; every thread of the grid calls these
// unless said otherwise.
#pragma once

#include <cstdint>
#include <cstring>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/flow.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda {

/// `value` combined over the 32 lanes of the calling warp where `valid` is set, by shuffles in a
/// fixed order: lane 0's (and `valid`: whether any lane's was). Every lane of the warp calls it.
template <class T>
__device__ inline T warp_combine(T value, bool& valid, ReduceOp op) {
  const unsigned lane = threadIdx.x % 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    const T other = __shfl_down_sync(0xffffffffu, value, offset);
    const bool other_valid = __shfl_down_sync(0xffffffffu, valid, offset) && lane + offset < 32;
    if (other_valid) value = valid ? combine(value, other, op) : other;
    valid = valid || other_valid;
  }
  return value;
}

/// Combines `value` over the threads of this block whose `valid` is set, in a fixed order (warps
/// by shuffles, then the warps' results in warp order); the result (valid if any thread's was)
/// is thread 0's. Every thread of the block calls it.
template <class T>
__device__ inline T block_combine(T value, bool valid, ReduceOp op, bool* any_valid) {
  __shared__ std::uint64_t warp_value[32];
  __shared__ bool warp_valid[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_combine(value, valid, op);
  if (lane == 0) {
    memcpy(&warp_value[warp], &value, sizeof(T));
    warp_valid[warp] = valid;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    valid = false;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      if (!warp_valid[w]) continue;
      T next;
      memcpy(&next, &warp_value[w], sizeof(T));
      value = valid ? combine(value, next, op) : next;
      valid = true;
    }
  }
  __syncthreads();  // the shared words are read before a later call rewrites them
  *any_valid = valid;
  return value;
}

/// Combines every thread's `value` over this GPU's whole grid and returns the result to every
/// thread: each block combines its threads (block_combine) into its word of `scratch`; after a
/// grid barrier block 0's threads combine the blocks' words (thread t the words t, t + blockDim,
/// ..., then block_combine: deterministic for a given grid size) into scratch[0]; after a second
/// grid barrier every thread reads it. `scratch` holds one word per block plus one for the result.
/// `across_pes`: thread 0 of block 0 also combines the GPUs' values (DevicePe::allreduce_leader,
/// in PE order) before the second barrier: a reduction and its allreduce in two grid barriers
/// (grid_reduce then team_allreduce take four on more than one GPU).
template <class T, class Pe>
__device__ inline STENCILC_STEP_FN T grid_reduce(const Pe& pe, T value, ReduceOp op, std::uint64_t* scratch,
                                                 bool across_pes = false) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "scalars of at most 8 bytes");
  bool valid = true;
  value = block_combine(value, valid, op, &valid);
  if (threadIdx.x == 0) memcpy(&scratch[1 + blockIdx.x], &value, sizeof(T));
  pe.grid_barrier();
  if (block_rank() == 0) {
    T total{};
    bool have = false;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      T next;
      memcpy(&next, (const void*)&scratch[1 + b], sizeof(T));
      total = have ? combine(total, next, op) : next;
      have = true;
    }
    total = block_combine(total, have, op, &have);
    if (threadIdx.x == 0) {
      if (across_pes && pe.n > 1) total = pe.allreduce_leader(total, op);
      memcpy(&scratch[0], &total, sizeof(T));
    }
  }
  pe.grid_barrier();
  T result;
  memcpy(&result, (const void*)&scratch[0], sizeof(T));
  __syncthreads();  // every thread has read scratch[0] before a later reduction reuses it
  return result;
}

/// Combines a value every thread of every GPU holds identically (a GPU's reduced value) across
/// the PEs, in PE order, and returns it to every thread.
template <class T, class Pe>
__device__ inline STENCILC_STEP_FN T team_allreduce(const Pe& pe, T value, ReduceOp op, std::uint64_t* scratch) {
  if (pe.n == 1) return value;  // one PE: nothing to combine (every thread holds it already)
  if (block_rank() == 0 && thread_rank() == 0) {
    T total = pe.allreduce_leader(value, op);
    memcpy(&scratch[0], &total, sizeof(T));
  }
  pe.grid_barrier();
  T result;
  memcpy(&result, (const void*)&scratch[0], sizeof(T));
  pe.grid_barrier();  // scratch[0] is read by everyone before it is written again
  return result;
}

/// A reduction and its allreduce in the dataflow loop's step (docs/SCHEDULES.md), with no barrier:
/// grid_reduce takes three grid barriers and a round trip across the PEs (9.5 us a step of
/// jacobi2d 256^2 on 2 GPUs). Each block combines its own rows' values and writes the
/// result to every PE, this one too, as LL words (4 bytes of the value and the 4-byte tag of the
/// execution in each 8-byte word, as halo.cuh's LL faces) at [its PE][its block]; then every block
/// of every PE polls all of them and combines them in one fixed order (thread t the entries t,
/// t + blockDim, ... in PE order, each warp's by shuffles, then the warps' by the first warp's
/// shuffles), so every thread of every PE returns the same value. It ends the step for everyone,
/// as a barrier would, but in one exchange of words and no fence. Inside the block an execution
/// takes two __syncthreads (reduce(): three): the warps stage their values and their shares of
/// the entries in shared memory, the first warp combines them, sends the block's value and
/// publishes the result, which every thread reads (a form with two
/// block_combines and a broadcast, six __syncthreads and thread 0 walking the warps' words, cost
/// 0.9 us more a step of jacobi2d+norm 256^2 on 2 GPUs).
/// Tags count the executions (base, in the header, counts those of the launches before; finish()
/// advances it), not the steps: a reduction that runs every k steps still gets consecutive tags.
/// post() and complete() are its deferred form, for a result nothing in the loop reads (post()
/// says how). Two slots suffice for reduce(): a block writes execution e's words only after it
/// has read all of e - 1's, which every block wrote after it had read all of e - 2's. Every wait
/// is bounded.
/// Requires: every block of the grid calls reduce() the same number of times (blocks with no rows
/// pass the identity); setup() on every PE, then a barrier_all, before the first.
template <class Pe>
class DFlowReduce {
  // The entries whose loads a thread issues before it looks at any (poll). Measured on H200,
  // jacobi2d+norm on 1 and 2 GPUs: 1 is 0.3 us a step faster than 4 at 256^2 (one entry a
  // thread: the other three's index arithmetic is pure cost) and 0.4 us slower at 1024^2 on 2
  // GPUs (528 entries); a kernel with both, chosen by the entry count, was slower at 1024^2.
  static constexpr int kPollInFlight = 1;

 public:
  __device__ DFlowReduce(const Pe& pe, std::uint64_t* words) : pe_(&pe), w_(words) {
    base_ = *static_cast<volatile std::uint64_t*>(&header()[pe.n]);
  }

  /// Every thread: this PE's block count into every PE's header (thread 0 of block 0; the
  /// caller's barrier_all then makes it visible).
  __device__ void setup() const {
    if (gridDim.x > static_cast<unsigned>(kMaxFlowBlocks)) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's reductions take at most ").num(kMaxFlowBlocks).str(" blocks a GPU, launched with ");
        m.num(static_cast<long long>(gridDim.x));
      });
    }
    if (gridDim.x * warps() > static_cast<unsigned>(kFlowLazyEntries)) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's lazy reductions take at most ").num(static_cast<long long>(kFlowLazyEntries));
        m.str(" warps a GPU, launched with ").num(static_cast<long long>(gridDim.x * warps()));
      });
    }
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int p = 0; p < pe_->n; ++p) {
      *static_cast<volatile std::uint64_t*>(peer(&header()[pe_->id], p)) = gridDim.x;
    }
  }

  /// Every thread of every block: `value` combined over every thread of every PE.
  template <class T>
  __device__ T reduce(T value, ReduceOp op) {
    stage(value, true, op, kOwn);
    __syncthreads();  // the warps' values are staged
    ++done_;
    if (threadIdx.x < 32) send(collect<T>(kOwn, op));
    poll<T>(op);  // this execution's entries, this block's too
    __syncthreads();  // the warps' shares are staged
    if (threadIdx.x < 32) publish(collect<T>(kAll, op));
    return broadcast<T>();
  }

  /// The deferred form (a result nothing in the loop reads): every thread of every block posts
  /// this execution's `value` and returns T{} (the tail then assigns values nothing reads). It
  /// waits for nothing and meets nothing: each warp combines its threads' values by shuffles and
  /// its lane 0 sends the warp's to every PE, tagged with the execution (no shared memory, no
  /// __syncthreads). complete() gathers the last execution's warp entries, in one order. Each
  /// entry has one writer and every PE's warps post the same executions, so at the end each
  /// entry holds the last one, and nothing writes over it before complete() reads it: the
  /// barrier_all after the loop keeps the next loop's posts behind every complete(). Measured on
  /// 1, 2 and 4 H200s against a post that waited for execution e - 1 (jacobi2d+norm 256^2 in the
  /// register-resident form: 4.00 -> 2.76 us a step on one).
  template <class T>
  __device__ T post(T value, ReduceOp op) {
    bool valid = true;
    value = warp_combine(value, valid, op);  // lane 0's: the warp's
    ++done_;
    if (threadIdx.x % 32 == 0) {
      send_to(value, lazy_entry(pe_->id, static_cast<int>(blockIdx.x) * warps() + static_cast<int>(threadIdx.x / 32)));
    }
    pending_ = true;
    return T{};
  }

  /// Whether post() left an execution to complete().
  __device__ bool pending() const { return pending_; }

  /// After the loop, every thread of every block: the last posted execution's value.
  template <class T>
  __device__ T complete(ReduceOp op) {
    pending_ = false;
    lazy_poll<T>(op);
    __syncthreads();  // the warps' shares are staged
    if (threadIdx.x < 32) publish(collect<T>(kAll, op));
    return broadcast<T>();
  }

  /// After the loop's last barrier_all: the executions so far, for the next launch's tags.
  __device__ void finish() const {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      *static_cast<volatile std::uint64_t*>(&header()[pe_->n]) = base_ + done_;
    }
  }

 private:
  // The header (this PE's copy): each PE's block count, then the base. After the slots, whose
  // size the PE count sets.
  __device__ std::uint64_t* header() const { return w_ + flow_reduce_header(pe_->n); }
  // The entry of block b of PE p in tag `tag`'s slot (this PE's copy).
  __device__ std::uint64_t* entry(std::uint32_t tag, int p, int b) const {
    static_assert((kFlowReduceSlots & (kFlowReduceSlots - 1)) == 0, "slots by the tag's low bits");
    return w_ + ((static_cast<std::size_t>(tag & (kFlowReduceSlots - 1u)) * static_cast<std::size_t>(pe_->n) + static_cast<std::size_t>(p)) * kMaxFlowBlocks +
                 static_cast<std::size_t>(b)) * 2;
  }
  __device__ std::uint64_t* peer(std::uint64_t* mine, int p) const {
    std::uint64_t* const there = pe_->remote(mine, p);
    if (there == nullptr) {
      pe_->fatal_with([&](detail::Message& m) {
        m.str("the dataflow loop's reductions: PE ").num(p).str(" cannot be reached with loads and stores from PE ").num(pe_->id);
      });
    }
    return there;
  }
  // Block b of PE p's value once each of its words holds `tag`: polled, then the PE's bounded
  // wait; a later tag means the parities were overrun (a fatal error, never a wrong value).
  template <class T>
  __device__ T take(const std::uint64_t* words, std::uint32_t tag, int p, int b) const {
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    std::uint32_t half[kWords];
    for (int k = 0; k < kWords; ++k) {
      const volatile std::uint64_t* word = &words[k];
      std::uint64_t v = *word;
      for (int spin = 0; (v >> 32) < tag && spin < (1 << 12); ++spin) v = *word;
      if ((v >> 32) < tag) {
        pe_->wait_with(&words[k], Cmp::GE, static_cast<std::uint64_t>(tag) << 32, [&](detail::Message& m) {
          m.str("the dataflow loop's reduction #").num(static_cast<long long>(tag)).str(": the value of block ").num(b);
          m.str(" of PE ").num(p);
        });
        v = *word;
      }
      if ((v >> 32) != tag) {
        pe_->fatal_with([&](detail::Message& m) {
          m.str("the dataflow loop's reduction #").num(static_cast<long long>(tag)).str(": block ").num(b).str(" of PE ");
          m.num(p).str(" wrote #").num(static_cast<long long>(v >> 32)).str(" over it");
        });
      }
      half[k] = static_cast<std::uint32_t>(v);
    }
    T value;
    memcpy(&value, half, sizeof(T));
    return value;
  }

  // The lazy post's entry i (warp i % warps of block i / warps) of PE p (this PE's copy).
  __device__ std::uint64_t* lazy_entry(int p, int i) const {
    return header() + pe_->n + 1 + (static_cast<std::size_t>(p) * kFlowLazyEntries + static_cast<std::size_t>(i)) * 2;
  }
  __device__ static int warps() { return static_cast<int>((blockDim.x + 31) / 32); }

  // Every thread (complete() after lazy posts): its share of the latest execution's warp entries
  // of every PE (thread i the entries i, i + blockDim, ... in PE order), staged in kAll: one
  // fixed order, the same in every block of every PE. Every PE's blocks have as many warps as
  // this one's (one kernel, one block size).
  template <class T>
  __device__ void lazy_poll(ReduceOp op) {
    read_counts();
    const std::uint32_t t = tag();
    T acc{};
    bool have = false;
    for (int p = 0; p < pe_->n; ++p) {
      const int n = blocks_of(p) * warps();
      for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) {
        const T v = take<T>(lazy_entry(p, i), t, p, i / warps());
        acc = have ? combine(acc, v, op) : v;
        have = true;
      }
    }
    stage(acc, have, op, kAll);
  }

  // The tag of the latest execution.
  __device__ std::uint32_t tag() const { return static_cast<std::uint32_t>(base_ + done_); }

  // Thread 0 (the others return): this block's value to every PE, tagged with the latest execution.
  template <class T>
  __device__ void send(const T& value) const {
    if (threadIdx.x != 0) return;
    send_to(value, entry(tag(), pe_->id, static_cast<int>(blockIdx.x)));
  }

  // `value` as LL words tagged with the latest execution into the entry `mine` (this PE's copy)
  // on every PE.
  template <class T>
  __device__ void send_to(const T& value, std::uint64_t* mine) const {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "LL words carry 4-byte parts of a value");
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    const std::uint32_t t = tag();
    std::uint32_t half[kWords];
    memcpy(half, &value, sizeof(T));
    for (int p = 0; p < pe_->n; ++p) {
      std::uint64_t* const words = peer(mine, p);
      for (int k = 0; k < kWords; ++k) {
        *static_cast<volatile std::uint64_t*>(&words[k]) = (static_cast<std::uint64_t>(t) << 32) | half[k];
      }
    }
  }

  // The block's values staged for the first warp, in two sets (kOwn: the block's own value for
  // send; kAll: the entries of every block of every PE): one slot a warp (its value and whether
  // any of its threads had one), and the first warp's result for broadcast(). Every call writes
  // a slot before a __syncthreads, reads it (the first warp) before the next, and writes the
  // result between the last two it takes; a later call writes after the last: one copy suffices.
  static constexpr int kOwn = 0, kAll = 1;
  struct Shared {
    std::uint64_t slot[2][32];
    bool valid[2][32];
    std::uint64_t result;
  };
  template <class T>
  __device__ static Shared& shared() {
    __shared__ Shared words;  // one a scalar type
    return words;
  }

  // Every thread: its warp's values where `valid`, combined into the warp's slot of `set`.
  template <class T>
  __device__ static void stage(T value, bool valid, ReduceOp op, int set) {
    value = warp_combine(value, valid, op);
    if (threadIdx.x % 32 == 0) {
      memcpy(&shared<T>().slot[set][threadIdx.x / 32], &value, sizeof(T));
      shared<T>().valid[set][threadIdx.x / 32] = valid;
    }
  }

  // The first warp, after the __syncthreads that follows stage: the warps' slots of `set`
  // combined in warp order (lane l takes warp l's; lane 0's).
  template <class T>
  __device__ static T collect(int set, ReduceOp op) {
    const unsigned lane = threadIdx.x;
    T value{};
    bool valid = lane < (blockDim.x + 31) / 32 && shared<T>().valid[set][lane];
    if (valid) memcpy(&value, &shared<T>().slot[set][lane], sizeof(T));
    return warp_combine(value, valid, op);
  }

  // Lane 0 of the first warp: the result every thread reads in broadcast (after a __syncthreads).
  template <class T>
  __device__ static void publish(const T& value) {
    if (threadIdx.x == 0) memcpy(&shared<T>().result, &value, sizeof(T));
  }
  template <class T>
  __device__ static T broadcast() {
    __syncthreads();  // the first warp published it
    T out;
    memcpy(&out, (const void*)&shared<T>().result, sizeof(T));
    return out;
  }

  // Every thread: its share of the values of execution tag() (the latest) of every block of
  // every PE (the entries in PE order, thread i the entries i, i + blockDim, ..., kPollInFlight
  // of them a round), staged in kAll. Each PE's block count is read once a launch (lane p of
  // every warp holds PE p's). The first warp's collect then combines the warps' in warp order:
  // one fixed order, the same in every block of every PE.
  template <class T>
  __device__ void poll(ReduceOp op) {
    read_counts();
    const int total = pe_->n * per_pe_;
    T acc{};
    bool have = false;
    for (int base = 0; base < total; base += kPollInFlight * static_cast<int>(blockDim.x)) {
      poll_round<T, kPollInFlight>(base, total, op, acc, have);
    }
    stage(acc, have, op, kAll);
  }

  // Every thread of the warp, once a launch: each PE's block count (lane p holds PE p's, for the
  // first 32 PEs) and the most of any PE.
  __device__ void read_counts() {
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (per_pe_ < 0) {
      lane_blocks_ = lane < pe_->n ? static_cast<int>(*static_cast<volatile std::uint64_t*>(&header()[lane])) : 0;
      per_pe_ = lane_blocks_;
      for (int p = 32 + lane; p < pe_->n; p += 32) {
        per_pe_ = max(per_pe_, static_cast<int>(*static_cast<volatile std::uint64_t*>(&header()[p])));
      }
      for (int offset = 16; offset > 0; offset /= 2) per_pe_ = max(per_pe_, __shfl_xor_sync(0xffffffffu, per_pe_, offset));
    }
  }

  // PE p's block count. Every lane of the warp calls it (a shuffle: never under a condition that
  // differs between lanes); past 32 PEs the header's word, read again.
  __device__ int blocks_of(int p) const {
    const int held = __shfl_sync(0xffffffffu, lane_blocks_, p % 32);
    return p < 32 ? held : static_cast<int>(*static_cast<volatile const std::uint64_t*>(&header()[p]));
  }

  // Entry i of the entries in PE order (per_pe_ a PE): block *b of PE *p.
  __device__ void split_entry(int i, int* p, int* b) const {
    *p = i / per_pe_;
    *b = i - *p * per_pe_;
  }
  // The same, and whether it is one (i < total, and PE p has a block b). Every lane of the warp
  // calls it (the block counts' shuffle: never under a condition that differs between lanes).
  __device__ bool entry_at(int i, int total, int* p, int* b) const {
    split_entry(i, p, b);
    const int blocks = blocks_of(*p);
    return i < total && *b < blocks;
  }

  // Execution tag()'s entries base + k * blockDim + threadIdx.x for k < kInFlight (of `total`)
  // into `acc`.
  // Every thread of the warp calls it (the block counts' shuffles).
  template <class T, int kInFlight>
  __device__ void poll_round(int base, int total, ReduceOp op, T& acc, bool& have) const {
    constexpr int kWords = static_cast<int>(sizeof(T) / 4);
    const std::uint32_t t = tag();
    const int threads = static_cast<int>(blockDim.x);
    std::uint64_t v[kInFlight][kWords];
    bool in[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      int p, b;
      in[k] = entry_at(base + k * threads + static_cast<int>(threadIdx.x), total, &p, &b);
      if (in[k]) {
        const volatile std::uint64_t* words = entry(t, p, b);
#pragma unroll
        for (int w = 0; w < kWords; ++w) v[k][w] = words[w];
      }
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      if (!in[k]) continue;
      bool ready = true;
#pragma unroll
      for (int w = 0; w < kWords; ++w) ready = ready && (v[k][w] >> 32) == t;
      T next;
      if (ready) {
        std::uint32_t half[kWords];
#pragma unroll
        for (int w = 0; w < kWords; ++w) half[w] = static_cast<std::uint32_t>(v[k][w]);
        memcpy(&next, half, sizeof(T));
      } else {
        int p, b;
        split_entry(base + k * threads + static_cast<int>(threadIdx.x), &p, &b);
        next = take<T>(entry(t, p, b), t, p, b);
      }
      acc = have ? combine(acc, next, op) : next;
      have = true;
    }
  }

  const Pe* pe_;
  std::uint64_t* w_;
  std::uint64_t base_ = 0;
  std::uint64_t done_ = 0;  // executions in this launch
  bool pending_ = false;    // post() left one to complete()
  int per_pe_ = -1;         // the most blocks of any PE (-1: not read yet)
  int lane_blocks_ = 0;     // lane p of each warp: PE p's blocks
};

}  // namespace stencilc::rt::cuda
