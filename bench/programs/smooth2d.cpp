// A 2-D five-point Jacobi smoother in single precision, two updates a step (a into b, then b back
// into a, no swap), fixed edges. Usage: smooth2d [n [steps [runs [n0]]]] (an n0 x n grid).
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void smooth(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i, int j) {
      b(i, j) = 0.25f * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1));
    });
    stencilc::for_each(a.interior(), [&](int i, int j) {
      a(i, j) = 0.25f * (b(i - 1, j) + b(i + 1, j) + b(i, j - 1) + b(i, j + 1));
    });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<float, 2> a({n0, n}, {edge, edge}), b({n0, n}, {edge, edge});
  auto start = [&](int i, int j) {
    if (i == 0 || j == 0) return 1.0f;
    if (i == n0 - 1 || j == n - 1) return -1.0f;
    return ((i + 3 * j) % 11 == 0 ? 2.0f : 0.0f) + 0.001f * static_cast<float>((i * j) % 13);
  };
  a.fill(start);
  b.fill(start);
  for (int r = 0; r < runs; ++r) smooth(a, b, steps);
  std::vector<float> out;
  a.copy_to(out);
  double sum = 0.0;
  for (float x : out) sum += x;
  std::printf("smooth2d n=%d n0=%d steps=%d checksum=%.9e\n", n, n0, steps, sum);
  stencilc::finalize();
  return 0;
}
