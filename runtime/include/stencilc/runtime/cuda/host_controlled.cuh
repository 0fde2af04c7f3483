// The host-controlled schedule on the GPUs (p2p backend): the classic multi-GPU code that
// stencilc generates as a baseline for the CPU-free one (`--schedule=host-controlled`,
// docs/SCHEDULES.md). One host thread runs the program's control flow and drives every GPU:
// each point update is a kernel launch per GPU, halos move with cudaMemcpy3DPeerAsync, and
// reductions are copied to the host and combined there in PE order.
//
// Per GPU two streams:
//   compute  every kernel, except the boundary part of a split point update;
//   halo     the boundary parts and the halo copies, so that they overlap the inner part.
// The halo stream forks from the compute stream (waits for an event recorded there) before it
// needs what the compute stream did, and the compute stream waits for an event of the halo
// stream before it needs what the halo stream did. Control decides where, as the program runs;
// the generated code (codegen/HostControlledEmitter.cpp) says what each statement is.
//
// A halo exchange of a grid is two calls, like the IR's halo_send / halo_recv:
//   send(blocks):  every GPU forks its halo stream and records `ready`; then every GPU's halo
//                  stream waits for the `ready` of each neighbour it receives from (their
//                  owned cells are written; its own halo is no longer read) and pulls each face
//                  from the neighbour's block straight into its halo; then records `copied`.
//   recv():        every GPU's compute stream waits for its own `copied` (its halos are in)
//                  and for the `copied` of every neighbour that pulls from it (they have read
//                  its owned cells, which later kernels may overwrite).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/generated.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
#include "stencilc/runtime/decomposition.hpp"

