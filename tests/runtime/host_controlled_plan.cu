// The host-controlled schedule's halo pushes (runtime/include/stencilc/runtime/cuda/
// host_controlled.cuh), checked without a GPU: every PE's block lives in host memory, the plan's
// faces are grouped by sender (faces_by_sender) and every cell of each is stored as push_faces
// stores it (face_push, push_cell), and every cell is then checked, as tests/gpu/halo_check.cu does
// on the GPUs: owned cells unchanged, each halo cell a stencil needs equal to its source (periodic
// wrap included), every other cell still poison. Process grids of 1 to 4 PEs in 1, 2 and 3
// dimensions, uneven extents, periodic and fixed dimensions, one-sided and uneven halos, corners on
// and off; the same halos filled by stores through instead, with rows walked as the point kernels
// walk them (inner_run's skips included). Built with nvcc (the header is CUDA), run on the host: no
// CUDA call is made. Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <stencilc/runtime/cuda/host_controlled.cuh>
#include <string>
#include <vector>

namespace rc = stencilc::rt::cuda;
namespace rt = stencilc::rt;
namespace hc = stencilc::rt::cuda::hc;

namespace {

constexpr double kPoison = -1.0;

template <int N>
double value_of(const std::array<int, N>& g) {
  double v = 1.0;
  for (int d = 0; d < N; ++d) v = v * 100.0 + g[d];
  return v;
}

// Every sender's faces, cell by cell, as its push_faces launch stores them.
template <int N>
std::string push_all(const hc::HaloCopyPlan& plan,
                     const std::vector<rc::DBlock<double, N>>& blocks) {
  const auto pushes = hc::faces_by_sender(plan);
  for (std::size_t p = 0; p < pushes.size(); ++p) {
    if (pushes[p].size() > static_cast<std::size_t>(hc::kMaxFaces<N>))
      return "PE " + std::to_string(p) + " sends " + std::to_string(pushes[p].size()) + " faces";
    for (const auto& [q, c] : pushes[p]) {
      const hc::FacePush<double> f = hc::face_push(blocks[p], blocks[q], c);
      for (long i = 0; i < c.count[0] * c.count[1] * c.count[2]; ++i) hc::push_cell(f, i);
    }
  }
  return "";
}

// Every sender's owned cells, each stored as a point update that stores through stores it
// (face_stores, store_through): the value into its own cell and into the halos it is a face of.
// As the point kernels walk a row (host_controlled.cuh), in chunks of `step` x `count` cells, a
// thread's cells x0 + first + k step, with the stores through skipped for a thread whose cells
// inner_run finds none of a face (a face cell it wrongly skips stays poison in the halo).
template <int N>
std::string store_all(const hc::HaloCopyPlan& plan,
                      const std::vector<rc::DBlock<double, N>>& blocks, int step, int count) {
  const auto sends = hc::faces_by_sender(plan);
  for (std::size_t p = 0; p < sends.size(); ++p) {
    const auto& b = blocks[p];
    const auto faces = hc::face_stores<double, N>(sends[p], blocks, static_cast<int>(p));
    std::array<int, 3> e{1, 1, 1};
    for (int d = 0; d < N; ++d) e[3 - N + d] = b.extent[d];
    for (int z = 0; z < e[0]; ++z)
      for (int y = 0; y < e[1]; ++y)
        for (int x0 = 0; x0 < e[2]; x0 += step * count)
          for (int first = 0; first < step; ++first) {
            const bool inner = hc::inner_run(faces, z, y, x0, first, step, count);
            for (int k = 0; k < count; ++k) {
              const int x = x0 + first + k * step;
              if (x >= e[2]) continue;
              const int l3[3] = {z, y, x};
              long offset = 0;
              for (int d = 0; d < N; ++d) offset += l3[3 - N + d] * b.stride[d];
              if (!inner) hc::store_through(faces, b.data[offset], z, y, x);
            }
          }
  }
  return "";
}

// `through`: the halos filled by store_all instead of push_all, its rows walked in chunks of
// step x count cells.
template <int N>
std::string check(const rt::ProcessGrid& grid, std::array<int, N> extent,
                  std::array<bool, N> periodic, std::array<int, N> lo, std::array<int, N> hi,
                  bool corners, bool through = false, int step = 1, int count = 1) {
  const int n = grid.size();
  std::vector<rc::DBlock<double, N>> blocks;
  std::vector<std::vector<double>> memory(n);
  for (int pe = 0; pe < n; ++pe) {
    blocks.push_back(rc::dblock_shape<double, N>(grid, pe, extent, lo, hi));
    memory[pe].assign(static_cast<std::size_t>(blocks[pe].allocated()), kPoison);
    blocks[pe].data = memory[pe].data() + blocks[pe].data_offset();
  }
  // Owned cells: their global index's value.
  for (int pe = 0; pe < n; ++pe) {
    const auto& b = blocks[pe];
    std::array<int, 3> e{1, 1, 1};
    for (int d = 0; d < N; ++d) e[3 - N + d] = b.extent[d];
    for (int i = 0; i < e[0]; ++i)
      for (int j = 0; j < e[1]; ++j)
        for (int k = 0; k < e[2]; ++k) {
          const int l3[3] = {i, j, k};
          std::array<int, N> l, g;
          long offset = 0;
          for (int d = 0; d < N; ++d) {
            l[d] = l3[3 - N + d];
            g[d] = b.origin[d] + l[d];
            offset += l[d] * b.stride[d];
          }
          b.data[offset] = value_of<N>(g);
        }
  }
  const hc::HaloCopyPlan plan =
      hc::plan_halo_copies<double, N>(grid, blocks, periodic, corners, "g");
  if (std::string problem = through ? store_all<N>(plan, blocks, step, count) : push_all<N>(plan, blocks);
      !problem.empty())
    return problem;
  for (int pe = 0; pe < n; ++pe) {
    for (int peer : plan.senders[pe]) {
      const auto& r = plan.readers[peer];
      if (std::find(r.begin(), r.end(), pe) == r.end())
        return "PE " + std::to_string(pe) + " receives from a PE that does not list it";
    }
  }
  // Every cell of every block.
  for (int pe = 0; pe < n; ++pe) {
    const auto& b = blocks[pe];
    std::array<int, 3> from{0, 0, 0}, to{1, 1, 1};
    for (int d = 0; d < N; ++d)
      from[3 - N + d] = -b.halo_lo[d], to[3 - N + d] = b.extent[d] + b.halo_hi[d];
    for (int i = from[0]; i < to[0]; ++i)
      for (int j = from[1]; j < to[1]; ++j)
        for (int k = from[2]; k < to[2]; ++k) {
          const int l3[3] = {i, j, k};
          std::array<int, N> g;
          long offset = 0;
          int outside = 0;
          bool source = true;
          for (int d = 0; d < N; ++d) {
            const int l = l3[3 - N + d];
            offset += l * b.stride[d];
            if (l < 0 || l >= b.extent[d]) ++outside;
            g[d] = b.origin[d] + l;
            if (periodic[d]) g[d] = ((g[d] % extent[d]) + extent[d]) % extent[d];
            source = source && g[d] >= 0 && g[d] < extent[d];
          }
          const bool needed = outside == 0 || (source && (outside == 1 || corners));
          const double want = needed ? value_of<N>(g) : kPoison;
          if (b.data[offset] != want) {
            return "PE " + std::to_string(pe) + ", local (" + std::to_string(i) + ", " +
                   std::to_string(j) + ", " + std::to_string(k) +
                   "): " + std::to_string(b.data[offset]) + ", expected " + std::to_string(want);
          }
        }
  }
  return "";
}

rt::ProcessGrid process_grid(int rank, std::array<int, 3> dims) {
  rt::ProcessGrid g;
  g.rank = rank;
  g.dims = dims;
  return g;
}

}  // namespace

