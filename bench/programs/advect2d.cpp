// The benchmark form of samples/advect2d.cpp: the same program (first-order upwind advection,
// fp32, periodic in both dimensions, an asymmetric stencil reading only i-1 and j-1); main also
// takes how many times to run it in a row (bench/run.sh times each run) and the extent of
// dimension 0 (n0, default n: a weak-scaling run keeps n0 / GPUs fixed).
// Usage: advect2d [n [steps [runs [n0]]]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto wrap = stencilc::periodic();
  stencilc::Grid<float, 2> q({n0, n}, {wrap, wrap}), q_next({n0, n}, {wrap, wrap});
  float peak = 0.0f;
  for (int r = 0; r < runs; ++r) {
    // Every run advects the same blob: the same work.
    q.fill([&](int i, int j) {
      const float y = (i - 0.3f * n0) / (0.1f * n0), x = (j - 0.4f * n) / (0.1f * n);
      return std::exp(-(x * x + y * y)) + 0.1f * std::sin(6.2831853f * j / n);
    });
    q_next.fill([](int, int) { return 0.0f; });
    advect(q, q_next, steps, 0.35f, 0.45f, peak);
  }
  std::vector<float> out;
  q.copy_to(out);
  double sum = 0.0;
  for (float x : out) sum += x;
  std::printf("advect2d n=%d n0=%d peak=%.6e checksum=%.9e\n", n, n0, peak, sum);
  stencilc::finalize();
  return 0;
}
