// A time loop with no dataflow form: its step holds a loop of its own (select-loop-forms takes a
// step of walks, exchanges, swaps, scalar work and reductions only; cuda-dataflow.test).
#include <stencilc/stencilc.hpp>

#include <utility>

SC_PROGRAM void sweeps(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters) {
  for (int t = 0; t < iters; ++t) {
    for (int k = 0; k < 2; ++k) {
      stencilc::for_each(a_new.interior(), [&](int i, int j) {
        a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
      });
      std::swap(a, a_new);
    }
  }
}

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  stencilc::Grid<float, 2> a({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  sweeps(a, a_new, 10);
  stencilc::finalize();
  return 0;
}
