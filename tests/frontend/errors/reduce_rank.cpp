// A reduction over a grid of another rank than its lambda.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<double, 3>& a, double& s) {
  s = stencilc::reduce(a.interior(), stencilc::Sum{}, [&](int i, int j) { return 1.0; });
  // CHECK: reduce_rank.cpp:[[@LINE-1]]:55: error: the range of stencilc::reduce has rank 3 but the lambda takes 2 indices
}
// CHECK-NOT: program @
