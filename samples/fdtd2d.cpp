// PolyBench FDTD-2D: the 2D finite-difference time-domain kernel for the electric fields ex, ey
// and the magnetic field hz. Each field is updated in place on a sub-box of the grid, and the
// source row ey(0, j) is set to the time step every step (PolyBench's _fict_[t] = t).
// Usage: fdtd2d [nx [ny [tmax]]]
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
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
  const int nx = argc > 1 ? std::atoi(argv[1]) : 200;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 240;
  const int tmax = argc > 3 ? std::atoi(argv[3]) : 100;
  stencilc::Grid<double, 2> ex({nx, ny}), ey({nx, ny}), hz({nx, ny});
  // PolyBench's init_array.
  ex.fill([&](int i, int j) { return static_cast<double>(i) * (j + 1) / nx; });
  ey.fill([&](int i, int j) { return static_cast<double>(i) * (j + 2) / ny; });
  hz.fill([&](int i, int j) { return static_cast<double>(i) * (j + 3) / nx; });
  fdtd(ex, ey, hz, tmax, nx, ny);
  double sums[3] = {0.0, 0.0, 0.0};
  const stencilc::Grid<double, 2>* fields[3] = {&ex, &ey, &hz};
  for (int f = 0; f < 3; ++f) {
    std::vector<double> out;
    fields[f]->copy_to(out);
    for (std::size_t p = 0; p < out.size(); ++p)
      sums[f] += out[p] * (1.0 + static_cast<double>(p % 13));
  }
  std::printf("fdtd2d %dx%d tmax=%d ex=%.12e ey=%.12e hz=%.12e\n", nx, ny, tmax, sums[0], sums[1],
              sums[2]);
  stencilc::finalize();
  return 0;
}
