// Offsets must be integer constants.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b, int k) {
  stencilc::for_each(b.interior(), [&](int i, int j) {
    b(i, j) = a(i + k, j);
    // CHECK: nonconstant_offset.cpp:[[@LINE-1]]:17: error: index 0 of 'a' must be 'i' plus or minus an integer constant
    // CHECK-NEXT: |     b(i, j) = a(i + k, j);
    // CHECK-NEXT: |                 ^~~~~{{$}}
  });
}
// CHECK-NOT: program @
