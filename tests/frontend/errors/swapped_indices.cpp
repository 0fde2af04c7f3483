// Each index must be the point index of its own dimension (a(j, i) is a transpose, not a stencil).
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i, int j) {
    b(i, j) = a(j, i);
    // CHECK: swapped_indices.cpp:[[@LINE-1]]:17: error: index 0 of 'a' must be 'i' plus or minus an integer constant
  });
}
// CHECK-NOT: program @
