// A reduction in a while condition would have to run before every test: assign it in the body.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

#include <utility>

SC_PROGRAM void p(stencilc::Grid<double, 1>& a, stencilc::Grid<double, 1>& b, double tol) {
  while (stencilc::reduce(a.interior(), stencilc::Max{}, [&](int i) { return a(i); }) > tol) {
    // CHECK: reduce_in_condition.cpp:[[@LINE-1]]:10: error: stencilc::reduce in a loop condition is not supported; assign the reduction to a variable in the loop body and test the variable
    stencilc::for_each(b.interior(), [&](int i) { b(i) = 0.5 * a(i); });
    std::swap(a, b);
  }
}
// CHECK-NOT: program @
