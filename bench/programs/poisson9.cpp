// The benchmark form of samples/poisson9.cpp: the same program (9-point Jacobi for the Poisson
// equation, fp64, the largest update a Max reduction the loop reads), run for a fixed number of
// steps (tolerance -1); main also takes how many times to run it in a row (bench/run.sh times each
// run) and the extent of dimension 0 (n0, default n: a weak-scaling run keeps n0 / GPUs fixed).
// samples/convergence2d.cpp has the same shape (a 5-point update and a Max reduction read in the
// loop). Usage: poisson9 [n [steps [runs [n0]]]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void solve(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& v,
                      const stencilc::Grid<double, 2>& f, double h2, double tol, int max_iters,
                      int& iters_done, double& last_change) {
  int it = 0;
  double change = tol + 1.0;
  while (it < max_iters && change > tol) {
    stencilc::for_each(v.interior(), [&](int i, int j) {
      const double edges = u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1);
      const double corners = u(i - 1, j - 1) + u(i - 1, j + 1) + u(i + 1, j - 1) + u(i + 1, j + 1);
      v(i, j) = (4.0 * edges + corners - 6.0 * h2 * f(i, j)) / 20.0;
    });
    change = stencilc::reduce(v.interior(), stencilc::Max{},
                              [&](int i, int j) { return std::fabs(v(i, j) - u(i, j)); });
    std::swap(u, v);
    ++it;
  }
  iters_done = it;
  last_change = change;
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const double h = 1.0 / (n - 1);
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({n0, n}, {edge, edge}), v({n0, n}, {edge, edge}), f({n0, n}, {edge, edge});
  f.fill([&](int i, int j) { return std::sin(3.0 * i * h) * std::cos(2.0 * j * h); });
  int iters = 0;
  double change = 0.0;
  for (int r = 0; r < runs; ++r) {
    // Every run starts from u = v = 0: the same work.
    u.fill([](int, int) { return 0.0; });
    v.fill([](int, int) { return 0.0; });
    solve(u, v, f, h * h, -1.0, steps, iters, change);
  }
  std::vector<double> out;
  u.copy_to(out);
  double sum = 0.0;
  for (double x : out) sum += x;
  std::printf("poisson9 n=%d n0=%d iters=%d change=%.6e checksum=%.12e\n", n, n0, iters, change, sum);
  stencilc::finalize();
  return 0;
}