namespace stencilc::rt::cuda::hc {

// The most thread blocks a reduction kernel runs per GPU: the size of its partials.
inline constexpr int kReduceBlocks = 1024;

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

// The launch shape of a point update over `box`: 256 threads per block, the last dimension
// along x (32 threads: a warp reads a row), the one before along y, the first of three along z.
// Kernels loop grid-stride in every dimension, so the grid may be capped: y and z at 65535 (the
// hardware limit), and the whole grid at kReduceBlocks for reductions (their partials).
template <int N>
void launch_shape(const SBox<N>& box, bool reduction, dim3* grid, dim3* block) {
  *block = N == 1 ? dim3(256) : N == 2 ? dim3(32, 8) : dim3(32, 4, 2);
  const unsigned threads[3] = {block->x, block->y, block->z};
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

// The end of a reduction kernel: every thread's value combined over the thread block (warps,
// then shared memory, in a fixed order), and written by thread 0 to partials[block].
template <class T>
__device__ inline void block_partial(T value, ReduceOp op, T* partials) {
  __shared__ T warp_partials[32];
  const int rank = thread_rank();
  const int lane = rank % 32, warp = rank / 32;
  for (int offset = 16; offset > 0; offset /= 2)
    value = combine(value, __shfl_down_sync(0xffffffffu, value, offset), op);
  if (lane == 0) warp_partials[warp] = value;
  __syncthreads();
  if (rank == 0) {
    T total = warp_partials[0];
    for (int w = 1; w < (block_threads() + 31) / 32; ++w)
      total = combine(total, warp_partials[w], op);
    partials[block_rank()] = total;
  }
}

// One block: the partials of a reduction kernel combined in block order into *result.
template <class T>
__global__ void finish_reduction(const T* partials, int count, ReduceOp op, T identity, T* result) {
  __shared__ T strided[256];
  T value = identity;
  for (int i = threadIdx.x; i < count; i += blockDim.x) value = combine(value, partials[i], op);
  strided[threadIdx.x] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    T total = strided[0];
    for (unsigned t = 1; t < blockDim.x; ++t) total = combine(total, strided[t], op);
    *result = total;
  }
}

#endif  // __CUDACC__

// The streams and events of a run, and what the reductions need. The team (P2PTeam) owns the
// devices, peer access and the symmetric heap the blocks live in.
//
// The host issues the same operations to every GPU in the same order, so one record of what is
// in flight serves all of them. It decides where a stream must wait for the other:
//   - a kernel on the compute stream waits for the boundary parts still running on the halo
//     stream (an event recorded after the last one), except for the inner part whose own
//     boundary part is running: the two cover disjoint points, and overlap;
//   - a boundary part forks the halo stream from the compute stream, except when all the
//     compute stream did since the last fork is its own inner part and receives of grids the
//     boundary part does not write: then it runs beside the inner part, after the halo copies
//     (the receive case of split-boundary: the inner part computes while the halos travel);
//   - the halo copies fork always (HaloCopies::send), and their receive makes the compute
//     stream wait for them (HaloCopies::recv); what runs between the two never touches the cells
//     they copy (place-signaled-puts moves a send only past statements that do not write its
//     faces, and a receive only past statements that neither read the halo nor write the grid).
class Control {
 public:
  explicit Control(P2PTeam& team)
      : team_(team), n_(team.n()) {
    const auto n = static_cast<std::size_t>(n_);
    compute_.assign(n, nullptr);
    halo_.assign(n, nullptr);
    fork_.assign(n, nullptr);
    join_.assign(n, nullptr);
    boundary_done_.assign(n, nullptr);
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_[pe], cudaStreamNonBlocking));
      STENCILC_CUDA_CHECK(cudaStreamCreateWithFlags(&halo_[pe], cudaStreamNonBlocking));
      STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&fork_[pe], cudaEventDisableTiming));
      STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&join_[pe], cudaEventDisableTiming));
      STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&boundary_done_[pe], cudaEventDisableTiming));
    }
    scratch_ = team.alloc<std::uint64_t>(kReduceBlocks + 1);
    void* pinned = nullptr;
    STENCILC_CUDA_CHECK(
        cudaHostAlloc(&pinned, sizeof(std::uint64_t) * n, cudaHostAllocPortable));
    results_ = static_cast<std::uint64_t*>(pinned);
  }

  ~Control() {
    for (int pe = 0; pe < n_; ++pe) {
      if (cudaSetDevice(device(pe)) != cudaSuccess) continue;
      cudaEventDestroy(fork_[pe]);
      cudaEventDestroy(join_[pe]);
      cudaEventDestroy(boundary_done_[pe]);
      if (halo_[pe] != compute_[pe]) cudaStreamDestroy(halo_[pe]);
      cudaStreamDestroy(compute_[pe]);
    }
    cudaFreeHost(results_);
  }

  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  int n() const { return n_; }
  int device(int pe) const { return team_.device(pe); }  // the GPU PE pe runs on
  cudaStream_t compute(int pe) const { return compute_[pe]; }
  cudaStream_t halo(int pe) const { return halo_[pe]; }

  // Waits for the uploads (synchronous copies and memsets on the legacy stream, which the
  // non-blocking streams do not wait for) and starts the clock.
  void start() {
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaDeviceSynchronize());
    }
    started_ = std::chrono::steady_clock::now();
  }

  // ---- Where the streams wait for each other (see the class comment) ----------------------

  // Before a point update or reduction on the compute streams; `pair`: the split foreach an
  // inner part belongs to (-1 for anything else).
  void compute_stage(int pair) {
    // The boundary part of this inner part's own foreach, if it is running: the two overlap.
    Boundary* partner = nullptr;
    for (Boundary& b : pending_) {
      if (pair >= 0 && b.pair == pair && !b.partnered) partner = &b;
    }
    bool wait = false;
    for (const Boundary& b : pending_) wait = wait || &b != partner;
    if (partner != nullptr) {
      partner->partnered = true;
    } else if (pair >= 0) {
      open_inner_.push_back(pair);  // its boundary part comes later
    }
    if (wait) {
      for (int pe = 0; pe < n_; ++pe) {
        STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
        STENCILC_CUDA_CHECK(cudaStreamWaitEvent(compute_[pe], boundary_done_[pe], 0));
      }
      pending_.clear();
    }
    since_fork_.push_back({pair >= 0 ? Since::Inner : Since::Other, pair});
  }

  // Before the boundary part of split foreach `pair` on the halo streams; `writes`: the grids it
  // stores to (as numbered in the generated code).
  void boundary_stage(int pair, std::initializer_list<int> writes) {
    const auto open = std::find(open_inner_.begin(), open_inner_.end(), pair);
    const bool partnered = open != open_inner_.end();
    if (partnered) open_inner_.erase(open);
    bool fork_needed = false;
    int inner_parts = 0;
    for (const Since& s : since_fork_) {
      if (s.kind == Since::Inner)
        fork_needed = fork_needed || s.id != pair || !partnered || ++inner_parts > 1;
      if (s.kind == Since::Recv)
        fork_needed = fork_needed || std::find(writes.begin(), writes.end(), s.id) != writes.end();
      if (s.kind == Since::Other) fork_needed = true;
    }
    if (fork_needed) fork_all();
    pending_.push_back({pair, partnered, sequence_++});
  }

  // After the boundary part's kernels: what later kernels on the compute streams wait for.
  void boundary_launched() {
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaEventRecord(boundary_done_[pe], halo_[pe]));
    }
  }

  // A halo send forks every halo stream; returns its place among the boundary parts.
  long long send_stage() {
    fork_all();
    return sequence_;
  }

  // A receive of grid `grid` whose send had place `sent`: the compute streams have waited for
  // the copies, so also for every boundary part before them.
  void recv_stage(int grid, long long sent) {
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                  [&](const Boundary& b) { return b.sequence < sent; }),
                   pending_.end());
    since_fork_.push_back({Since::Recv, grid});
  }

  // Launches a point-update kernel of `pe` over `local` on `stream`, unless the box is empty:
  // kernel(grid, block, stream, box) does the <<<...>>>.
  template <int N, class T, class Kernel>
  void launch(int pe, cudaStream_t stream, const SBox<N>& local, const DBlock<T, N>& layout,
              Kernel&& kernel) {
    if (empty(local)) return;
    dim3 grid, block;
    launch_shape(local, false, &grid, &block);
    STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
    kernel(grid, block, stream, launch_box(local, layout));
    STENCILC_CUDA_CHECK(cudaGetLastError());
  }

