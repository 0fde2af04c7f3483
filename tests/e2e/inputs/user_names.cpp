// Programs named like common library names: none of stencilc's, CUDA's or NVSHMEM's declarations
// may collide with a user's names (tests/e2e: the host target against the reference on 1-4 PEs,
// the CUDA target built for both backends). `cg` is the one NVSHMEM's device headers declare at
// global scope (`namespace cg = cooperative_groups;`; nvshmem_pe.cuh keeps it out of the way).
// Usage: user_names [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void barrier(stencilc::Grid<double, 2>& a, stencilc::Grid<double, 2>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i, int j) { b(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1)); });
    std::swap(a, b);
  }
}

SC_PROGRAM void put(stencilc::Grid<double, 2>& a, double s) {
  stencilc::for_each(a.interior(), [&](int i, int j) { a(i, j) = s * a(i, j); });
}

SC_PROGRAM void grid(stencilc::Grid<double, 2>& a, stencilc::Grid<double, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i, int j) { b(i, j) = a(i, j) + a(i - 1, j); });
}

SC_PROGRAM void team(stencilc::Grid<double, 2>& a, double& total) {
  total = stencilc::reduce(a.interior(), stencilc::Sum{}, [&](int i, int j) { return a(i, j); });
}

// A conjugate-gradient-like step: a residual and its squared norm.
SC_PROGRAM void cg(stencilc::Grid<double, 2>& x, stencilc::Grid<double, 2>& r, double& rr) {
  stencilc::for_each(r.interior(), [&](int i, int j) { r(i, j) = 4.0 * x(i, j) - x(i - 1, j) - x(i + 1, j) - x(i, j - 1) - x(i, j + 1); });
  rr = stencilc::reduce(r.interior(), stencilc::Sum{}, [&](int i, int j) { return r(i, j) * r(i, j); });
}

SC_PROGRAM void launch(stencilc::Grid<double, 2>& a, stencilc::Grid<double, 2>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i, int j) { b(i, j) = a(i, j) - 0.1 * (a(i, j + 1) - a(i, j - 1)); });
    std::swap(a, b);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 40;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> a({n, n}, {edge, edge}), b({n, n}, {edge, edge});
  a.fill([&](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  b.fill([&](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  barrier(a, b, steps);
  put(a, 0.5);
  grid(a, b);
  launch(b, a, steps);
  double total = 0.0, rr = 0.0;
  team(b, total);
  cg(b, a, rr);
  std::vector<double> out;
  b.copy_to(out);
  std::printf("user_names n=%d total=%.12e rr=%.12e\n", n, total, rr);
  stencilc::finalize();
  return 0;
}
