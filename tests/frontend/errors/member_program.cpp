// SC_PROGRAM and SC_SPMD_PROGRAM mark free functions: the generated code takes the place of a
// function at namespace scope, and a member function's would not compile.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

struct Solver {
  SC_PROGRAM void step(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
    // CHECK: member_program.cpp:[[@LINE-1]]:19: error: SC_PROGRAM marks a free function; 'Solver::step' is a member function (make it a function at namespace scope)
    stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i - 1) + a(i + 1); });
  }
  SC_PROGRAM static void fixed_step(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
    // CHECK: member_program.cpp:[[@LINE-1]]:26: error: SC_PROGRAM marks a free function; 'Solver::fixed_step' is a member function
    stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i); });
  }
};

template <typename T>
SC_PROGRAM void generic(const stencilc::Grid<T, 1>& a, stencilc::Grid<T, 1>& b) {
  // CHECK: member_program.cpp:[[@LINE-1]]:17: error: a stencil program cannot be a template
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i); });
}
// CHECK-NOT: error:
// CHECK: 3 errors generated.
// CHECK-NOT: Error while processing
