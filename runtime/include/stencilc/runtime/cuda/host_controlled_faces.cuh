// The host-controlled schedule's halo faces (host_controlled.cuh, docs/SCHEDULES.md): which
// cells of which GPU's block fill which halo cells of its neighbours' (plan_halo_copies), the
// push kernel that copies them (push_faces), and the same faces as a point update that stores
// its own faces through sees them (face_stores, store_through). Host code, except the kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/decomposition.hpp"

namespace stencilc::rt::cuda::hc {

// One face of a halo exchange: a box of the receiver's halo and the same-shaped box of the
// sender's owned cells, each as its first index in the block's allocation (halos included) and
// the counts, 3-D with the leading dimensions 1 thick (x the last dimension, z the first of
// three).
struct HaloCopy {
  int peer;  // the sender
  long dst[3], src[3], count[3];
};

// Every GPU's faces of one grid's exchange, from the process grid and the blocks' layout.
struct HaloCopyPlan {
  std::vector<std::vector<HaloCopy>> copies;  // per receiving PE
  std::vector<std::vector<int>> senders;      // per PE: the PEs it receives from
  std::vector<std::vector<int>> readers;      // per PE: the PEs that receive from it
};

// Where element (z, y, x) of a block's allocation is, from its start: rows of `row` elements
// (the last dimension with halos, padded: row_pitch), slices of `rows` rows.
__host__ __device__ inline long cell_offset(long row, long rows, long z, long y, long x) {
  return (z * rows + y) * row + x;
}


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


// The faces one GPU sends in one exchange: for each, the receiver's block and the sender's, each
// from its first halo cell with its row pitch and rows per slice (cell_offset), and the copy.
template <class T>
struct FacePush {
  T* dst;
  const T* src;
  long dst_row, dst_rows, src_row, src_rows;
  HaloCopy c;
};

// The most faces a GPU sends in an N-dimensional exchange: one per neighbour, corners included.
template <int N>
inline constexpr int kMaxFaces = N == 1 ? 2 : N == 2 ? 8 : 26;

template <class T, int F>
struct FacePushes {
  int count = 0;
  long largest = 0;  // cells of the largest face
  FacePush<T> face[F];
};

// Cell i of face f (the last dimension fastest): the owned cell stored into the receiver's halo.
template <class T>
__host__ __device__ inline void push_cell(const FacePush<T>& f, long i) {
  const long nx = f.c.count[2], ny = f.c.count[1];
  const long x = i % nx, rest = i / nx, y = rest % ny, z = rest / ny;
  f.dst[cell_offset(f.dst_row, f.dst_rows, f.c.dst[0] + z, f.c.dst[1] + y, f.c.dst[2] + x)] =
      f.src[cell_offset(f.src_row, f.src_rows, f.c.src[0] + z, f.c.src[1] + y, f.c.src[2] + x)];
}

// One face as a point update that stores through sees it (store-faces, docs/SCHEDULES.md): the
// sender's cells [lo, hi) in its block's local indices (owned cells from 0; 3-D with the leading
// dimensions 0), and where cell (z, y, x) of them lands in the receiver's allocation:
// cell_offset(dst_row, dst_rows, at + (z, y, x)) from dst.
template <class T>
struct FaceStore {
  T* dst;
  long dst_row, dst_rows;
  int lo[3], hi[3];
  long at[3];
};

// The faces one GPU's update stores through for one buffer (a kernel argument: __grid_constant__,
// so that the loop over them reads the parameter space, not a local copy).
// `inner`: cells [inner_lo, inner_hi) are in no face (most of the block: one test for them).
template <class T, int F>
struct FaceStores {
  int count = 0;
  int inner_lo[3] = {0, 0, 0}, inner_hi[3] = {0, 0, 0};
  FaceStore<T> face[F];
};

// Whether a thread's cells (z, y, x0 + first + k * step), k < count, all lie in the inner box: a
// point kernel tests it once for a thread's points (the walk in host_controlled.cuh), whose
// stores then store nothing through.
// Local indices are not negative, so the differences from x0 do not overflow.
template <class T, int F>
__host__ __device__ inline bool inner_run(const FaceStores<T, F>& s, int z, int y, int x0, int first,
                                          int step, int count) {
  return z >= s.inner_lo[0] && z < s.inner_hi[0] && y >= s.inner_lo[1] && y < s.inner_hi[1] &&
         first >= s.inner_lo[2] - x0 && first + (count - 1) * step < s.inner_hi[2] - x0;
}

// The stores of `v` into every neighbour's halo cell that cell (z, y, x) is a face cell for. Not
// inlined: only face cells get here, and a point kernel has several points a thread.
template <class T, int F>
__host__ __device__ __noinline__ void store_faces(const FaceStores<T, F>& s, T v, int z, int y, int x) {
  for (int f = 0; f < s.count; ++f) {
    const FaceStore<T>& c = s.face[f];
    if (z >= c.lo[0] && z < c.hi[0] && y >= c.lo[1] && y < c.hi[1] && x >= c.lo[2] && x < c.hi[2])
      c.dst[cell_offset(c.dst_row, c.dst_rows, c.at[0] + z, c.at[1] + y, c.at[2] + x)] = v;
  }
}

// A point update's store of `v` into its own cell (z, y, x) (local indices, leading dimensions
// 0), written also into every neighbour's halo cell the buffer's exchange would copy it to.
template <class T, int F>
__host__ __device__ inline void store_through(const FaceStores<T, F>& s, T v, int z, int y, int x) {
  if (z >= s.inner_lo[0] && z < s.inner_hi[0] && y >= s.inner_lo[1] && y < s.inner_hi[1] &&
      x >= s.inner_lo[2] && x < s.inner_hi[2])
    return;
  store_faces(s, v, z, y, x);
}

#if defined(__CUDACC__)
// One exchange's sends of one GPU: blockIdx.y picks the face, the threads along x walk its cells
// (a warp stores along a row), each owned cell into the receiver's halo, over NVLink where the
// receiver is another GPU.
template <class T, int F>
__global__ void push_faces(const __grid_constant__ FacePushes<T, F> faces) {
  const FacePush<T>& f = faces.face[blockIdx.y];
  const long cells = f.c.count[0] * f.c.count[1] * f.c.count[2];
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < cells;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    push_cell(f, i);
  }
}
#endif  // __CUDACC__

