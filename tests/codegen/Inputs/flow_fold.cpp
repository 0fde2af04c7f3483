// A reduction folded into the dataflow loop's update (codegen/CudaEmitter.cpp, fold_into_update):
// every few steps (an `if` with no else), indices named apart from the update's, reading both
// grids at the point itself. The update's walk adds up each thread's values; the reduction
// walks nothing. (flow_reductions.cpp: reductions that do not fold.)
#include <stencilc/stencilc.hpp>

#include <cmath>

SC_PROGRAM void relax(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters, int every,
                      float& change) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    if (t % every == 0) {
      change = stencilc::reduce(a_new.interior(), stencilc::Max{}, [&](int y, int x) {
        return std::fabs(a_new(y, x) - a(y, x)) + 0.0f * static_cast<float>(x + y);
      });
    }
    std::swap(a, a_new);
  }
}

int main() {
  stencilc::Grid<float, 2> a({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  float change = 0;
  relax(a, a_new, 10, 3, change);
  return change >= 0 ? 0 : 1;
}
