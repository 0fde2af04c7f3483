// The team's device collectives, written once for both backends: barrier_all and allreduce over
// every PE's persistent kernel. Each backend's PE handle (P2PDevicePe in p2p_pe.cuh,
// NvshmemDevicePe in nvshmem_pe.cuh) keeps its public members and forwards to Collectives<Self>,
// supplying the transport it is made of:
//   id, n, control, barrier_sig, reduce_slot, reduce_sig   the team's state (symmetric slots)
//   grid_barrier()                      every thread of this GPU's grid
//   wait_with(sig, cmp, value, describe) the bounded wait with a diagnostic
//   complete_puts()                     this thread's earlier stores and puts visible on every PE
//   put_word(sym, bits, pe)             one 64-bit word into PE pe's copy of sym
//   order_puts()                        put_word's words before the signals that follow
//   signal_word(sig_sym, value, pe)     PE pe's copy of sig_sym = value (release)
// (p2p: a system fence, volatile and release stores through the peer's mapping; nvshmem:
// nvshmem_quiet, nvshmem_uint64_p, nvshmem_fence, nvshmemx_signal_op.)
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"

namespace stencilc::rt::cuda::detail {

#if defined(__CUDACC__)

template <class Pe>
struct Collectives {
  // Every thread of every PE's grid: everything any thread of any PE did before it (stores,
  // puts) is visible to every thread of every PE after it. Grid sync; the leader completes the
  // PE's puts, signals every PE's barrier slot with this barrier's epoch and waits for all n;
  // grid sync again.
  __device__ static void barrier_all(const Pe& pe, const char* what) {
    __threadfence_system();  // this thread's stores and puts, before the leader's signals
    pe.grid_barrier();
    if (is_leader()) {
      const std::uint64_t epoch = ++pe.control->barrier_epoch;
      pe.complete_puts();
      for (int p = 0; p < pe.n; ++p) pe.signal_word(&pe.barrier_sig[pe.id], epoch, p);
      for (int p = 0; p < pe.n; ++p) {
        pe.wait_with(&pe.barrier_sig[p], Cmp::GE, epoch, [&](Message& m) {
          int arrived = 0;
          for (int q = 0; q < pe.n; ++q) {
            if (load_relaxed_sys(&pe.barrier_sig[q]) >= epoch) ++arrived;
          }
          m.str(what).str(" (barrier #").num(static_cast<long long>(epoch)).str("): ");
          m.num(arrived).str(" of ").num(pe.n).str(" PEs arrived; the signal of PE ").num(p);
        });
      }
    }
    pe.grid_barrier();
  }

  // Leader only (thread 0 of block 0), no grid synchronisation: combines every PE's `value` (its
  // GPU's already reduced value) in PE order 0..n-1, so every PE gets the bit-identical result
  // (NVSHMEM's own reductions promise no order). Each PE puts its value into slot
  // [epoch parity][me] on every PE, then its signal; it waits for all n signals of this epoch
  // and combines.
  template <class T>
  __device__ static STENCILC_STEP_FN T allreduce_leader(const Pe& pe, T value, ReduceOp op) {
    static_assert(std::is_arithmetic_v<T> && sizeof(T) <= sizeof(std::uint64_t),
                  "allreduce of a scalar of at most 8 bytes");
    const int n = pe.n;
    const std::uint64_t epoch = ++pe.control->reduce_epoch;
    const int parity = static_cast<int>(epoch & 1);
    std::uint64_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    for (int p = 0; p < n; ++p) pe.put_word(&pe.reduce_slot[parity * n + pe.id], bits, p);
    pe.order_puts();
    for (int p = 0; p < n; ++p) pe.signal_word(&pe.reduce_sig[pe.id], epoch, p);
    for (int p = 0; p < n; ++p) {
      pe.wait_with(&pe.reduce_sig[p], Cmp::GE, epoch, [&](Message& m) {
        m.str("allreduce #").num(static_cast<long long>(epoch)).str(": the value of PE ").num(p);
      });
    }
    T result{};
    for (int p = 0; p < n; ++p) {
      const std::uint64_t word =
          *static_cast<volatile const std::uint64_t*>(&pe.reduce_slot[parity * n + p]);
      T next;
      memcpy(&next, &word, sizeof(T));
      result = p == 0 ? next : combine(result, next, op);
    }
    return result;
  }

  // Every thread of the grid: the leader's value (the GPU's already reduced value) combined
  // across PEs as allreduce_leader does, returned to every thread of every PE. Two grid barriers
  // (the first so that no thread still reads the previous result when the leader writes the
  // next).
  template <class T>
  __device__ static T allreduce(const Pe& pe, T value, ReduceOp op) {
    pe.grid_barrier();
    if (is_leader()) {
      const T result = allreduce_leader(pe, value, op);
      std::uint64_t bits = 0;
      memcpy(&bits, &result, sizeof(T));
      pe.control->reduce_result = bits;
    }
    pe.grid_barrier();
    const std::uint64_t bits = *static_cast<volatile unsigned long long*>(&pe.control->reduce_result);
    T result;
    memcpy(&result, &bits, sizeof(T));
    return result;
  }
};

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda::detail