#if defined(__CUDACC__)
  // A reduction of `pe` over `local` on its compute stream: kernel(grid, block, stream, box,
  // partials) runs the reduction kernel (one partial per thread block), then one block combines
  // the partials in order and the result is copied to pinned host memory (see allreduce).
  template <class V, int N, class T, class Kernel>
  void reduce(int pe, const SBox<N>& local, const DBlock<T, N>& layout, ReduceOp op, V identity,
              Kernel&& kernel) {
    static_assert(sizeof(V) <= sizeof(std::uint64_t), "scalars of at most 8 bytes");
    STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
    V* partials = reinterpret_cast<V*>(scratch_.on(pe));
    V* result = reinterpret_cast<V*>(scratch_.on(pe) + kReduceBlocks);
    int count = 0;
    if (!empty(local)) {
      dim3 grid, block;
      launch_shape(local, true, &grid, &block);
      count = static_cast<int>(grid.x * grid.y * grid.z);
      kernel(grid, block, compute_[pe], launch_box(local, layout), partials);
      STENCILC_CUDA_CHECK(cudaGetLastError());
    }
    finish_reduction<V><<<1, 256, 0, compute_[pe]>>>(partials, count, op, identity, result);
    STENCILC_CUDA_CHECK(cudaGetLastError());
    STENCILC_CUDA_CHECK(
        cudaMemcpyAsync(&results_[pe], result, sizeof(V), cudaMemcpyDeviceToHost, compute_[pe]));
  }
