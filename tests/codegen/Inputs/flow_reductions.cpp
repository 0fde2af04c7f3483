// The dataflow loop's reductions (codegen/CudaEmitter.cpp, flow_reductions), every step, both
// barrier-free (DFlowReduce): `change` reads the written grid in its own rows and the other grid
// across rows (each execution completes before the step goes on); `top` reads the written grid's
// own cells and nothing in the loop reads it (deferred: each execution completes the one before,
// the last after the loop). (A reduction reading the written grid across rows needs its exchange
// in the step, which no dataflow form admits.)
#include <stencilc/stencilc.hpp>

#include <cmath>

SC_PROGRAM void relax(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters, float& change,
                      float& top) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    change = stencilc::reduce(a_new.interior(), stencilc::Max{}, [&](int i, int j) {
      return std::fabs(a_new(i, j) - a(i + 1, j));
    });
    top = stencilc::reduce(a_new.interior(), stencilc::Min{}, [&](int i, int j) { return a_new(i, j); });
    std::swap(a, a_new);
  }
}

int main() {
  stencilc::Grid<float, 2> a({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  float change = 0, top = 0;
  relax(a, a_new, 10, change, top);
  return change > 0 ? 0 : 1;
}
