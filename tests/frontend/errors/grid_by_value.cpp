// Grids are passed by reference.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 2> a, stencilc::Grid<float, 2>& b) {
  // CHECK: grid_by_value.cpp:[[@LINE-1]]:44: error: grid parameter 'a' must be passed by reference
}
// CHECK-NOT: program @
