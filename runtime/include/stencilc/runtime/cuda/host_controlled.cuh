// The host-controlled schedule on the GPUs: the classic multi-GPU code that
// stencilc generates as a baseline for the CPU-free one (`--schedule=host-controlled`,
// docs/SCHEDULES.md). The host runs the program's control flow; each point update is a kernel
// launch per GPU, which stores the faces it writes straight into the neighbours' halos over
// NVLink (store-faces; a halo exchange is a push kernel per GPU only where they did not:
// host_controlled_faces.cuh has the faces), and each reduction a kernel per GPU whose last block leaves
// the GPU's result in pinned host memory, combined on the host in PE order.
//
// Who issues what. The launcher's thread runs the program's statements and, for each GPU, appends
// the CUDA work of a statement to that GPU's command queue; a worker thread per GPU takes the
// commands in order and issues them on the GPU's one stream. The launcher's thread thus costs a
// queue append per statement and GPU, and the GPUs' launch costs (a few microseconds each) are
// paid in parallel, by one thread each, rather than one after the other. The launcher's thread
// waits for the GPUs only where it reads a value they computed (an allreduce) and at the end.
//
// How the GPUs are ordered. Within a GPU, stream order. Across GPUs only halo exchanges touch
// another GPU's memory, and they are ordered by events, with cudaStreamWaitEvent on a
// neighbour's event (the host never waits):
//   send:  each GPU's stream waits, for every neighbour it sends to, for the event recorded after
//          the last launch there that read the halo it is about to overwrite (write after read;
//          every launch that reads halos records one, where another GPU pushes to it), runs
//          push_faces (its owned face cells into their halos, its own where a periodic dimension
//          wraps onto itself) and records `pushed`;
//   recv:  each GPU's stream waits for the `pushed` of every neighbour that sends to it (read
//          after write). The sender reads only its own cells, so nothing else needs waiting for.
// With two buffers swapped each step, the halo a push overwrites was last read two steps before,
// so the only wait on a step's critical path is the receiver's for the pushes. A wait that an
// earlier wait of the same stream covers (a later mark of the same PE: Control::covered) is left
// out.
// Store-through (the store-faces pass marks the point updates, `through(%g)`): such an update's
// kernel stores each face cell it writes into the neighbours' halos as well (store_through), so
// one launch does the update and the exchange. Its GPU's stream waits before it as a push would
// (HaloCopies::storing), and records after it the mark the receivers wait for (stored). Each
// buffer remembers whether the neighbours' copies of its faces are current (Control::faces_of):
// after a full push they are, stores through keep them so, any other write of it (written)
// makes them stale. A send of a current buffer moves nothing; the first send of each buffer,
// and any after another write, pushes every face, which also covers the face cells no update
// writes (a fixed boundary's). An event is
// recorded by one worker and waited for by another; Control::record and Control::wait make the
// wait see the right recording (see Control).
// The nvshmem backend (host_controlled_nvshmem.cuh) runs the same commands with a process per
// GPU: every process keeps every PE's marks, its own PE's commands run, and a mark is a signal
// the recording GPU sets on the PEs that wait for it (Link): the same order, across processes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/generated.cuh"
#include "stencilc/runtime/cuda/host_controlled_faces.cuh"
#include "stencilc/runtime/cuda/host_controlled_link.cuh"
#include "stencilc/runtime/cuda/host_controlled_queue.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
#include "stencilc/runtime/decomposition.hpp"

