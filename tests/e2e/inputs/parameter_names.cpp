// Parameters and locals named like the generated code's own names: the host target's launcher
// (pe, plan, cx, grid, descs, team, halo, epoch), the CUDA target's kernel and its argument struct
// (pe, args, scratch, a grid's derived names such as pe_final and pe_epoch) and the CUDA names its
// kernels use (min, blockDim: the kernels name them ::min, ::blockDim). Every name the
// generated code derives from a user's goes by sc_<role>_<name> (both targets: a grid descs_pe
// no longer meets the host launcher's copy of the result descs), and
// its own begin with sc_, which a program may not declare: none meets a user's. Checked against
// the reference on the host target on 1-4 PEs (tests/e2e) and on GPUs with both schedules and
// backends (tests/gpu/run_generated.sh).
// Usage: parameter_names [n [steps]]
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

SC_PROGRAM void relax(stencilc::Grid<double, 2>& pe, stencilc::Grid<double, 2>& plan, const stencilc::Grid<double, 2>& cx,
                      const stencilc::Grid<double, 2>& args, const stencilc::Grid<double, 2>& pe_final,
                      const stencilc::Grid<double, 2>& min, const stencilc::Grid<double, 2>& descs_pe, int team, double scratch, double blockDim, double& descs) {
  for (int grid = 0; grid < team; ++grid) {
    const double pe_epoch = 0.2;
    stencilc::for_each(plan.interior(), [&](int i, int j) {
      const double halo = pe(i - 1, j) + pe(i + 1, j) + pe(i, j - 1) + pe(i, j + 1);
      plan(i, j) = pe_epoch * halo + 0.1 * cx(i, j) + scratch * (args(i, j) - pe_final(i, j)) + blockDim * (min(i, j) - descs_pe(i, j));
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
  stencilc::Grid<double, 2> args({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  stencilc::Grid<double, 2> pe_final({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  args.fill([&](int i, int j) { return (3 * i + j) % 7 * 0.03; });
  pe_final.fill([&](int i, int j) { return (i + j) % 3 * 0.02; });
  stencilc::Grid<double, 2> min({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  min.fill([&](int i, int j) { return (2 * i + 5 * j) % 13 * 0.01; });
  stencilc::Grid<double, 2> descs_pe({n, n + 3}, {stencilc::fixed(1), stencilc::periodic()});
  descs_pe.fill([&](int i, int j) { return (i + 3 * j) % 4 * 0.02; });
  double descs = 0.0;
  relax(pe, plan, cx, args, pe_final, min, descs_pe, steps, 0.1, 0.05, descs);
  std::vector<double> out;
  pe.copy_to(out);
  double sum = 0.0;
  for (double v : out) sum += v;
  std::printf("parameter_names n=%d steps=%d descs=%.12e sum=%.12e\n", n, steps, descs, sum);
  stencilc::finalize();
  return 0;
}
