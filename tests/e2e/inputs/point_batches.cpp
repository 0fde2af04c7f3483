// Point updates whose stores the CUDA kernel defers (codegen/CudaPointLoops.cpp: wide items,
// strips and batches of points compute their values first and store them after) and ones it must
// not: a grid read at the point before its own store (deferred), read after its store in the same
// body (not deferred), 1-D updates in batches whose size follows the element type and the reads,
// and one with too many reads for a batch. tests/codegen/cuda-deferred-stores.test reads the
// generated code; tests/e2e runs it on the host target against the reference, and
// tests/gpu/run_generated.sh on 1-4 GPUs. Usage: point_batches [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

// x += s p in place, then p from x: 2-D, deferred (wide items).
SC_PROGRAM void axpy2d(stencilc::Grid<double, 2>& x, stencilc::Grid<double, 2>& p, double s, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(x.interior(), [&](int i, int j) { x(i, j) = x(i, j) + s * p(i, j); });
    stencilc::for_each(p.interior(), [&](int i, int j) {
      p(i, j) = 0.25 * (x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1)) - p(i, j);
    });
  }
}

// a stored, then read by the next statement at the same point: not deferred, in 2-D and 1-D.
SC_PROGRAM void read_after2d(stencilc::Grid<double, 2>& a, stencilc::Grid<double, 2>& b, stencilc::Grid<double, 2>& c) {
  stencilc::for_each(a.interior(), [&](int i, int j) {
    a(i, j) = 0.5 * (b(i - 1, j) + b(i, j + 1));
    c(i, j) = a(i, j) * a(i, j) + 1.0;
  });
}

SC_PROGRAM void read_after1d(stencilc::Grid<float, 1>& u, stencilc::Grid<float, 1>& v) {
  stencilc::for_each(u.interior(), [&](int i) {
    u(i) = v(i) * 3.0f - 1.0f;
    v(i) = u(i) + 2.0f;
  });
}

// 1-D float: x += s y in place, then a 3-point smoother into y (batches of 16 points).
SC_PROGRAM void axpy1d(stencilc::Grid<float, 1>& x, stencilc::Grid<float, 1>& y, float s, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(x.interior(), [&](int i) { x(i) = x(i) + s * y(i); });
    stencilc::for_each(y.interior(), [&](int i) { y(i) = (x(i - 1) + x(i) + x(i + 1)) / 3.0f; });
  }
}

// 1-D double of radius 4 (9 reads: batches of 4 points) and radius 13 (27 reads: no batch).
SC_PROGRAM void wide1d(stencilc::Grid<double, 1>& a, stencilc::Grid<double, 1>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i) {
      b(i) = (a(i - 4) + a(i - 3) + a(i - 2) + a(i - 1) + a(i) + a(i + 1) + a(i + 2) + a(i + 3) + a(i + 4)) / 9.0;
    });
    stencilc::for_each(a.interior(), [&](int i) {
      double s = 0.0;
      s += b(i - 13) + b(i - 12) + b(i - 11) + b(i - 10) + b(i - 9) + b(i - 8) + b(i - 7) + b(i - 6) + b(i - 5);
      s += b(i - 4) + b(i - 3) + b(i - 2) + b(i - 1) + b(i) + b(i + 1) + b(i + 2) + b(i + 3) + b(i + 4);
      s += b(i + 5) + b(i + 6) + b(i + 7) + b(i + 8) + b(i + 9) + b(i + 10) + b(i + 11) + b(i + 12) + b(i + 13);
      a(i) = s / 27.0;
    });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> x({n, n}, {edge, edge}), p({n, n}, {edge, edge}), c({n, n}, {edge, edge});
  x.fill([](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  p.fill([](int i, int j) { return (i * 5 + j * 13) % 7 * 0.2 - 0.5; });
  c.fill([](int, int) { return 0.0; });
  axpy2d(x, p, 0.3, steps);
  stencilc::Grid<float, 1> f({n * 8}, {edge}), g({n * 8}, {edge});
  f.fill([](int i) { return static_cast<float>(i % 9) * 0.5f; });
  g.fill([](int i) { return static_cast<float>(i % 4) * -0.75f; });
  read_after2d(x, p, c);
  read_after1d(f, g);
  const int m = n * n;
  stencilc::Grid<float, 1> u({m}, {edge}), w({m}, {edge});
  u.fill([](int i) { return static_cast<float>(i % 17) * 0.25f; });
  w.fill([](int i) { return static_cast<float>(i % 5) - 2.0f; });
  axpy1d(u, w, 0.5f, steps);
  stencilc::Grid<double, 1> a({m}, {stencilc::fixed(13)}), b({m}, {stencilc::fixed(13)});
  a.fill([](int i) { return (i % 29) * 0.125; });
  b.fill([](int i) { return (i % 23) * -0.5; });
  wide1d(a, b, steps);
  double sum = 0.0;
  for (auto* grid : {&x, &p, &c}) {
    std::vector<double> out;
    grid->copy_to(out);
    for (double e : out) sum += e;
  }
  for (auto* grid : {&a, &b}) {
    std::vector<double> out;
    grid->copy_to(out);
    for (double e : out) sum += e;
  }
  for (auto* grid : {&f, &g, &u, &w}) {
    std::vector<float> out;
    grid->copy_to(out);
    for (float e : out) sum += e;
  }
  std::printf("point_batches n=%d checksum=%.12e\n", n, sum);
  stencilc::finalize();
  return 0;
}