namespace stencilc::rt::cuda::hc {

// What one point-update kernel covers: a box of the block in local indices, and the block's
// origin (global index of local 0), from which the kernel computes the global indices.
template <int N>
struct LaunchBox {
  int lo[N];
  int hi[N];
  int origin[N];
};

template <int N, class T, int M>
LaunchBox<N> launch_box(const SBox<N>& local, const DBlock<T, M>& layout) {
  static_assert(N == M, "a range has the grid's rank");
  LaunchBox<N> b;
  for (int d = 0; d < N; ++d) {
    b.lo[d] = local.lo[d];
    b.hi[d] = local.hi[d];
    b.origin[d] = layout.origin[d];
  }
  return b;
}

template <int N>
bool empty(const SBox<N>& b) {
  for (int d = 0; d < N; ++d)
    if (b.hi[d] <= b.lo[d]) return true;
  return false;
}

// How a point kernel's threads walk its box (the kernels HostControlledEmitter writes). The last
// dimension runs along x in chunks of kChunk<N> = kLanes<N> x kPoints<N> cells: lane t takes the
// chunk's cells t, t + kLanes, ..., t + (kPoints - 1) kLanes, so a warp's lanes load and store
// consecutive cells (coalesced) and a thread's points share their address arithmetic (each read
// a constant offset from the thread's first cell); x-block b takes chunks b, b + gridDim.x, ....
// The dimension before the last runs along y and the first of three along z, a row a thread,
// grid-stride. A chunk's cells past the box's end are skipped, so every cell of the box is one
// thread's point exactly once (tests/runtime/host_controlled_walk.cu). Chunks are counted, not
// cells, so that no index passes the box's end: nothing overflows however close it is to 2^31.
template <int N>
inline constexpr int kLanes = N == 1 ? 256 : 32;
// Four points a thread: enough to amortise a point's index and address arithmetic over them (at
// one point a thread the kernels were issue-bound: ~110 instructions a point, jacobi2d 4096^2),
// few enough that a 2-D block still covers only 128 x 8 cells (not tuned on a GPU yet).
template <int N>
inline constexpr int kPoints = 4;
template <int N>
inline constexpr int kChunk = kLanes<N> * kPoints<N>;

// The chunks of a row of `cells` cells.
template <int N>
__host__ __device__ constexpr int chunks(int cells) {
  return cells <= 0 ? 0 : cells / kChunk<N> + (cells % kChunk<N> != 0 ? 1 : 0);
}

// The launch shape of a point update over `box`: 256 threads per block, the last dimension
// along x (kLanes<N> threads, a chunk of cells: the walk above), the one before along y, the
// first of three along z. Kernels loop grid-stride in every dimension, so the grid may be capped:
// y and z at 65535 (the hardware limit), and the whole grid at kReduceBlocks for reductions
// (their partials).
template <int N>
void launch_shape(const SBox<N>& box, bool reduction, dim3* grid, dim3* block) {
  *block = N == 1 ? dim3(kLanes<1>) : N == 2 ? dim3(kLanes<2>, 8) : dim3(kLanes<3>, 4, 2);
  const unsigned threads[3] = {kChunk<N>, block->y, block->z};  // the cells a block covers
  unsigned blocks[3] = {1, 1, 1};
  for (int k = 0; k < N; ++k) {
    const int d = N - 1 - k;  // x: the last dimension
    const long long extent = box.hi[d] - box.lo[d];
    const long long needed = (extent + threads[k] - 1) / threads[k];
    const long long cap = k == 0 ? 0x7fffffffLL : 65535;
    blocks[k] = static_cast<unsigned>(needed < cap ? needed : cap);
  }
  if (reduction) {
    while (static_cast<long long>(blocks[0]) * blocks[1] * blocks[2] > kReduceBlocks) {
      unsigned* largest = std::max_element(blocks, blocks + 3);
      *largest = (*largest + 1) / 2;
    }
  }
  *grid = dim3(blocks[0], blocks[1], blocks[2]);
}

#if defined(__CUDACC__)

// Where one reduction kernel's thread blocks leave their partial results, and where its last
// block puts the GPU's result.
template <class T>
struct ReduceSlot {
  T* partials;        // one per thread block (kReduceBlocks)
  unsigned* arrived;  // thread blocks done so far; the last one resets it
  T* result;          // pinned host memory, mapped
  ReduceOp op;
  T identity;
};

// The end of a reduction kernel: every thread's value combined over the thread block (warps,
// then shared memory, in a fixed order) into partials[block]; the last block to finish combines
// the partials in block order (256 threads strided, then thread by thread: the same order at any
// timing) and writes the result. Thread blocks have 256 threads (launch_shape).
template <class T>
__device__ inline void block_partial(T value, const ReduceSlot<T>& slot) {
  __shared__ T warp_partials[32];
  __shared__ T strided[256];
  __shared__ bool last;
  const int rank = thread_rank();
  const int lane = rank % 32, warp = rank / 32;
  for (int offset = 16; offset > 0; offset /= 2)
    value = combine(value, __shfl_down_sync(0xffffffffu, value, offset), slot.op);
  if (lane == 0) warp_partials[warp] = value;
  __syncthreads();
  const int blocks = grid_blocks();
  if (rank == 0) {
    T total = warp_partials[0];
    for (int w = 1; w < (block_threads() + 31) / 32; ++w)
      total = combine(total, warp_partials[w], slot.op);
    slot.partials[block_rank()] = total;
    __threadfence();  // the partial is visible before the count says so
    last = atomicAdd(slot.arrived, 1u) == static_cast<unsigned>(blocks - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  T mine = slot.identity;
  const volatile T* partials = slot.partials;  // written by other blocks: not from L1
  for (int i = rank; i < blocks; i += block_threads()) mine = combine(mine, T(partials[i]), slot.op);
  strided[rank] = mine;
  __syncthreads();
  if (rank == 0) {
    T total = strided[0];
    for (int t = 1; t < block_threads(); ++t) total = combine(total, strided[t], slot.op);
    *slot.result = total;
    *slot.arrived = 0;
  }
}

// The result of a reduction over nothing (a GPU whose block the range misses).
template <class T>
__global__ void store_identity(T* result, T identity) {
  *result = identity;
}

#endif  // __CUDACC__

// The run's streams, worker threads and events, and what the reductions need. The team owns the
// devices and the symmetric heap the blocks live in; the Link (host_controlled_link.cuh) says
// which PEs this process drives (p2p: all; nvshmem: its own) and how marks cross GPUs. Every
// process keeps the bookkeeping of every PE (marks, covered waits, queue positions) the same way,
// from the same statements, so that their marks agree; only a held PE's commands run.
//
// Cross-GPU events. A mark is one point of the program at which some GPUs record an event that
// other GPUs' streams wait for; marks are numbered in program order (the launcher's thread makes
// them), and mark m of PE p is event ring_[p][m % kRing]. Since the workers run ahead of each
// other, two rules make every wait see the recording it means:
//   - a worker waits for mark m of PE p only once p's worker has recorded it (recorded_[p] >= m);
//   - p's worker records mark m into a ring slot only once every command that waits for mark
//     m - kRing (the slot's previous use) has run: the launcher's thread notes each waiting
//     command's queue position (note_wait) and hands the record those positions (Mark::reuse).
// Every such wait is for a command the launcher's thread appended earlier than the waiting one,
// to another queue, so the workers cannot wait for each other in a cycle; and the streams wait
// only for events already recorded, so the GPUs cannot either.
class Control {
 public:
  // A mark, as its recording needs it: its number, and per PE the position of the last command
  // that waits for the slot's previous mark (-1: none).
  struct Mark {
    long long id;
    std::vector<long long> reuse;  // per PE
  };

  // `reductions`: the program's reduce statements (each has its own result slot per GPU).
  template <class Team>
  Control(Team& team, int reductions) : Control(host_controlled_link(team), reductions) {}

  Control(std::unique_ptr<Link> link, int reductions)
      : link_(std::move(link)), n_(link_->n()), reductions_(reductions),
        stream_(static_cast<std::size_t>(n_), nullptr),
        ring_(static_cast<std::size_t>(n_), std::vector<cudaEvent_t>(kRing, nullptr)),
        recorded_(std::make_unique<std::atomic<long long>[]>(static_cast<std::size_t>(n_))),
        wait_pos_(kRing, std::vector<long long>(static_cast<std::size_t>(n_), -1)),
        receives_(static_cast<std::size_t>(n_), false),
        last_read_(static_cast<std::size_t>(n_)),
        tail_mark_(static_cast<std::size_t>(n_), {-1, -1}),
        waited_(n_),
        queue_(std::make_unique<detail::CommandQueue[]>(static_cast<std::size_t>(n_))),
        skipped_(static_cast<std::size_t>(n_), 0),
        consumers_(static_cast<std::size_t>(n_)),
        workers_(static_cast<std::size_t>(n_)) {
    for (int pe = 0; pe < n_; ++pe) {
      recorded_[pe].store(-1, std::memory_order_relaxed);
      if (!holds(pe)) continue;
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_[pe], cudaStreamNonBlocking));
      if (link_->signals()) continue;
      for (int k = 0; k < kRing; ++k)
        STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&ring_[pe][k], cudaEventDisableTiming));
    }
    const int slots = (reductions_ > 0 ? reductions_ : 1) * n_;
    void* pinned = nullptr;
    STENCILC_CUDA_CHECK(cudaHostAlloc(&pinned, sizeof(std::uint64_t) * slots,
                                      cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(pinned, 0, sizeof(std::uint64_t) * slots);
    results_ = static_cast<std::uint64_t*>(pinned);
    void* mapped = nullptr;
    STENCILC_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, pinned, 0));
    results_device_ = static_cast<std::uint64_t*>(mapped);
    for (int pe = 0; pe < n_; ++pe) {
      if (!holds(pe)) continue;
      rt::detail::live_pe_threads().fetch_add(1, std::memory_order_acq_rel);  // fatal: _Exit
      workers_[pe] = std::thread([this, pe] { work(pe); });
    }
  }

  ~Control() {
    stop_.store(true, std::memory_order_release);
    for (int pe = 0; pe < n_; ++pe) {
      if (!holds(pe)) continue;
      workers_[pe].join();
      rt::detail::live_pe_threads().fetch_sub(1, std::memory_order_acq_rel);
    }
    for (int pe = 0; pe < n_; ++pe) {
      if (!holds(pe) || cudaSetDevice(device(pe)) != cudaSuccess) continue;
      for (int k = 0; k < kRing; ++k)
        if (ring_[pe][k] != nullptr) cudaEventDestroy(ring_[pe][k]);
      cudaStreamDestroy(stream_[pe]);
    }
    cudaFreeHost(results_);
  }

  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  int n() const { return n_; }
  bool holds(int pe) const { return link_->holds(pe); }  // whether this process drives PE pe
  int device(int pe) const { return link_->device(pe); }  // the GPU PE pe runs on (a held one)

  // PE `pe` waits for marks of PE `other` or records marks `other` waits for (a halo exchange
  // between them): where marks are signals, pe's go to `other`.
  void link(int pe, int other) {
    std::vector<int>& to = consumers_[static_cast<std::size_t>(pe)];
    if (std::find(to.begin(), to.end(), other) == to.end()) to.push_back(other);
  }

  // Waits for the uploads (synchronous copies and memsets on the legacy stream, which the
  // non-blocking streams do not wait for) and starts the clock.
  void start() {
    for (int pe = 0; pe < n_; ++pe) {
      if (!holds(pe)) continue;
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaDeviceSynchronize());
    }
    started_ = std::chrono::steady_clock::now();
  }

  // Appends a command to PE pe's queue: `command(stream)` issues CUDA work on the PE's stream
  // (its worker thread has made the PE's GPU current). Returns the command's position. A PE
  // another process holds counts the command and drops it.
  template <class Command>
  long long enqueue(int pe, Command&& command) {
    if (!holds(pe)) return skipped_[static_cast<std::size_t>(pe)]++;
    return queue_[pe].push(
        [command = std::forward<Command>(command), stream = stream_[pe]]() mutable {
          command(stream);
        });
  }

  // Launches a point-update kernel of `pe` over `local`, unless the box is empty:
  // kernel(grid, block, stream, box) does the <<<...>>> (its arguments captured by value).
  // `halo_reads`: the blocks (their data) whose halos the kernel reads (see read_mark).
  template <int N, class T, class Kernel>
  void launch(int pe, const SBox<N>& local, const DBlock<T, N>& layout,
              std::initializer_list<const void*> halo_reads, Kernel&& kernel) {
    if (empty(local)) return;
    dim3 grid, block;
    launch_shape(local, false, &grid, &block);
    const Mark read = read_mark(pe, halo_reads);
    const long long at = enqueue(pe, [this, pe, kernel = std::forward<Kernel>(kernel), grid,
                                      block, box = launch_box(local, layout),
                                      read](cudaStream_t stream) mutable {
      kernel(grid, block, stream, box);
      STENCILC_CUDA_CHECK(cudaGetLastError());
      if (read.id >= 0) record(pe, read);
    });
    if (read.id >= 0) tail_mark_[static_cast<std::size_t>(pe)] = {at, read.id};
  }

