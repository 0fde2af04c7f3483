// An SPMD program with hand-placed communication: Jacobi-style smoothing on a periodic ring of n
// points, each PE owning a slab with one halo point on each side. After each step a PE puts its
// first owned point into its left neighbour's high halo and its last owned point into its right
// neighbour's low halo, each put followed by a signal whose value is the step number + 1 (an
// epoch, so signals never need resetting). Each step computes b from a, then swaps them with
// stencilc::swap (each PE its own handles; the symmetric buffers stay put), so a always holds the
// newest values and is what the caller's grid a gets back. A neighbour can run at most one step
// ahead, and then it only writes the halos of the other buffer: a put goes to the buffer the
// destination region was made from, whichever handle of the target PE refers to it now.
// main runs the same computation serially and checks that both agree, for any PE count.
// Usage: spmd_ring [n [steps]] [--stencilc-pes=P]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stencilc/stencilc.hpp>
#include <utility>
#include <vector>

// The update of one point from its left neighbour, itself and its right neighbour.
inline double smooth(double left, double centre, double right) {
  return 0.3 * left + 0.45 * centre + 0.24 * right + 0.01 * std::sin(centre);
}

SC_SPMD_PROGRAM void ring(stencilc::Block<double, 1>& a, stencilc::Block<double, 1>& b, int steps,
                          int& pes_used) {
  const int me = stencilc::my_pe();
  const int np = stencilc::n_pes();
  const int left = (me + np - 1) % np;
  const int right = (me + 1) % np;
  const int n = a.extent(0);
  const int n_left = a.extent_on(left, 0);  // where the left neighbour's high halo starts
  stencilc::Signal low_halo_ready;          // my point -1 holds my left neighbour's last point
  stencilc::Signal high_halo_ready;         // my point n holds my right neighbour's first point
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.owned(), [&](int i) { b(i) = smooth(a(i - 1), a(i), a(i + 1)); });
    const std::uint64_t epoch = static_cast<std::uint64_t>(t) + 1;
    stencilc::put_signal(b.region({{n_left}, {n_left + 1}}), b.region({{0}, {1}}), high_halo_ready,
                         epoch, left);
    stencilc::put_signal(b.region({{-1}, {0}}), b.region({{n - 1}, {n}}), low_halo_ready, epoch,
                         right);
    stencilc::signal_wait_until(low_halo_ready, stencilc::Cmp::GE, epoch);
    stencilc::signal_wait_until(high_halo_ready, stencilc::Cmp::GE, epoch);
    stencilc::swap(a, b);  // a: the values of step t + 1, halos included
  }
  pes_used = np;
}

static double checksum(const std::vector<double>& x) {
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += x[i] * static_cast<double>(1 + i % 13);
  return sum;
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1001;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
  auto initial = [&](int i) {
    return std::sin(6.283185307179586 * 3.0 * i / n) + 0.5 * std::cos(0.37 * i) + 0.1 * (i % 7);
  };

  stencilc::Grid<double, 1> a({n}, {stencilc::periodic()}), b({n}, {stencilc::periodic()});
  a.fill(initial);
  b.fill(initial);
  int pes_used = 0;
  stencilc::spmd(ring, stencilc::Split{0, 1}, a, b, steps, pes_used);
  std::vector<double> spmd_result;
  a.copy_to(spmd_result);

  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = initial(i);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) y[i] = smooth(x[(i + n - 1) % n], x[i], x[(i + 1) % n]);
    std::swap(x, y);
  }

  double max_diff = 0.0;
  for (int i = 0; i < n; ++i) max_diff = std::fmax(max_diff, std::fabs(spmd_result[i] - x[i]));
  std::printf("spmd_ring n=%d steps=%d pes=%d spmd=%.12e serial=%.12e maxdiff=%.3e %s\n", n, steps,
              pes_used, checksum(spmd_result), checksum(x), max_diff,
              max_diff <= 1e-12 ? "match" : "MISMATCH");
  stencilc::finalize();
  return 0;
}
