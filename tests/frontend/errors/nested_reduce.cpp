// Reductions cannot nest inside a point update.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) {
    b(i) = a(i) - stencilc::reduce(a.interior(), stencilc::Sum{}, [&](int k) { return a(k); });
    // CHECK: nested_reduce.cpp:[[@LINE-1]]:19: error: stencilc::reduce cannot be nested in a point update or function
  });
}
// CHECK-NOT: program @
