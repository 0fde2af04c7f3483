// Pointers are not part of the language.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) {
    const float* base = &a(i);
    // CHECK: pointer_arithmetic.cpp:[[@LINE-1]]:18: error: variables of type 'const float *' are not supported in a stencil program (use bool, int, int64_t, uint64_t, float or double)
    b(i) = *(base + 1);
  });
}
// CHECK-NOT: program @
