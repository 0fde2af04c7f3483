// The plate solver: a stencil program and the plain function that runs it (plate.hpp). It has no
// main: stencilc_add_library builds it into a static library, `stencilc -c` into an object file,
// and the application (app.cpp) links either one.
#include "plate.hpp"

#include <stencilc/stencilc.hpp>

#include <utility>
#include <vector>

SC_PROGRAM void diffuse(stencilc::Grid<double, 2>& u, stencilc::Grid<double, 2>& u_new, int steps, double& peak) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(u_new.interior(), [&](int i, int j) {
      u_new(i, j) = u(i, j) + 0.2 * (u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1) - 4.0 * u(i, j));
    });
    std::swap(u, u_new);
  }
  peak = stencilc::reduce(u.interior(), stencilc::Max{}, [&](int i, int j) { return u(i, j); });
}

namespace plate {

Result simulate(int nx, int ny, int steps) {
  const auto edge = stencilc::fixed(1);
  stencilc::Grid<double, 2> u({ny, nx}, {edge, edge});
  stencilc::Grid<double, 2> u_new({ny, nx}, {edge, edge});
  auto initial = [](int i, int j) { return j == 0 ? 1.0 : 0.0; };
  u.fill(initial);
  u_new.fill(initial);
  Result result{0.0, 0.0};
  diffuse(u, u_new, steps, result.peak);
  std::vector<double> out;
  u.copy_to(out);
  for (double v : out) result.checksum += v;
  return result;
}

}  // namespace plate
