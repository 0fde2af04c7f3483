// The NVSHMEM backend's host side: the MPI world (MpiWorld) and one process's part of a team
// (NvshmemTeam): bootstrap, the symmetric heap, collective launch, failure reports across
// processes. Included through nvshmem.cuh.
#pragma once

// The C API of MPI only (OpenMPI's and MPICH's C++ bindings do not compile warning-free).
#if !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <cuda_runtime.h>
#include <mpi.h>
// NVSHMEM's host API only: this header is in both units of an NVSHMEM program (nvshmem.cuh), the
// one built without -rdc too, where no NVSHMEM device declaration (nor its `namespace cg`) is seen.
#include <nvshmem_host.h>
#include <device/nvshmemx_collective_launch_apis.h>  // host functions, NVSHMEM's device library

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"

namespace stencilc::rt::cuda {

struct NvshmemDevicePe;  // nvshmem_pe.cuh: in the unit built with -rdc only

namespace detail {

// Control messages between the processes of a team (on a duplicate of MPI_COMM_WORLD): a PE whose
// kernel failed tells the others, so that their waits stop and report too.
inline constexpr int kFailedTag = 7301;

inline void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  fatal("%s failed: %s", call, text);
}

}  // namespace detail

// The MPI side of the team, usable before NVSHMEM exists: MPI_Init if nobody did, the world, and
// this process's rank among the processes of its node.
class MpiWorld {
 public:
  static MpiWorld& get() {
    static MpiWorld world;
    return world;
  }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  bool initialized_here() const { return initialized_here_; }
  MPI_Comm comm() const { return comm_; }
  MPI_Comm node_comm() const { return node_; }  // the processes of this node

  // Collective: if `ok` is false on any process, every process that saw a problem prints its
  // `message` (prefixed with its rank) and all exit with status 2 after MPI_Finalize: a bad
  // configuration ends every process, never leaves one waiting.
  void check_all(bool ok, const std::string& message) {
    int mine = ok ? 1 : 0, all = 1;
    detail::check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
    if (all == 1) return;
    if (!ok) report_error("PE %d of %d: %s", rank_, size_, message.c_str());
    std::fflush(nullptr);
    MPI_Barrier(comm_);
    MPI_Finalize();
    std::exit(2);
  }

 private:
  MpiWorld() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      detail::check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
      initialized_here_ = true;
    }
    detail::check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    detail::check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_),
                      "MPI_Comm_split_type");
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool initialized_here_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
};

// One process's part of a team: its PE (the MPI rank), its GPU (the node-local rank), NVSHMEM's
// symmetric heap, a stream, the host-mapped error area of its PE. Made once per process (get()):
// NVSHMEM is initialized once and finalized at exit. Symmetric memory allocated for one launch is
// freed by a Scope around it.
class NvshmemTeam {
 public:
  // The process's team; the first call initializes MPI (if needed) and NVSHMEM with a symmetric
  // heap of `heap_bytes` per PE (see heap_size()). Later calls return the same team.
  static NvshmemTeam& get(std::size_t heap_bytes) {
    static std::unique_ptr<NvshmemTeam> team;
    if (!team) team.reset(new NvshmemTeam(heap_bytes));
    return *team;
  }

