// A const grid parameter is read-only; clang itself reports the write.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(a.interior(), [&](int i) { a(i) = b(i); });
  // CHECK: write_const_grid.cpp:[[@LINE-1]]:54: error: cannot assign to return value because function 'operator()<int>' returns a const value
}
// CHECK-NOT: program @