#if defined(__CUDACC__)
  // Reduction number `id` of `pe` over `local`: kernel(grid, block, stream, box, slot) runs the
  // reduction kernel, whose last thread block leaves the GPU's result in pinned host memory
  // (see allreduce).
  template <class V, int N, class T, class Kernel>
  void reduce(int pe, int id, const SBox<N>& local, const DBlock<T, N>& layout, ReduceOp op,
              V identity, std::initializer_list<const void*> halo_reads, Kernel&& kernel) {
    static_assert(sizeof(V) <= sizeof(std::uint64_t), "scalars of at most 8 bytes");
    ReduceSlot<V> slot{};
    if (holds(pe)) {
      slot.partials = reinterpret_cast<V*>(link_->scratch(pe));
      slot.arrived = reinterpret_cast<unsigned*>(link_->scratch(pe) + kReduceBlocks);
    }
    slot.result = reinterpret_cast<V*>(results_device_ + result_index(id, pe));
    slot.op = op;
    slot.identity = identity;
    if (empty(local)) {
      enqueue(pe, [slot](cudaStream_t stream) {
        store_identity<V><<<1, 1, 0, stream>>>(slot.result, slot.identity);
        STENCILC_CUDA_CHECK(cudaGetLastError());
      });
      return;
    }
    dim3 grid, block;
    launch_shape(local, true, &grid, &block);
    const Mark read = read_mark(pe, halo_reads);
    const long long at = enqueue(pe, [this, pe, kernel = std::forward<Kernel>(kernel), grid,
                                      block, box = launch_box(local, layout), slot,
                                      read](cudaStream_t stream) mutable {
      kernel(grid, block, stream, box, slot);
      STENCILC_CUDA_CHECK(cudaGetLastError());
      if (read.id >= 0) record(pe, read);
    });
    if (read.id >= 0) tail_mark_[static_cast<std::size_t>(pe)] = {at, read.id};
  }
