// tests/e2e/inputs/fused_sweeps.cpp's host-controlled kernels (hc_emulation/harness.cuh): fused
// sweeps whose reduction stores two grids (a point run twice would change them: exactly once),
// an update that stores through after them; in 1-D (chunks of 1024 cells) an update, a fused max
// that stores, on 1 to 4 PEs.
#include <algorithm>

#include "harness.cuh"
#include "sweeps1d.inc"
#include "sweeps2d.inc"

static double fu(int i, int j) {
  return std::sin(0.3 * i) + 0.02 * j;
}
static double fv(int i, int j) {
  return std::cos(0.2 * j) - 0.01 * i;
}
static double fw(int i, int j) {
  return 0.5 + 0.001 * i * j;
}

// sweeps2d: the fused reduce (stores u and v, reads w off-centre) then the w update through.
std::string check2(std::array<int, 3> dims, std::array<int, 2> ext) {
  const auto g = pgrid(2, dims);
  Field<double, 2> u(g, ext, {1, 1}, {1, 1}), v(g, ext, {1, 1}, {1, 1}), w(g, ext, {1, 1}, {1, 1});
  u.each([&](int, auto, auto gl, bool dom, double& x) {
    if (dom) x = fu(gl[0], gl[1]);
  });
  v.each([&](int, auto, auto gl, bool dom, double& x) {
    if (dom) x = fv(gl[0], gl[1]);
  });
  w.each([&](int, auto, auto gl, bool dom, double& x) {
    if (dom) x = fw(gl[0], gl[1]);
  });
  const double s = 0.3;
  rc::SBox<2> interior{{1, 1}, {ext[0] - 1, ext[1] - 1}};
  emu::acc = 0;
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, u.blocks[pe]);
    const auto box = hc::launch_box(local, u.blocks[pe]);
    hc::ReduceSlot<double> slot{};
    run_threads<2>(local, true, [&] {
      sc_sweeps2d::reduce_0(box, slot, u.blocks[pe], u.blocks[pe].data, v.blocks[pe],
                            v.blocks[pe].data, w.blocks[pe], w.blocks[pe].data, s);
    });
  }
  const auto plan = hc::plan_halo_copies<double, 2>(g, w.blocks, {false, false}, false, "w");
  const auto sends = hc::faces_by_sender(plan);
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, w.blocks[pe]);
    const auto box = hc::launch_box(local, w.blocks[pe]);
    const auto faces = hc::face_stores<double, 2>(sends[pe], w.blocks, pe);
    run_threads<2>(local, false, [&] {
      sc_sweeps2d::foreach_1(box, v.blocks[pe], v.blocks[pe].data, w.blocks[pe], w.blocks[pe].data,
                             faces);
    });
  }
  auto in = [&](auto gl) {
    return gl[0] >= 1 && gl[0] < ext[0] - 1 && gl[1] >= 1 && gl[1] < ext[1] - 1;
  };
  auto un = [&](int i, int j) { return 0.5 * fu(i, j) + s * (fw(i - 1, j) + fw(i, j + 1)); };
  auto vn = [&](int i, int j) { return fv(i, j) - 0.25 * un(i, j); };
  double ref = 0;
  for (int i = 1; i < ext[0] - 1; ++i)
    for (int j = 1; j < ext[1] - 1; ++j) ref += un(i, j) * vn(i, j);
  if (std::fabs(emu::acc - ref) > 1e-9 * (std::fabs(ref) + 1))
    return "reduction " + std::to_string(emu::acc) + " want " + std::to_string(ref);
  std::string problem;
  auto cmp = [&](const char* name, Field<double, 2>& F, auto want_of, bool halos) {
    F.each([&](int pe, auto l, auto gl, bool dom, double& x) {
      if (!problem.empty()) return;
      int outside = 0;
      for (int d = 0; d < 2; ++d) outside += l[d] < 0 || l[d] >= F.blocks[pe].extent[d];
      double want;
      if (outside == 0)
        want = !dom ? kPoison : want_of(gl, in(gl));
      else if (!halos)
        return;  // halos not checked (read-only copies here)
      else
        want = dom && in(gl) && outside == 1 ? want_of(gl, true) : kPoison;
      if (!(std::fabs(x - want) <= 1e-12 * (std::fabs(want) + 1)))
        problem = std::string(name) + " PE " + std::to_string(pe) + " local (" +
                  std::to_string(l[0]) + "," + std::to_string(l[1]) + "): " + std::to_string(x) +
                  " want " + std::to_string(want);
    });
  };
  cmp(
      "u", u, [&](auto gl, bool i) { return i ? un(gl[0], gl[1]) : fu(gl[0], gl[1]); }, false);
  cmp(
      "v", v, [&](auto gl, bool i) { return i ? vn(gl[0], gl[1]) : fv(gl[0], gl[1]); }, false);
  // w: owned interior updated; its halos held fw before (filled), so halo faces now hold the
  // neighbour's updated values and the rest the old ones: check owned cells only, then faces.
  cmp(
      "w", w,
      [&](auto gl, bool i) {
        return i ? 0.9 * fw(gl[0], gl[1]) + 0.01 * vn(gl[0], gl[1]) : fw(gl[0], gl[1]);
      },
      false);
  return problem;
}

