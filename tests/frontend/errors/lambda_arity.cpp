// The lambda of for_each takes one index per dimension of its range.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i, 0) = a(i, 0); });
  // CHECK: lambda_arity.cpp:[[@LINE-1]]:36: error: the range of stencilc::for_each has rank 2 but the lambda takes 1 index
}
// CHECK-NOT: program @