#endif  // __CUDACC__

  // The results of reduction `id` on every GPU, combined in PE order (so that the result does
  // not depend on which GPU finished first): the host waits for every GPU's work so far.
  template <class V>
  V allreduce(ReduceOp op, int id) {
    wait_all();
    link_->gather(&results_[result_index(id, 0)]);
    V total{};
    for (int pe = 0; pe < n_; ++pe) {
      V next;
      std::memcpy(&next, &results_[result_index(id, pe)], sizeof(V));
      total = pe == 0 ? next : combine(total, next, op);
    }
    return total;
  }

  // Waits for every GPU's work; returns the wall time since start() in ms.
  double finish() {
    wait_all();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_)
        .count();
  }

  // ---- Cross-GPU events (the launcher's thread makes marks and notes waits; the workers
  // ---- record and wait, inside commands) -----------------------------------------------------

  Mark new_mark() {
    Mark m;
    m.id = marks_++;
    std::vector<long long>& previous = wait_pos_[static_cast<std::size_t>(m.id % kRing)];
    m.reuse.assign(static_cast<std::size_t>(n_), -1);
    for (int pe = 0; pe < n_; ++pe) {
      m.reuse[pe] = previous[pe];
      previous[pe] = -1;
    }
    return m;
  }

  // PE `pe` receives halos from other GPUs (HaloCopies says so): its halo reads are marked.
  void receives(int pe) { receives_[pe] = true; }

  // A buffer's faces as its exchanges see them (HaloCopies): whether the neighbours' halo copies
  // hold every face cell's current value (a full push, then only stores through since), and the
  // mark their reads wait for (after the last push or update that stored into them; -1: none).
  struct BufferFaces {
    bool current = false;
    long long mark = -1;
  };

  // The faces' state of the buffer whose block on PE 0 is `data` (no other buffer's is).
  BufferFaces& faces_of(const void* data) { return buffer_faces_[data]; }

  // The mark a push into the halo of PE pe's block `data` must wait for (write after read): the
  // last launch on pe that read that halo, or -1 where none did. A mark old enough for its event
  // to be reused soon is replaced by a fresh one, recorded now on pe's stream (after that read,
  // in stream order): fresh() appends its record, and the caller appends the waits after it.
  long long halo_free(int pe, const void* data) {
    for (const auto& [block, mark] : last_read_[pe]) {
      if (block != data) continue;
      if (!stale(mark)) return mark;
      std::vector<char> on(static_cast<std::size_t>(n_), 0);
      on[static_cast<std::size_t>(pe)] = 1;
      const long long fresh = fresh_mark(on);
      set_last_read(pe, data, fresh);
      return fresh;
    }
    return -1;
  }

  // Whether a wait noted now for `mark` could find its event reused before a few more marks:
  // then a fresh mark takes its place.
  bool stale(long long mark) const { return marks_ - mark + n_ + 2 >= kRing; }

  // The mark that every PE of `on` records with the command last in its queue (a launch's read
  // mark), or -1 where one does not: a mark wanted at that point of those streams can be that
  // one (one event a step where an update's read mark and its faces' mark meet).
  long long tail_mark(const std::vector<char>& on) const {
    long long mark = -1;
    for (int pe = 0; pe < n_; ++pe) {
      if (!on[static_cast<std::size_t>(pe)]) continue;
      const auto& [at, id] = tail_mark_[static_cast<std::size_t>(pe)];
      if (at != next(pe) - 1 || (mark >= 0 && id != mark)) return -1;
      mark = id;
    }
    return mark;
  }

  // A new mark, recorded now on the stream of every PE in `on`; returns its number.
  long long fresh_mark(const std::vector<char>& on) {
    const Mark m = new_mark();
    for (int pe = 0; pe < n_; ++pe) {
      if (on[static_cast<std::size_t>(pe)]) enqueue(pe, [this, pe, m](cudaStream_t) { record(pe, m); });
    }
    return m.id;
  }

  // Whether `waiter`'s stream already waits, earlier in its order, for mark `mark` of PE
  // `producer` or a later one (a PE records its marks in increasing order, so a later mark
  // covers it: the wait is left out); if not, the wait about to be appended is remembered.
  // In a step of a store-through update this leaves out the write-after-read wait for the
  // neighbour's read of two steps before, which its mark after the last step covers.
  bool covered(int waiter, int producer, long long mark) { return waited_.covered(waiter, producer, mark); }

  // The next command appended to `waiter`'s queue waits for mark `mark` (of some PE).
  void note_wait(int waiter, long long mark) {
    if (marks_ - mark >= kRing) {
      fatal("host-controlled schedule: %lld halo exchanges between a send and its receive (at "
            "most %d)",
            (marks_ - mark) / 2, kRing / 2);
    }
    long long& at = wait_pos_[static_cast<std::size_t>(mark % kRing)][static_cast<std::size_t>(waiter)];
    at = std::max(at, next(waiter));
  }

  // Worker of `pe`: records mark m on its stream.
  void record(int pe, const Mark& m) {
    if (link_->signals()) {
      link_->signal(pe, m.id, consumers_[static_cast<std::size_t>(pe)], stream_[pe]);
      return;
    }
    unsigned spins = 0;
    for (int c = 0; c < n_; ++c) {
      const long long reuse = m.reuse.empty() ? -1 : m.reuse[static_cast<std::size_t>(c)];
      while (reuse >= 0 && !queue_[c].ran(reuse)) detail::relax(spins);
    }
    STENCILC_CUDA_CHECK(cudaEventRecord(ring_[pe][m.id % kRing], stream_[pe]));
    recorded_[pe].store(m.id, std::memory_order_release);
  }

  // Worker of `pe`: its stream waits for every mark of `on`.
  void wait(int pe, const std::vector<MarkWait>& on) {
    if (on.empty()) return;
    if (link_->signals()) {
      link_->wait(pe, on, stream_[pe]);
      return;
    }
    for (const MarkWait& w : on) {
      unsigned spins = 0;
      while (recorded_[w.pe].load(std::memory_order_acquire) < w.mark) detail::relax(spins);
      STENCILC_CUDA_CHECK(cudaStreamWaitEvent(stream_[pe], ring_[w.pe][w.mark % kRing], 0));
    }
  }

 private:
  static constexpr int kRing = 64;  // events per PE for marks

  // A launch on pe that reads the halos of `halo_reads`: the mark its command records after the
  // kernel (id -1: none, where no other GPU pushes into pe's halos). The launches of one
  // statement on PE 0, 1, ... share one mark (each PE records its own event), so that the ring
  // turns over per statement, not per launch.
  Mark read_mark(int pe, std::initializer_list<const void*> halo_reads) {
    if (!receives_[pe] || halo_reads.size() == 0) return Mark{-1, {}};
    const bool same_statement = pe > statement_pe_ && marks_ == statement_mark_.id + 1;
    if (!same_statement) statement_mark_ = new_mark();
    statement_pe_ = pe;
    for (const void* data : halo_reads) set_last_read(pe, data, statement_mark_.id);
    return statement_mark_;
  }

  void set_last_read(int pe, const void* data, long long mark) {
    for (auto& [block, last] : last_read_[pe]) {
      if (block == data) {
        last = mark;
        return;
      }
    }
    last_read_[pe].push_back({data, mark});
  }

  // The position the next command of PE pe's queue will have (dropped ones counted).
  long long next(int pe) const {
    return holds(pe) ? queue_[pe].next() : skipped_[static_cast<std::size_t>(pe)];
  }

  std::size_t result_index(int id, int pe) const {
    if (id < 0 || id >= reductions_) fatal("host-controlled schedule: reduction %d of %d", id, reductions_);
    return static_cast<std::size_t>(id) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(pe);
  }

  void work(int pe) {
    STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
    unsigned spins = 0;
    for (;;) {
      if (queue_[pe].run_next()) {
        spins = 0;
        continue;
      }
      if (stop_.load(std::memory_order_acquire) && queue_[pe].drained()) return;
      detail::relax(spins);
    }
  }

  // Every command appended so far has run, and every GPU has done the work they issued.
  void wait_all() {
    for (int pe = 0; pe < n_; ++pe) {
      unsigned spins = 0;
      while (holds(pe) && !queue_[pe].drained()) detail::relax(spins);
    }
    for (int pe = 0; pe < n_; ++pe) {
      if (!holds(pe)) continue;
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      link_->synchronize(pe, stream_[pe]);
    }
  }

  std::unique_ptr<Link> link_;  // its team outlives the Control (declared before it)
  int n_;
  int reductions_;
  // Per PE (sized in the constructor): its stream, its ring of events, the last mark it recorded,
  // whether other GPUs push into its halos, its halos' last read marks (block -> mark), its
  // command queue and worker; per ring slot and PE, the last command waiting for the slot's mark.
  std::vector<cudaStream_t> stream_;
  std::vector<std::vector<cudaEvent_t>> ring_;
  std::unique_ptr<std::atomic<long long>[]> recorded_;
  std::vector<std::vector<long long>> wait_pos_;
  long long marks_ = 0;
  std::vector<bool> receives_;
  Mark statement_mark_{-1, {}};  // read_mark's last mark, and the PE it was last used for
  int statement_pe_ = std::numeric_limits<int>::max();
  std::vector<std::vector<std::pair<const void*, long long>>> last_read_;
  // Per PE: {queue position, mark} of its last launch's read mark (tail_mark).
  std::vector<std::pair<long long, long long>> tail_mark_;
  detail::WaitCover waited_;
  std::map<const void*, BufferFaces> buffer_faces_;  // per buffer (faces_of)
  std::unique_ptr<detail::CommandQueue[]> queue_;
  std::vector<long long> skipped_;           // per PE another process holds: its commands so far
  std::vector<std::vector<int>> consumers_;  // per PE: the PEs that wait for its marks (link)
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_{false};
  std::uint64_t* results_ = nullptr;
  std::uint64_t* results_device_ = nullptr;
  std::chrono::steady_clock::time_point started_{};
};