  // Frees, collectively and in reverse order, what the team allocated since it was made.
  class Scope {
   public:
    explicit Scope(NvshmemTeam& team) : team_(team), mark_(team.allocations_.size()) {}
    ~Scope() { team_.free_since(mark_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    NvshmemTeam& team_;
    std::size_t mark_;
  };

  NvshmemTeam(const NvshmemTeam&) = delete;
  NvshmemTeam& operator=(const NvshmemTeam&) = delete;

  int n() const { return n_; }
  int my_pe() const { return me_; }
  bool holds(int pe) const { return pe == me_; }
  // How far PE `peer`'s symmetric heap lies from this PE's where NVSHMEM maps it into this GPU's
  // address space (nvshmem_ptr), else 0: a PeerRef's delta (`pe` must be my_pe()).
  long long heap_distance(int pe, int peer) const {
    if (pe != me_) fatal("heap_distance(%d, %d): this process holds PE %d only", pe, peer, me_);
    char* const there = mapped_[static_cast<std::size_t>(peer)];
    return there == nullptr ? 0 : there - base_;
  }
  int device() const { return device_; }
  int sm_count() const { return sm_count_; }
  cudaStream_t stream() const { return stream_; }
  long long timeout_ms() const { return timeout_ms_; }
  std::size_t heap_bytes() const { return heap_bytes_; }
  MPI_Comm comm() const { return MpiWorld::get().comm(); }

  // What NVSHMEM_SYMMETRIC_SIZE becomes when the user did not set it: STENCILC_SYM_HEAP_MB if
  // set, else what the program needs (`needed`) plus a quarter and 64 MiB for NVSHMEM's own use,
  // and at least 1 GiB (NVSHMEM's default) so that a later program of the same run fits too.
  static std::size_t heap_size(std::size_t needed) {
    if (const char* text = std::getenv("STENCILC_SYM_HEAP_MB")) {
      long long mib = 0;
      if (!parse_positive(text, 1LL << 24, &mib)) {
        fatal("STENCILC_SYM_HEAP_MB='%s' is not a positive number of MiB", text);
      }
      return static_cast<std::size_t>(mib) << 20;
    }
    std::size_t bytes = needed + needed / 4 + (std::size_t{64} << 20);
    bytes = (bytes + (std::size_t{1} << 20) - 1) & ~((std::size_t{1} << 20) - 1);
    return bytes > (std::size_t{1} << 30) ? bytes : std::size_t{1} << 30;
  }

  // Collective (every process, the same count): `count` elements of symmetric memory, zero-filled.
  // Sym::on(p) is the symmetric address for every p (NVSHMEM's calls take this PE's address).
  template <class T>
  Sym<T> alloc(std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "symmetric memory holds trivially copyable data");
    if (count > (SIZE_MAX - 256) / sizeof(T)) fatal("alloc: %zu elements overflow", count);
    const std::size_t bytes = count * sizeof(T) > 0 ? count * sizeof(T) : 1;
    void* p = nvshmem_malloc(bytes);
    if (p == nullptr) {
      fatal(
          "the symmetric heap of %zu MiB per GPU is full: allocation #%zu of %zu bytes does not fit "
          "(%zu bytes allocated); set STENCILC_SYM_HEAP_MB (or NVSHMEM_SYMMETRIC_SIZE)",
          heap_bytes_ >> 20, allocations_.size(), bytes, allocated_);
    }
    STENCILC_CUDA_CHECK(cudaMemset(p, 0, bytes));
    allocations_.push_back({p, bytes});
    allocated_ += bytes;
    Sym<T> sym;
    sym.count = count;
    sym.offset = base_ != nullptr ? static_cast<std::size_t>(static_cast<char*>(p) - base_) : 0;
    sym.n = n_;
    sym.ptr.assign(1, static_cast<T*>(p));  // the same symmetric address for every PE
    return sym;
  }

  // The handle of this process's PE (`pe` must be my_pe()) for a kernel that takes `Pe`:
  // P2PDevicePe where every peer is mapped (all_direct(): the kernel needs no NVSHMEM call), or
  // NvshmemDevicePe (nvshmem_pe.cuh, the unit built with -rdc), P2PDevicePe's members and
  // whether some peer is reached only through NVSHMEM's proxy.
  template <class Pe = NvshmemDevicePe>
  Pe device_pe(int pe) const {
    if (pe != me_) fatal("device_pe(%d): this process holds PE %d only", pe, me_);
    Pe handle;
    P2PDevicePe& d = handle;
    if constexpr (!std::is_same_v<Pe, P2PDevicePe>) {
      handle.proxied = proxied_;
    } else if (proxied_) {
      fatal("PE %d: a kernel without NVSHMEM's device calls cannot reach every PE (some only "
            "through NVSHMEM's proxy)", me_);
    }
    d.id = me_;
    d.n = n_;
    d.heap = base_;
    d.heap_bytes = heap_bytes_;
    d.heaps = heaps_.on(me_);
    d.timeout_ns = static_cast<unsigned long long>(timeout_ms_) * 1000000ULL;
    d.barrier_sig = barrier_sig_.on(me_);
    d.reduce_slot = reduce_slot_.on(me_);
    d.reduce_sig = reduce_sig_.on(me_);
    d.control = control_.on(me_);
    d.errors = errors_device_;
    d.record = errors_device_->record(0);
    return handle;
  }

