// The p2p backend of the stencilc device communication runtime: one process drives every GPU of
// a team, the GPUs reach each other's memory through peer pointers (NVLink), and one persistent
// cooperative kernel per GPU runs the whole time loop. The CPU allocates, launches and waits.
//
//   host:   P2PTeam team(n);                   // GPUs 0..n-1, peer access between every pair
//           Sym<float> buf = team.alloc<float>(count);   // symmetric: same size on every GPU
//           team.launch_cooperative(kernel, [&](int pe) { return std::make_tuple(team.device_pe(pe), ...); });
//   device: __global__ void kernel(const __grid_constant__ DevicePe pe, ...) {
//             pe.put_signal_block(dst, src, count, sig, value, peer);   // one thread block
//             pe.wait_until(sig, Cmp::GE, value, "what");                // one thread block
//             pe.grid_barrier(); pe.barrier_all(); pe.allreduce(x, ReduceOp::Sum);  // whole grid
//           }
//
// Mirrors the host backend (host.hpp); docs/RUNTIME-CUDA.md has the API, the memory-ordering
// argument and the NVSHMEM mapping.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/collectives.cuh"
#include "stencilc/runtime/cuda/common.cuh"

namespace stencilc::rt::cuda {

// A symmetric allocation: `count` elements at the same offset of every PE's symmetric heap. Host
// side: a kernel gets the pointer of its PE (`on(pe)`), and reaches the other PEs' copies through
// its DevicePe (remote, or a PeerRef resolved before its loop).
template <class T>
struct Sym {
  // PE p's copy (p2p: a device pointer of GPU p, reachable from every peer); one entry: the same
  // address on every PE (NVSHMEM's symmetric addresses).
  std::vector<T*> ptr;
  std::size_t count = 0;  // elements
  std::size_t offset = 0; // bytes from the start of the symmetric heap
  int n = 0;              // PEs

  T* on(int pe) const { return ptr.size() == 1 ? ptr[0] : ptr[static_cast<std::size_t>(pe)]; }
};

// Per-PE bookkeeping of the collectives, in the PE's own device memory (its leader thread,
// thread 0 of block 0, touches it; grid_sync every block's thread 0, atomically). It outlives a
// launch, like the signals, so a second launch of the same team continues the epochs.
namespace detail {

// grid_barrier's arithmetic (Control::grid_sync; tests/runtime/grid_barrier.cu). What block
// `block` of `blocks` adds when it arrives: block 0 2^32 - (blocks - 1), the others 1, so each
// barrier adds 2^32 in all and the word's low half is 0 between barriers. Whatever the order,
// the last arrival carries into the high half, and no earlier one does.
__host__ __device__ constexpr std::uint64_t grid_arrival(unsigned block, unsigned blocks) {
  return block == 0 ? (std::uint64_t{1} << 32) - (blocks - 1) : std::uint64_t{1};
}

// The word's value once the barrier an arrival joined is complete (`old`: the word before its
// add): its high half one more than `old`'s, its low half 0 or later arrivals'.
__host__ __device__ constexpr std::uint64_t grid_passed(std::uint64_t old) {
  return ((old >> 32) + 1) << 32;
}

}  // namespace detail

struct Control {
  unsigned long long barrier_epoch;
  unsigned long long reduce_epoch;
  unsigned long long reduce_result;  // allreduce's result, for the rest of the grid
  int fail_claim;                    // the first failing thread of this PE writes the record
  int reserved;
  // grid_barrier's word (thread 0 of every block): the barriers passed in the high 32 bits,
  // this barrier's arrivals in the low ones (0 between barriers).
  unsigned long long grid_sync;
};

namespace detail {

#if defined(__CUDACC__)

// Block-cooperative copy of `count` elements: 16-byte vectors where dst and src are equally
// misaligned (after an elementwise head), elementwise otherwise.
template <class T>
__device__ void block_copy(T* dst, const T* src, std::size_t count) {
  const std::size_t tid = static_cast<std::size_t>(thread_rank());
  const std::size_t threads = static_cast<std::size_t>(block_threads());
  constexpr std::size_t S = sizeof(T);
  if constexpr (S <= 16 && 16 % S == 0) {
    const auto d = reinterpret_cast<std::uintptr_t>(dst);
    const auto s = reinterpret_cast<std::uintptr_t>(src);
    const std::size_t head_bytes = (16 - (d & 15)) & 15;
    if (((d ^ s) & 15) == 0 && head_bytes % S == 0) {
      std::size_t head = head_bytes / S;
      if (head > count) head = count;
      for (std::size_t i = tid; i < head; i += threads) dst[i] = src[i];
      const std::size_t vectors = (count - head) * S / 16;
      int4* dv = reinterpret_cast<int4*>(dst + head);
      const int4* sv = reinterpret_cast<const int4*>(src + head);
      for (std::size_t i = tid; i < vectors; i += threads) dv[i] = sv[i];
      for (std::size_t i = head + vectors * (16 / S) + tid; i < count; i += threads) {
        dst[i] = src[i];
      }
      return;
    }
  }
  for (std::size_t i = tid; i < count; i += threads) dst[i] = src[i];
}

template <class T>
__device__ void block_copy_2d_elements(T* dst, std::size_t dst_pitch, const T* src,
                                       std::size_t src_pitch, std::size_t width,
                                       std::size_t rows) {
  const std::size_t tid = static_cast<std::size_t>(thread_rank());
  const std::size_t threads = static_cast<std::size_t>(block_threads());
  const std::size_t total = width * rows;
  for (std::size_t i = tid; i < total; i += threads) {
    const std::size_t r = i / width;
    const std::size_t c = i - r * width;
    dst[r * dst_pitch + c] = src[r * src_pitch + c];
  }
}

// Block-cooperative copy of `rows` rows of `width` elements; pitches in elements. 16-byte
// vectors when every row start of both sides is 16-byte aligned.
template <class T>
__device__ void block_copy_2d(T* dst, std::size_t dst_pitch, const T* src, std::size_t src_pitch,
                              std::size_t width, std::size_t rows) {
  constexpr std::size_t S = sizeof(T);
  if constexpr (S <= 16 && 16 % S == 0) {
    const auto d = reinterpret_cast<std::uintptr_t>(dst);
    const auto s = reinterpret_cast<std::uintptr_t>(src);
    if ((d & 15) == 0 && (s & 15) == 0 && (width * S) % 16 == 0 && (dst_pitch * S) % 16 == 0 &&
        (src_pitch * S) % 16 == 0) {
      block_copy_2d_elements(reinterpret_cast<int4*>(dst), dst_pitch * S / 16,
                             reinterpret_cast<const int4*>(src), src_pitch * S / 16,
                             width * S / 16, rows);
      return;
    }
  }
  block_copy_2d_elements(dst, dst_pitch, src, src_pitch, width, rows);
}

#endif  // __CUDACC__

}  // namespace detail

// One PE's device-side handle, passed to the persistent kernel by value. Declare the parameter
// `const __grid_constant__ DevicePe pe` so that taking its address (every member call does) does
// not copy it to local memory. All members are const: the mutable state of the collectives lives
// in device memory (Control), so every thread may use the same parameter.
//
// Who calls what (see docs/RUNTIME-CUDA.md, "Who calls what"):
//   thread level:  remote, signal_set, signal_fetch, wait_until_thread, quiet, fatal
//   block level:   put_block, put_signal_block, put_signal_block_2d, wait_until
//                  (every thread of the block, block-uniform arguments)
//   grid level:    grid_barrier, barrier_all, allreduce (every thread of the grid)
//   leader only:   allreduce_leader (thread 0 of block 0)
// Generated code names it DevicePe (the alias below); the NVSHMEM backend (nvshmem.cuh) gives that
// name its own PE with the same members.
struct P2PDevicePe {
  int id = 0;
  int n = 1;
  char* heap = nullptr;               // this PE's symmetric heap
  // Every PE's heap as this GPU sees it: n entries in this PE's heap (sized at run time, read
  // through the cache). remote(p, pe) reads entry pe; a loop resolves its peers once before it
  // (peer(), PeerRef) and reads no table a step.
  char* const* heaps = nullptr;
  unsigned long long heap_bytes = 0;  // per PE
  unsigned long long timeout_ns = 0;  // a wait longer than this fails (STENCILC_WAIT_TIMEOUT_MS)
  std::uint64_t* barrier_sig = nullptr;  // symmetric [n]: PE p writes slot p
  std::uint64_t* reduce_slot = nullptr;  // symmetric [2][n]: by epoch parity, then PE
  std::uint64_t* reduce_sig = nullptr;   // symmetric [n]
  Control* control = nullptr;            // this PE's own (in its heap)
  ErrorArea* errors = nullptr;           // host-mapped: the abort flag
  ErrorRecord* record = nullptr;         // host-mapped: this PE's record

#if defined(__CUDACC__)
  // ---- Addresses ---------------------------------------------------------------------------

