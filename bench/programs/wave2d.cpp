// The benchmark form of samples/wave2d.cpp: the same program; main also takes how many times to
// run it in a row (bench/run.sh times each run), and the extent of dimension 0 (n0, default n:
// a weak-scaling run keeps n0 / GPUs fixed). Usage: wave2d [n [steps [runs [n0]]]]
// Acoustic wave equation, second order in time, fourth order in space (radius-2 star),
// with a variable squared-speed field. Three rotating time levels. Usage: wave2d [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

inline float laplacian4(float c, float n1, float n2) { return (-60.0f * c + 16.0f * n1 - n2) / 12.0f; }

SC_PROGRAM void wave(stencilc::Grid<float, 2>& u_prev, stencilc::Grid<float, 2>& u,
                     stencilc::Grid<float, 2>& u_next, const stencilc::Grid<float, 2>& c2,
                     int steps, float dt2_over_h2) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(u_next.interior(), [&](int i, int j) {
      const float near = u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1);
      const float far = u(i + 2, j) + u(i - 2, j) + u(i, j + 2) + u(i, j - 2);
      const float lap = laplacian4(u(i, j), near, far);
      u_next(i, j) = 2.0f * u(i, j) - u_prev(i, j) + c2(i, j) * dt2_over_h2 * lap;
    });
    std::swap(u_prev, u);
    std::swap(u, u_next);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto edge = stencilc::fixed(2);
  stencilc::Grid<float, 2> u_prev({n0, n}, {edge, edge}), u({n0, n}, {edge, edge});
  stencilc::Grid<float, 2> u_next({n0, n}, {edge, edge}), c2({n0, n}, {edge, edge});
  auto pulse = [&](int i, int j) {
    const float x = (i - n0 / 2) / (0.05f * n), y = (j - n / 3) / (0.05f * n);
    return std::exp(-(x * x + y * y));
  };
  u_prev.fill(pulse);
  u.fill(pulse);
  u_next.fill([](int, int) { return 0.0f; });
  c2.fill([&](int i, int) { return i < n0 / 2 ? 1.0f : 0.25f; });
  for (int r = 0; r < runs; ++r) wave(u_prev, u, u_next, c2, steps, 0.1f);
  std::vector<float> out;
  u.copy_to(out);
  double sum = 0.0, sq = 0.0;
  for (float v : out) { sum += v; sq += (double)v * v; }
  std::printf("wave2d n=%d n0=%d steps=%d checksum=%.9e energy=%.9e\n", n, n0, steps, sum, sq);
  stencilc::finalize();
  return 0;
}
