// SPMD intrinsics belong to SC_SPMD_PROGRAM functions.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<double, 1>& a, int& me) {
  me = stencilc::my_pe();
  // CHECK: spmd_in_global.cpp:[[@LINE-1]]:8: error: stencilc::my_pe() is only available in an SC_SPMD_PROGRAM
  stencilc::barrier_all();
  // CHECK: spmd_in_global.cpp:[[@LINE-1]]:3: error: stencilc::barrier_all is only available in an SC_SPMD_PROGRAM
}
// CHECK-NOT: program @
