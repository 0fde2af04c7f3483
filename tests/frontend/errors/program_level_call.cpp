// An unsupported statement at program level: an arbitrary call.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

#include <cstdio>

SC_PROGRAM void p(stencilc::Grid<float, 2>& a, int steps) {
  for (int t = 0; t < steps; ++t) {
    std::printf("step %d\n", t);
    // CHECK: program_level_call.cpp:[[@LINE-1]]:5: error: call to 'printf' is not allowed in a stencil program; at program level only stencilc::for_each, reduce, swap and exchange (and the SPMD intrinsics) may be called
  }
}
// CHECK-NOT: program @
