// A dataflow-able time loop whose update's range changes from step to step (a Box of the step
// counter): the dataflow form's per-block choices for it are made inside the step
// (cuda-flow-strips-box.test).
#include <stencilc/stencilc.hpp>

#include <utility>

SC_PROGRAM void shrink(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(stencilc::Box<2>{{0, 1}, {a.extent(0), a.extent(1) - 1 - t % 2}}, [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    std::swap(a, a_new);
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  stencilc::Grid<float, 2> a({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  shrink(a, a_new, 10);
  stencilc::finalize();
  return 0;
}
