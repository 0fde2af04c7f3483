// The benchmark form of samples/cg2d.cpp: the same program, a fixed number of iterations (a step
// is an iteration); main also takes how many times to run it in a row (bench/run.sh times each
// run) and the extent of dimension 0 (n0, default n: a weak-scaling run keeps n0 / GPUs fixed).
// Usage: cg2d [n [iters [runs [n0]]]]
// Matrix-free conjugate gradients for the 5-point Laplacian with zero (fixed) edges, double
// precision: ap = A p, p.ap, x and r moved along p and ap, r.r, the new direction p; both dot
// products are read in the loop.
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void conjugate_gradients(stencilc::Grid<double, 2>& x, stencilc::Grid<double, 2>& r,
                                    stencilc::Grid<double, 2>& p, stencilc::Grid<double, 2>& ap,
                                    int max_iters, double tol, int& iters, double& residual) {
  double rr = stencilc::reduce(r.interior(), stencilc::Sum{}, [&](int i, int j) { return r(i, j) * r(i, j); });
  int it = 0;
  while (it < max_iters && rr > tol * tol) {
    stencilc::for_each(ap.interior(), [&](int i, int j) {
      ap(i, j) = 4.0 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1);
    });
    const double pap = stencilc::reduce(p.interior(), stencilc::Sum{}, [&](int i, int j) { return p(i, j) * ap(i, j); });
    const double alpha = rr / pap;
    stencilc::for_each(x.interior(), [&](int i, int j) { x(i, j) = x(i, j) + alpha * p(i, j); });
    stencilc::for_each(r.interior(), [&](int i, int j) { r(i, j) = r(i, j) - alpha * ap(i, j); });
    const double rr_new = stencilc::reduce(r.interior(), stencilc::Sum{}, [&](int i, int j) { return r(i, j) * r(i, j); });
    const double beta = rr_new / rr;
    stencilc::for_each(p.interior(), [&](int i, int j) { p(i, j) = r(i, j) + beta * p(i, j); });
    rr = rr_new;
    ++it;
  }
  iters = it;
  residual = std::sqrt(rr);
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1026;
  const int max_iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const double h = 1.0 / (n - 1);
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> x({n0, n}, {edge, edge}), r({n0, n}, {edge, edge});
  stencilc::Grid<double, 2> p({n0, n}, {edge, edge}), ap({n0, n}, {edge, edge});
  auto f = [&](int i, int j) {
    if (i == 0 || j == 0 || i == n0 - 1 || j == n - 1) return 0.0;
    return h * h * (std::sin(3.0 * i * h) * std::cos(2.0 * j * h) + (i * 31 + j * 17) % 5 * 0.01);
  };
  int iters = 0;
  double residual = 0.0;
  for (int k = 0; k < runs; ++k) {
    // Every run solves the same system from x = 0 (r = f - A x = f, p = r): the same work.
    x.fill([](int, int) { return 0.0; });
    ap.fill([](int, int) { return 0.0; });
    r.fill(f);
    p.fill(f);
    conjugate_gradients(x, r, p, ap, max_iters, 0.0, iters, residual);
  }
  std::vector<double> out;
  x.copy_to(out);
  double sum = 0.0;
  for (double v : out) sum += v;
  std::printf("cg2d n=%d n0=%d iters=%d residual=%.6e checksum=%.12e\n", n, n0, iters, residual, sum);
  stencilc::finalize();
  return 0;
}
