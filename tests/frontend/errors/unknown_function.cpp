// Point bodies may only call math functions and functions defined in the file.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

float noise(int i, int j);  // declared, never defined here

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& b) {
  stencilc::for_each(b.interior(), [&](int i, int j) {
    b(i, j) = a(i, j) + noise(i, j);
    // CHECK: unknown_function.cpp:[[@LINE-1]]:25: error: call to 'noise' is not supported in a point update; only math functions (sqrt, exp, sin, cos, fabs, fmin, fmax, pow) and functions defined in the program's file may be called
  });
}
// CHECK-NOT: program @
