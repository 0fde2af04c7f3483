// The benchmark form of samples/heat3d.cpp: the same program; main also takes how many times to
// run it in a row (bench/run.sh times each run). Usage: heat3d [n [steps [runs]]]
// Explicit heat diffusion on a 3D grid with fixed (Dirichlet) faces, double precision.
// Usage: heat3d [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void heat(stencilc::Grid<double, 3>& A, stencilc::Grid<double, 3>& B, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(B.interior(), [&](int i, int j, int k) {
      B(i, j, k) = 0.125 * (A(i + 1, j, k) - 2.0 * A(i, j, k) + A(i - 1, j, k)) +
                   0.125 * (A(i, j + 1, k) - 2.0 * A(i, j, k) + A(i, j - 1, k)) +
                   0.125 * (A(i, j, k + 1) - 2.0 * A(i, j, k) + A(i, j, k - 1)) + A(i, j, k);
    });
    std::swap(A, B);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 128;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const auto fixed = stencilc::fixed(1);
  stencilc::Grid<double, 3> A({n, n, n}, {fixed, fixed, fixed});
  stencilc::Grid<double, 3> B({n, n, n}, {fixed, fixed, fixed});
  auto init = [&](int i, int j, int k) {
    return std::sin(0.3 * i) * std::cos(0.2 * j) + 0.01 * (k * k % 17);
  };
  A.fill(init);
  B.fill(init);
  for (int r = 0; r < runs; ++r) heat(A, B, steps);
  std::vector<double> out;
  A.copy_to(out);
  double sum = 0.0;
  for (double v : out) sum += v;
  std::printf("heat3d n=%d steps=%d checksum=%.12e\n", n, steps, sum);
  stencilc::finalize();
  return 0;
}
