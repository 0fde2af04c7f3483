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
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/p2p_pe.cuh"  // P2PDevicePe, Sym, Control

namespace stencilc::rt::cuda {

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

  // The handle PE `pe`'s kernel gets (`Pe`: the kernel's first parameter, always P2PDevicePe
  // here; NvshmemTeam::device_pe has the same form).
  template <class Pe = P2PDevicePe>
  Pe device_pe(int pe) const {
    static_assert(std::is_same_v<Pe, P2PDevicePe>, "a p2p team's kernels take P2PDevicePe");
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
