// Reductions of the dataflow loop that do not fold into the update's walk (codegen/CudaEmitter.cpp,
// fold_into_update), each still barrier-free (DFlowReduce): in an `if` with an else; with the
// update's index names in another order; over another grid's interior. (flow_fold.cpp: one that
// folds; flow_reductions.cpp: reads across rows.)
#include <stencilc/stencilc.hpp>

#include <cmath>

SC_PROGRAM void with_else(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters, float& change) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    if (t % 2 == 0) {
      change = stencilc::reduce(a_new.interior(), stencilc::Max{}, [&](int i, int j) { return a_new(i, j); });
    } else {
      change = 0.0f;
    }
    std::swap(a, a_new);
  }
}

SC_PROGRAM void swapped_names(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, int iters, float& change) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    change = stencilc::reduce(a_new.interior(), stencilc::Max{}, [&](int j, int i) {
      return a_new(j, i) + 0.0f * static_cast<float>(i);
    });
    std::swap(a, a_new);
  }
}

SC_PROGRAM void other_range(stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& a_new, stencilc::Grid<float, 2>& w,
                            int iters, float& change) {
  for (int t = 0; t < iters; ++t) {
    stencilc::for_each(a_new.interior(), [&](int i, int j) {
      a_new(i, j) = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
    });
    change = stencilc::reduce(w.interior(), stencilc::Max{}, [&](int i, int j) { return w(i, j); });
    std::swap(a, a_new);
  }
}

int main() {
  stencilc::Grid<float, 2> a({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> a_new({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  stencilc::Grid<float, 2> w({64, 64}, {stencilc::periodic(), stencilc::fixed(1)});
  float change = 0;
  with_else(a, a_new, 10, change);
  swapped_names(a, a_new, 10, change);
  other_range(a, a_new, w, 10, change);
  return change >= 0 ? 0 : 1;
}
