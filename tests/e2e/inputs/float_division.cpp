// Float divisions in point updates, which the CUDA target writes as the runtime's div_rn
// (generated.cuh: correctly rounded like `/`, without CUDA's slow-path call): by a run-time
// scalar, by a grid's values and by a constant, over a pulse whose tails are subnormal floats and
// zeros; a division by a power of two stays `/` (an exact product). tests/codegen/
// cuda-float-division.test reads the generated code; tests/e2e runs it on the host target against
// the reference, tests/gpu/run_generated.sh on 1-4 GPUs. Usage: float_division [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void diffuse(stencilc::Grid<float, 2>& u, stencilc::Grid<float, 2>& v, float h2, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(v.interior(), [&](int i, int j) {
      const float lap = (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0f * u(i, j)) / h2;
      v(i, j) = (u(i, j) + 0.2f * lap) / (1.0f + u(i, j) * u(i, j));
    });
    stencilc::for_each(u.interior(), [&](int i, int j) {
      u(i, j) = (v(i - 1, j) + 2.0f * v(i, j) + v(i + 1, j)) / 4.0f + (v(i, j - 1) - v(i, j + 1)) / 12.0f;
    });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<float, 2> u({n, n}, {edge, edge}), v({n, n}, {edge, edge});
  // A pulse of height 3 whose tails fall through the subnormal floats (exp(-87.3) is the least
  // normal) to zero (past exp(-103.9)): 341 subnormal cells at n = 64, 378 after 10 steps.
  const float width = static_cast<float>(n) * static_cast<float>(n) / 400.0f;
  u.fill([&](int i, int j) {
    const float di = static_cast<float>(i - n / 2), dj = static_cast<float>(j - n / 3);
    return 3.0f * std::exp(-(di * di + dj * dj) / width);
  });
  v.fill([](int, int) { return 0.0f; });
  diffuse(u, v, 1.5f, steps);
  double sum = 0.0;
  for (auto* grid : {&u, &v}) {
    std::vector<float> out;
    grid->copy_to(out);
    for (float e : out) sum += e;
  }
  std::printf("float_division n=%d steps=%d checksum=%.9e\n", n, steps, sum);
  stencilc::finalize();
  return 0;
}
