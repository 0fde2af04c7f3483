// Functions called from point updates cannot recurse.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

inline float power(float x, int n) { return n == 0 ? 1.0f : x * power(x, n - 1); }
// CHECK: recursion.cpp:[[@LINE-1]]:65: error: recursive call to 'power': functions called from a point update cannot recurse

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = power(a(i), 3); });
}
// CHECK-NOT: program @
