// What the CUDA backends of the stencilc device communication runtime share: checked CUDA calls,
// the error record that device code fills before it traps, system-scope signal loads and
// stores, the wall clock of the GPU, and a tiny message formatter for device-side diagnostics.
//
// Host side, this reuses the backend-independent common.hpp (Cmp, ReduceOp, fatal, the wait
// timeout). docs/RUNTIME-CUDA.md describes the whole backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "stencilc/runtime/common.hpp"

// Checks a CUDA runtime call: on failure prints "stencilc: error: FILE:LINE: CALL: message
// (cudaErrorName)" and exits with status 2 (a bad run-time configuration, as in the host backend).
#define STENCILC_CUDA_CHECK(call) \
  ::stencilc::rt::cuda::detail::check_cuda((call), #call, __FILE__, __LINE__)

// The runtime's once-per-step device functions (the exchange's items, the group barrier's
// arrival, the failure reports, the reductions) are not inlined into the persistent kernel:
// inlined, their state competes with the point loops' for registers (ptxas -v: the kernels need
// 108-128 registers and spill at 64, so only 2 blocks of 256 threads fit on an SM). A call is
// not free either: the callee saves the registers it uses that the ABI makes callee-saved (under
// -rdc, which NVSHMEM needs, every call is an ABI call; Nsight Compute on cg2d: 42 registers
// stored and loaded a call of grid_reduce, by every thread). So a call is made only by the
// threads with work in it: an inline test first (a block with no exchange item, a read check that
// holds, a thread other than the one that arrives), and the call's rare or one-thread parts
// (allreduce_leader) out of the all-thread function (fdtd2d 512^2 on 1 H200: 20.3 -> 13.2 us a
// step; with NVSHMEM 38.5 -> 13.3).
#define STENCILC_STEP_FN __noinline__

namespace stencilc::rt::cuda {

namespace detail {

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  fatal("%s:%d: %s: %s (%s)", file, line, call, cudaGetErrorString(err), cudaGetErrorName(err));
}

}  // namespace detail

// ---- The error record ---------------------------------------------------------------------------

// Why a PE stopped. A wait that timed out, a wait abandoned because another PE had failed first
// (so that a deadlock is reported from all sides, as the host backend does), or a misuse of the
// runtime found on the device (an epoch out of order, a block of the wrong layout).
enum class FailureKind : int { None = 0, WaitTimeout = 1, PeerFailed = 2, Fatal = 3 };

// One PE's diagnostic, written by its GPU into host-mapped memory just before __trap(). The
// launcher prints it after the kernels have stopped.
struct ErrorRecord {
  int state;   // 0: empty; 1: complete (written last)
  int kind;    // FailureKind
  int pe, n;   // who
  int block, thread;
  int cmp;     // Cmp of the wait
  int reserved;
  unsigned long long value;          // the value waited for
  unsigned long long current;        // the signal's value when the wait gave up
  unsigned long long waited_ns;      // how long it waited
  unsigned long long signal_offset;  // the signal's offset in the symmetric heap (~0 if outside)
  char what[320];                    // what the wait was for, or the fatal message
};

// The host-mapped area of a team: `abort` is set by the first PE that fails (or by the host when
// a GPU faulted without a record); waiting PEs that see it record their own wait and stop too.
// The records follow it in the same allocation, as many as the team sizes it for
// (error_area_bytes): p2p one per PE, the NVSHMEM backend one for its process's PE.
struct ErrorArea {
  int abort;
  int reserved;

  __host__ __device__ ErrorRecord* record(int i) { return reinterpret_cast<ErrorRecord*>(this + 1) + i; }
  __host__ __device__ const ErrorRecord* record(int i) const {
    return reinterpret_cast<const ErrorRecord*>(this + 1) + i;
  }
};
static_assert(sizeof(ErrorArea) % alignof(ErrorRecord) == 0, "the records follow the area");

// The bytes of an error area with `records` records.
inline std::size_t error_area_bytes(int records) {
  return sizeof(ErrorArea) + sizeof(ErrorRecord) * static_cast<std::size_t>(records);
}

// A peer PE as a loop uses it, resolved once before the loop (P2PDevicePe::peer): its number and
// the byte distance from this PE's symmetric heap to the peer's where the peer's heap is mapped
// into this GPU's address space (p2p: every peer; NVSHMEM: the PEs of one node), 0 for a peer
// NVSHMEM reaches only through its proxy (a mapped peer other than this PE is never at 0). The
// members that take one (remote, signal_set, pack_target, deliver_signal_block) then cost what a
// fixed table in the kernel parameter cost, with no table a step.
struct PeerRef {
  int pe = 0;
  long long delta = 0;
};

// ---- Device primitives --------------------------------------------------------------------------

// Whose writes a wait must see: this GPU's blocks only (gpu) or any GPU's and the host's (sys).
enum class MemScope { gpu, sys };

#if defined(__CUDACC__)

namespace detail {

// ld.acquire.sys: sees every write that happened before the release store that wrote the value,
// on any GPU or the host.
__device__ __forceinline__ std::uint64_t load_acquire_sys(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// st.release.sys: every earlier memory access of this thread (and, cumulatively, whatever it
// has observed, e.g. through __syncthreads) is visible before the value.
__device__ __forceinline__ void store_release_sys(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// The same at GPU scope: for flags written and read by blocks of one GPU only.
__device__ __forceinline__ std::uint64_t load_acquire_gpu(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_gpu(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Relaxed loads, for polls: strong (never a stale copy in the SM's L1) but, unlike an acquire,
// without invalidating that L1 at every poll under the feet of the other blocks computing on the
// SM. A poll that sees its value reads the word once more with an acquire (a value at least as
// new: one invalidation a wait).
__device__ __forceinline__ std::uint64_t load_relaxed_sys(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ std::uint64_t load_relaxed_gpu(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

template <MemScope S>
__device__ __forceinline__ std::uint64_t load_acquire(const std::uint64_t* p) {
  return S == MemScope::sys ? load_acquire_sys(p) : load_acquire_gpu(p);
}
template <MemScope S>
__device__ __forceinline__ std::uint64_t load_relaxed(const std::uint64_t* p) {
  return S == MemScope::sys ? load_relaxed_sys(p) : load_relaxed_gpu(p);
}

// A short poll of a flag that only grows: true once it is at least `v` (read then with an
// acquire at scope S), false after `spins` relaxed polls (the first 32 back to back, then
// `sleep_ns` apart), for the caller's bounded wait to take over.
template <MemScope S>
__device__ __forceinline__ bool poll_at_least(const std::uint64_t* p, std::uint64_t v, int spins,
                                              unsigned sleep_ns) {
  if (load_acquire<S>(p) >= v) return true;
  for (int spin = 0; spin < spins; ++spin) {
    if (load_relaxed<S>(p) >= v) {
      load_acquire<S>(p);
      return true;
    }
    if (spin >= 32 && sleep_ns > 0) __nanosleep(sleep_ns);
  }
  return false;
}

// A bounded string builder for the (cold) failure paths: device code cannot printf into the
// host's stderr after a trap, so messages are assembled here and copied into the error record.
struct Message {
  char text[320];
  int length = 0;

  __device__ Message& str(const char* s) {
    if (s == nullptr) s = "(null)";
    while (*s != '\0' && length < static_cast<int>(sizeof text) - 1) text[length++] = *s++;
    text[length] = '\0';
    return *this;
  }
  __device__ Message& num(long long v) {
    char digits[24];
    int count = 0;
    unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v)
                                 : static_cast<unsigned long long>(v);
    do {
      digits[count++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0 && length < static_cast<int>(sizeof text) - 1) text[length++] = '-';
    while (count > 0 && length < static_cast<int>(sizeof text) - 1) text[length++] = digits[--count];
    text[length] = '\0';
    return *this;
  }
  // "(+1, 0, -1)", as the host backend prints directions.
  __device__ Message& dir(const int* d, int n) {
    str("(");
    for (int i = 0; i < n; ++i) {
      if (i > 0) str(", ");
      str(d[i] > 0 ? "+1" : d[i] < 0 ? "-1" : "0");
    }
    return str(")");
  }
};

}  // namespace detail

// Public device helpers (generated code uses them too).
// Nanoseconds of the GPU's global timer (wall time, the same clock on every SM).
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ int thread_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ __forceinline__ int block_threads() {
  return static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}
__device__ __forceinline__ int block_rank() {
  return static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
}
__device__ __forceinline__ int grid_blocks() {
  return static_cast<int>(gridDim.x * gridDim.y * gridDim.z);
}
// Thread 0 of block 0: the thread that runs the cross-GPU part of barrier_all and allreduce.
__device__ __forceinline__ bool is_leader() { return block_rank() == 0 && thread_rank() == 0; }

#endif  // __CUDACC__

/// Division of 32-bit numbers below 2^31 by a divisor fixed at run time, without a divide
/// instruction: q = (umulhi(n, m) + n) >> s with s = ceil(log2 d) and m = 2^32 (2^s - d) / d + 1
/// (the round-up method of Granlund and Montgomery). A point loop splits its flat index into
/// coordinates with it (a multiply-high, an add and a shift per dimension), as does the halo
/// exchange's packing.
struct FastDiv {
  unsigned d = 1, m = 1, s = 0;

  FastDiv() = default;  // division by 1
  __host__ __device__ explicit FastDiv(unsigned divisor) : d(divisor > 0 ? divisor : 1) {
    while (s < 31 && (1u << s) < d) ++s;
    m = static_cast<unsigned>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << s) - d)) / d + 1);
  }
  // n / d for n < 2^31 (on the host the same arithmetic in 64 bits, for host-run tests).
  __host__ __device__ unsigned div(unsigned n) const {
#if defined(__CUDA_ARCH__)
    return (__umulhi(n, m) + n) >> s;
#else
    return (static_cast<unsigned>((static_cast<std::uint64_t>(n) * m) >> 32) + n) >> s;
#endif
  }
};

}  // namespace stencilc::rt::cuda