  // Host <-> this PE's device memory (synchronous, checked); another PE's memory is not here.
  template <class T>
  void upload(int pe, T* dst, const T* src, std::size_t count) {
    if (pe != me_) fatal("upload to PE %d: this process holds PE %d only", pe, me_);
    STENCILC_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  template <class T>
  void download(int pe, T* dst, const T* src, std::size_t count) {
    if (pe != me_) fatal("download from PE %d: this process holds PE %d only", pe, me_);
    STENCILC_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost));
  }

  // Whether every PE's symmetric memory is reachable from this GPU by loads and stores
  // (nvshmem_ptr gives an address: the PEs of one node over NVLink), on every PE: found once,
  // collectively, when the team starts. The dataflow and register-resident forms need it
  // (compiled::choose_form, FormQuery::direct).
  bool all_direct() const { return !proxied_; }

  // Collective: the least of every process's `value`.
  int min_all(int value) const {
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm()), "MPI_Allreduce");
    return value;
  }

  // The blocks of `kernel` resident at once on this PE's share of its GPU under `config`, as
  // P2PTeam::cooperative_blocks counts them (occupancy, LaunchConfig); 0 if none fits.
  template <class... KArgs>
  int resident_blocks(void (*kernel)(KArgs...), const LaunchConfig& config) {
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
    if (config.blocks_per_sm > 0 && config.blocks_per_sm < per_sm) per_sm = config.blocks_per_sm;
    // PEs sharing a GPU (under CUDA MPS) split what is resident, so all their kernels run at once.
    int blocks = per_sm * sm_count_ / sharers_;
    if (per_sm > 0 && blocks < 1) blocks = 1;
    if (config.max_blocks > 0 && config.max_blocks < blocks) blocks = config.max_blocks;
    return blocks;
  }

  // The grid this GPU gets for `kernel`: resident_blocks, and no more than
  // nvshmemx_collective_launch_query_gridsize allows.
  template <class... KArgs>
  int cooperative_blocks(void (*kernel)(KArgs...), void** args, const LaunchConfig& config) {
    int blocks = resident_blocks(kernel, config);
    int collective = 0;
    const int rc = nvshmemx_collective_launch_query_gridsize(
        reinterpret_cast<const void*>(kernel), dim3(config.block_threads), args, config.dynamic_smem,
        &collective);
    if (rc != 0) fatal("nvshmemx_collective_launch_query_gridsize failed (status %d) on PE %d", rc, me_);
    if (collective < blocks) blocks = collective;
    if (blocks < 1) {
      fatal("the persistent kernel cannot run one block of %d threads with %zu bytes of dynamic "
            "shared memory per SM on GPU %d of PE %d (registers or shared memory)",
            config.block_threads, config.dynamic_smem, device_, me_);
    }
    return blocks;
  }

  // Collective: this PE's kernel, launched with nvshmemx_collective_launch (cooperative, every PE
  // at once), after every PE's uploads and memsets are complete. `args_for(my_pe())` returns the
  // kernel's arguments as a std::tuple. Then synchronize().
  template <class... KArgs, class ArgsFor>
  LaunchResult launch_cooperative(void (*kernel)(KArgs...), ArgsFor&& args_for,
                                  const LaunchConfig& config = LaunchConfig()) {
    using Args = std::tuple<std::decay_t<KArgs>...>;
    Args args(args_for(me_));
    return std::apply(
        [&](auto&... arg) {
          void* pointers[] = {nullptr, static_cast<void*>(&arg)...};
          const int blocks = cooperative_blocks(kernel, pointers + 1, config);
          last_.blocks.assign(static_cast<std::size_t>(n_), 0);
          last_.blocks[me_] = blocks;
          last_.block_threads = config.block_threads;
          // Every PE's symmetric memory is ready (zeroed, uploaded) before any kernel can put
          // into it.
          STENCILC_CUDA_CHECK(cudaDeviceSynchronize());
          detail::check_mpi(MPI_Barrier(comm()), "MPI_Barrier");
          launched_at_ = std::chrono::steady_clock::now();
          const int rc = nvshmemx_collective_launch(reinterpret_cast<const void*>(kernel),
                                                    dim3(blocks), dim3(config.block_threads),
                                                    pointers + 1, config.dynamic_smem, stream_);
          if (rc != 0) {
            fatal("nvshmemx_collective_launch of %d blocks of %d threads failed on PE %d (status %d)",
                  blocks, config.block_threads, me_, rc);
          }
          return synchronize();
        },
        args);
  }

  // Waits for this PE's kernel. Meanwhile it listens for other PEs' failures and raises the abort
  // flag, so that this PE's waits stop and report too. If the kernel trapped or faulted: its
  // record is printed in the host backend's form, the other PEs are told, and the process exits
  // with status 3 (a wait timed out, a GPU faulted) or 2 (a misuse recorded by device code).
  LaunchResult synchronize() {
    using Clock = std::chrono::steady_clock;
    const cudaError_t status = poll(stream_);
    last_.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - launched_at_).count();
    if (status == cudaSuccess && errors_->record(0)->state == 0) return last_;
    report_failure(status);
  }

  // The same for the work on `stream` of this PE's GPU (the host-controlled schedule's, whose
  // waits are bounded on the device: host_controlled_nvshmem.cuh).
  void synchronize(cudaStream_t stream) {
    const cudaError_t status = poll(stream);
    if (status == cudaSuccess && errors_->record(0)->state == 0) return;
    report_failure(status);
  }

  const ErrorArea& errors() const { return *errors_; }

 private:
  explicit NvshmemTeam(std::size_t heap_bytes) : timeout_ms_(wait_timeout_ms()) {
    MpiWorld& world = MpiWorld::get();
    me_ = world.rank();
    n_ = world.size();
    // The GPU: the node-local rank among the visible ones (or the only one, when a launcher
    // script binds each process to its GPU with CUDA_VISIBLE_DEVICES).
    std::string problem = choose_device(world);
    world.check_all(problem.empty(), problem);
    STENCILC_CUDA_CHECK(cudaSetDevice(device_));
    sharers_ = processes_on_my_gpu(world);
    int cooperative = 0;
    STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device_));
    STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_));
    // The heap: NVSHMEM_SYMMETRIC_SIZE is read by nvshmem init; the user's setting wins.
    heap_bytes_ = heap_size(heap_bytes);
    if (const char* size = std::getenv("NVSHMEM_SYMMETRIC_SIZE")) {
      long long bytes = 0;
      heap_bytes_ = parse_positive(size, 1LL << 50, &bytes) ? static_cast<std::size_t>(bytes) : heap_bytes_;
    } else {
      setenv("NVSHMEM_SYMMETRIC_SIZE", std::to_string(heap_bytes_).c_str(), 1);
    }
    // stencilc uses none of NVSHMEM's collectives on the device: NVLink multicast (NVLS) stays off
    // unless asked for (it is a shared resource of the node).
    setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
    std::size_t free_bytes = 0, total_bytes = 0;
    STENCILC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    problem.clear();
    int mps = 0;
    STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device_));
    if (!cooperative) {
      problem = format("GPU %d does not support cooperative launches", device_);
    } else if (sharers_ > 1 && mps == 0) {
      problem = limited_mpg_message();
    } else if (heap_bytes_ > free_bytes) {
      problem = format("the symmetric heap of %zu MiB does not fit the %zu MiB free on GPU %d; set "
                       "STENCILC_SYM_HEAP_MB or use more GPUs",
                       heap_bytes_ >> 20, free_bytes >> 20, device_);
    }
    world.check_all(problem.empty(), problem);
    start_nvshmem(world.comm());
    if (nvshmem_my_pe() != me_ || nvshmem_n_pes() != n_) {
      fatal("NVSHMEM made this process PE %d of %d, MPI rank %d of %d", nvshmem_my_pe(),
            nvshmem_n_pes(), me_, n_);
    }
    // Several PEs on one GPU: NVSHMEM runs them in full only under CUDA MPS (with the PEs of a GPU
    // asking for at most 100% of its threads together); otherwise their processes' kernels take
    // turns on the GPU, and persistent kernels that wait for each other would only time out.
    const bool limited = nvshmemx_init_status() == NVSHMEM_STATUS_LIMITED_MPG;
    if (min_all(limited ? 0 : 1) == 0) nvshmem_finalize();  // any PE limited
    world.check_all(!limited, limited_mpg_message());
    // After CUDA and NVSHMEM: handlers registered later run earlier, before CUDA's teardown.
    std::atexit(&NvshmemTeam::finalize_at_exit);
    STENCILC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    void* area = nullptr;
    STENCILC_CUDA_CHECK(cudaHostAlloc(&area, error_area_bytes(1), cudaHostAllocMapped));
    errors_ = static_cast<ErrorArea*>(area);
    std::memset(errors_, 0, error_area_bytes(1));
    void* mapped = nullptr;
    STENCILC_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, area, 0));
    // One area per process, with the one record of its PE.
    errors_device_ = static_cast<ErrorArea*>(mapped);
    // The collectives' state, the team's first allocations (kept for the life of the process):
    // offsets in diagnostics count from the first.
    control_ = alloc<Control>(1);
    base_ = reinterpret_cast<char*>(control_.on(me_));
    barrier_sig_ = alloc<std::uint64_t>(static_cast<std::size_t>(n_));
    reduce_slot_ = alloc<std::uint64_t>(2 * static_cast<std::size_t>(n_));
    reduce_sig_ = alloc<std::uint64_t>(static_cast<std::size_t>(n_));
    // Every PE's heap as this GPU maps it (NvshmemDevicePe::remote): nvshmem_ptr's answer for
    // the first allocation, null where the peer is reached only through NVSHMEM's proxy.
    heaps_ = alloc<char*>(static_cast<std::size_t>(n_));
    mapped_.resize(static_cast<std::size_t>(n_));
    int direct = 1;
    for (int pe = 0; pe < n_; ++pe) {
      mapped_[pe] = static_cast<char*>(nvshmem_ptr(base_, pe));
      if (mapped_[pe] == nullptr) direct = 0;
    }
    upload(me_, heaps_.on(me_), mapped_.data(), mapped_.size());
    proxied_ = min_all(direct) == 0;
    kept_ = allocations_.size();
    STENCILC_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
  }

  // Sets device_ to this process's GPU; the problem that stops the team, else empty.
  std::string choose_device(const MpiWorld& world) {
    int visible = 0;
    const cudaError_t count_error = cudaGetDeviceCount(&visible);
    const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
    if (count_error != cudaSuccess) return format("no usable GPU (%s)", cudaGetErrorString(count_error));
    if (visible >= world.local_size()) {
      device_ = world.local_rank();
      return {};
    }
    if (visible == 1 && env != nullptr) {
      device_ = 0;
      return {};
    }
    return format(
        "%d processes run on this node but only %d GPU%s visible (CUDA_VISIBLE_DEVICES=%s): the "
        "nvshmem backend runs one process per GPU; start fewer processes per node",
        world.local_size(), visible, visible == 1 ? " is" : "s are", env != nullptr ? env : "unset");
  }

  // NVSHMEM's MPI bootstrap (nvshmem_bootstrap_mpi.so.3 over `comm`), or with
  // STENCILC_NVSHMEM_BOOTSTRAP=uid its unique-id bootstrap (sockets; the id travels by MPI_Bcast),
  // for an MPI the plugin was not built for.
  void start_nvshmem(MPI_Comm comm) {
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    const char* bootstrap = std::getenv("STENCILC_NVSHMEM_BOOTSTRAP");
    if (bootstrap != nullptr && std::strcmp(bootstrap, "uid") == 0) {
      nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
      if (me_ == 0 && nvshmemx_get_uniqueid(&id) != 0) fatal("nvshmemx_get_uniqueid failed");
      detail::check_mpi(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm), "MPI_Bcast");
      nvshmemx_set_attr_uniqueid_args(me_, n_, &id, &attr);
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);  // exits with a message on failure
    } else if (bootstrap == nullptr || std::strcmp(bootstrap, "mpi") == 0) {
      attr.mpi_comm = &comm;
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);  // exits with a message on failure
    } else {
      fatal("STENCILC_NVSHMEM_BOOTSTRAP='%s': expected mpi (the default) or uid", bootstrap);
    }
  }

  // Several PEs on one GPU without CUDA MPS: checked before NVSHMEM starts (the GPU's
  // cudaDevAttrMpsEnabled), and again by NVSHMEM's own finding (NVSHMEM_STATUS_LIMITED_MPG).
  std::string limited_mpg_message() const {
    return format("%d PEs share one GPU without CUDA MPS (NVSHMEM's limited multiple-PEs-per-GPU "
                  "mode): their persistent kernels cannot run at once; start one process per GPU, "
                  "or the MPS control daemon (nvidia-cuda-mps-control -d) with "
                  "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE at most 100 / %d",
                  sharers_, sharers_);
  }

  // The processes of this node whose GPU is this process's (by PCI bus id): 1 unless several
  // processes share a GPU (each seeing only it, CUDA_VISIBLE_DEVICES).
  int processes_on_my_gpu(MpiWorld& world) const {
    constexpr int kIdBytes = 32;
    char mine[kIdBytes] = {};
    STENCILC_CUDA_CHECK(cudaDeviceGetPCIBusId(mine, kIdBytes, device_));
    std::vector<char> all(static_cast<std::size_t>(world.local_size()) * kIdBytes);
    detail::check_mpi(MPI_Allgather(mine, kIdBytes, MPI_CHAR, all.data(), kIdBytes, MPI_CHAR, world.node_comm()),
                      "MPI_Allgather");
    int count = 0;
    for (int p = 0; p < world.local_size(); ++p) {
      count += std::strncmp(mine, &all[static_cast<std::size_t>(p) * kIdBytes], kIdBytes) == 0 ? 1 : 0;
    }
    return count > 0 ? count : 1;
  }

  static void finalize_at_exit() {
    nvshmem_finalize();
    if (MpiWorld::get().initialized_here()) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    }
  }

  void free_since(std::size_t mark) {
    if (mark < kept_) mark = kept_;
    if (allocations_.size() <= mark) return;
    // Nobody may still use the memory: this PE's work is done, and nvshmem_free is collective.
    cudaDeviceSynchronize();
    while (allocations_.size() > mark) {
      nvshmem_free(allocations_.back().first);
      allocated_ -= allocations_.back().second;
      allocations_.pop_back();
    }
  }

  // Waits for `stream`, raising the abort flag if another PE failed meanwhile (so that this PE's
  // waits stop and report too); its status.
  cudaError_t poll(cudaStream_t stream) {
    for (unsigned polls = 0;; ++polls) {
      const cudaError_t status = cudaStreamQuery(stream);
      if (status != cudaErrorNotReady) return status;
      if (polls % 64 == 0 && peer_failed()) *static_cast<volatile int*>(&errors_->abort) = 1;
      if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  // Whether another PE said its kernel failed (non-blocking).
  bool peer_failed() {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, detail::kFailedTag, comm(), &flag, &status);
    if (!flag) return false;
    int kind = 0;
    MPI_Recv(&kind, 1, MPI_INT, status.MPI_SOURCE, detail::kFailedTag, comm(), MPI_STATUS_IGNORE);
    ++failed_peers_;
    return true;
  }

  [[noreturn]] void report_failure(cudaError_t status) {
    // The device wrote the one record of this process's area (DevicePe::record).
    const ErrorRecord& r = *errors_->record(0);
    bool fatal_kind = false;
    if (r.state != 0) {
      char what[sizeof r.what + 1];
      std::memcpy(what, r.what, sizeof r.what);
      what[sizeof r.what] = '\0';
      if (r.kind == static_cast<int>(FailureKind::Fatal)) {
        fatal_kind = true;
        report_error("PE %d of %d (GPU %d, block %d, thread %d): %s", r.pe, r.n, device_, r.block,
                     r.thread, what);
      } else {
        std::string where = format("GPU %d, block %d, thread %d", device_, r.block, r.thread);
        if (r.signal_offset != ~0ULL) {
          where += format(", signal at offset %llu of the symmetric heap", r.signal_offset);
        }
        const bool peer = r.kind == static_cast<int>(FailureKind::PeerFailed);
        if (peer) where += ", stopped after another PE failed";
        report_error("PE %d of %d waited %lld ms for %s: signal is %llu, waiting for %s %llu [%s]",
                     r.pe, r.n, static_cast<long long>(r.waited_ns / 1000000ULL), what, r.current,
                     cmp_symbol(static_cast<Cmp>(r.cmp)), r.value, where.c_str());
        if (!peer) {
          report_error("giving up after STENCILC_WAIT_TIMEOUT_MS=%lld ms: the PEs are deadlocked or "
                       "too slow",
                       timeout_ms_);
        }
      }
    } else {
      report_error("PE %d of %d: the kernel on GPU %d failed: %s (%s)", me_, n_, device_,
                   cudaGetErrorString(status), cudaGetErrorName(status));
    }
    // Tell the others, then give their reports a moment (mpirun ends every process once one has
    // exited with an error). No MPI_Finalize and no CUDA teardown: the GPU may be faulted.
    const int kind = fatal_kind ? 2 : 3;
    std::vector<MPI_Request> sent;
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      sent.emplace_back();
      MPI_Isend(&kind, 1, MPI_INT, p, detail::kFailedTag, comm(), &sent.back());
    }
    const auto start = std::chrono::steady_clock::now();
    while (failed_peers_ < n_ - 1 &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
      if (!peer_failed()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::fflush(nullptr);
    std::_Exit(kind);
  }

  int me_ = 0;
  int n_ = 1;
  int device_ = 0;
  int sm_count_ = 0;
  long long timeout_ms_;
  std::size_t heap_bytes_ = 0;
  std::size_t allocated_ = 0;
  std::size_t kept_ = 0;
  int failed_peers_ = 0;
  int sharers_ = 1;  // processes on this process's GPU
  char* base_ = nullptr;
  cudaStream_t stream_ = nullptr;
  ErrorArea* errors_ = nullptr;
  ErrorArea* errors_device_ = nullptr;
  std::vector<std::pair<void*, std::size_t>> allocations_;
  Sym<Control> control_;
  Sym<std::uint64_t> barrier_sig_, reduce_slot_, reduce_sig_;
  Sym<char*> heaps_;
  std::vector<char*> mapped_;  // nvshmem_ptr(base_, pe) for every PE: heaps_ on the host
  bool proxied_ = true;  // NvshmemDevicePe::proxied
  LaunchResult last_;
  std::chrono::steady_clock::time_point launched_at_{};
};

}  // namespace stencilc::rt::cuda
