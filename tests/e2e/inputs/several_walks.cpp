// Time steps of several walks (the dataflow form of a step of several walks, docs/SCHEDULES.md):
// a 3-D step of three updates, one of them over a grid of another type, with a Max reduction the
// loop reads (its `while` stops on it; fuse-sweeps fuses it with the update before it); and a 1-D
// periodic step of two updates, one in place, whose Sum nothing in the loop reads; and a 2-D step
// of four walks that wait for different walks before them (chain2d). Checked against
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

// A plain sequence of five walks over one range (none under an `if`, no swap, no reduction):
// the dataflow form waits before each walk only for the last walk it depends on across rows
// (FlowWalk::wait_back): the first (writes b) for the second of the step before (reads b across
// rows), the second for the first, the third (reads c and writes e along rows only) for none,
// the fourth (writes a) for the fifth of the step before (reads a across rows), the fifth for the
// fourth.
SC_PROGRAM void chain2d(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b,
                        stencilc::Grid<float, 2>& c, stencilc::Grid<float, 2>& d,
                        stencilc::Grid<float, 2>& e, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(a.interior(), [&](int i, int j) {
      b(i, j) = 0.5f * (a(i, j - 1) + a(i, j + 1)) + 0.125f * d(i, j);
    });
    stencilc::for_each(a.interior(), [&](int i, int j) {
      c(i, j) = 0.25f * (b(i - 1, j) + b(i + 1, j)) - 0.125f * c(i, j);
    });
    stencilc::for_each(a.interior(), [&](int i, int j) { e(i, j) = 0.5f * (c(i, j - 1) + c(i, j + 1)); });
    stencilc::for_each(a.interior(), [&](int i, int j) { a(i, j) = 0.75f * a(i, j) + 0.25f * e(i, j - 1); });
    stencilc::for_each(a.interior(), [&](int i, int j) { d(i, j) = 0.5f * (a(i - 1, j) - a(i + 1, j)); });
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
  stencilc::Grid<float, 2> a({n + 5, n + 2}, {edge, edge}), b({n + 5, n + 2}, {edge, edge});
  stencilc::Grid<float, 2> c({n + 5, n + 2}, {edge, edge}), d({n + 5, n + 2}, {edge, edge});
  stencilc::Grid<float, 2> e({n + 5, n + 2}, {edge, edge});
  e.fill([](int i, int j) { return static_cast<float>((i + 2 * j) % 7) * 0.125f; });
  a.fill([](int i, int j) { return static_cast<float>((i * 7 + j * 3) % 11) * 0.25f; });
  b.fill([](int i, int j) { return static_cast<float>((i + j) % 3); });
  c.fill([](int i, int j) { return static_cast<float>((i * j) % 5) * 0.5f; });
  d.fill([](int i, int) { return static_cast<float>(i % 4) - 1.0f; });
  chain2d(a, b, c, d, e, max_steps * 2);
  double sum = 0.0;
  for (auto* grid : {&a, &b, &c, &d, &e}) {
    std::vector<float> cells;
    grid->copy_to(cells);
    for (std::size_t k = 0; k < cells.size(); ++k) sum += cells[k] * (1.0 + static_cast<double>(k % 7));
  }
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
