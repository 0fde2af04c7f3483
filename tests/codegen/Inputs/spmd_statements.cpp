// The SPMD statements the samples do not use, for the CUDA target (tests/codegen/cuda-spmd-statements.test,
// e2e.cuda.build.spmd_statements): 3-D slabs, a put of whole planes, quiet, barrier_all, a while
// loop, a local reduction and a T& result.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
#include <vector>

SC_SPMD_PROGRAM void misc(stencilc::Block<float, 3>& a, stencilc::Block<float, 3>& b, int steps, float& total) {
  const int me = stencilc::my_pe();
  const int np = stencilc::n_pes();
  const int up = (me + np - 1) % np;
  const int down = (me + 1) % np;
  const int n = a.extent(0);
  const int ny = a.extent(1);
  const int nz = a.extent(2);
  const int n_up = a.extent_on(up, 0);
  stencilc::Signal ready_hi;
  stencilc::Signal ready_lo;
  int t = 0;
  while (t < steps) {
    const std::uint64_t epoch = static_cast<std::uint64_t>(t) + 1;
    stencilc::put_signal(a.region({{n_up, 0, 0}, {n_up + 1, ny, nz}}), a.region({{0, 0, 0}, {1, ny, nz}}), ready_hi, epoch, up);
    stencilc::put_signal(a.region({{-1, 0, 0}, {0, ny, nz}}), a.region({{n - 1, 0, 0}, {n, ny, nz}}), ready_lo, epoch, down);
    stencilc::signal_wait_until(ready_hi, stencilc::Cmp::GE, epoch);
    stencilc::signal_wait_until(ready_lo, stencilc::Cmp::GE, epoch);
    stencilc::for_each(a.owned(), [&](int i, int j, int k) {
      b(i, j, k) = 0.5f * a(i, j, k) + 0.25f * (a(i - 1, j, k) + a(i + 1, j, k));
    });
    stencilc::quiet();
    stencilc::barrier_all();
    stencilc::swap(a, b);
    t = t + 1;
  }
  auto s = stencilc::reduce(a.owned(), stencilc::Sum{}, [&](int i, int j, int k) { return a(i, j, k); });
  total = s;
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 12;
  stencilc::Grid<float, 3> a({n, 5, 7}, {stencilc::periodic(), stencilc::fixed(0), stencilc::fixed(0)});
  stencilc::Grid<float, 3> b({n, 5, 7}, {stencilc::periodic(), stencilc::fixed(0), stencilc::fixed(0)});
  a.fill([](int i, int j, int k) { return 0.1f * i + 0.01f * j + 0.001f * k; });
  b.fill([](int, int, int) { return 0.0f; });
  float total = 0;
  stencilc::spmd(misc, stencilc::Split{0, 1}, a, b, 4, total);
  std::printf("total %g a(1,2,3) %g\n", total, a(1, 2, 3));
  stencilc::finalize();
}
