// Device helpers for the persistent kernels stencilc generates from SC_SPMD_PROGRAM functions
// (codegen/Cuda*.cpp): the program's my_pe()/n_pes(), the layout of a symmetric block on
// another PE, bounds checks of local point loops, and the communication statements (put_signal,
// signal_wait_until, quiet, swap) on the thread blocks of the statement's role group.
//
// Who runs what: a put_signal or a wait runs on ONE block of its group (`slot` spreads the
// program's transfers over the group's blocks), so that the one block that copies a region is
// also the one that sets its signal after all of the data (put_signal_block: __syncthreads, then
// thread 0's fence and release store). The other blocks of the group go on; the phase barriers
// that persistent-fusion places after a wait (it counts as writing the cells peers put into) make
// the data the waiting block acquired visible to every block before any reads it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/generated.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda {

/// What `stencilc::my_pe()` and `stencilc::n_pes()` read in a generated SPMD kernel (`sc_cx`).
struct SpmdContext {
  int id;
  int n;
  __host__ __device__ int my_pe() const { return id; }
  __host__ __device__ int n_pes() const { return n; }
};

#if defined(__CUDACC__)

/// The owned box of a block, in local indices.
template <class T, int N>
__device__ inline SBox<N> owned(const DBlock<T, N>& b) {
  SBox<N> box;
  for (int d = 0; d < N; ++d) box.lo[d] = 0, box.hi[d] = b.extent[d];
  return box;
}

/// The layout of the symmetric block `name` on PE `target` (`on`: every PE's layout, in device
/// memory): what extent_on/origin_on read and where a put lands. A PE outside the team is a
/// device-side fatal error, as in the reference build.
template <class T, int N, class Pe>
__device__ inline const DBlock<T, N>& layout_on(const Pe& pe, const DBlock<T, N>* on,
                                                int target, const char* what) {
  if (target < 0 || target >= pe.n) {
    pe.fatal_with([&](detail::Message& m) {
      m.str(what).str(": there is no PE ").num(target).str(" (n_pes() = ").num(pe.n).str(")");
    });
  }
  return on[target];
}

/// A point update over the local box `range` reads (or writes) block `b` at offsets within
/// [lo, hi] per dimension: every access must stay inside the block's owned and halo cells, as
/// the reference build checks.
template <class T, int N, class Pe>
__device__ inline void check_local_reads(const Pe& pe, const SBox<N>& range,
                                         const DBlock<T, N>& b, const int* lo, const int* hi,
                                         const char* what) {
  for (int d = 0; d < N; ++d)
    if (range.hi[d] <= range.lo[d]) return;
  for (int d = 0; d < N; ++d) {
    if (range.lo[d] + lo[d] < -b.halo_lo[d] ||
        range.hi[d] - 1 + hi[d] >= b.extent[d] + b.halo_hi[d]) {
      pe.fatal_with([&](detail::Message& m) {
        m.str(what)
            .str(": local index ")
            .num(range.lo[d] + lo[d])
            .str("..")
            .num(range.hi[d] - 1 + hi[d]);
        m.str(" in dimension ")
            .num(d)
            .str(" is outside the block's cells [")
            .num(-b.halo_lo[d])
            .str(", ");
        m.num(b.extent[d] + b.halo_hi[d]).str(")");
      });
    }
  }
}

/// The block of `group` that runs the program's transfer number `slot`.
__device__ inline bool runs_transfer(const Workers& group, int slot) {
  return group.has_me() && static_cast<int>(blockIdx.x) == group.first + slot % group.count;
}

