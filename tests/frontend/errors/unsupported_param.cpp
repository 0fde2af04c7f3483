// Parameters are grids and scalars only.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

#include <vector>

SC_PROGRAM void p(stencilc::Grid<float, 2>& a, std::vector<float>& weights) {
  // CHECK: unsupported_param.cpp:[[@LINE-1]]:68: error: parameter 'weights' has unsupported type 'std::vector<float> &'
}
// CHECK-NOT: program @