// The halo exchange of one grid (both buffers of a swapped pair share it: same layout): each GPU
// pushes its faces into its neighbours' halos with one push_faces launch, ordered by events (the
// file comment).
template <class T, int N>
class HaloCopies {
 public:
  // `corners`: the diagonal directions too (box stencils).
  HaloCopies(Control& control, const ProcessGrid& grid, const std::vector<DBlock<T, N>>& blocks,
             std::array<bool, N> periodic, bool corners, const char* name)
      : control_(control), plan_(plan_halo_copies<T, N>(grid, blocks, periodic, corners, name)) {
    if (control.n() != grid.size())
      fatal("halo copies of grid '%s': a process grid for another team", name);
    const int n = control.n();
    receivers_.assign(static_cast<std::size_t>(n), {});
    senders_.assign(static_cast<std::size_t>(n), {});
    pushes_ = faces_by_sender(plan_);
    for (int p = 0; p < n; ++p) {
      if (static_cast<int>(pushes_[p].size()) > kMaxFaces<N>)
        fatal("halo copies of grid '%s': %zu faces from one GPU", name, pushes_[p].size());
      for (int q : plan_.readers[p]) {
        if (q != p) add_unique(receivers_[p], q);
      }
      for (int s : plan_.senders[p]) {
        if (s != p) add_unique(senders_[p], s);
      }
      if (!senders_[p].empty()) control.receives(p);
      for (int q : receivers_[p]) control.link(p, q);
      for (int q : senders_[p]) control.link(p, q);
    }
  }

