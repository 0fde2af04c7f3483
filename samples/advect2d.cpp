// Linear advection of a blob by a constant wind with the first-order upwind scheme: an
// asymmetric stencil (it reads only the upwind neighbours i-1 and j-1), periodic in both
// dimensions, single precision. Usage: advect2d [n [steps]]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
#include <utility>
#include <vector>

// cy, cx: Courant numbers of the wind along i and j (both positive, cy + cx <= 1 for stability).
SC_PROGRAM void advect(stencilc::Grid<float, 2>& q, stencilc::Grid<float, 2>& q_next, int steps,
                       float cy, float cx, float& peak) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(q_next.interior(), [&](int i, int j) {
      const float c = q(i, j);
      q_next(i, j) = c - cy * (c - q(i - 1, j)) - cx * (c - q(i, j - 1));
    });
    std::swap(q, q_next);
  }
  peak = stencilc::reduce(q.interior(), stencilc::Max{}, [&](int i, int j) { return q(i, j); });
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  const int ny = n, nx = n + n / 4;  // not square, so a swapped i/j shows
  const auto wrap = stencilc::periodic();
  stencilc::Grid<float, 2> q({ny, nx}, {wrap, wrap}), q_next({ny, nx}, {wrap, wrap});
  q.fill([&](int i, int j) {
    const float y = (i - 0.3f * ny) / (0.1f * ny), x = (j - 0.4f * nx) / (0.1f * nx);
    return std::exp(-(x * x + y * y)) + 0.1f * std::sin(6.2831853f * j / nx);
  });
  q_next.fill([](int, int) { return 0.0f; });
  float peak = 0.0f;
  advect(q, q_next, steps, 0.35f, 0.45f, peak);
  std::vector<float> out;
  q.copy_to(out);
  double sum = 0.0, sq = 0.0, moment = 0.0;
  for (std::size_t p = 0; p < out.size(); ++p) {
    sum += out[p];
    sq += static_cast<double>(out[p]) * out[p];
    moment += static_cast<double>(out[p]) * static_cast<double>(p % 97);
  }
  std::printf("advect2d %dx%d steps=%d peak=%.6e checksum=%.9e l2=%.9e moment=%.9e\n", ny, nx,
              steps, peak, sum, sq, moment);
  stencilc::finalize();
  return 0;
}