#endif  // __CUDACC__

  // Waits for every GPU's reduction result (the host synchronises with each compute stream,
  // as the classic codes do every step) and combines them in PE order, so that the result does
  // not depend on which GPU finished first.
  template <class V>
  V allreduce(ReduceOp op) {
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaStreamSynchronize(compute_[pe]));
    }
    V total{};
    for (int pe = 0; pe < n_; ++pe) {
      V next;
      std::memcpy(&next, &results_[pe], sizeof(V));
      if (pe == 0)
        total = next;
      else if (op == ReduceOp::Sum)
        total = static_cast<V>(total + next);
      else if (op == ReduceOp::Max)
        total = next > total ? next : total;
      else
        total = next < total ? next : total;
    }
    return total;
  }

  // Joins and waits for both streams of every GPU; returns the wall time since start() in ms.
  double finish() {
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaEventRecord(join_[pe], halo_[pe]));
      STENCILC_CUDA_CHECK(cudaStreamWaitEvent(compute_[pe], join_[pe], 0));
      STENCILC_CUDA_CHECK(cudaStreamSynchronize(compute_[pe]));
    }
    pending_.clear();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_)
        .count();
  }

 private:
  // The halo stream of every GPU waits for everything issued so far on its compute stream
  // (nothing to do when the compute streams did nothing since the last fork).
  void fork_all() {
    if (since_fork_.empty()) return;
    for (int pe = 0; pe < n_; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(device(pe)));
      STENCILC_CUDA_CHECK(cudaEventRecord(fork_[pe], compute_[pe]));
      STENCILC_CUDA_CHECK(cudaStreamWaitEvent(halo_[pe], fork_[pe], 0));
    }
    since_fork_.clear();
  }

  struct Boundary {  // a boundary part the compute streams have not waited for
    int pair;
    bool partnered;  // its inner part has been issued
    long long sequence;
  };
  struct Since {  // what the compute streams did since the halo streams last forked
    enum Kind { Inner, Recv, Other } kind;
    int id;  // Inner: the pair; Recv: the grid
  };

  const P2PTeam& team_;  // outlives the Control (declared before it)
  int n_;
  std::vector<cudaStream_t> compute_;  // per PE
  std::vector<cudaStream_t> halo_;
  std::vector<cudaEvent_t> fork_;
  std::vector<cudaEvent_t> join_;
  std::vector<cudaEvent_t> boundary_done_;
  Sym<std::uint64_t> scratch_;
  std::uint64_t* results_ = nullptr;
  std::chrono::steady_clock::time_point started_{};
  std::vector<Boundary> pending_;
  std::vector<int> open_inner_;  // inner parts issued before their boundary part
  std::vector<Since> since_fork_;
  long long sequence_ = 0;
};

// One face of a halo exchange: a box of the receiver's halo and the same-shaped box of the
// sender's owned cells, each as its first index in the block's allocation (halos included) and
// the counts, 3-D with the leading dimensions 1 thick (the cudaMemcpy3D view: x the last
// dimension, z the first of three).
struct HaloCopy {
  int peer;  // the sender
  long dst[3], src[3], count[3];
};

// Every GPU's faces of one grid's exchange, from the process grid and the blocks' layout.
struct HaloCopyPlan {
  std::vector<std::vector<HaloCopy>> copies;  // per receiving PE
  std::vector<std::vector<int>> senders;      // per PE: the PEs it pulls from
  std::vector<std::vector<int>> readers;      // per PE: the PEs that pull from it
};

// Where element (z, y, x) of a block's allocation is, from its start: rows of `row` elements
// (the last dimension with halos), slices of `rows` rows. The copy engines see the same layout
// through the pitched pointers of HaloCopies, and pull_face computes it directly.
__host__ __device__ inline long cell_offset(long row, long rows, long z, long y, long x) {
  return (z * rows + y) * row + x;
}

