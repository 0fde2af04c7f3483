// Unsupported statements at program level: do-while and break.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 2>& a, int steps) {
  int t = 0;
  do {
    // CHECK: do_while.cpp:[[@LINE-1]]:3: error: do-while loops are not supported in a stencil program
    ++t;
  } while (t < steps);
  while (t > 0) {
    if (t == 3) break;
    // CHECK: do_while.cpp:[[@LINE-1]]:17: error: break statements are not supported in a stencil program
    --t;
  }
}
// CHECK: 2 errors generated.