  HaloCopies(const HaloCopies&) = delete;
  HaloCopies& operator=(const HaloCopies&) = delete;

  // halo_send: every GPU pushes its faces of the grid whose current blocks are `blocks` (one per
  // PE: after swaps, the buffers the grid's name refers to now) into its neighbours' halos, once
  // they have read those halos for the last time (the marks of the launches that read them, or
  // fresh ones: Control::halo_free, appended before any push waits for them). A buffer whose
  // neighbours' halo copies are current (every change since its last full push stored through by
  // the updates that made it: store-faces) moves nothing: the receive waits for the mark of the
  // last of those updates.
  void send(const std::vector<DBlock<T, N>>& blocks) {
    Control::BufferFaces& state = control_.faces_of(blocks[0].data);
    if (state.current) {
      pushed_ = state.mark;
      return;
    }
    const std::vector<long long> free = halos_free(blocks);
    const int n = control_.n();
    const Control::Mark pushed = control_.new_mark();
    pushed_ = pushed.id;
    state.current = true;
    state.mark = pushed.id;
    for (int p = 0; p < n; ++p) {
      if (pushes_[p].empty()) continue;
      FacePushes<T, kMaxFaces<N>> faces;
      for (const auto& [q, c] : pushes_[p]) {
        faces.face[faces.count++] = face_push(blocks[p], blocks[q], c);
        faces.largest = std::max(faces.largest, c.count[0] * c.count[1] * c.count[2]);
      }
      const Waits waits = writes_wait(p, free);
      Control* control = &control_;
      const bool signal = !receivers_[p].empty();
      control_.enqueue(p, [control, p, waits, signal, pushed, faces](cudaStream_t stream) {
        control->wait(p, waits);
        launch_push(faces, stream);
        if (signal) control->record(p, pushed);
      });
    }
  }

