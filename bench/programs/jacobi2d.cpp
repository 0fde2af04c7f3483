// The benchmark form of the spec example jacobi2d: the same program; main also takes how often to
// compute the L2 norm (0 never, 1 every step) and how many times to run the program in a row
// (bench/run.sh times each run). Usage: jacobi2d [nx [ny [iters [norm_every [runs]]]]]
// Jacobi relaxation for the 2D Laplace equation: sin() on the left and right edges, periodic in y.
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void jacobi(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters,
                       int norm_every, float& norm) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    if (norm_every > 0 && (t + 1) % norm_every == 0) {
      norm = std::sqrt(stencilc::reduce(a_new.interior(), stencilc::Sum{}, [&](int i, int j) {
        float r = a_new(i, j) - a(i, j);
        return r * r;
      }));
    }
    std::swap(a, a_new);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int nx = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int ny = argc > 2 ? std::atoi(argv[2]) : nx;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 1000;
  const int norm_every = argc > 4 ? std::atoi(argv[4]) : 100;
  const int runs = argc > 5 ? std::atoi(argv[5]) : 1;
  const float pi = 2.0f * std::asin(1.0f);
  stencilc::Grid<float, 2> a({ny, nx}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({ny, nx}, {stencilc::periodic(), stencilc::fixed(1)});
  auto edges = [&](int i, int j) {
    return (j == 0 || j == nx - 1) ? std::sin(2.0f * pi * i / (ny - 1)) : 0.0f;
  };
  a.fill(edges);
  a_new.fill(edges);
  float norm = 0.0f;
  for (int r = 0; r < runs; ++r) jacobi(a, a_new, iters, norm_every, norm);
  std::vector<float> out;
  a.copy_to(out);
  double sum = 0.0;
  for (float v : out) sum += std::fabs(v);
  std::printf("jacobi2d %dx%d iters=%d norm=%.6e checksum=%.9e\n", ny, nx, iters, norm, sum);
  stencilc::finalize();
  return 0;
}
