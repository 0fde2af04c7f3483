// A function called from a point update that has a program's name (an overload) is renamed in
// the IR: programs keep their C++ names, which the generated code refers to.
// RUN: %stencilc --emit=ir %s | FileCheck %s
#include <stencilc/stencilc.hpp>

inline float blur(float x) { return 0.5f * x; }

SC_PROGRAM void blur(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = blur(a(i - 1)) + blur(a(i + 1)); });
}
// CHECK: func @blur_1(%x: f32) -> f32
// CHECK: program @blur(
// CHECK: store %b = @blur_1(%a[-1]) + @blur_1(%a[1])