#if defined(__CUDACC__)
// A narrow face (a few elements per row, e.g. the columns of a 2-D block: the copy engines would
// move it one short row at a time) copied by the receiving GPU's threads, which read the
// neighbour's block over NVLink (peer access). Threads along x cover a row, along y the rows, the
// grid's z the slices.
template <class T>
__global__ void pull_face(T* dst, long dst_row, long dst_rows, const T* src, long src_row,
                          long src_rows, HaloCopy c) {
  for (long z = blockIdx.z; z < c.count[0]; z += gridDim.z) {
    for (long y = blockIdx.y * blockDim.y + threadIdx.y; y < c.count[1];
         y += static_cast<long>(gridDim.y) * blockDim.y) {
      for (long x = threadIdx.x; x < c.count[2]; x += blockDim.x) {
        dst[cell_offset(dst_row, dst_rows, c.dst[0] + z, c.dst[1] + y, c.dst[2] + x)] =
            src[cell_offset(src_row, src_rows, c.src[0] + z, c.src[1] + y, c.src[2] + x)];
      }
    }
  }
}
#endif  // __CUDACC__

namespace detail {

inline void add_unique(std::vector<int>& v, int x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// As in HaloExchange: halos come from direction dir when every non-zero component has a halo
// on that side, and diagonal directions only with corners.
template <class T, int N>
bool exchanged(const DBlock<T, N>& b, const std::array<int, 3>& dir, bool corners) {
  int nonzero = 0;
  for (int d = 0; d < N; ++d) {
    if (dir[d] != 0) ++nonzero;
    if ((dir[d] == -1 && b.halo_lo[d] == 0) || (dir[d] == 1 && b.halo_hi[d] == 0)) return false;
  }
  return nonzero == 1 || (nonzero > 1 && corners);
}

template <class T, int N>
HaloCopy make_copy(const std::vector<DBlock<T, N>>& blocks, int pe, int peer,
                   const std::array<int, 3>& dir, const char* name) {
  const DBlock<T, N>& mine = blocks[pe];
  const DBlock<T, N>& theirs = blocks[peer];
  HaloCopy c{peer, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
  for (int d = 0; d < N; ++d) {
    long dst = 0, src = 0, count = 0;
    if (dir[d] == 0) {  // the same coordinate of the process grid: the same extent
      count = mine.extent[d];
    } else if (dir[d] < 0) {  // my low halo from the top layers of the block below
      count = mine.halo_lo[d];
      dst = -count;
      src = theirs.extent[d] - count;
    } else {  // my high halo from the bottom layers of the block above
      count = mine.halo_hi[d];
      dst = mine.extent[d];
    }
    if (count > theirs.extent[d]) {
      fatal(
          "halo copies of grid '%s': GPU %d's block is %d thick in dimension %d but must supply "
          "%ld halo layers "
          "to GPU %d; use fewer GPUs or another decomposition",
          name, peer, theirs.extent[d], d, count, pe);
    }
    const int k = 3 - N + d;
    c.dst[k] = dst + mine.halo_lo[d];
    c.src[k] = src + theirs.halo_lo[d];
    c.count[k] = count;
  }
  return c;
}

}  // namespace detail

template <class T, int N>
HaloCopyPlan plan_halo_copies(const ProcessGrid& grid, const std::vector<DBlock<T, N>>& blocks,
                              std::array<bool, N> periodic, bool corners, const char* name) {
  const int n = static_cast<int>(blocks.size());
  if (grid.size() != n || grid.rank != N) {
    fatal("halo copies of grid '%s': %d blocks for a process grid of %d", name, n, grid.size());
  }
  HaloCopyPlan plan;
  plan.copies.resize(n);
  plan.senders.resize(n);
  plan.readers.resize(n);
  std::array<bool, 3> periodic3{false, false, false};
  for (int d = 0; d < N; ++d) periodic3[d] = periodic[d];
  const int codes = N == 1 ? 3 : N == 2 ? 9 : 27;
  for (int pe = 0; pe < n; ++pe) {
    for (int code = 0; code < codes; ++code) {
      std::array<int, 3> dir{0, 0, 0};
      for (int d = N - 1, c = code; d >= 0; --d, c /= 3) dir[d] = c % 3 - 1;
      if (!detail::exchanged(blocks[pe], dir, corners)) continue;
      const int peer = neighbor(grid, pe, dir, periodic3);
      if (peer < 0) continue;
      plan.copies[pe].push_back(detail::make_copy(blocks, pe, peer, dir, name));
      detail::add_unique(plan.senders[pe], peer);
      detail::add_unique(plan.readers[peer], pe);
    }
  }
  return plan;
}

// The halo exchange of one grid (both buffers of a swapped pair share it: same layout) as peer
// copies, each GPU pulling its halos from its neighbours' owned cells on its halo stream.
template <class T, int N>
class HaloCopies {
 public:
  // `id`: the grid's number in the generated code (Control::boundary_stage's `writes`);
  // `corners`: the diagonal directions too (box stencils).
  HaloCopies(Control& control, int id, const ProcessGrid& grid,
             const std::vector<DBlock<T, N>>& blocks, std::array<bool, N> periodic, bool corners,
             const char* name)
      : control_(control),
        id_(id),
        plan_(plan_halo_copies<T, N>(grid, blocks, periodic, corners, name)) {
    if (control.n() != grid.size())
      fatal("halo copies of grid '%s': a process grid for another team", name);
    ready_.assign(static_cast<std::size_t>(control.n()), nullptr);
    copied_.assign(static_cast<std::size_t>(control.n()), nullptr);
    for (int pe = 0; pe < control.n(); ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(control_.device(pe)));
      STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&ready_[pe], cudaEventDisableTiming));
      STENCILC_CUDA_CHECK(cudaEventCreateWithFlags(&copied_[pe], cudaEventDisableTiming));
    }
  }

  ~HaloCopies() {
    for (int pe = 0; pe < control_.n(); ++pe) {
      if (cudaSetDevice(control_.device(pe)) != cudaSuccess) continue;
      cudaEventDestroy(ready_[pe]);
      cudaEventDestroy(copied_[pe]);
    }
  }

  HaloCopies(const HaloCopies&) = delete;
  HaloCopies& operator=(const HaloCopies&) = delete;

  // halo_send: every GPU pulls its halos of the grid whose current blocks are `blocks` (one per
  // PE: after swaps, the buffers the grid's name refers to now) on its halo stream.
  void send(const std::vector<DBlock<T, N>>& blocks) {
    const int n = control_.n();
    sent_ = control_.send_stage();
    for (int pe = 0; pe < n; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(control_.device(pe)));
      STENCILC_CUDA_CHECK(cudaEventRecord(ready_[pe], control_.halo(pe)));
    }
    for (int pe = 0; pe < n; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(control_.device(pe)));
      const cudaStream_t stream = control_.halo(pe);
      for (int peer : plan_.senders[pe]) {
        if (peer != pe) STENCILC_CUDA_CHECK(cudaStreamWaitEvent(stream, ready_[peer], 0));
      }
      for (const HaloCopy& c : plan_.copies[pe]) {
        if (pulled(c)) {
          pull(blocks[c.peer], blocks[pe], c, stream);
          continue;
        }
        // Positions and widths in bytes along x (linear memory), in rows and slices along y, z.
        const cudaPos src = make_cudaPos(c.src[2] * sizeof(T), c.src[1], c.src[0]);
        const cudaPos dst = make_cudaPos(c.dst[2] * sizeof(T), c.dst[1], c.dst[0]);
        const cudaExtent extent = make_cudaExtent(c.count[2] * sizeof(T), c.count[1], c.count[0]);
        if (c.peer == pe) {  // a periodic dimension this GPU spans alone: its own faces wrap
          cudaMemcpy3DParms p{};
          p.srcPtr = pitched(blocks[pe]);
          p.srcPos = src;
          p.dstPtr = pitched(blocks[pe]);
          p.dstPos = dst;
          p.extent = extent;
          p.kind = cudaMemcpyDeviceToDevice;
          STENCILC_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
        } else {
          cudaMemcpy3DPeerParms p{};
          p.srcPtr = pitched(blocks[c.peer]);
          p.srcDevice = control_.device(c.peer);
          p.srcPos = src;
          p.dstPtr = pitched(blocks[pe]);
          p.dstDevice = control_.device(pe);
          p.dstPos = dst;
          p.extent = extent;
          STENCILC_CUDA_CHECK(cudaMemcpy3DPeerAsync(&p, stream));
        }
      }
      STENCILC_CUDA_CHECK(cudaEventRecord(copied_[pe], stream));
    }
  }

  // halo_recv: every GPU's compute stream waits until its halos are in and its neighbours have
  // read its faces.
  void recv() {
    for (int pe = 0; pe < control_.n(); ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(control_.device(pe)));
      const cudaStream_t stream = control_.compute(pe);
      STENCILC_CUDA_CHECK(cudaStreamWaitEvent(stream, copied_[pe], 0));
      for (int reader : plan_.readers[pe]) {
        if (reader != pe) STENCILC_CUDA_CHECK(cudaStreamWaitEvent(stream, copied_[reader], 0));
      }
    }
    control_.recv_stage(id_, sent_);
  }

  const HaloCopyPlan& plan() const { return plan_; }

 private:
  // Faces of rows narrower than 64 bytes are copied by a kernel (pull_face), the others by the
  // copy engines.
  static bool pulled(const HaloCopy& c) {
    return c.count[2] * static_cast<long>(sizeof(T)) < 64 && c.count[0] * c.count[1] > 1;
  }

