// Explicit heat diffusion on a 2D plate: the left edge is held hot, the other edges cold.
// Prints the hottest interior point and a checksum of the final temperatures; the build by
// stencilc and the reference build by the host compiler print the same.
// Usage: heat2d [nx [ny [steps]]]   (PEs: --stencilc-pes=N or STENCILC_PES)
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "params.hpp"

SC_PROGRAM void heat(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& u_new, int steps, double alpha,
                     double& peak) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(u_new.interior(), [&](int i, int j) {
      u_new(i, j) = u(i, j) + alpha * (u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1) - 4.0 * u(i, j));
    });
    std::swap(u, u_new);
  }
  // A maximum does not depend on the order the PEs combine it in: every build prints the same.
  peak = stencilc::reduce(u.interior(), stencilc::Max{}, [&](int i, int j) { return u(i, j); });
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int nx = argc > 1 ? std::atoi(argv[1]) : heat2d::kNx;
  const int ny = argc > 2 ? std::atoi(argv[2]) : heat2d::kNy;
  const int steps = argc > 3 ? std::atoi(argv[3]) : heat2d::kSteps;
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({ny, nx}, {edge, edge});
  stencilc::Grid<double, 2> u_new({ny, nx}, {edge, edge});
  auto initial = [](int i, int j) { return j == 0 ? heat2d::kHotEdge : 0.0; };
  u.fill(initial);
  u_new.fill(initial);
  double peak = 0.0;
  heat(u, u_new, steps, heat2d::kAlpha, peak);
  std::vector<double> out;
  u.copy_to(out);
  double sum = 0.0;
  for (double v : out) sum += v;  // in one fixed order, so the checksum is exact too
  std::printf("heat2d %dx%d steps=%d alpha=%g peak=%.15e checksum=%.15e\n", ny, nx, steps, heat2d::kAlpha, peak,
              sum);
  stencilc::finalize();
  return 0;
}
