// Parameters and locals named like the host target's generated code's own names (pe, plan, cx,
// grid, descs, team, halo, epoch): the launcher derives its names from the user's under sc_u_, so
// none meets a fixed one (a grid named pe made the launcher's sc_pe twice before). The host target
// against the reference on 1-4 PEs (tests/e2e). The CUDA target's kernels still take parameters
// named pe and args (docs/STATUS.md, Known limits): this program is not built for it.
// Usage: parameter_names [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void relax(stencilc::Grid<double, 2>& pe, stencilc::Grid<double, 2>& plan, const stencilc::Grid<double, 2>& cx,
                      int team, double& descs) {
  for (int grid = 0; grid < team; ++grid) {
    stencilc::for_each(plan.interior(), [&](int i, int j) {
      const double halo = pe(i - 1, j) + pe(i + 1, j) + pe(i, j - 1) + pe(i, j + 1);
      plan(i, j) = 0.2 * halo + 0.2 * cx(i, j);
    });
    std::swap(pe, plan);
  }
  descs = stencilc::reduce(pe.interior(), stencilc::Sum{}, [&](int i, int j) {
    const double epoch = pe(i, j) - cx(i, j);
    return epoch * epoch;
  });
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 40;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  stencilc::Grid<double, 2> pe({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  stencilc::Grid<double, 2> plan({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  stencilc::Grid<double, 2> cx({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  pe.fill([&](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  plan.fill([&](int i, int j) { return (i * 7 + j * 3) % 11 * 0.1; });
  cx.fill([&](int i, int j) { return (i + 2 * j) % 5 * 0.05; });
  double descs = 0.0;
  relax(pe, plan, cx, steps, descs);
  std::vector<double> out;
  pe.copy_to(out);
  double sum = 0.0;
  for (double v : out) sum += v;
  std::printf("parameter_names n=%d steps=%d descs=%.12e sum=%.12e\n", n, steps, descs, sum);
  stencilc::finalize();
  return 0;
}