  // The faces PE pe's point update stores through (store_through) while it writes the buffer
  // whose blocks are `blocks`: a kernel argument, taken when the host issues the launch.
  FaceStores<T, kMaxFaces<N>> face_stores(int pe, const std::vector<DBlock<T, N>>& blocks) const {
    return hc::face_stores(pushes_[pe], blocks, pe);
  }

  // Before the launches of a point update that stores through into the buffer `blocks`: every
  // GPU's stream waits until its neighbours have read, for the last time, the halos it will store
  // into (write after read, as send's pushes wait).
  void storing(const std::vector<DBlock<T, N>>& blocks) {
    const std::vector<long long> free = halos_free(blocks);
    for (int p = 0; p < control_.n(); ++p) {
      const Waits waits = writes_wait(p, free);
      if (waits.empty()) continue;
      Control* control = &control_;
      control_.enqueue(p, [control, p, waits](cudaStream_t) { control->wait(p, waits); });
    }
  }

  // After them: the mark the buffer's next receive waits for (its faces are in the neighbours'
  // halos once every GPU's update is done): the updates' read mark where each sending GPU records
  // one right after its update (Control::tail_mark), else a new one. The buffer's halo copies stay
  // as current as they were.
  void stored(const std::vector<DBlock<T, N>>& blocks) {
    std::vector<char> senders(static_cast<std::size_t>(control_.n()), 0);
    for (int p = 0; p < control_.n(); ++p)
      senders[static_cast<std::size_t>(p)] = !receivers_[p].empty();
    long long mark = control_.tail_mark(senders);
    if (mark < 0) mark = control_.fresh_mark(senders);
    control_.faces_of(blocks[0].data).mark = mark;
  }