int main() {
  int passed = 0, failed = 0;
  auto run = [&](const std::string& what, const std::string& problem) {
    if (problem.empty()) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", what.c_str(), problem.c_str());
    }
  };
  // Pushes, then stores through with rows walked a cell a thread and in chunks of 2 x 3 and 4 x 4.
  struct Mode {
    bool through;
    int step, count;
  };
  for (const Mode m : {Mode{false, 1, 1}, Mode{true, 1, 1}, Mode{true, 2, 3}, Mode{true, 4, 4}}) {
    const bool through = m.through;
    const int step = m.step, count = m.count;
    const std::string mode = through ? " through (walk " + std::to_string(step) + " x " +
                                           std::to_string(count) + ")"
                                     : "";
    for (int pes = 1; pes <= 4; ++pes) {
      for (bool p0 : {false, true}) {
        run("1-D " + std::to_string(pes) + " PEs periodic=" + std::to_string(p0) + mode,
            check<1>(process_grid(1, {pes, 1, 1}), {13}, {p0}, {2}, {1}, false, through, step,
                     count));
      }
    }
    const std::vector<std::array<int, 3>> grids2 = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {3, 1, 1},
                                                    {2, 2, 1}, {1, 4, 1}, {4, 1, 1}};
    const std::vector<std::pair<std::array<int, 2>, std::array<int, 2>>> halos2 = {
        {{1, 1}, {1, 1}}, {{2, 1}, {0, 2}}, {{1, 0}, {1, 0}}, {{0, 0}, {1, 1}}};
    for (const auto& dims : grids2) {
      for (int periodic = 0; periodic < 4; ++periodic) {
        for (const auto& [lo, hi] : halos2) {
          for (bool corners : {false, true}) {
            const std::string what =
                "2-D " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                " periodic=" + std::to_string(periodic) + " halo " + std::to_string(lo[0]) +
                std::to_string(hi[0]) + std::to_string(lo[1]) + std::to_string(hi[1]) +
                " corners=" + std::to_string(corners);
            run(what + mode,
                check<2>(process_grid(2, dims), {13, 11},
                         {(periodic & 1) != 0, (periodic & 2) != 0}, lo, hi, corners, through, step,
                         count));
          }
        }
      }
    }
    const std::vector<std::array<int, 3>> grids3 = {{1, 1, 1}, {2, 1, 1}, {1, 1, 2},
                                                    {1, 2, 2}, {2, 2, 1}, {1, 3, 1}};
    for (const auto& dims : grids3) {
      for (int periodic = 0; periodic < 8; periodic += 3) {
        for (bool corners : {false, true}) {
          const std::string what = "3-D " + std::to_string(dims[0]) + "x" +
                                   std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
                                   " periodic=" + std::to_string(periodic) +
                                   " corners=" + std::to_string(corners);
          run(what + mode, check<3>(process_grid(3, dims), {7, 9, 5},
                                    {(periodic & 1) != 0, (periodic & 2) != 0, (periodic & 4) != 0},
                                    {1, 1, 2}, {1, 2, 1}, corners, through, step, count));
        }
      }
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
