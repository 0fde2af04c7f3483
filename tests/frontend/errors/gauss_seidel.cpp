// Reading a grid the same for_each writes, at a non-zero offset, would be Gauss-Seidel.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<double, 2>& a) {
  stencilc::for_each(a.interior(), [&](int i, int j) {
    a(i, j) = 0.5 * (a(i - 1, j) + a(i, j));
    // CHECK: gauss_seidel.cpp:[[@LINE-1]]:22: error: 'a' is written by this for_each and read at offset (-1, 0): that would be Gauss-Seidel, not Jacobi; write into another grid and swap
    // CHECK-NEXT: |     a(i, j) = 0.5 * (a(i - 1, j) + a(i, j));
    // CHECK-NEXT: |                      ^~~~~~~~~~~{{$}}
  });
}
// CHECK-NOT: program @
