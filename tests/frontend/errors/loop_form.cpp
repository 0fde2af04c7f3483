// Time loops are counted loops with a positive constant step that the body does not change.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b, int steps) {
  for (int t = 1; t < steps; t *= 2) {
    // CHECK: loop_form.cpp:[[@LINE-1]]:32: error: time loops must have the form 'for (int t = lo; t < hi; ++t)' (also t <= hi, t++, t += c with a positive constant c)
    std::swap(a, b);
  }
  for (int t = 0; t < steps; ++t) {
    steps = steps - 1;
    // CHECK: loop_form.cpp:[[@LINE-1]]:5: error: the loop bound reads 'steps', which the loop body modifies; use a while loop
  }
}
// CHECK-NOT: program @
