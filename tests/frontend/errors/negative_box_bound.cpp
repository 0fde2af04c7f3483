// A global-view range holds grid points only, and no grid has a point below index 0 (the
// reference build stops at the first such index of a fixed dimension: "index -2 out of range").
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<double, 1>& a, stencilc::Grid<double, 2>& b, double& sum) {
  stencilc::for_each(stencilc::Box<1>{{-2}, {12}}, [&](int i) { a(i) = 1.0; });
  // CHECK: negative_box_bound.cpp:[[@LINE-1]]:40: error: the range's lower bound in dimension 0 is -2, below index 0 of every grid; a for_each or reduce runs over grid points only
  sum = stencilc::reduce(stencilc::Box<1>{{0 - 1}, {4}}, stencilc::Sum{}, [&](int i) { return a(i); });
  // CHECK: negative_box_bound.cpp:[[@LINE-1]]:46: error: the range's lower bound in dimension 0 is -1
  stencilc::for_each(stencilc::Box<2>{{1, 0}, {2, -3}}, [&](int i, int j) { b(i, j) = 1.0; });
  // An empty dimension has no points: nothing to report.
  stencilc::for_each(stencilc::Box<2>{{1, -1}, {2, -3}}, [&](int i, int j) { b(i, j) = 1.0; });
  const int n = a.extent(0);
  stencilc::for_each(stencilc::Box<2>{{n - 9, 0}, {-4, n}}, [&](int i, int j) { b(i, j) = 1.0; });
  // CHECK: negative_box_bound.cpp:[[@LINE-1]]:52: error: the range's upper bound in dimension 0 is -4
  // CHECK-NOT: error:
}
// CHECK-NOT: program @