/// put_signal of an SPMD program, on one block of `group` (see runs_transfer): copies the box
/// [slo, shi) of this PE's block `src` into the box [dlo, dhi) of PE `target`'s copy of the
/// symmetric buffer `dst` refers to now, laid out as that PE lays it out (`dst_on[target]`), then
/// sets `sig` there to `value` after all of the data. Regions outside a block, of different shapes
/// or a PE outside the team are device-side fatal errors (the reference build's checks).
template <class T, int N, class Pe>
__device__ inline void put_signal_region(const Pe& pe, const Workers& group, int slot,
                                         const DBlock<T, N>& dst, const DBlock<T, N>* dst_on,
                                         const int* dlo, const int* dhi, const DBlock<T, N>& src,
                                         const int* slo, const int* shi, std::uint64_t* sig,
                                         std::uint64_t value, int target, const char* what) {
  if (!runs_transfer(group, slot)) return;
  const DBlock<T, N>& remote = layout_on(pe, dst_on, target, what);
  for (int d = 0; d < N; ++d) {
    if (dhi[d] < dlo[d] || dhi[d] - dlo[d] != shi[d] - slo[d]) {
      pe.fatal_with([&](detail::Message& m) {
        m.str(what)
            .str(": put_signal regions differ in shape in dimension ")
            .num(d)
            .str(" ([")
            .num(dlo[d]);
        m.str(", ").num(dhi[d]).str(") and [").num(slo[d]).str(", ").num(shi[d]).str("))");
      });
    }
    if (dlo[d] < -remote.halo_lo[d] || dhi[d] > remote.extent[d] + remote.halo_hi[d] ||
        slo[d] < -src.halo_lo[d] || shi[d] > src.extent[d] + src.halo_hi[d]) {
      pe.fatal_with([&](detail::Message& m) {
        m.str(what)
            .str(": put_signal region outside a block in dimension ")
            .num(d)
            .str(": destination [");
        m.num(dlo[d])
            .str(", ")
            .num(dhi[d])
            .str(") on PE ")
            .num(target)
            .str(", source [")
            .num(slo[d])
            .str(", ");
        m.num(shi[d]).str(") on PE ").num(pe.id);
      });
    }
  }
  // dst's buffer starts at the same symmetric address on every PE; PE `target` lays it out its
  // own way (its slab may be one point thicker or thinner).
  T* dst_sym = dst.data - dst.data_offset() + remote.data_offset();
  const T* from = src.data;
  for (int d = 0; d < N; ++d) {
    dst_sym += dlo[d] * remote.stride[d];
    from += slo[d] * src.stride[d];
  }
  // The program may write the source again after the put_signal: across nodes (NVSHMEM's proxy)
  // the put completes before this returns (complete_source_block); within a node it has.
  if constexpr (N == 1) {
    pe.put_signal_block(dst_sym, from, static_cast<std::size_t>(dhi[0] - dlo[0]), sig, value,
                        target);
    pe.complete_source_block(target);
  } else if constexpr (N == 2) {
    pe.put_signal_block_2d(dst_sym, static_cast<std::size_t>(remote.stride[0]), from,
                           static_cast<std::size_t>(src.stride[0]),
                           static_cast<std::size_t>(dhi[1] - dlo[1]),
                           static_cast<std::size_t>(dhi[0] - dlo[0]), sig, value, target);
    pe.complete_source_block(target);
  } else {
    // Row by row; then, once every thread's rows are out, thread 0 completes them and signals
    // (the pattern of put_signal_block_2d, over two row dimensions).
    const std::size_t width = static_cast<std::size_t>(dhi[2] - dlo[2]);
    if (width > 0) {
      for (int i = 0; i < dhi[0] - dlo[0]; ++i) {
        for (int j = 0; j < dhi[1] - dlo[1]; ++j) {
          pe.put_block(dst_sym + i * remote.stride[0] + j * remote.stride[1],
                       from + i * src.stride[0] + j * src.stride[1], width, target);
        }
      }
    }
    __syncthreads();
    if (thread_rank() == 0) {
      pe.quiet();
      pe.signal_set(sig, value, target);
    }
    __syncthreads();
  }
}

/// signal_wait_until of an SPMD program, on one block of `group` (see runs_transfer): a bounded
/// wait (a diagnostic naming `what` and the PE's exit status 3 after STENCILC_WAIT_TIMEOUT_MS).
/// The phase barrier the passes place before the first reader orders it with the other blocks.
template <class Pe>
__device__ inline void wait_until_on(const Pe& pe, const Workers& group, int slot,
                                     const std::uint64_t* sig, Cmp cmp, std::uint64_t value,
                                     const char* what) {
  if (!runs_transfer(group, slot)) return;
  pe.wait_until(sig, cmp, value, what);
}

/// quiet of an SPMD program, by every thread of the grid: every put this PE's blocks made before
/// it is complete (visible at its target, its source reusable) after it, and it orders the PE's
/// workers like a phase barrier. Each thread fences its own NVLink stores; the leader's quiet
/// completes what went through NVSHMEM's proxy (one quiet, as barrier_all does).
template <class Pe>
__device__ inline void quiet_all(const Pe& pe) {
  __threadfence_system();
  pe.grid_barrier();
  if (is_leader()) pe.quiet();
  pe.grid_barrier();
}

/// stencilc::swap of two blocks: they must have the same layout (the reference build stops
/// otherwise; the passes and puts rely on it).
template <class T, int N, class Pe>
__device__ inline void check_swap(const Pe& pe, const DBlock<T, N>& a, const DBlock<T, N>& b,
                                  const char* what) {
  bool same = a.same_layout(b);
  for (int d = 0; d < N; ++d) same = same && a.global_extent[d] == b.global_extent[d];
  if (!same) {
    pe.fatal_with([&](detail::Message& m) {
      m.str(what).str(
          ": the blocks have different layouts (only blocks of grids with the same shape can be "
          "swapped)");
    });
  }
}

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
