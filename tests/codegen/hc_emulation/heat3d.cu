// samples/heat3d.cpp's host-controlled update (hc_emulation/harness.cuh): 3-D, double, its faces
// stored through, on process grids that cut each dimension.
#include "harness.cuh"
#include "heat3d.inc"

static double f(int i, int j, int k) {
  return std::sin(0.3 * i) + 0.01 * j * j - 0.02 * k + 0.001 * i * k;
}

std::string check(std::array<int, 3> dims, std::array<int, 3> ext) {
  const auto g = pgrid(3, dims);
  Field<double, 3> A(g, ext, {1, 1, 1}, {1, 1, 1}), B(g, ext, {1, 1, 1}, {1, 1, 1});
  A.each([&](int, auto, auto gl, bool dom, double& v) {
    if (dom) v = f(gl[0], gl[1], gl[2]);
  });
  const auto plan = hc::plan_halo_copies<double, 3>(g, B.blocks, {false, false, false}, false, "B");
  const auto sends = hc::faces_by_sender(plan);
  rc::SBox<3> interior{{1, 1, 1}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, A.blocks[pe]);
    const auto box = hc::launch_box(local, A.blocks[pe]);
    const auto faces = hc::face_stores<double, 3>(sends[pe], B.blocks, pe);
    run_threads<3>(local, false, [&] {
      sc_heat::foreach_0(box, A.blocks[pe], A.blocks[pe].data, B.blocks[pe], B.blocks[pe].data,
                         faces);
    });
  }
  auto expect = [&](int i, int j, int k) {
    return 0.125 * (f(i + 1, j, k) - 2.0 * f(i, j, k) + f(i - 1, j, k)) +
           0.125 * (f(i, j + 1, k) - 2.0 * f(i, j, k) + f(i, j - 1, k)) +
           0.125 * (f(i, j, k + 1) - 2.0 * f(i, j, k) + f(i, j, k - 1)) + f(i, j, k);
  };
  std::string problem;
  B.each([&](int pe, auto l, auto gl, bool dom, double& v) {
    if (!problem.empty()) return;
    const auto& b = B.blocks[pe];
    int outside = 0;
    bool in = dom;
    for (int d = 0; d < 3; ++d) {
      outside += l[d] < 0 || l[d] >= b.extent[d];
      in = in && gl[d] >= 1 && gl[d] < ext[d] - 1;
    }
    const double want = in && outside <= 1 ? expect(gl[0], gl[1], gl[2]) : kPoison;
    if (!(std::fabs(v - want) <= 1e-12 * std::fabs(want)))
      problem = "PE " + std::to_string(pe) + " local (" + std::to_string(l[0]) + "," +
                std::to_string(l[1]) + "," + std::to_string(l[2]) + "): " + std::to_string(v) +
                " want " + std::to_string(want);
  });
  return problem;
}

int main() {
  Tally t;
  for (auto dims : std::vector<std::array<int, 3>>{
           {1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {1, 2, 2}})
    for (auto ext : std::vector<std::array<int, 3>>{
             {9, 7, 11}, {5, 6, 200}, {6, 9, 130}, {4, 5, 3}, {7, 12, 66}})
      t.run("heat3d " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                std::to_string(dims[2]) + " " + std::to_string(ext[0]) + "x" +
                std::to_string(ext[1]) + "x" + std::to_string(ext[2]),
            check(dims, ext));
  std::printf("%d passed, %d failed\n", t.passed, t.failed);
  return t.failed != 0;
}
