// The benchmark form of samples/heat3d.cpp: the same program; main also takes how many times to
// run it in a row (bench/run.sh times each run), and the extent of dimension 0 (n0, default n:
// a weak-scaling run keeps n0 / GPUs fixed). Usage: heat3d [n [steps [runs [n0]]]]
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
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto fixed = stencilc::fixed(1);
  stencilc::Grid<double, 3> A({n0, n, n}, {fixed, fixed, fixed});
  stencilc::Grid<double, 3> B({n0, n, n}, {fixed, fixed, fixed});
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
  std::printf("heat3d n=%d n0=%d steps=%d checksum=%.12e\n", n, n0, steps, sum);
  stencilc::finalize();
  return 0;
}
