// The host-controlled schedule's point kernels walk their box as host_controlled.cuh says (the
// walk above kLanes): rows grid-stride along y and z, the last dimension in chunks of which each
// thread takes kPoints cells kLanes apart. Checked without a GPU: for boxes of 1 to 3 dimensions
// (uneven extents, boxes that do not start at 0, rows shorter than a chunk or a lane count,
// extents that kPoints and kLanes do not divide, y past the 65535-block cap) and for reductions
// (the grid capped at kReduceBlocks), every thread of launch_shape's grid is walked as the
// generated kernels walk it, and every cell of the box must be some thread's point exactly once,
// and no cell outside it any. Built with nvcc (the header is CUDA), run on the host. Prints a line
// per failure and `N passed, M failed`.
#include <cstdio>
#include <stencilc/runtime/cuda/host_controlled.cuh>
#include <string>
#include <vector>

namespace rc = stencilc::rt::cuda;
namespace hc = stencilc::rt::cuda::hc;

namespace {

// One thread's points, as HostControlledEmitter's kernels take them: `visit(l)` per point, l its
// local indices.
template <int N, class Visit>
void walk_thread(const hc::LaunchBox<N>& box, const dim3& grid, const dim3& block, const dim3& b,
                 const dim3& t, Visit&& visit) {
  const unsigned bi[3] = {b.x, b.y, b.z}, ti[3] = {t.x, t.y, t.z};
  const unsigned gd[3] = {grid.x, grid.y, grid.z}, bd[3] = {block.x, block.y, block.z};
  int l[N] = {};
  const int last = N - 1;
  const int chunks = hc::chunks<N>(box.hi[last] - box.lo[last]);
  auto chunks_of_row = [&]() {
    const int lane = static_cast<int>(ti[0]);
    for (int q = static_cast<int>(bi[0]); q < chunks; q += static_cast<int>(gd[0])) {
      const int c = box.lo[last] + q * hc::kChunk<N>, n = box.hi[last] - c;
      for (int k = 0; k < hc::kPoints<N>; ++k) {
        if (lane + k * hc::kLanes<N> >= n) continue;
        l[last] = c + lane + k * hc::kLanes<N>;
        visit(l);
      }
    }
  };
  // Dimension N - 2 along y, N - 3 along z.
  auto rows = [&](auto&& self, int d) -> void {
    if (d == last) return chunks_of_row();
    const int axis = last - d;  // 1: y, 2: z
    for (int i = box.lo[d] + static_cast<int>(bi[axis] * bd[axis] + ti[axis]); i < box.hi[d];
         i += static_cast<int>(gd[axis] * bd[axis])) {
      l[d] = i;
      self(self, d + 1);
    }
  };
  rows(rows, 0);
}

// Every thread of the launch over local box [lo, hi): each cell of the box visited once.
template <int N>
std::string check(const std::array<int, N>& lo, const std::array<int, N>& hi, bool reduction) {
  rc::SBox<N> local;
  hc::LaunchBox<N> box;
  long cells = 1;
  for (int d = 0; d < N; ++d) {
    local.lo[d] = box.lo[d] = lo[d];
    local.hi[d] = box.hi[d] = hi[d];
    box.origin[d] = 0;
    cells *= hi[d] - lo[d];
  }
  dim3 grid, block;
  hc::launch_shape(local, reduction, &grid, &block);
  if (block.x != static_cast<unsigned>(hc::kLanes<N>)) return "block.x is not kLanes";
  if (block.x * block.y * block.z != 256) return "not 256 threads a block";
  if (reduction && static_cast<long>(grid.x) * grid.y * grid.z > hc::kReduceBlocks)
    return "a reduction over more than kReduceBlocks blocks";
  if (grid.y > 65535 || grid.z > 65535) return "y or z past the hardware's limit";
  std::vector<int> seen(static_cast<std::size_t>(cells), 0);
  std::string problem;
  auto visit = [&](const int* l) {
    long at = 0;
    for (int d = 0; d < N; ++d) {
      if (l[d] < lo[d] || l[d] >= hi[d]) {
        if (problem.empty()) problem = "a point outside the box in dimension " + std::to_string(d);
        return;
      }
      at = at * (hi[d] - lo[d]) + (l[d] - lo[d]);
    }
    ++seen[static_cast<std::size_t>(at)];
  };
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx)
              walk_thread<N>(box, grid, block, dim3(bx, by, bz), dim3(tx, ty, tz), visit);
  if (!problem.empty()) return problem;
  for (long i = 0; i < cells; ++i) {
    if (seen[static_cast<std::size_t>(i)] != 1)
      return "cell " + std::to_string(i) + " taken " + std::to_string(seen[static_cast<std::size_t>(i)]) +
             " times";
  }
  return "";
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
  auto text = [](const int* lo, const int* hi, int n, bool reduction) {
    std::string s = reduction ? "reduce" : "foreach";
    for (int d = 0; d < n; ++d) s += " [" + std::to_string(lo[d]) + ", " + std::to_string(hi[d]) + ")";
    return s;
  };
  for (bool reduction : {false, true}) {
    // 1-D: a chunk is 1024 cells; rows shorter than a lane count, than a chunk, just past a chunk,
    // many chunks (past kReduceBlocks chunks for reductions: grid-stride).
    for (int lo : {0, 1, 7}) {
      for (int n : {1, 5, 255, 256, 257, 1023, 1024, 1025, 3000, 70001, 1100000}) {
        const std::array<int, 1> l{lo}, h{lo + n};
        run(text(l.data(), h.data(), 1, reduction), check<1>(l, h, reduction));
      }
    }
    // 2-D: chunks of 128 cells, 8 rows a block.
    for (int lo : {0, 3}) {
      for (int rows : {1, 7, 9, 100}) {
        for (int n : {1, 31, 32, 33, 96, 127, 128, 129, 500, 4099}) {
          const std::array<int, 2> l{lo, lo + 1}, h{lo + rows, lo + 1 + n};
          run(text(l.data(), h.data(), 2, reduction), check<2>(l, h, reduction));
        }
      }
    }
    // 3-D: chunks of 128 cells, 4 rows along y and 2 slices along z a block.
    for (const auto& [l, h] : std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>>{
             {{0, 0, 0}, {1, 1, 1}},
             {{1, 2, 3}, {6, 9, 200}},
             {{0, 0, 0}, {3, 5, 129}},
             {{2, 1, 0}, {35, 13, 33}},
             {{0, 0, 1}, {9, 70, 500}}}) {
      run(text(l.data(), h.data(), 3, reduction), check<3>(l, h, reduction));
    }
  }
  // Rows past the y cap (65535 blocks of 8 rows): grid-stride along y.
  {
    const std::array<int, 2> l{0, 0}, h{600000, 3};
    run(text(l.data(), h.data(), 2, false), check<2>(l, h, false));
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
