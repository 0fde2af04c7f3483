// stencilc::exchange (like swap and the other whole-grid operations) belongs at program level;
// inside a point update the message says so, not "only its value can be used".
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) {
    stencilc::exchange(a);
    // CHECK: exchange_in_point.cpp:[[@LINE-1]]:5: error: 'stencilc::exchange' is not allowed inside a point update; call it at program level, outside stencilc::for_each
    b(i) = a(i);
  });
}
// CHECK-NOT: only its value can be used
// CHECK-NOT: program @
