// The p2p backend's device side: P2PDevicePe, the handle every thread of a PE's persistent
// kernel gets (addresses of the peers' symmetric memory, puts and signals, the bounded waits,
// the grid barrier, the collectives, the failure record), with Sym and the per-PE Control it
// reads. The host side (P2PTeam, the launch) is p2p.cuh, which includes this file; both are
// described in docs/RUNTIME-CUDA.md.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
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

}  // namespace stencilc::rt::cuda
