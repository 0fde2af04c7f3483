// Runs the host-controlled schedule's generated kernels on the host (tests/codegen/hc_emulation):
// extract.py turns a program's kernels into host functions, and run_threads calls one for every
// thread of hc::launch_shape's grid, one thread after another (the kernels' threads share nothing
// but a reduction's partials, which emu::partial collects). Field holds one grid's blocks on every
// PE of a process grid in host memory, poison where nothing wrote, so the tests can check every
// cell: each point of the range computed once, with the value the program's statement gives,
// nothing else written, and the faces stored through into the neighbours' halos.
#include <cmath>
#include <cstdio>
#include <functional>
#include <stencilc/runtime/cuda/host_controlled.cuh>
#include <string>
#include <vector>

namespace rc = stencilc::rt::cuda;
namespace rt = stencilc::rt;
namespace hc = stencilc::rt::cuda::hc;

namespace emu {
dim3 blockIdx, threadIdx, blockDim, gridDim;
double acc = 0;
std::vector<double> parts;
template <class T>
void partial(T v) {
  acc += static_cast<double>(v);
  parts.push_back(static_cast<double>(v));
}
}  // namespace emu

constexpr double kPoison = -12345.0;

template <class T, int N>
struct Field {
  std::vector<rc::DBlock<T, N>> blocks;
  std::vector<std::vector<T>> mem;
  std::array<int, N> extent;
  Field(const rt::ProcessGrid& g, std::array<int, N> ext, std::array<int, N> lo,
        std::array<int, N> hi)
      : extent(ext) {
    for (int pe = 0; pe < g.size(); ++pe) {
      blocks.push_back(rc::dblock_shape<T, N>(g, pe, ext, lo, hi));
      mem.emplace_back(static_cast<std::size_t>(blocks[pe].allocated()), T(kPoison));
      blocks[pe].data = mem[pe].data() + blocks[pe].data_offset();
    }
  }
  // Every cell (owned and halo) of every block: f(pe, local, global, in the grid, the cell).
  template <class F>
  void each(F&& f) {
    for (int pe = 0; pe < static_cast<int>(blocks.size()); ++pe) {
      auto& b = blocks[pe];
      std::array<int, 3> from{0, 0, 0}, to{1, 1, 1};
      for (int d = 0; d < N; ++d)
        from[3 - N + d] = -b.halo_lo[d], to[3 - N + d] = b.extent[d] + b.halo_hi[d];
      for (int i = from[0]; i < to[0]; ++i)
        for (int j = from[1]; j < to[1]; ++j)
          for (int k = from[2]; k < to[2]; ++k) {
            const int l3[3] = {i, j, k};
            std::array<int, N> l, gl;
            long off = 0;
            bool dom = true;
            for (int d = 0; d < N; ++d) {
              l[d] = l3[3 - N + d];
              gl[d] = b.origin[d] + l[d];
              off += l[d] * b.stride[d];
              dom = dom && gl[d] >= 0 && gl[d] < extent[d];
            }
            f(pe, l, gl, dom, b.data[off]);
          }
    }
  }
};

// Runs `call` for every thread of launch_shape's grid over `local`.
template <int N, class F>
void run_threads(const rc::SBox<N>& local, bool reduction, F&& call) {
  if (hc::empty(local)) return;
  dim3 g, b;
  hc::launch_shape(local, reduction, &g, &b);
  emu::gridDim = g;
  emu::blockDim = b;
  for (unsigned bz = 0; bz < g.z; ++bz)
    for (unsigned by = 0; by < g.y; ++by)
      for (unsigned bx = 0; bx < g.x; ++bx)
        for (unsigned tz = 0; tz < b.z; ++tz)
          for (unsigned ty = 0; ty < b.y; ++ty)
            for (unsigned tx = 0; tx < b.x; ++tx) {
              emu::blockIdx = dim3(bx, by, bz);
              emu::threadIdx = dim3(tx, ty, tz);
              call();
            }
}

inline rt::ProcessGrid pgrid(int rank, std::array<int, 3> dims) {
  rt::ProcessGrid g;
  g.rank = rank;
  g.dims = dims;
  return g;
}

struct Tally {
  int passed = 0, failed = 0;
  void run(const std::string& what, const std::string& problem) {
    if (problem.empty()) {
      ++passed;
    } else {
      ++failed;
      if (failed < 20) std::printf("FAIL %s: %s\n", what.c_str(), problem.c_str());
    }
  }
};