#if defined(__CUDACC__)
  static void pull(const DBlock<T, N>& from, const DBlock<T, N>& to, const HaloCopy& c,
                   cudaStream_t stream) {
    unsigned x = 1;
    while (x < 32 && x < c.count[2]) x *= 2;
    const dim3 block(x, 256 / x);
    const long rows = (c.count[1] + block.y - 1) / block.y;
    const dim3 grid(1, static_cast<unsigned>(rows < 65535 ? rows : 65535),
                    static_cast<unsigned>(c.count[0] < 65535 ? c.count[0] : 65535));
    pull_face<T><<<grid, block, 0, stream>>>(
        to.data - to.halo_offset(), to.row_pitch(), slice_rows(to),
        from.data - from.halo_offset(), from.row_pitch(), slice_rows(from), c);
    STENCILC_CUDA_CHECK(cudaGetLastError());
  }
#endif  // __CUDACC__

  static long slice_rows(const DBlock<T, N>& b) {
    return N >= 2 ? b.extent_with_halos(N >= 2 ? N - 2 : 0) : 1;
  }

  // The block (halos included) as a pitched pointer from its first halo cell: rows of the last
  // dimension (padded: row_pitch), slices of the last two.
  static cudaPitchedPtr pitched(const DBlock<T, N>& b) {
    T* base = b.data - b.halo_offset();
    const std::size_t pitch = static_cast<std::size_t>(b.row_pitch()) * sizeof(T);
    const std::size_t row = static_cast<std::size_t>(b.extent_with_halos(N - 1)) * sizeof(T);
    return make_cudaPitchedPtr(base, pitch, row, static_cast<std::size_t>(slice_rows(b)));
  }

  Control& control_;
  int id_;
  HaloCopyPlan plan_;
  long long sent_ = 0;
  std::vector<cudaEvent_t> ready_;  // per PE
  std::vector<cudaEvent_t> copied_;
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
