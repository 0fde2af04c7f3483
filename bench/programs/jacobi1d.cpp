// The benchmark form of samples/jacobi1d.cpp: the same program; main also takes how many times to
// run it in a row (bench/run.sh times each run). Dimension 0 is the only one, so a weak-scaling run
// passes n0 = n x GPUs as n. Usage: jacobi1d [n [steps [runs]]]
// A 1-D three-point Jacobi smoother in double precision, two updates a step (a into b, then b
// back into a, no swap), fixed ends holding 1 and -1.
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

SC_PROGRAM void smooth(stencilc::Grid<double, 1>& a, stencilc::Grid<double, 1>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i) { b(i) = (a(i - 1) + a(i) + a(i + 1)) / 3.0; });
    stencilc::for_each(a.interior(), [&](int i) { a(i) = (b(i - 1) + b(i) + b(i + 1)) / 3.0; });
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 1;
  stencilc::Grid<double, 1> a({n}, {stencilc::fixed(1)}), b({n}, {stencilc::fixed(1)});
  auto start = [&](int i) {
    if (i == 0) return 1.0;
    if (i == n - 1) return -1.0;
    return (i % 7 == 0 ? 2.0 : 0.0) + 0.001 * static_cast<double>(i % 13);
  };
  a.fill(start);
  b.fill(start);
  for (int r = 0; r < runs; ++r) smooth(a, b, steps);
  std::vector<double> out;
  a.copy_to(out);
  double sum = 0.0;
  for (double x : out) sum += x;
  std::printf("jacobi1d n=%d steps=%d checksum=%.12e\n", n, steps, sum);
  stencilc::finalize();
  return 0;
}
