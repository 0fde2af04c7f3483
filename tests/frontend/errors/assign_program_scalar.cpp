// A point update cannot write the program's scalars (that is what reduce is for).
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b, float& total) {
  stencilc::for_each(b.interior(), [&](int i) {
    total += a(i);
    // CHECK: assign_program_scalar.cpp:[[@LINE-1]]:5: error: a point update cannot assign 'total', a variable of the enclosing program; compute values across points with stencilc::reduce
    b(i) = a(i);
  });
}
// CHECK-NOT: program @
