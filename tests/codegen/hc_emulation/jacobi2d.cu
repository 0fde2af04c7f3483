// samples/jacobi2d.cpp's host-controlled kernels (hc_emulation/harness.cuh): the update, which
// stores its faces through, and the norm's reduction, on process grids of 1 to 4 PEs and extents
// whose rows are shorter than a chunk, span several, and end in a part of one.
#include "harness.cuh"
#include "jacobi2d.inc"

static float f(int i, int j) {
  return std::sin(0.37f * i) + 0.01f * j + 0.001f * i * j;
}

std::string check(std::array<int, 3> dims, std::array<int, 2> ext) {
  const auto g = pgrid(2, dims);
  Field<float, 2> a(g, ext, {1, 1}, {1, 1}), an(g, ext, {1, 1}, {1, 1});
  a.each([&](int, auto, auto gl, bool dom, float& v) {
    if (dom) v = f(gl[0], gl[1]);
  });
  const auto plan = hc::plan_halo_copies<float, 2>(g, an.blocks, {false, false}, false, "a_new");
  const auto sends = hc::faces_by_sender(plan);
  rc::SBox<2> interior{{1, 1}, {ext[0] - 1, ext[1] - 1}};
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, a.blocks[pe]);
    const auto box = hc::launch_box(local, a.blocks[pe]);
    const auto faces = hc::face_stores<float, 2>(sends[pe], an.blocks, pe);
    run_threads<2>(local, false, [&] {
      sc_jacobi::foreach_0(box, a.blocks[pe], a.blocks[pe].data, an.blocks[pe], an.blocks[pe].data,
                           faces);
    });
  }
  auto expect = [&](int i, int j) {
    return 0.25f * (f(i, j + 1) + f(i, j - 1) + f(i + 1, j) + f(i - 1, j));
  };
  auto inside = [&](const std::array<int, 2>& gl) {
    return gl[0] >= 1 && gl[0] < ext[0] - 1 && gl[1] >= 1 && gl[1] < ext[1] - 1;
  };
  std::string problem;
  an.each([&](int pe, auto l, auto gl, bool dom, float& v) {
    if (!problem.empty()) return;
    const auto& b = an.blocks[pe];
    int outside = 0;
    for (int d = 0; d < 2; ++d) outside += l[d] < 0 || l[d] >= b.extent[d];
    // owned: updated where interior; halo faces (no corners): the neighbour's updated cells
    const bool want_value = dom && inside(gl) && outside <= 1;
    const float want = want_value ? expect(gl[0], gl[1]) : float(kPoison);
    if (v != want)
      problem = "PE " + std::to_string(pe) + " local (" + std::to_string(l[0]) + "," +
                std::to_string(l[1]) + "): " + std::to_string(v) + " want " + std::to_string(want);
  });
  if (!problem.empty()) return problem;
  // The reduction over a_new.interior of (a_new - a)^2.
  emu::acc = 0;
  double ref = 0;
  for (int i = 1; i < ext[0] - 1; ++i)
    for (int j = 1; j < ext[1] - 1; ++j) {
      const float r = expect(i, j) - f(i, j);
      ref += static_cast<double>(r * r);
    }
  for (int pe = 0; pe < g.size(); ++pe) {
    const auto local = rc::clip(interior, an.blocks[pe]);
    const auto box = hc::launch_box(local, a.blocks[pe]);
    hc::ReduceSlot<float> slot{};
    run_threads<2>(local, true, [&] {
      sc_jacobi::reduce_1(box, slot, a.blocks[pe], a.blocks[pe].data, an.blocks[pe],
                          an.blocks[pe].data);
    });
  }
  if (std::fabs(emu::acc - ref) > 1e-4 * std::fabs(ref) + 1e-6)
    return "reduction " + std::to_string(emu::acc) + " want " + std::to_string(ref);
  return "";
}

int main() {
  Tally t;
  for (auto dims : std::vector<std::array<int, 3>>{
           {1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {3, 1, 1}, {1, 3, 1}})
    for (auto ext : std::vector<std::array<int, 2>>{
             {37, 53}, {20, 300}, {9, 130}, {6, 1000}, {7, 4}, {12, 131}, {10, 258}})
      t.run("jacobi2d " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + " " +
                std::to_string(ext[0]) + "x" + std::to_string(ext[1]),
            check(dims, ext));
  std::printf("%d passed, %d failed\n", t.passed, t.failed);
  return t.failed != 0;
}