// The plan's faces grouped by sender: per PE, the faces it sends, each with its receiver.
inline std::vector<std::vector<std::pair<int, HaloCopy>>> faces_by_sender(const HaloCopyPlan& plan) {
  std::vector<std::vector<std::pair<int, HaloCopy>>> pushes(plan.copies.size());
  for (std::size_t q = 0; q < plan.copies.size(); ++q) {
    for (const HaloCopy& c : plan.copies[q]) pushes[c.peer].push_back({static_cast<int>(q), c});
  }
  return pushes;
}

// Face f of a push: from sender `from`'s block into receiver `to`'s.
template <class T, int N>
FacePush<T> face_push(const DBlock<T, N>& from, const DBlock<T, N>& to, const HaloCopy& c) {
  FacePush<T> f;
  f.dst = to.data - to.halo_offset();
  f.src = from.data - from.halo_offset();
  f.dst_row = to.row_pitch();
  f.dst_rows = N >= 2 ? to.extent_with_halos(N >= 2 ? N - 2 : 0) : 1;
  f.src_row = from.row_pitch();
  f.src_rows = N >= 2 ? from.extent_with_halos(N >= 2 ? N - 2 : 0) : 1;
  f.c = c;
  return f;
}

// Face c as sender `from`'s update stores it through into receiver `to`'s halo.
template <class T, int N>
FaceStore<T> face_store(const DBlock<T, N>& from, const DBlock<T, N>& to, const HaloCopy& c) {
  const FacePush<T> f = face_push(from, to, c);
  FaceStore<T> out;
  out.dst = f.dst;
  out.dst_row = f.dst_row;
  out.dst_rows = f.dst_rows;
  for (int k = 0; k < 3; ++k) {
    const int d = k - (3 - N);  // the block's dimension (leading ones: none)
    out.lo[k] = static_cast<int>(c.src[k]) - (d >= 0 ? from.halo_lo[d] : 0);
    out.hi[k] = out.lo[k] + static_cast<int>(c.count[k]);
    out.at[k] = c.dst[k] - out.lo[k];
  }
  return out;
}

// The faces PE pe stores through while it writes the buffer whose blocks are `blocks`: `sends`,
// its faces (faces_by_sender's row of pe), each with its receiver.
template <class T, int N>
FaceStores<T, kMaxFaces<N>> face_stores(const std::vector<std::pair<int, HaloCopy>>& sends,
                                        const std::vector<DBlock<T, N>>& blocks, int pe) {
  FaceStores<T, kMaxFaces<N>> out;
  const DBlock<T, N>& b = blocks[pe];
  int extent[3] = {1, 1, 1};
  for (int d = 0; d < N; ++d) extent[3 - N + d] = b.extent[d];
  for (int k = 0; k < 3; ++k) out.inner_hi[k] = extent[k];
  for (const auto& [q, c] : sends) {
    if (out.count == kMaxFaces<N>) fatal("store-through: %zu faces from one GPU", sends.size());
    const FaceStore<T> f = face_store(b, blocks[q], c);
    out.face[out.count++] = f;
    // The inner box excludes the face: along a dimension where the face is a layer at one side
    // of the block, the inner box starts past (or ends before) it; a face that is no layer
    // anywhere (it spans the block) leaves no inner box.
    bool layer = false;
    for (int k = 0; k < 3 && !layer; ++k) {
      if (f.lo[k] == 0 && f.hi[k] < extent[k]) {
        out.inner_lo[k] = std::max(out.inner_lo[k], f.hi[k]);
        layer = true;
      } else if (f.lo[k] > 0 && f.hi[k] == extent[k]) {
        out.inner_hi[k] = std::min(out.inner_hi[k], f.lo[k]);
        layer = true;
      }
    }
    if (!layer) out.inner_hi[0] = out.inner_lo[0];
  }
  return out;
}

}  // namespace stencilc::rt::cuda::hc
