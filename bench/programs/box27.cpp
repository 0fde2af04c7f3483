// The benchmark form of samples/box27.cpp: the same 27-point box stencil (fp32, 3-D); main also
// takes how many times to run it in a row (bench/run.sh times each run) and the extent of
// dimension 0 (n0, default n: a weak-scaling run keeps n0 / GPUs fixed). The grid is n0 x n x n.
// Usage: box27 [n [steps [runs [n0]]]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

// Weights by distance class: the centre, its 6 face, 12 edge and 8 corner neighbours (sum 1).
SC_PROGRAM void smooth(stencilc::Grid<float, 3>& a, stencilc::Grid<float, 3>& b, int steps,
                       float w_centre, float w_face, float w_edge, float w_corner) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i, int j, int k) {
      const float faces = a(i - 1, j, k) + a(i + 1, j, k) + a(i, j - 1, k) + a(i, j + 1, k) +
                          a(i, j, k - 1) + a(i, j, k + 1);
      const float edges = a(i - 1, j - 1, k) + a(i - 1, j + 1, k) + a(i + 1, j - 1, k) +
                          a(i + 1, j + 1, k) + a(i - 1, j, k - 1) + a(i - 1, j, k + 1) +
                          a(i + 1, j, k - 1) + a(i + 1, j, k + 1) + a(i, j - 1, k - 1) +
                          a(i, j - 1, k + 1) + a(i, j + 1, k - 1) + a(i, j + 1, k + 1);
      const float corners = a(i - 1, j - 1, k - 1) + a(i - 1, j - 1, k + 1) +
                            a(i - 1, j + 1, k - 1) + a(i - 1, j + 1, k + 1) +
                            a(i + 1, j - 1, k - 1) + a(i + 1, j - 1, k + 1) +
                            a(i + 1, j + 1, k - 1) + a(i + 1, j + 1, k + 1);
      b(i, j, k) = w_centre * a(i, j, k) + w_face * faces + w_edge * edges + w_corner * corners;
    });
    std::swap(a, b);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 128;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<float, 3> a({n0, n, n}, {edge, edge, edge}), b({n0, n, n}, {edge, edge, edge});
  auto init = [&](int i, int j, int k) {
    return i == 0 ? 1.0f + 0.5f * std::sin(0.25f * j) * std::cos(0.15f * k)
                  : 0.2f * std::sin(0.3f * i + 0.2f * j) + 0.1f * std::cos(0.11f * k);
  };
  a.fill(init);
  b.fill(init);
  // 8 + 6 * 4 + 12 * 2 + 8 * 1 = 64
  for (int r = 0; r < runs; ++r) smooth(a, b, steps, 8.0f / 64, 4.0f / 64, 2.0f / 64, 1.0f / 64);
  std::vector<float> out;
  a.copy_to(out);
  double sum = 0.0;
  for (float x : out) sum += x;
  std::printf("box27 %dx%dx%d steps=%d checksum=%.9e\n", n0, n, n, steps, sum);
  stencilc::finalize();
  return 0;
}
