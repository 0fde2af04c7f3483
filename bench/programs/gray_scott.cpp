// The benchmark form of samples/multiwrite2d.cpp: the same Gray-Scott reaction-diffusion program
// (two coupled fp64 grids, one update writing both); main also takes how many times to run it in a
// row (bench/run.sh times each run) and the extent of dimension 0 (n0, default n: a weak-scaling
// run keeps n0 / GPUs fixed). Usage: gray_scott [n [steps [runs [n0]]]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void gray_scott(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& v,
                           stencilc::Grid<double, 2>& u_next, stencilc::Grid<double, 2>& v_next,
                           int steps, double du, double dv, double feed, double kill, double dt) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(u_next.interior(), [&](int i, int j) {
      const double uc = u(i, j), vc = v(i, j);
      const double lap_u = u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1) - 4.0 * uc;
      const double lap_v = v(i + 1, j) + v(i - 1, j) + v(i, j + 1) + v(i, j - 1) - 4.0 * vc;
      const double uvv = uc * vc * vc;
      u_next(i, j) = uc + dt * (du * lap_u - uvv + feed * (1.0 - uc));
      v_next(i, j) = vc + dt * (dv * lap_v + uvv - (feed + kill) * vc);
    });
    std::swap(u, u_next);
    std::swap(v, v_next);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({n0, n}, {edge, edge}), v({n0, n}, {edge, edge});
  stencilc::Grid<double, 2> u_next({n0, n}, {edge, edge}), v_next({n0, n}, {edge, edge});
  auto seeded = [&](int i, int j) { return std::abs(i - n0 / 2) < n0 / 8 && std::abs(j - n / 2) < n / 6; };
  auto u0 = [&](int i, int j) { return seeded(i, j) ? 0.5 + 0.02 * std::sin(0.7 * i + 0.3 * j) : 1.0; };
  auto v0 = [&](int i, int j) { return seeded(i, j) ? 0.25 + 0.02 * std::cos(0.5 * i - 0.9 * j) : 0.0; };
  u.fill(u0);
  v.fill(v0);
  u_next.fill(u0);
  v_next.fill(v0);
  for (int r = 0; r < runs; ++r) gray_scott(u, v, u_next, v_next, steps, 0.16, 0.08, 0.035, 0.065, 1.0);
  std::vector<double> out_u, out_v;
  u.copy_to(out_u);
  v.copy_to(out_v);
  double sum_u = 0.0, sum_v = 0.0;
  for (double x : out_u) sum_u += x;
  for (double x : out_v) sum_v += x;
  std::printf("gray_scott %dx%d steps=%d sum_u=%.12e sum_v=%.12e\n", n0, n, steps, sum_u, sum_v);
  stencilc::finalize();
  return 0;
}