  // The same symmetric object on PE `pe`: `local_sym` must point into this PE's symmetric heap.
  // Checked (a fatal error) only when STENCILC_CHECK_BOUNDS is defined.
  template <class T>
  __device__ T* remote(T* local_sym, int pe) const {
    const auto offset = reinterpret_cast<const char*>(local_sym) - heap;
#if defined(STENCILC_CHECK_BOUNDS)
    if (offset < 0 || static_cast<unsigned long long>(offset) >= heap_bytes || pe < 0 ||
        pe >= n) {
      fatal("remote(): the pointer is not in this PE's symmetric heap, or the PE does not exist");
    }
#endif
    return reinterpret_cast<T*>(heap_of(pe) + offset);
  }

  // PE `pe` resolved for a loop (one read of the table, before the loop).
  __device__ PeerRef peer(int pe) const {
#if defined(STENCILC_CHECK_BOUNDS)
    if (pe < 0 || pe >= n) fatal("peer(): the PE does not exist");
#endif
    return PeerRef{pe, static_cast<long long>(heap_of(pe) - heap)};
  }

  // The same symmetric object on a resolved peer: an add, no table.
  template <class T>
  __device__ T* remote(T* local_sym, PeerRef q) const {
    return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(local_sym) + static_cast<std::uintptr_t>(q.delta));
  }

  // ---- Puts and signals ---------------------------------------------------------------------

  // Block-cooperative: the whole block copies `count` elements from `src` (any memory this GPU
  // can read) to the symmetric `dst_sym` on PE `pe`. Complete (visible to `pe`) only after a
  // later quiet() or a signal of this block.
  template <class T>
  __device__ void put_block(T* dst_sym, const T* src, std::size_t count, int pe) const {
    detail::block_copy(remote(dst_sym, pe), src, count);
  }

  // Block-cooperative put, then thread 0 sets PE `pe`'s signal `sig_sym` to `value` with release
  // ordering: a thread that sees the value with wait_until (acquire) sees all the data.
  template <class T>
  __device__ void put_signal_block(T* dst_sym, const T* src, std::size_t count,
                                   std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    detail::block_copy(remote(dst_sym, pe), src, count);
    signal_after_block(sig_sym, value, pe);
  }

  // Strided variant (faces that are rows of a 2-D or 3-D box): `rows` rows of `width` elements,
  // row r at dst_sym + r * dst_pitch on PE `pe` and at src + r * src_pitch here (pitches in
  // elements). No packing: the stores go straight over NVLink.
  template <class T>
  __device__ void put_signal_block_2d(T* dst_sym, std::size_t dst_pitch, const T* src,
                                      std::size_t src_pitch, std::size_t width, std::size_t rows,
                                      std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    detail::block_copy_2d(remote(dst_sym, pe), dst_pitch, src, src_pitch, width, rows);
    signal_after_block(sig_sym, value, pe);
  }

