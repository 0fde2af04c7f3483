// Bitwise operators are outside the language.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(const stencilc::Grid<int, 1>& a, stencilc::Grid<int, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i) ^ a(i + 1); });
  // CHECK: bitwise.cpp:[[@LINE-1]]:61: error: unsupported operator '^' (bitwise operators, shifts and commas are not part of the language)
}
// CHECK-NOT: program @
