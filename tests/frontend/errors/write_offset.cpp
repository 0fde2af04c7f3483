// A point update may only write the centre point.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i, int j) {
    b(i + 1, j) = a(i, j);
    // CHECK: write_offset.cpp:[[@LINE-1]]:5: error: a point update may only write the centre point; 'b' is written at offset (1, 0)
    // CHECK-NEXT: |     b(i + 1, j) = a(i, j);
    // CHECK-NEXT: |     ^~~~~~~~~~~{{$}}
  });
}
// CHECK-NOT: program @
// CHECK: 1 error generated.
