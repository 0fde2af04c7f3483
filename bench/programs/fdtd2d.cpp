// The benchmark form of samples/fdtd2d.cpp: the same program (PolyBench FDTD-2D, three in-place
// fp64 updates a step); main also takes how many times to run it in a row (bench/run.sh times
// each run) and the extent of dimension 0 (n0, default n: a weak-scaling run keeps n0 / GPUs
// fixed). Usage: fdtd2d [n [steps [runs [n0]]]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void fdtd(stencilc::Grid<double, 2>& ex, stencilc::Grid<double, 2>& ey,
                     stencilc::Grid<double, 2>& hz, int tmax, int nx, int ny) {
  for (int t = 0; t < tmax; ++t) {
    stencilc::for_each(stencilc::Box<2>{{0, 0}, {1, ny}}, [&](int i, int j) { ey(i, j) = t; });
    stencilc::for_each(stencilc::Box<2>{{1, 0}, {nx, ny}}, [&](int i, int j) {
      ey(i, j) = ey(i, j) - 0.5 * (hz(i, j) - hz(i - 1, j));
    });
    stencilc::for_each(stencilc::Box<2>{{0, 1}, {nx, ny}}, [&](int i, int j) {
      ex(i, j) = ex(i, j) - 0.5 * (hz(i, j) - hz(i, j - 1));
    });
    stencilc::for_each(stencilc::Box<2>{{0, 0}, {nx - 1, ny - 1}}, [&](int i, int j) {
      hz(i, j) = hz(i, j) - 0.7 * (ex(i, j + 1) - ex(i, j) + ey(i + 1, j) - ey(i, j));
    });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  const int n0 = argc > 4 ? std::atoi(argv[4]) : n;
  stencilc::Grid<double, 2> ex({n0, n}), ey({n0, n}), hz({n0, n});
  // PolyBench's init_array.
  ex.fill([&](int i, int j) { return static_cast<double>(i) * (j + 1) / n0; });
  ey.fill([&](int i, int j) { return static_cast<double>(i) * (j + 2) / n; });
  hz.fill([&](int i, int j) { return static_cast<double>(i) * (j + 3) / n0; });
  for (int r = 0; r < runs; ++r) fdtd(ex, ey, hz, steps, n0, n);
  double sums[3] = {0.0, 0.0, 0.0};
  const stencilc::Grid<double, 2>* fields[3] = {&ex, &ey, &hz};
  for (int f = 0; f < 3; ++f) {
    std::vector<double> out;
    fields[f]->copy_to(out);
    for (std::size_t p = 0; p < out.size(); ++p) sums[f] += out[p] * (1.0 + static_cast<double>(p % 13));
  }
  std::printf("fdtd2d %dx%d steps=%d ex=%.12e ey=%.12e hz=%.12e\n", n0, n, steps, sums[0], sums[1], sums[2]);
  stencilc::finalize();
  return 0;
}
