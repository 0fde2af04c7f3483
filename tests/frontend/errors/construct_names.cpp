// Diagnostics name C++ constructs in the user's words, never Clang's class names, and end as
// Clang's do: no "Error while processing" line from the tooling library after them.
// RUN: not %stencilc --emit=ir %s > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=RAW < %t.err
#include <stencilc/stencilc.hpp>

inline float scale(float x, float by = 2.0f) { return x * by; }

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) {
    b(i) = scale(a(i));
    // CHECK: construct_names.cpp:[[@LINE-1]]:12: error: default arguments are not supported in a stencil program
    b(i) = a(i) + 'x';
    // CHECK: construct_names.cpp:[[@LINE-1]]:19: error: character literals are not supported in a stencil program
    b(i) = a(i) + sizeof(float);
    // CHECK: construct_names.cpp:[[@LINE-1]]:19: error: sizeof and alignof are not supported in a stencil program
  });
}
// CHECK: 3 errors generated.
// RAW-NOT: {{CXX|Expr|Stmt|Literal\b}}
// RAW-NOT: Error while processing