  // The halo exchange's face transport (halo.cuh), in two steps: the block packs a face bound for
  // PE `pe`'s `dst_sym` into pack_target(...), then deliver_signal_block(...) makes it arrive and
  // sets `sig_sym` there to `value`. Here the face is packed straight into the peer's memory over
  // NVLink (`staging` is unused) and delivery is only the signal; the NVSHMEM backend does the
  // same for a peer it maps, and for one reached through its proxy packs into the local
  // `staging` and puts it with the signal.
  // The peer comes resolved (the halo plan's channels carry their PeerRef).
  template <class T>
  __device__ T* pack_target(T* dst_sym, T* staging, PeerRef q) const {
    (void)staging;
    return remote(dst_sym, q);
  }
  template <class T>
  __device__ void deliver_signal_block(T* dst_sym, const T* packed, std::size_t count,
                                       std::uint64_t* sig_sym, std::uint64_t value, PeerRef q) const {
    (void)dst_sym, (void)packed, (void)count;
    __syncthreads();
    if (thread_rank() == 0) detail::store_release_sys(remote(sig_sym, q), value);
  }

  // Block level, after a put to PE `pe` (every thread of the block): the put's source may be
  // written again. Here at once: the block's stores have read it.
  __device__ void complete_source_block(int pe) const { (void)pe; }

  // Thread level: sets PE `pe`'s signal to `value` (release: this thread's earlier stores, and
  // everything it has observed, are visible to whoever acquires the value).
  __device__ void signal_set(std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    detail::store_release_sys(remote(sig_sym, pe), value);
  }
  __device__ void signal_set(std::uint64_t* sig_sym, std::uint64_t value, PeerRef q) const {
    detail::store_release_sys(remote(sig_sym, q), value);
  }

  // Thread level: this PE's value of its signal (acquire).
  __device__ std::uint64_t signal_fetch(const std::uint64_t* sig_sym) const {
    return detail::load_acquire_sys(sig_sym);
  }

  // Completes this thread's earlier puts: they are visible on their PEs after it.
  __device__ void quiet() const { __threadfence_system(); }

  // ---- Waits ------------------------------------------------------------------------------------

  // Block-cooperative bounded wait on this PE's signal: thread 0 polls it (wait_with) with a
  // short __nanosleep backoff, the other threads wait at __syncthreads(); after it every thread
  // of the block sees what the signal's writer wrote before it. After timeout_ns the PE's error
  // record is filled ("PE 1 of 2 waited 10000 ms for <what>: signal is 6, waiting for >= 7") and
  // the GPU traps; the launcher prints the record and exits with status 3. `what` is copied into
  // the record only then (any device string).
  __device__ void wait_until(const std::uint64_t* sig_sym, Cmp cmp, std::uint64_t value,
                             const char* what) const {
    if (thread_rank() == 0) wait_until_thread(sig_sym, cmp, value, what);
    __syncthreads();
  }

  // The same for one thread (no __syncthreads()).
  __device__ void wait_until_thread(const std::uint64_t* sig_sym, Cmp cmp, std::uint64_t value,
                                    const char* what) const {
    wait_with(sig_sym, cmp, value, [what](detail::Message& m) { m.str(what); });
  }

  // The wait behind every other: `describe(detail::Message&)` writes what it waits for, and is
  // called only on failure. Single thread. Relaxed polls, and the signal read with an acquire
  // once it holds the value (detail::load_relaxed_sys says why).
  template <class Describe>
  __device__ void wait_with(const std::uint64_t* sig, Cmp cmp, std::uint64_t value,
                            const Describe& describe) const {
    std::uint64_t current = detail::load_acquire_sys(sig);
    if (compare(current, cmp, value)) return;
    const std::uint64_t start = global_timer_ns();
    unsigned sleep_ns = 0;
    for (unsigned spins = 1;; ++spins) {
      current = detail::load_relaxed_sys(sig);
      if (compare(current, cmp, value)) {
        detail::load_acquire_sys(sig);
        return;
      }
      if (spins < 32) continue;  // a put in flight usually lands within a few hundred ns
      __nanosleep(sleep_ns);
      sleep_ns = sleep_ns < 256 ? sleep_ns + 32 : 256;
      if ((spins & 15) != 0) continue;
      const std::uint64_t waited = global_timer_ns() - start;
      if (waited >= timeout_ns) {
        fail_wait(FailureKind::WaitTimeout, sig, cmp, value, current, waited, describe);
      }
      // Another PE failed (its trap would leave us waiting for the full timeout): report this
      // wait too and stop. Host memory is slow to read, so only once the wait is long anyway.
      if (waited >= 200000 && *static_cast<volatile int*>(&errors->abort) != 0) {
        fail_wait(FailureKind::PeerFailed, sig, cmp, value, current, waited, describe);
      }
    }
  }

  // ---- Grid and team synchronisation -------------------------------------------------------

