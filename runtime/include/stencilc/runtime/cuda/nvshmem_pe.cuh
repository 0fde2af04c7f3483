// The NVSHMEM backend's device PE: the members of P2PDevicePe over NVSHMEM's signaled puts, and
// `DevicePe` naming it. Included through nvshmem.cuh (which selects it), never alone.
#pragma once

#if !defined(STENCILC_BACKEND_NVSHMEM)
#error "include <stencilc/runtime/cuda/nvshmem.cuh>, not nvshmem_pe.cuh"
#endif

#include <cuda_runtime.h>
// NVSHMEM's device headers declare `namespace cg = cooperative_groups;` at global scope, which
// would take the name from a user's program or function called `cg` (a conjugate-gradient
// solver). Inside them `cg` is spelled stencilc_nvshmem_cg; a user's `cg` after them is free.
#pragma push_macro("cg")
#define cg stencilc_nvshmem_cg
#include <nvshmem.h>
#include <nvshmemx.h>
#undef cg
#pragma pop_macro("cg")

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda {

#if defined(__CUDACC__)
namespace detail {

__device__ __forceinline__ int nvshmem_cmp(Cmp cmp) {
  switch (cmp) {
    case Cmp::EQ:
      return NVSHMEM_CMP_EQ;
    case Cmp::NE:
      return NVSHMEM_CMP_NE;
    case Cmp::GT:
      return NVSHMEM_CMP_GT;
    case Cmp::GE:
      return NVSHMEM_CMP_GE;
    case Cmp::LT:
      return NVSHMEM_CMP_LT;
    case Cmp::LE:
      return NVSHMEM_CMP_LE;
  }
  return NVSHMEM_CMP_GE;
}

}  // namespace detail
#endif  // __CUDACC__

// PE `id`'s device handle on the NVSHMEM backend: the members of P2PDevicePe (docs/RUNTIME-CUDA.md,
// "Device API"), with the same "who calls what" rules. The bounded waits, the error record and
// grid_barrier are P2PDevicePe's own (a private base): they touch only this PE's memory. Every
// member that reaches another PE is NVSHMEM's: puts with signal, signal_op, quiet, fence, p.
// Symmetric addresses are this PE's (NVSHMEM translates them). A peer that NVSHMEM maps into
// this GPU's address space (the PEs of one node) is reached as on p2p: the team fills the heap
// table with nvshmem_ptr's answers before the launch (null where NVSHMEM reaches the peer only
// through its proxy), so remote() is a table read and an add, not an ABI call a use, and a
// thread's signal to a mapped peer is one release store, not nvshmem_fence and
// nvshmemx_signal_op.
struct NvshmemDevicePe : private P2PDevicePe {
  using P2PDevicePe::id;
  using P2PDevicePe::n;
  using P2PDevicePe::fatal;
  using P2PDevicePe::fatal_with;
  using P2PDevicePe::grid_barrier;
  using P2PDevicePe::signal_fetch;

  friend class NvshmemTeam;

  // Whether some PE of the job reaches another only through NVSHMEM's proxy (the team's
  // collective answer: not every heap mapped on every PE).
  bool proxied = true;

#if defined(__CUDACC__)
  // The same symmetric object on PE `pe`, null when `pe` is not load/store reachable.
  template <class T>
  __device__ T* remote(T* local_sym, int pe) const {
    char* const base = heap_of(pe);
    if (base == nullptr) return nullptr;
    return reinterpret_cast<T*>(base + (reinterpret_cast<const char*>(local_sym) - heap));
  }
  // A peer for a loop: the distance to its mapped heap, 0 for an unmapped one (a mapped peer
  // other than this PE is never at distance 0).
  __device__ PeerRef peer(int pe) const {
    char* const base = heap_of(pe);
    return PeerRef{pe, base == nullptr ? 0 : static_cast<long long>(base - heap)};
  }
  __device__ bool mapped(PeerRef q) const { return q.delta != 0 || q.pe == id; }
  template <class T>
  __device__ T* remote(T* local_sym, PeerRef q) const {
    if (!mapped(q)) return nullptr;
    return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(local_sym) +
                                static_cast<std::uintptr_t>(q.delta));
  }

  // Block level. Complete (visible on `pe`, `src` reusable) after a later quiet(). For a PE that is
  // not load/store reachable, `src` must be symmetric (or registered) memory, as NVSHMEM requires.
  template <class T>
  __device__ void put_block(T* dst_sym, const T* src, std::size_t count, int pe) const {
    nvshmemx_putmem_nbi_block(dst_sym, src, count * sizeof(T), pe);
  }

  // Block level: the data, then PE `pe`'s signal = value (NVSHMEM orders the two). `src` may be
  // reused after a later quiet(), or once the receiver has answered.
  template <class T>
  __device__ void put_signal_block(T* dst_sym, const T* src, std::size_t count,
                                   std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    nvshmemx_putmem_signal_nbi_block(dst_sym, src, count * sizeof(T), sig_sym, value,
                                     NVSHMEM_SIGNAL_SET, pe);
  }

  // Block level: one put per row, then nvshmem_fence (puts to `pe` before what follows) and the
  // signal from thread 0.
  template <class T>
  __device__ void put_signal_block_2d(T* dst_sym, std::size_t dst_pitch, const T* src,
                                      std::size_t src_pitch, std::size_t width, std::size_t rows,
                                      std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    for (std::size_t r = 0; r < rows; ++r) {
      nvshmemx_putmem_nbi_block(dst_sym + r * dst_pitch, src + r * src_pitch, width * sizeof(T), pe);
    }
    __syncthreads();
    if (thread_rank() == 0) {
      nvshmem_fence();
      nvshmemx_signal_op(sig_sym, value, NVSHMEM_SIGNAL_SET, pe);
    }
    __syncthreads();
  }

  // The halo exchange's face transport (see P2PDevicePe::pack_target). A mapped peer as on p2p:
  // the face packed straight into its memory, delivered by a release store of the signal. Else
  // the face is packed into the local staging slot (symmetric, so any transport can read it),
  // then put with the signal; the staging slot of epoch e is packed again at epoch e + 2 only
  // after the receiver acked epoch e, i.e. after the put of epoch e had read it.
  template <class T>
  __device__ T* pack_target(T* dst_sym, T* staging, PeerRef q) const {
    return mapped(q) ? remote(dst_sym, q) : staging;
  }
  template <class T>
  __device__ void deliver_signal_block(T* dst_sym, const T* packed, std::size_t count,
                                       std::uint64_t* sig_sym, std::uint64_t value, PeerRef q) const {
    __syncthreads();  // every thread's part of the face is packed
    if (mapped(q)) {
      if (thread_rank() == 0) detail::store_release_sys(remote(sig_sym, q), value);
    } else {
      put_signal_block(dst_sym, packed, count, sig_sym, value, q.pe);
    }
  }

  // Thread level: PE `pe`'s signal = value, after this thread's earlier stores and puts to `pe`
  // (nvshmem_fence; p2p's signal_set is a release store, the same promise).
  __device__ void signal_set(std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    nvshmem_fence();
    nvshmemx_signal_op(sig_sym, value, NVSHMEM_SIGNAL_SET, pe);
  }
  // A mapped peer: a release store through the mapping, as on p2p (this thread's earlier stores
  // and puts to it are load/store traffic too: NVSHMEM moves data to a mapped peer with stores).
  __device__ void signal_set(std::uint64_t* sig_sym, std::uint64_t value, PeerRef q) const {
    if (mapped(q)) {
      detail::store_release_sys(remote(sig_sym, q), value);
    } else {
      signal_set(sig_sym, value, q.pe);
    }
  }

  // Block level, after a put to PE `pe` (every thread of the block): the put's source may be
  // written again. A mapped peer's put is the block's loads and stores, done when it returns; one
  // behind NVSHMEM's proxy reads the source later, so thread 0's nvshmem_quiet completes it first.
  __device__ void complete_source_block(int pe) const {
    if (mapped(peer(pe))) return;
    __syncthreads();
    if (thread_rank() == 0) nvshmem_quiet();
    __syncthreads();
  }

  // Completes this thread's earlier puts (and, on proxy transports, the PE's).
  __device__ void quiet() const { nvshmem_quiet(); }

  // ---- Waits: P2PDevicePe's bounded poll (relaxed polls of this PE's own signal, an acquire,
  // %globaltimer, the error record, the abort flag), then nvshmem_uint64_test of the condition
  // that held: on transports where data arrives through a proxy (InfiniBand) it makes the data
  // that came before the signal visible, as nvshmem_signal_wait_until would. Signals in stencilc
  // only grow, so the condition still holds. Never an unbounded nvshmem_signal_wait_until.
  __device__ void wait_until(const std::uint64_t* sig_sym, Cmp cmp, std::uint64_t value,
                             const char* what) const {
    if (thread_rank() == 0) wait_until_thread(sig_sym, cmp, value, what);
    __syncthreads();
  }
  __device__ void wait_until_thread(const std::uint64_t* sig_sym, Cmp cmp, std::uint64_t value,
                                    const char* what) const {
    wait_with(sig_sym, cmp, value, [what](detail::Message& m) { m.str(what); });
  }
  // The wait is p2p's acquire load, which orders what follows after every store of a mapped
  // peer (NVLink) that its release made visible. Data NVSHMEM's proxy delivers (another node)
  // needs NVSHMEM's own sync step as well (nvshmem_uint64_test: a __threadfence and, on proxy
  // transports, the target's consistency enforcement); within one node it would only cost an
  // ABI call and a fence that drains the thread's stores at every wait.
  template <class Describe>
  __device__ void wait_with(const std::uint64_t* sig, Cmp cmp, std::uint64_t value,
                            const Describe& describe) const {
    P2PDevicePe::wait_with(sig, cmp, value, describe);
    if (proxied) {
      (void)nvshmem_uint64_test(const_cast<std::uint64_t*>(sig), detail::nvshmem_cmp(cmp), value);
    }
  }

  // ---- Team synchronisation ------------------------------------------------------------------

  // Every thread of every PE's grid, as P2PDevicePe::barrier_all (collectives.cuh). The leader's
  // nvshmem_quiet completes the PE's puts (on proxy transports too: one quiet, not one per
  // thread) before its signals.
  __device__ void barrier_all(const char* what = "barrier_all") const {
    detail::Collectives<NvshmemDevicePe>::barrier_all(*this, what);
  }

  // Leader only, as P2PDevicePe::allreduce_leader: the values go by nvshmem_p, then (after
  // nvshmem_fence) the signals.
  template <class T>
  __device__ T allreduce_leader(T value, ReduceOp op) const {
    return detail::Collectives<NvshmemDevicePe>::allreduce_leader(*this, value, op);
  }

  // Every thread of the grid: the leader's value combined across PEs, returned to every thread.
  template <class T>
  __device__ T allreduce(T value, ReduceOp op) const {
    return detail::Collectives<NvshmemDevicePe>::allreduce(*this, value, op);
  }

 private:
  friend struct detail::Collectives<NvshmemDevicePe>;

  // The collectives' transport (collectives.cuh): a mapped peer's words as on p2p (a volatile
  // store, then the signal's release store, which orders it), NVSHMEM's for the others;
  // nvshmem_quiet completes whatever went through NVSHMEM's proxy, nvshmem_fence orders it.
  __device__ void complete_puts() const { nvshmem_quiet(); }
  __device__ void put_word(std::uint64_t* sym, std::uint64_t bits, int pe) const {
    const PeerRef q = peer(pe);
    if (mapped(q)) {
      *static_cast<volatile std::uint64_t*>(remote(sym, q)) = bits;
    } else {
      nvshmem_uint64_p(sym, bits, pe);
    }
  }
  __device__ void order_puts() const { nvshmem_fence(); }
  __device__ void signal_word(std::uint64_t* sig_sym, std::uint64_t value, int pe) const {
    const PeerRef q = peer(pe);
    if (mapped(q)) {
      detail::store_release_sys(remote(sig_sym, q), value);
    } else {
      nvshmemx_signal_op(sig_sym, value, NVSHMEM_SIGNAL_SET, pe);
    }
  }
#endif  // __CUDACC__
};

using DevicePe = NvshmemDevicePe;  // what generated kernels and the halo exchange take

}  // namespace stencilc::rt::cuda
