// A Jacobi loop whose two grids hold different fixed cells (a's edge columns sin(), a_new's 0):
// the register-resident form's contract does not hold (its band keeps one copy of those cells for
// both grids), so the kernel must find that on the device and run the loop from global memory,
// saying so. tests/gpu/regs-contract.sh builds it and compares its
// output with the reference build's. Usage: regs_contract [nx [ny [iters]]]
#include <stencilc/stencilc.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void relax(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    std::swap(a, a_new);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int nx = argc > 1 ? std::atoi(argv[1]) : 96;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 80;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 25;
  stencilc::Grid<float, 2> a({ny, nx}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({ny, nx}, {stencilc::periodic(), stencilc::fixed(1)});
  a.fill([&](int i, int j) { return (j == 0 || j == nx - 1) ? std::sin(0.1f * i) : 0.01f * ((i * 7 + j * 3) % 11); });
  a_new.fill([](int, int) { return 0.0f; });
  relax(a, a_new, iters);
  for (auto* g : {&a, &a_new}) {
    std::vector<float> out;
    g->copy_to(out);
    double sum = 0.0, weighted = 0.0;
    for (size_t k = 0; k < out.size(); ++k) sum += out[k], weighted += out[k] * static_cast<double>(k % 97);
    std::printf("regs_contract %dx%d iters=%d sum=%.6e weighted=%.6e\n", ny, nx, iters, sum, weighted);
  }
  stencilc::finalize();
  return 0;
}