  // Every thread of this GPU's grid (needs the cooperative launch of P2PTeam: every block
  // resident). Thread 0 of each block arrives: block 0 adds 2^32 - (blocks - 1), the others 1, so
  // the last arrival carries into the high word, whatever the order. Then the whole of warp 0
  // polls for that carry (relaxed loads, a backoff, one acquire at the end), so no lane runs a
  // loop alone: cooperative_groups' grid sync spins in thread 0 alone, and in the nvshmem build
  // ptxas did not reconverge warp 0 after it (warp 0 of every block ran the next point loop as
  // two halves; the barrier form 1.40x p2p's time on smooth2d 4096^2).
  // Like that grid sync, the wait has no timeout of its own, and reads no host memory: it waits
  // for this GPU's other blocks, each computing or in a bounded wait (a timeout there, or another
  // PE's failure, traps the whole grid), and a dataflow loop's idle blocks wait here for the
  // whole loop. A timeout here would outrun the waits that know what is missing, and a host read
  // from every idle block's warp (wait_with's check for another PE's failure) slowed the dataflow
  // loop around them 2-8x on 1 and 2 H200s.
  __device__ void grid_barrier() const {
    __syncthreads();
    if (threadIdx.x < 32) {
      auto* word = reinterpret_cast<std::uint64_t*>(&control->grid_sync);
      std::uint64_t target = 0;
      if (threadIdx.x == 0) {
        __threadfence();  // this block's writes (ordered before thread 0 by __syncthreads) first
        const std::uint64_t old = atomicAdd(reinterpret_cast<unsigned long long*>(word),
                                            detail::grid_arrival(blockIdx.x, gridDim.x));
        target = detail::grid_passed(old);
      }
      target = __shfl_sync(0xffffffffu, target, 0);
      unsigned sleep_ns = 0;
      for (unsigned spins = 1; detail::load_relaxed_gpu(word) < target; ++spins) {
        if (spins < 32) continue;
        __nanosleep(sleep_ns);
        sleep_ns = sleep_ns < 256 ? sleep_ns + 32 : 256;
      }
      detail::load_acquire_gpu(word);
    }
    __syncthreads();
  }

  // Every thread of every GPU's grid: everything any thread of any PE did before it (stores,
  // puts) is visible to every thread of every PE after it (collectives.cuh).
  __device__ void barrier_all(const char* what = "barrier_all") const {
    detail::Collectives<P2PDevicePe>::barrier_all(*this, what);
  }

  // Leader only (thread 0 of block 0), no grid synchronisation: every PE's `value` (its GPU's
  // already reduced value) combined in PE order, the bit-identical result on every PE.
  template <class T>
  __device__ T allreduce_leader(T value, ReduceOp op) const {
    return detail::Collectives<P2PDevicePe>::allreduce_leader(*this, value, op);
  }

  // Every thread of the grid: the leader's value combined across PEs, returned to every thread.
  template <class T>
  __device__ T allreduce(T value, ReduceOp op) const {
    return detail::Collectives<P2PDevicePe>::allreduce(*this, value, op);
  }

  // ---- Failure -------------------------------------------------------------------------------

  // A misuse found on the device: records `message` and traps; the launcher prints it and exits
  // with status 2 (as fatal() does in the host backend).
  __device__ void fatal(const char* message) const {
    fatal_with([message](detail::Message& m) { m.str(message); });
  }
  template <class Describe>
  __device__ __noinline__ void fatal_with(const Describe& describe) const {
    detail::Message m;
    describe(m);
    write_record(FailureKind::Fatal, nullptr, Cmp::GE, 0, 0, 0, m);
  }

 private:
  friend struct detail::Collectives<P2PDevicePe>;

  // The collectives' transport (collectives.cuh): stores through the peers' mappings.
  __device__ void complete_puts() const { __threadfence_system(); }
  __device__ void put_word(std::uint64_t* sym, std::uint64_t bits, int pe) const {
    *static_cast<volatile std::uint64_t*>(remote(sym, pe)) = bits;
  }
  __device__ void order_puts() const {}  // signal_word's release store orders them
  __device__ void signal_word(std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    detail::store_release_sys(remote(sig_sym, pe), value);
  }

 protected:
  // Entry pe of the heap table, through the read-only cache (the table never changes in a launch).
  __device__ char* heap_of(int pe) const {
    return reinterpret_cast<char*>(__ldg(reinterpret_cast<const unsigned long long*>(heaps) + pe));
  }

 private:
  // After a block-wide copy: every thread's stores happen before thread 0's release store of the
  // signal (bar.sync), and a release is cumulative (PTX memory model: what precedes it in
  // causality order, the other threads' stores included, is visible to whoever acquires the
  // value). st.release.sys carries its own system fence: a __threadfence_system() before it
  // would be a second one on the signal's path.
  __device__ void signal_after_block(std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    __syncthreads();
    if (thread_rank() == 0) detail::store_release_sys(remote(sig_sym, pe), value);
  }

  template <class Describe>
  __device__ __noinline__ void fail_wait(FailureKind kind, const std::uint64_t* sig, Cmp cmp,
                                         std::uint64_t value, std::uint64_t current,
                                         std::uint64_t waited, const Describe& describe) const {
    detail::Message m;
    describe(m);
    write_record(kind, sig, cmp, value, current, waited, m);
  }

  __device__ __noinline__ void write_record(FailureKind kind, const std::uint64_t* sig, Cmp cmp,
                                            std::uint64_t value, std::uint64_t current,
                                            std::uint64_t waited, const detail::Message& m) const {
    volatile ErrorRecord* out = record;
    if (atomicCAS(&control->fail_claim, 0, 1) != 0) {
      // Another thread of this PE is writing the record: wait (bounded) for it, then stop.
      const std::uint64_t start = global_timer_ns();
      while (out->state == 0 && global_timer_ns() - start < 1000000000ULL) {
        __nanosleep(1000);
      }
      __trap();
    }
    const long long offset =
        sig == nullptr ? -1 : reinterpret_cast<const char*>(sig) - heap;
    out->kind = static_cast<int>(kind);
    out->pe = id;
    out->n = n;
    out->block = block_rank();
    out->thread = thread_rank();
    out->cmp = static_cast<int>(cmp);
    out->value = value;
    out->current = current;
    out->waited_ns = waited;
    out->signal_offset =
        offset < 0 || static_cast<unsigned long long>(offset) >= heap_bytes ? ~0ULL : offset;
    for (int i = 0; i <= m.length && i < static_cast<int>(sizeof out->what); ++i) {
      out->what[i] = m.text[i];
    }
    __threadfence_system();
    out->state = 1;
    __threadfence_system();
    *static_cast<volatile int*>(&errors->abort) = 1;
    __threadfence_system();
    __trap();
  }
#endif  // __CUDACC__
};

