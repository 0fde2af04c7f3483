// Time steps of several walks (the dataflow form of a step of several walks, docs/SCHEDULES.md):
// a 3-D step of three updates, one of them over a grid of another type, with a Max reduction the
// loop reads (its `while` stops on it; fuse-sweeps fuses it with the update before it); and a 1-D
// periodic step of two updates, one in place, whose Sum nothing in the loop reads. Checked against
// the reference build on the host target and on GPUs (tests/gpu/run_generated.sh).
// Usage: several_walks [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void relax3d(stencilc::Grid<double, 3>& u, stencilc::Grid<double, 3>& v,
                        stencilc::Grid<float, 3>& w, int max_steps, double tol, int& steps,
                        double& change) {
  double diff = tol + 1.0;
  int t = 0;
  while (t < max_steps && diff > tol) {
    stencilc::for_each(v.interior(), [&](int i, int j, int k) {
      v(i, j, k) = (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                    u(i, j, k - 1) + u(i, j, k + 1)) / 6.0;
    });
    stencilc::for_each(w.interior(), [&](int i, int j, int k) {
      w(i, j, k) = static_cast<float>(v(i, j, k) - u(i, j, k));
    });
    diff = stencilc::reduce(w.interior(), stencilc::Max{}, [&](int i, int j, int k) {
      return std::fabs(static_cast<double>(w(i, j, k)));
    });
    stencilc::for_each(u.interior(), [&](int i, int j, int k) {
      u(i, j, k) = 0.5 * v(i, j, k) + 0.25 * (v(i - 1, j, k) + v(i + 1, j, k));
    });
    ++t;
  }
  steps = t;
  change = diff;
}

SC_PROGRAM void ring1d(stencilc::Grid<float, 1>& p, stencilc::Grid<float, 1>& q, int steps,
                       float& total) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(q.interior(), [&](int i) { q(i) = 0.5f * (p(i - 1) + p(i + 1)) - 0.25f * q(i); });
    stencilc::for_each(p.interior(), [&](int i) { p(i) = 0.25f * (q(i - 1) + q(i + 1)) + 0.5f * p(i); });
    total = stencilc::reduce(p.interior(), stencilc::Sum{}, [&](int i) { return p(i); });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int max_steps = argc > 2 ? std::atoi(argv[2]) : 6;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 3> u({n + 3, n, n - 2}, {edge, edge, edge});
  stencilc::Grid<double, 3> v({n + 3, n, n - 2}, {edge, edge, edge});
  stencilc::Grid<float, 3> w({n + 3, n, n - 2}, {edge, edge, edge});
  u.fill([](int i, int j, int k) { return std::sin(0.4 * i) + 0.1 * ((j * 3 + k) % 7); });
  v.fill([](int, int, int) { return 0.0; });
  w.fill([](int, int, int) { return 0.0f; });
  int steps = 0;
  double change = 0.0;
  relax3d(u, v, w, max_steps, 1e-12, steps, change);
  const int m = n * 40;
  stencilc::Grid<float, 1> p({m}, {stencilc::periodic()}), q({m}, {stencilc::periodic()});
  p.fill([](int i) { return static_cast<float>(i % 13) * 0.125f; });
  q.fill([](int i) { return static_cast<float>(i % 5) - 1.5f; });
  float total = 0.0f;
  ring1d(p, q, max_steps * 3, total);
  double sum = 0.0;
  for (auto* grid : {&u, &v}) {
    std::vector<double> out;
    grid->copy_to(out);
    for (double e : out) sum += e;
  }
  std::vector<float> out;
  w.copy_to(out);
  for (float e : out) sum += e;
  for (auto* grid : {&p, &q}) {
    grid->copy_to(out);
    for (float e : out) sum += e;
  }
  std::printf("several_walks n=%d steps=%d change=%.9e total=%.6e checksum=%.12e\n", n, steps, change,
              static_cast<double>(total), sum);
  stencilc::finalize();
  return 0;
}
