// Runs of point updates and reductions that fuse-sweeps merges into one sweep (passes/FuseSweeps.h)
// and ones it must not: in 2-D, two updates and a sum over one interior, the second and the sum
// reading at the point what the first just stored (forwarded); in 1-D, an update whose range is
// another grid's interior fused with a max (versioned on the interiors), after one it must not
// fuse with (it reads off-centre the grid the next writes); in 3-D, a versioned update and sum
// run on grids whose interiors are equal (the fused version) and differ (the unfused one).
// tests/passes/fuse-sweeps-samples.test reads the IR; tests/e2e runs it on the host target
// against the reference, and tests/gpu/run_generated.sh on GPUs. Usage: fused_sweeps [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void sweeps2d(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& v, stencilc::Grid<double, 2>& w,
                         double s, int steps, double& total) {
  double acc = 0.0;
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(u.interior(), [&](int i, int j) { u(i, j) = 0.5 * u(i, j) + s * (w(i - 1, j) + w(i, j + 1)); });
    stencilc::for_each(u.interior(), [&](int i, int j) { v(i, j) = v(i, j) - 0.25 * u(i, j); });
    const double d = stencilc::reduce(u.interior(), stencilc::Sum{}, [&](int i, int j) { return u(i, j) * v(i, j); });
    acc = acc + d;
    stencilc::for_each(w.interior(), [&](int i, int j) { w(i, j) = 0.9 * w(i, j) + 0.01 * v(i, j); });
  }
  total = acc;
}

SC_PROGRAM void sweeps1d(stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b, int steps, float& peak) {
  float m = 0.0f;
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(a.interior(), [&](int i) { a(i) = 0.5f * (b(i - 1) + b(i + 1)); });
    stencilc::for_each(b.interior(), [&](int i) { b(i) = 0.75f * b(i) + a(i); });
    m = stencilc::reduce(a.interior(), stencilc::Max{}, [&](int i) { return b(i) - a(i); });
  }
  peak = m;
}

SC_PROGRAM void sweeps3d(stencilc::Grid<double, 3>& p, stencilc::Grid<double, 3>& q, double& total) {
  stencilc::for_each(p.interior(), [&](int i, int j, int k) { p(i, j, k) = 2.0 * p(i, j, k) + q(i, j, k); });
  total = stencilc::reduce(q.interior(), stencilc::Sum{}, [&](int i, int j, int k) { return p(i, j, k) * q(i, j, k); });
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 48;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({n, n}, {edge, edge}), v({n, n}, {edge, edge}), w({n, n}, {edge, edge});
  u.fill([](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  v.fill([](int i, int j) { return (i * 5 + j * 13) % 7 * 0.2 - 0.5; });
  w.fill([](int i, int j) { return (i + 2 * j) % 5 * 0.3; });
  double total2 = 0.0;
  sweeps2d(u, v, w, 0.2, steps, total2);
  stencilc::Grid<float, 1> a({n * 8}, {edge}), b({n * 8}, {edge});
  a.fill([](int i) { return static_cast<float>(i % 9) * 0.5f; });
  b.fill([](int i) { return static_cast<float>(i % 4) * -0.75f; });
  float peak = 0.0f;
  sweeps1d(a, b, steps, peak);
  const int m = n / 4 + 3;
  stencilc::Grid<double, 3> p({m, m, m}, {edge, edge, edge}), q({m, m, m}, {edge, edge, edge});
  const auto wide = stencilc::fixed(2);
  stencilc::Grid<double, 3> r({m, m, m}, {wide, wide, wide});
  p.fill([](int i, int j, int k) { return (i + j * 3 + k * 5) % 7 * 0.25; });
  q.fill([](int i, int j, int k) { return (i * 2 + j + k) % 3 * 0.5 - 0.25; });
  r.fill([](int i, int j, int k) { return (i + j + k) % 4 * 0.125; });
  double equal = 0.0, differ = 0.0;
  sweeps3d(p, q, equal);   // equal interiors: the fused version
  sweeps3d(p, r, differ);  // r's interior is smaller: the unfused version
  double sum = total2 + peak + equal + differ;
  for (auto* grid : {&u, &v, &w}) {
    std::vector<double> out;
    grid->copy_to(out);
    for (double e : out) sum += e;
  }
  for (auto* grid : {&a, &b}) {
    std::vector<float> out;
    grid->copy_to(out);
    for (float e : out) sum += e;
  }
  for (auto* grid : {&p, &q, &r}) {
    std::vector<double> out;
    grid->copy_to(out);
    for (double e : out) sum += e;
  }
  std::printf("fused_sweeps n=%d total=%.12e peak=%.6e equal=%.12e differ=%.12e checksum=%.12e\n", n, total2,
              peak, equal, differ, sum);
  stencilc::finalize();
  return 0;
}
