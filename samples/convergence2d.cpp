// A convergence loop: damped, step-limited Jacobi iteration for -lap(u) = f on a square with
// fixed edges, run until the largest update (a Max reduction) falls under a tolerance or an
// iteration cap is hit. Once the updates are small, a scalar `if` switches from the damped to
// the plain Jacobi step. Usage: convergence2d [n [tol]]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
#include <utility>
#include <vector>

// Moves `centre` toward `target` by `omega` of the way, but never by more than `cap`.
inline double limited_step(double centre, double target, double omega, double cap) {
  double step = omega * (target - centre);
  if (step > cap) {
    step = cap;
  } else if (step < -cap) {
    step = -cap;
  }
  return centre + step;
}

SC_PROGRAM void relax(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& u_next,
                      const stencilc::Grid<double, 2>& f, double h2, double tol, int max_iters,
                      int& iters_done, int& switched_at, double& last_change) {
  int it = 0;
  double change = tol + 1.0;
  double omega = 0.7;
  double cap = 0.02;
  switched_at = -1;
  while (change > tol && it < max_iters) {
    stencilc::for_each(u_next.interior(), [&](int i, int j) {
      const double target =
          0.25 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) + h2 * f(i, j));
      u_next(i, j) = limited_step(u(i, j), target, omega, cap);
    });
    change = stencilc::reduce(u_next.interior(), stencilc::Max{},
                              [&](int i, int j) { return std::fabs(u_next(i, j) - u(i, j)); });
    std::swap(u, u_next);
    ++it;
    if (switched_at < 0 && change < 1000.0 * tol) {
      omega = 1.0;
      cap = 1.0;
      switched_at = it;
    }
  }
  iters_done = it;
  last_change = change;
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 48;
  const double tol = argc > 2 ? std::atof(argv[2]) : 1e-7;
  const double h = 1.0 / (n - 1);
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({n, n}, {edge, edge}), u_next({n, n}, {edge, edge});
  stencilc::Grid<double, 2> f({n, n}, {edge, edge});
  // Edges: a linear ramp along j on the top edge, 0 elsewhere; a two-signed source inside.
  auto edges = [&](int i, int j) { return i == 0 ? static_cast<double>(j) * h : 0.0; };
  u.fill(edges);
  u_next.fill(edges);
  f.fill([&](int i, int j) { return 40.0 * std::sin(3.0 * i * h) * std::cos(5.0 * j * h); });
  int iters = 0, switched_at = 0;
  double change = 0.0;
  relax(u, u_next, f, h * h, tol, 20000, iters, switched_at, change);
  std::vector<double> out;
  u.copy_to(out);
  double sum = 0.0;
  for (double x : out) sum += x;
  std::printf("convergence2d n=%d iters=%d switched_at=%d change=%.6e checksum=%.12e\n", n, iters,
              switched_at, change, sum);
  stencilc::finalize();
  return 0;
}
