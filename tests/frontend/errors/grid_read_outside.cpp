// Grids are read inside point updates only.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<double, 1>& a, double& first) {
  first = a(0);
  // CHECK: grid_read_outside.cpp:[[@LINE-1]]:11: error: grid 'a' is read outside a point update; grids are only read inside stencilc::for_each and stencilc::reduce bodies
}
// CHECK-NOT: program @
