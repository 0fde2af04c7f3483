// An SPMD program with a hand-written 2-D halo exchange: explicit heat diffusion on an n x m plate,
// periodic along the rows (dimension 0) and with fixed outer columns, split into row slabs with
// one halo row on each side. At the start of each step a PE puts its first owned row into its
// upper neighbour's lower halo and its last owned row into its lower neighbour's upper halo, each
// put followed by a signal carrying the step number + 1; then it waits for both of its own halos
// and updates the plate. It also keeps a running average of the temperature, c, which needs no
// neighbour, and which the source computes before the puts: stencilc sends first (the puts need
// only u's rows) and waits only before the rows next to the halos (the inner rows need no halo).
// A neighbour can run at most one step ahead, and then it only writes the halos of the other
// buffer. main runs the same computation serially and checks that both agree, for any PE count.
// Usage: spmd_heat2d [n [m [steps]]] [--stencilc-pes=P]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
#include <utility>
#include <vector>

// One explicit diffusion step at a point from its four neighbours.
inline double diffuse(double centre, double up, double down, double left, double right) {
  return centre + 0.2 * (up + down + left + right - 4.0 * centre);
}

SC_SPMD_PROGRAM void heat(stencilc::Block<double, 2>& u, stencilc::Block<double, 2>& v,
                          stencilc::Block<double, 2>& c, int steps) {
  const int me = stencilc::my_pe();
  const int np = stencilc::n_pes();
  const int up = (me + np - 1) % np;
  const int down = (me + 1) % np;
  const int n = u.extent(0);
  const int m = u.extent(1);
  const int n_up = u.extent_on(up, 0);  // where the upper neighbour's lower halo starts
  stencilc::Signal from_above;          // my row -1 holds my upper neighbour's last row
  stencilc::Signal from_below;          // my row n holds my lower neighbour's first row
  for (int t = 0; t < steps; ++t) {
    // Over u's owned box (c has the same shape): what u's values it reads are then plainly its
    // own, never the halo rows the neighbours' puts write.
    stencilc::for_each(u.owned(), [&](int i, int j) { c(i, j) = 0.9 * c(i, j) + 0.1 * u(i, j); });
    const std::uint64_t epoch = static_cast<std::uint64_t>(t) + 1;
    stencilc::put_signal(u.region({{n_up, 0}, {n_up + 1, m}}), u.region({{0, 0}, {1, m}}),
                         from_below, epoch, up);
    stencilc::put_signal(u.region({{-1, 0}, {0, m}}), u.region({{n - 1, 0}, {n, m}}), from_above,
                         epoch, down);
    stencilc::signal_wait_until(from_above, stencilc::Cmp::GE, epoch);
    stencilc::signal_wait_until(from_below, stencilc::Cmp::GE, epoch);
    stencilc::for_each(stencilc::Box<2>{{0, 1}, {n, m - 1}}, [&](int i, int j) {
      v(i, j) = diffuse(u(i, j), u(i - 1, j), u(i + 1, j), u(i, j - 1), u(i, j + 1));
    });
    stencilc::swap(u, v);  // u: the values of step t + 1
  }
}

static double checksum(const std::vector<double>& x) {
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += x[i] * static_cast<double>(1 + i % 11);
  return sum;
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int m = argc > 2 ? std::atoi(argv[2]) : 48;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 100;
  auto initial = [&](int i, int j) {
    return std::sin(6.283185307179586 * 2.0 * i / n) * std::cos(0.21 * j) +
           0.05 * ((i * 7 + j) % 5);
  };

  stencilc::Grid<double, 2> u({n, m}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<double, 2> v({n, m}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<double, 2> c({n, m}, {stencilc::periodic(), stencilc::fixed(0)});
  u.fill(initial);
  v.fill(initial);  // the fixed columns of both buffers
  c.fill([](int, int) { return 0.0; });
  stencilc::spmd(heat, stencilc::Split{0, 1}, u, v, c, steps);
  std::vector<double> spmd_u, spmd_c;
  u.copy_to(spmd_u);
  c.copy_to(spmd_c);

  std::vector<double> x(n * m), y(n * m), z(n * m, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) x[i * m + j] = y[i * m + j] = initial(i, j);
  for (int t = 0; t < steps; ++t) {
    for (int k = 0; k < n * m; ++k) z[k] = 0.9 * z[k] + 0.1 * x[k];
    for (int i = 0; i < n; ++i) {
      for (int j = 1; j < m - 1; ++j) {
        y[i * m + j] = diffuse(x[i * m + j], x[((i + n - 1) % n) * m + j], x[((i + 1) % n) * m + j],
                               x[i * m + j - 1], x[i * m + j + 1]);
      }
    }
    std::swap(x, y);
  }

  double max_diff = 0.0;
  for (int k = 0; k < n * m; ++k) {
    max_diff = std::fmax(max_diff, std::fabs(spmd_u[k] - x[k]));
    max_diff = std::fmax(max_diff, std::fabs(spmd_c[k] - z[k]));
  }
  std::printf("spmd_heat2d n=%d m=%d steps=%d u=%.12e c=%.12e serial=%.12e maxdiff=%.3e %s\n", n, m,
              steps, checksum(spmd_u), checksum(spmd_c), checksum(x), max_diff,
              max_diff <= 1e-12 ? "match" : "MISMATCH");
  stencilc::finalize();
  return 0;
}
