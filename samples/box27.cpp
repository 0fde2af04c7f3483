// A 27-point box stencil (a weighted 3x3x3 average) on a non-cubic 3D grid, single precision,
// with one fixed layer on every face holding a warm plate. Usage: box27 [nz [ny [nx [steps]]]]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
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
  const int nz = argc > 1 ? std::atoi(argv[1]) : 40;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 24;
  const int nx = argc > 3 ? std::atoi(argv[3]) : 56;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 40;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<float, 3> a({nz, ny, nx}, {edge, edge, edge}), b({nz, ny, nx}, {edge, edge, edge});
  // A warm plate at i = 0 over a sinusoidal interior.
  auto init = [&](int i, int j, int k) {
    return i == 0 ? 1.0f + 0.5f * std::sin(0.25f * j) * std::cos(0.15f * k)
                  : 0.2f * std::sin(0.3f * i + 0.2f * j) + 0.1f * std::cos(0.11f * k);
  };
  a.fill(init);
  b.fill(init);
  // 8 + 6 * 4 + 12 * 2 + 8 * 1 = 64
  smooth(a, b, steps, 8.0f / 64, 4.0f / 64, 2.0f / 64, 1.0f / 64);
  std::vector<float> out;
  a.copy_to(out);
  double sum = 0.0, weighted = 0.0;
  for (std::size_t p = 0; p < out.size(); ++p) {
    sum += out[p];
    weighted += out[p] * static_cast<double>(p % 31);
  }
  std::printf("box27 %dx%dx%d steps=%d checksum=%.9e weighted=%.9e\n", nz, ny, nx, steps, sum,
              weighted);
  stencilc::finalize();
  return 0;
}