  // After a statement that writes the buffer `blocks` without storing through (a fused sweep's
  // stores, or IR without store-faces' marks): its next send pushes every face.
  void written(const std::vector<DBlock<T, N>>& blocks) {
    control_.faces_of(blocks[0].data).current = false;
  }

  // halo_recv: every GPU's stream waits until its neighbours' pushes are in its halos (their
  // `pushed` mark, or a fresh one recorded after it where it is old: Control::stale).
  void recv() {
    const int n = control_.n();
    if (control_.stale(pushed_)) {
      std::vector<char> on(static_cast<std::size_t>(n), 0);
      for (int p = 0; p < n; ++p) on[static_cast<std::size_t>(p)] = !receivers_[p].empty();
      pushed_ = control_.fresh_mark(on);
    }
    for (int q = 0; q < n; ++q) {
      Waits senders;
      for (int p : senders_[q])
        if (!control_.covered(q, p, pushed_)) senders.push_back({p, pushed_});
      if (senders.empty()) continue;
      control_.note_wait(q, pushed_);
      Control* control = &control_;
      control_.enqueue(q, [control, q, senders = std::move(senders)](cudaStream_t) {
        control->wait(q, senders);
      });
    }
  }

  const HaloCopyPlan& plan() const { return plan_; }

 private:
  static void add_unique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  }

  // Per PE that other GPUs push into: the mark a write into its halo of the buffer `blocks` must
  // wait for (Control::halo_free; -1: none), made for every PE before any wait is noted.
  std::vector<long long> halos_free(const std::vector<DBlock<T, N>>& blocks) {
    const int n = control_.n();
    std::vector<long long> free(static_cast<std::size_t>(n), -1);
    for (int q = 0; q < n; ++q)
      free[q] = senders_[q].empty() ? -1 : control_.halo_free(q, blocks[q].data);
    return free;
  }

#if defined(__CUDACC__)
  static void launch_push(const FacePushes<T, kMaxFaces<N>>& faces, cudaStream_t stream) {
    const long blocks = (faces.largest + 255) / 256;
    const dim3 grid(static_cast<unsigned>(blocks < 1024 ? blocks : 1024),
                    static_cast<unsigned>(faces.count));
    push_faces<T, kMaxFaces<N>><<<grid, 256, 0, stream>>>(faces);
    STENCILC_CUDA_CHECK(cudaGetLastError());
  }
#endif  // __CUDACC__

  using Waits = std::vector<MarkWait>;  // the marks one command waits for

  // The marks PE p's writes into its receivers' halos wait for (halos_free's), each noted as a
  // wait of p's next command.
  Waits writes_wait(int p, const std::vector<long long>& free) {
    Waits waits;
    for (int q : receivers_[p]) {
      if (free[q] < 0 || control_.covered(p, q, free[q])) continue;
      control_.note_wait(p, free[q]);
      waits.push_back({q, free[q]});
    }
    return waits;
  }

  Control& control_;
  HaloCopyPlan plan_;
  std::vector<std::vector<std::pair<int, HaloCopy>>> pushes_;  // per sender: (receiver, face)
  std::vector<std::vector<int>> receivers_;  // per PE: the other GPUs it pushes to
  std::vector<std::vector<int>> senders_;    // per PE: the other GPUs that push to it
  long long pushed_ = 0;                 // the mark of the last send's pushes
};

// One grid as heap_bytes_for sees it.
template <int N>
struct GridBytes {
  std::size_t element_bytes;
  std::array<int, N> halo_lo, halo_hi;
};

// The symmetric heap a run needs: every grid's largest block (as alloc_blocks allocates it),
// the reductions' scratch and the team's own words, with room to spare. STENCILC_SYM_HEAP_MB
// still decides when set (0 here: the team reads it).
template <int N>
std::size_t heap_bytes_for(const ProcessGrid& grid, const std::array<int, N>& extent,
                           const std::vector<GridBytes<N>>& grids) {
  if (std::getenv("STENCILC_SYM_HEAP_MB") != nullptr) return 0;
  std::size_t total = std::size_t{16} << 20;
  for (const GridBytes<N>& g : grids) {
    long largest = 0;
    for (int pe = 0; pe < grid.size(); ++pe) {
      const long cells = dblock_shape<char, N>(grid, pe, extent, g.halo_lo, g.halo_hi).allocated();
      largest = cells > largest ? cells : largest;
    }
    total += (static_cast<std::size_t>(largest) * g.element_bytes + 511) & ~std::size_t{255};
  }
  return total;
}

}  // namespace stencilc::rt::cuda::hc
