// A function template defined in the file is not "undefined": the message says what is not
// supported (templates).
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

template <typename T>
inline T twice(T x) { return x + x; }

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = twice(a(i)); });
  // CHECK: template_helper.cpp:[[@LINE-1]]:56: error: call to 'twice' is not supported in a point update: it is a function template, and only plain (non-template) functions may be called from a point update
}
// CHECK-NOT: defined in the program's file
// CHECK-NOT: program @
