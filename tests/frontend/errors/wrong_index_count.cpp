// A grid indexed with the wrong number of indices.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i, int j) {
    b(i, j) = a(i, j, 0);
    // CHECK: wrong_index_count.cpp:[[@LINE-1]]:15: error: 'a' has rank 2 but is indexed with 3 indices
  });
}
// CHECK-NOT: program @