#if !defined(STENCILC_BACKEND_NVSHMEM)
using DevicePe = P2PDevicePe;  // what generated kernels and the halo exchange take
#define STENCILC_BACKEND_P2P_SELECTED 1
#endif

// How launch_cooperative sizes the grid. The grid is blocks-per-SM times the SM count, with
// blocks per SM from the occupancy API (or fewer if asked), so every block is resident at once
// and grid-wide barriers cannot deadlock.
struct LaunchConfig {
  int block_threads = 256;
  std::size_t dynamic_smem = 0;
  int blocks_per_sm = 0;  // 0: as many as fit; otherwise at most this many
  int max_blocks = 0;     // 0: no cap; otherwise at most this many blocks per GPU
};

struct LaunchResult {
  std::vector<int> blocks;  // per PE
  int block_threads = 0;
  double wall_ms = 0;  // host wall time from the first launch to the last GPU done
  double kernel_ms = 0;  // the slowest GPU's kernel, timed with CUDA events on its stream
};

// One process, n GPUs (devices 0..n-1 of the visible ones), peer access between every pair, a
// symmetric heap on each, a host-mapped error area, one stream per GPU.
//
// The shared-GPU test mode (STENCILC_P2P_SHARE_GPUS=1): when fewer GPUs are visible than PEs,
// PE p runs on visible GPU p mod D (D = the visible GPUs, at most n), with its own heap, stream
// and kernel, and the PEs of one GPU split its SMs (cooperative_blocks), so that their kernels
// are resident together. It checks the multi-PE code paths (faces, flags, exchanges, puts into
// another PE's heap, reductions) on a machine with fewer GPUs; its timings say nothing about
// NVLink. Unset, more PEs than GPUs is an error.
class P2PTeam {
 public:
  // Fatal (status 2) if fewer than n GPUs are visible (unless in the shared-GPU test mode), if n
  // is below 1, or if some pair of GPUs cannot reach each other's memory. heap_bytes:
  // the symmetric heap per PE (STENCILC_SYM_HEAP_MB when set, which overrides it; 0: 1024 MiB).
  explicit P2PTeam(int n, std::size_t heap_bytes = 0)
      : n_(n),
        heap_bytes_(heap_bytes != 0 && std::getenv("STENCILC_SYM_HEAP_MB") == nullptr ? heap_bytes
                                                                                   : default_heap_bytes()),
        timeout_ms_(wait_timeout_ms()) {
    if (n < 1) fatal("cannot run %d PEs with the p2p backend: it needs at least 1", n);
    const bool share = share_gpus();
    if (share) reserve_hardware_queues();
    device_.assign(static_cast<std::size_t>(n), 0);
    heap_.assign(static_cast<std::size_t>(n), nullptr);
    streams_.assign(static_cast<std::size_t>(n), nullptr);
    started_.assign(static_cast<std::size_t>(n), nullptr);
    finished_.assign(static_cast<std::size_t>(n), nullptr);
    sm_count_.assign(static_cast<std::size_t>(n), 0);
    int visible = 0;
    const cudaError_t count_error = cudaGetDeviceCount(&visible);
    if (count_error != cudaSuccess) {
      fatal("cannot run %d PEs with the p2p backend: no usable GPU (%s)", n,
            cudaGetErrorString(count_error));
    }
    if (visible < 1 || (visible < n && !share)) {
      const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
      fatal("cannot run %d PEs with the p2p backend: only %d GPU%s visible (CUDA_VISIBLE_DEVICES=%s; "
            "STENCILC_P2P_SHARE_GPUS=1 runs several PEs on one GPU, for checking, not timing)",
            n, visible, visible == 1 ? " is" : "s are", env != nullptr ? env : "unset");
    }
    const int gpus = visible < n ? visible : n;
    for (int pe = 0; pe < n_; ++pe) device_[pe] = pe % gpus;
    if (share) check_hardware_queues((n + gpus - 1) / gpus);
    for (int gpu = 0; gpu < gpus; ++gpu) {
      int cooperative = 0;
      STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, gpu));
      if (!cooperative) fatal("GPU %d does not support cooperative launches", gpu);
    }
    for (int gpu = 0; gpu < gpus; ++gpu) {
      for (int peer = 0; peer < gpus; ++peer) {
        if (peer == gpu) continue;
        int can = 0;
        STENCILC_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, gpu, peer));
        if (!can) {
          fatal(
              "GPU %d cannot access the memory of GPU %d (cudaDeviceCanAccessPeer): the p2p "
              "backend needs peer access between every pair of its GPUs; use fewer GPUs or the "
              "NVSHMEM backend",
              gpu, peer);
        }
        STENCILC_CUDA_CHECK(cudaSetDevice(gpu));
        const cudaError_t enabled = cudaDeviceEnablePeerAccess(peer, 0);
        if (enabled == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();  // not an error: an earlier team enabled it
        } else if (enabled != cudaSuccess) {
          fatal("GPU %d cannot enable peer access to GPU %d: %s (%s)", gpu, peer,
                cudaGetErrorString(enabled), cudaGetErrorName(enabled));
        }
      }
    }
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
      void* base = nullptr;
      const cudaError_t allocated = cudaMalloc(&base, heap_bytes_);
      if (allocated != cudaSuccess) {
        fatal("cannot allocate the symmetric heap of %zu MiB of PE %d on GPU %d: %s (set "
              "STENCILC_SYM_HEAP_MB)",
              heap_bytes_ >> 20, pe, device_[pe], cudaGetErrorString(allocated));
      }
      heap_[pe] = static_cast<char*>(base);
      STENCILC_CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[pe], cudaStreamNonBlocking));
      STENCILC_CUDA_CHECK(cudaEventCreate(&started_[pe]));
      STENCILC_CUDA_CHECK(cudaEventCreate(&finished_[pe]));
      int sms = 0;
      STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_[pe]));
      sm_count_[pe] = sms;
    }
    void* area = nullptr;
    STENCILC_CUDA_CHECK(
        cudaHostAlloc(&area, error_area_bytes(n_), cudaHostAllocMapped | cudaHostAllocPortable));
    errors_ = static_cast<ErrorArea*>(area);
    std::memset(errors_, 0, error_area_bytes(n_));
    void* mapped = nullptr;
    STENCILC_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, area, 0));
    errors_device_ = static_cast<ErrorArea*>(mapped);
    // The collectives' state, at the start of every heap.
    control_ = alloc<Control>(1);
    barrier_sig_ = alloc<std::uint64_t>(static_cast<std::size_t>(n_));
    reduce_slot_ = alloc<std::uint64_t>(2 * static_cast<std::size_t>(n_));
    reduce_sig_ = alloc<std::uint64_t>(static_cast<std::size_t>(n_));
    // Every PE's heap base, in every PE's heap (DevicePe::heaps).
    heaps_ = alloc<char*>(static_cast<std::size_t>(n_));
    for (int pe = 0; pe < n_; ++pe) upload(pe, heaps_.on(pe), heap_.data(), heap_.size());
  }

  ~P2PTeam() {
    // Only reached after a successful run (failures exit): errors here are not worth a report.
    for (int pe = 0; pe < n_; ++pe) {
      if (cudaSetDevice(device_[pe]) != cudaSuccess) continue;
      if (streams_[pe] != nullptr) cudaStreamDestroy(streams_[pe]);
      if (started_[pe] != nullptr) cudaEventDestroy(started_[pe]);
      if (finished_[pe] != nullptr) cudaEventDestroy(finished_[pe]);
      if (heap_[pe] != nullptr) cudaFree(heap_[pe]);
    }
    if (errors_ != nullptr) cudaFreeHost(errors_);
  }

  P2PTeam(const P2PTeam&) = delete;
  P2PTeam& operator=(const P2PTeam&) = delete;

  int n() const { return n_; }
  int device(int pe) const { return device_[pe]; }  // visible GPU p (p mod D when GPUs are shared)
  // How many PEs run on PE pe's GPU (1 unless in the shared-GPU test mode).
  int sharers(int pe) const {
    int count = 0;
    for (int p = 0; p < n_; ++p) count += device_[p] == device_[pe] ? 1 : 0;
    return count;
  }
  int most_sharers() const {
    int most = 1;
    for (int pe = 0; pe < n_; ++pe) most = std::max(most, sharers(pe));
    return most;
  }
  bool holds(int pe) const { return pe >= 0 && pe < n_; }  // this process drives every PE
  // How far PE `peer`'s symmetric heap lies from PE `pe`'s in `pe`'s address space (a PeerRef's
  // delta; every peer's heap is mapped).
  long long heap_distance(int pe, int peer) const { return heap_[peer] - heap_[pe]; }
  int sm_count(int pe) const { return sm_count_[pe]; }
  cudaStream_t stream(int pe) const { return streams_[pe]; }
  long long timeout_ms() const { return timeout_ms_; }
  std::size_t heap_bytes() const { return heap_bytes_; }
  std::size_t heap_used() const { return heap_used_; }

  // Collective over the team's GPUs (the host does all): `count` elements at one offset of every
  // PE's symmetric heap, zero-filled, 256-byte aligned. Fatal (status 2) when the heap is full.
  template <class T>
  Sym<T> alloc(std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "symmetric memory holds trivially copyable data");
    static_assert(alignof(T) <= 256, "over-aligned type");
    if (count > (SIZE_MAX - 256) / sizeof(T)) fatal("alloc: %zu elements overflow", count);
    const std::size_t bytes = count * sizeof(T) > 0 ? count * sizeof(T) : 1;
    const std::size_t offset = (heap_used_ + 255) & ~static_cast<std::size_t>(255);
    if (offset > heap_bytes_ || bytes > heap_bytes_ - offset) {
      fatal(
          "the symmetric heap of %zu MiB per GPU is full: allocation #%d of %zu bytes does not "
          "fit (%zu bytes used); set STENCILC_SYM_HEAP_MB",
          heap_bytes_ >> 20, allocations_, bytes, heap_used_);
    }
    heap_used_ = offset + bytes;
    ++allocations_;
    Sym<T> sym;
    sym.count = count;
    sym.offset = offset;
    sym.n = n_;
    sym.ptr.resize(static_cast<std::size_t>(n_));
    for (int pe = 0; pe < n_; ++pe) {
      sym.ptr[pe] = reinterpret_cast<T*>(heap_[pe] + offset);
      STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
      STENCILC_CUDA_CHECK(cudaMemset(heap_[pe] + offset, 0, bytes));
    }
    STENCILC_CUDA_CHECK(cudaSetDevice(device_[0]));
    return sym;
  }

  // The handle PE `pe`'s kernel gets.
  P2PDevicePe device_pe(int pe) const {
    P2PDevicePe d;
    d.id = pe;
    d.n = n_;
    d.heap = heap_[pe];
    d.heaps = heaps_.on(pe);
    d.heap_bytes = heap_bytes_;
    d.timeout_ns = static_cast<unsigned long long>(timeout_ms_) * 1000000ULL;
    d.barrier_sig = barrier_sig_.on(pe);
    d.reduce_slot = reduce_slot_.on(pe);
    d.reduce_sig = reduce_sig_.on(pe);
    d.control = control_.on(pe);
    d.errors = errors_device_;
    d.record = errors_device_->record(pe);
    return d;
  }

  // Host <-> one PE's device memory (synchronous, checked).
  template <class T>
  void upload(int pe, T* dst, const T* src, std::size_t count) {
    STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
    STENCILC_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  template <class T>
  void download(int pe, T* dst, const T* src, std::size_t count) {
    STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
    STENCILC_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost));
  }

  // The grid one GPU gets for `kernel` (see LaunchConfig). Fatal if not one block fits.
  template <class... KArgs>
  int cooperative_blocks(int pe, void (*kernel)(KArgs...), const LaunchConfig& config) {
    STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
    // On every GPU (the attribute is the current device's), and below 48 KB too: the kernel's
    // static shared memory counts against the default 48 KB (a kernel with 45 KB of
    // dynamic shared memory could not launch on the second GPU without it).
    if (config.dynamic_smem > 0) {
      STENCILC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(config.dynamic_smem)));
    }
    int per_sm = 0;
    STENCILC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, config.block_threads, config.dynamic_smem));
    if (per_sm < 1) {
      fatal("the persistent kernel cannot run one block of %d threads with %zu bytes of dynamic "
            "shared memory per SM on GPU %d (registers or shared memory)",
            config.block_threads, config.dynamic_smem, pe);
    }
    if (config.blocks_per_sm > 0 && config.blocks_per_sm < per_sm) per_sm = config.blocks_per_sm;
    // PEs sharing a GPU split what is resident, so all their kernels run at once; every PE gets
    // the share of the most shared GPU, so that all PEs run the same number of blocks (the
    // dataflow reductions' closed forms count on it).
    int blocks = per_sm * sm_count_[pe] / most_sharers();
    if (blocks < 1) blocks = 1;
    if (config.max_blocks > 0 && config.max_blocks < blocks) blocks = config.max_blocks;
    return blocks;
  }

  // One cooperative launch per GPU, on its own stream, all before any is waited for (the kernels
  // wait for each other). `args_for(pe)` returns a std::tuple of PE pe's kernel arguments
  // (typically team.device_pe(pe) first). Then synchronize(): see there.
  template <class... KArgs, class ArgsFor>
  LaunchResult launch_cooperative(void (*kernel)(KArgs...), ArgsFor&& args_for,
                                  const LaunchConfig& config = LaunchConfig()) {
    launch_cooperative_async(kernel, std::forward<ArgsFor>(args_for), config);
    return synchronize();
  }

  template <class... KArgs, class ArgsFor>
  void launch_cooperative_async(void (*kernel)(KArgs...), ArgsFor&& args_for,
                                const LaunchConfig& config = LaunchConfig()) {
    using Args = std::tuple<std::decay_t<KArgs>...>;
    last_.blocks.assign(static_cast<std::size_t>(n_), 0);
    last_.block_threads = config.block_threads;
    // Size every grid first: that loads the module on every GPU before any kernel starts
    // waiting for another. Then wait for every earlier operation of each GPU (alloc's memsets,
    // uploads: they run on the legacy stream, which the team's non-blocking streams do not
    // wait for).
    for (int pe = 0; pe < n_; ++pe) {
      last_.blocks[pe] = cooperative_blocks(pe, kernel, config);
      STENCILC_CUDA_CHECK(cudaDeviceSynchronize());
    }
    launched_at_ = std::chrono::steady_clock::now();
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
      Args args(args_for(pe));
      std::apply(
          [&](auto&... arg) {
            void* pointers[] = {nullptr, static_cast<void*>(&arg)...};
            STENCILC_CUDA_CHECK(cudaEventRecord(started_[pe], streams_[pe]));
            STENCILC_CUDA_CHECK(cudaLaunchCooperativeKernel(
                reinterpret_cast<const void*>(kernel), dim3(last_.blocks[pe]),
                dim3(config.block_threads), pointers + 1, config.dynamic_smem, streams_[pe]));
            STENCILC_CUDA_CHECK(cudaEventRecord(finished_[pe], streams_[pe]));
          },
          args);
    }
    running_ = true;
  }

  // Waits for every GPU. If a kernel trapped or faulted: the other GPUs are told to stop (the
  // abort flag), every PE's error record is printed in the host backend's form, and the process
  // exits with status 3 (a wait timed out or a GPU faulted) or 2 (a misuse recorded by device
  // code). A GPU that does not stop within a few seconds of another's failure is reported and
  // the process exits all the same.
  LaunchResult synchronize() {
    using Clock = std::chrono::steady_clock;
    if (!running_) return last_;
    running_ = false;
    std::vector<bool> done(static_cast<std::size_t>(n_), false);
    std::vector<cudaError_t> error(static_cast<std::size_t>(n_), cudaSuccess);
    int remaining = n_;
    bool failed = false;
    Clock::time_point failed_at{};
    const long long grace_ms = 5000;
    bool stuck = false;
    for (unsigned polls = 0; remaining > 0; ++polls) {
      for (int pe = 0; pe < n_; ++pe) {
        if (done[pe]) continue;
        STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
        const cudaError_t status = cudaStreamQuery(streams_[pe]);
        if (status == cudaErrorNotReady) continue;
        done[pe] = true;
        --remaining;
        if (status != cudaSuccess) {
          error[pe] = status;
          if (!failed) {
            failed = true;
            failed_at = Clock::now();
            *static_cast<volatile int*>(&errors_->abort) = 1;
          }
        }
      }
      if (remaining == 0) break;
      if (failed && std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - failed_at)
                            .count() > grace_ms) {
        stuck = true;
        break;
      }
      if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    last_.wall_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - launched_at_).count();
    bool recorded = false;
    for (int pe = 0; pe < n_; ++pe) recorded |= errors_->record(pe)->state != 0;
    if (!failed && !recorded) {
      last_.kernel_ms = 0;
      for (int pe = 0; pe < n_; ++pe) {
        float ms = 0;
        STENCILC_CUDA_CHECK(cudaSetDevice(device_[pe]));
        STENCILC_CUDA_CHECK(cudaEventElapsedTime(&ms, started_[pe], finished_[pe]));
        last_.kernel_ms = ms > last_.kernel_ms ? ms : last_.kernel_ms;
      }
      return last_;
    }
    report_failure(error, done, stuck);
  }

  // The error area as the host sees it (tests read it).
  const ErrorArea& errors() const { return *errors_; }

 private:
  static std::size_t default_heap_bytes() {
    const char* text = std::getenv("STENCILC_SYM_HEAP_MB");
    if (text == nullptr) return std::size_t{1024} << 20;
    long long mib = 0;
    if (!parse_positive(text, 1LL << 24, &mib)) {
      fatal("STENCILC_SYM_HEAP_MB='%s' is not a positive number of MiB", text);
    }
    return static_cast<std::size_t>(mib) << 20;
  }

  [[noreturn]] void report_failure(const std::vector<cudaError_t>& error,
                                   const std::vector<bool>& done, bool stuck) {
    bool any_fatal = false, any_wait = false;
    for (int pe = 0; pe < n_; ++pe) {
      const ErrorRecord& r = *errors_->record(pe);
      if (r.state == 0) continue;
      char what[sizeof r.what + 1];
      std::memcpy(what, r.what, sizeof r.what);
      what[sizeof r.what] = '\0';
      if (r.kind == static_cast<int>(FailureKind::Fatal)) {
        any_fatal = true;
        report_error("PE %d of %d (GPU %d, block %d, thread %d): %s", r.pe, r.n, device_[pe], r.block,
                     r.thread, what);
        continue;
      }
      any_wait = true;
      std::string where = format("GPU %d, block %d, thread %d", device_[pe], r.block, r.thread);
      if (r.signal_offset != ~0ULL) {
        where += format(", signal at offset %llu of the symmetric heap", r.signal_offset);
      }
      if (r.kind == static_cast<int>(FailureKind::PeerFailed)) where += ", stopped after another PE failed";
      report_error("PE %d of %d waited %lld ms for %s: signal is %llu, waiting for %s %llu [%s]",
                   r.pe, r.n, static_cast<long long>(r.waited_ns / 1000000ULL), what, r.current,
                   cmp_symbol(static_cast<Cmp>(r.cmp)), r.value, where.c_str());
    }
    for (int pe = 0; pe < n_; ++pe) {
      if (errors_->record(pe)->state != 0) continue;
      if (!done[pe]) {
        report_error("PE %d of %d: the kernel on GPU %d did not stop within 5 s of the failure above",
                     pe, n_, device_[pe]);
      } else if (error[pe] != cudaSuccess) {
        report_error("PE %d of %d: the kernel on GPU %d failed: %s (%s)", pe, n_, device_[pe],
                     cudaGetErrorString(error[pe]), cudaGetErrorName(error[pe]));
      }
    }
    if (!any_fatal && any_wait) {
      report_error(
          "giving up after STENCILC_WAIT_TIMEOUT_MS=%lld ms: the PEs above are deadlocked or too "
          "slow",
          timeout_ms_);
    }
    // No exit(): tearing the CUDA runtime down can block on a GPU that is still running (stuck)
    // or faulted. Output is flushed; the driver reclaims everything at process end.
    (void)stuck;
    std::fflush(nullptr);
    std::_Exit(any_fatal ? 2 : 3);
  }

  // STENCILC_P2P_SHARE_GPUS=1: the shared-GPU test mode (see the class comment).
  static bool share_gpus() {
    const char* text = std::getenv("STENCILC_P2P_SHARE_GPUS");
    if (text == nullptr || (text[0] == '0' && text[1] == '\0')) return false;
    if (text[0] == '1' && text[1] == '\0') return true;
    fatal("STENCILC_P2P_SHARE_GPUS='%s' is not 0 or 1", text);
  }

  // The shared-GPU mode runs one persistent kernel a PE on one GPU, each on its own stream, all
  // resident at once. CUDA maps a context's streams onto CUDA_DEVICE_MAX_CONNECTIONS hardware
  // queues (8 by default, at most 32): past that, a PE's kernel queues behind another PE's
  // persistent kernel, which waits for it (40 PEs on 2 GPUs: exactly 8 PEs a GPU ran). The
  // variable is read when CUDA makes a context, so it is set before the first CUDA call, unless
  // the user set it.
  static constexpr int kMaxHardwareQueues = 32;
  static void reserve_hardware_queues() {
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(kMaxHardwareQueues).c_str(), 0);
  }
  static void check_hardware_queues(int pes_a_gpu) {
    const char* text = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const int queues = text != nullptr ? std::atoi(text) : 8;
    if (pes_a_gpu > queues) {
      fatal("the shared-GPU mode runs %d PEs on one GPU, more than its %d hardware queues "
            "(CUDA_DEVICE_MAX_CONNECTIONS=%s, at most %d): use fewer PEs or more GPUs",
            pes_a_gpu, queues, text != nullptr ? text : "unset", kMaxHardwareQueues);
    }
  }

  int n_;
  std::vector<int> device_;    // PE -> visible GPU
  std::size_t heap_bytes_;
  long long timeout_ms_;
  std::vector<char*> heap_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> started_;   // around each PE's kernel (LaunchResult::kernel_ms)
  std::vector<cudaEvent_t> finished_;
  std::vector<int> sm_count_;
  std::size_t heap_used_ = 0;
  int allocations_ = 0;
  ErrorArea* errors_ = nullptr;
  ErrorArea* errors_device_ = nullptr;
  Sym<Control> control_;
  Sym<std::uint64_t> barrier_sig_, reduce_slot_, reduce_sig_;
  Sym<char*> heaps_;
  LaunchResult last_;
  bool running_ = false;
  std::chrono::steady_clock::time_point launched_at_{};
};

}  // namespace stencilc::rt::cuda