// sweeps1d: a = f(b off-centre); the fused max (stores b); b's update through; the max.
std::string check1(int pes, int n) {
  const auto g = pgrid(1, {pes, 1, 1});
  Field<float, 1> a(g, {n}, {1}, {1}), b(g, {n}, {1}, {1});
  auto fa = [](int i) { return 0.1f * i; };
  auto fb = [](int i) { return std::sin(0.7f * i); };
  a.each([&](int, auto, auto gl, bool dom, float& x) {
    if (dom) x = fa(gl[0]);
  });
  b.each([&](int, auto, auto gl, bool dom, float& x) {
    if (dom) x = fb(gl[0]);
  });
  rc::SBox<1> interior{{1}, {n - 1}};
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, a.blocks[pe]);
    const auto box = hc::launch_box(local, a.blocks[pe]);
    run_threads<1>(local, false, [&] {
      sc_sweeps1d::foreach_0(box, a.blocks[pe], a.blocks[pe].data, b.blocks[pe], b.blocks[pe].data);
    });
  }
  emu::parts.clear();
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, a.blocks[pe]);
    const auto box = hc::launch_box(local, a.blocks[pe]);
    hc::ReduceSlot<float> slot{};
    run_threads<1>(local, true, [&] {
      sc_sweeps1d::reduce_1(box, slot, a.blocks[pe], a.blocks[pe].data, b.blocks[pe],
                            b.blocks[pe].data);
    });
  }
  auto an = [&](int i) { return 0.5f * (fb(i - 1) + fb(i + 1)); };
  auto bn = [&](int i) { return 0.75f * fb(i) + an(i); };
  float ref = -1e30f;
  for (int i = 1; i < n - 1; ++i) ref = std::max(ref, bn(i) - an(i));
  double got = -1e30;
  for (double p : emu::parts) got = std::max(got, p);
  if (static_cast<float>(got) != ref)
    return "max " + std::to_string(got) + " want " + std::to_string(ref);
  std::string problem;
  b.each([&](int pe, auto l, auto gl, bool dom, float& x) {
    if (!problem.empty() || l[0] < 0 || l[0] >= b.blocks[pe].extent[0]) return;
    const bool in = gl[0] >= 1 && gl[0] < n - 1;
    const float want = in ? bn(gl[0]) : fb(gl[0]);
    if (x != want) problem = "b PE " + std::to_string(pe) + " at " + std::to_string(l[0]);
  });
  a.each([&](int pe, auto l, auto gl, bool dom, float& x) {
    if (!problem.empty() || l[0] < 0 || l[0] >= a.blocks[pe].extent[0]) return;
    const bool in = gl[0] >= 1 && gl[0] < n - 1;
    const float want = in ? an(gl[0]) : fa(gl[0]);
    if (x != want) problem = "a PE " + std::to_string(pe) + " at " + std::to_string(l[0]);
  });
  return problem;
}

int main() {
  Tally t;
  for (auto dims :
       std::vector<std::array<int, 3>>{{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1, 3, 1}})
    for (auto ext :
         std::vector<std::array<int, 2>>{{37, 53}, {20, 300}, {9, 130}, {5, 3}, {12, 131}})
      t.run("sweeps2d " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + " " +
                std::to_string(ext[0]) + "x" + std::to_string(ext[1]),
            check2(dims, ext));
  for (int pes : {1, 2, 3, 4})
    for (int n : {3, 5, 200, 1025, 1027, 3000, 5000})
      t.run("sweeps1d " + std::to_string(pes) + " PEs n=" + std::to_string(n), check1(pes, n));
  std::printf("%d passed, %d failed\n", t.passed, t.failed);
  return t.failed != 0;
}
