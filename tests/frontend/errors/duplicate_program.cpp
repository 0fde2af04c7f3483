// Programs need distinct names: the generated launcher is named after the program, and an SPMD
// program registers itself by its name. Two of one name, in two namespaces or as overloads,
// are an error at the second, with a note at the first (not an internal error on the IR).
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

namespace coarse {
SC_PROGRAM void smooth(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i - 1) + a(i + 1); });
}
}  // namespace coarse

namespace fine {
SC_PROGRAM void smooth(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  // CHECK: duplicate_program.cpp:[[@LINE-1]]:17: error: a second stencil program named 'smooth' (stencil programs need distinct names, also across namespaces and overloads)
  // CHECK: duplicate_program.cpp:8:17: note: the first program named 'smooth' is here
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i); });
}
}  // namespace fine

SC_PROGRAM void smooth(const stencilc::Grid<double, 1>& a, stencilc::Grid<double, 1>& b) {
  // CHECK: duplicate_program.cpp:[[@LINE-1]]:17: error: a second stencil program named 'smooth'
  // CHECK: duplicate_program.cpp:8:17: note: the first program named 'smooth' is here
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i); });
}
// CHECK-NOT: internal error
// CHECK-NOT: program @
