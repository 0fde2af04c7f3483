// Names beginning with sc_ are the generated code's (sc_step, sc_a, sc_points, ...): a stencil
// program that declares one is stopped where it does, once per name, so that no generated name
// hides or clashes with it (a program parameter named sc_a failed to compile as C++ before, deep
// in the generated code).
// RUN: not %stencilc --emit=ir %s > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
#include <stencilc/stencilc.hpp>

inline float sc_scale(float x) { return 2.0f * x; }
inline float twice(float sc_x) { return 2.0f * sc_x; }
// CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:26: error: 'sc_x': names beginning with 'sc_' are reserved for the code stencilc generates; rename it

SC_PROGRAM void p(const stencilc::Grid<float, 2>& a, stencilc::Grid<float, 2>& sc_b, int sc_steps) {
  // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:80: error: 'sc_b': names beginning with 'sc_' are reserved
  // CHECK-DAG: reserved_names.cpp:[[@LINE-2]]:90: error: 'sc_steps': names beginning with 'sc_' are reserved
  for (int sc_t = 0; sc_t < sc_steps; ++sc_t) {
    // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:12: error: 'sc_t': names beginning with 'sc_' are reserved
    const float sc_w = 0.25f;
    // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:17: error: 'sc_w': names beginning with 'sc_' are reserved
    stencilc::for_each(sc_b.interior(), [&](int sc_i, int j) {
      // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:49: error: 'sc_i': names beginning with 'sc_' are reserved
      sc_b(sc_i, j) = sc_w * twice(a(sc_i, j)) + sc_scale(a(sc_i, j));
      // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:50: error: 'sc_scale': names beginning with 'sc_' are reserved
    });
    // A second use of sc_scale and of twice (whose parameter is sc_x): no second error.
    stencilc::for_each(sc_b.interior(), [&](int i, int j) { sc_b(i, j) = twice(a(i, j)) + sc_scale(a(i, j)); });
  }
}

SC_SPMD_PROGRAM void q(stencilc::Block<double, 1>& u, int steps) {
  const int sc_me = stencilc::my_pe();
  // CHECK-DAG: reserved_names.cpp:[[@LINE-1]]:13: error: 'sc_me': names beginning with 'sc_' are reserved
  for (int t = 0; t < steps + sc_me; ++t) {
    stencilc::for_each(stencilc::Box<1>{{0}, {u.extent(0)}}, [&](int i) { u(i) = u(i) + 1.0; });
  }
}
// CHECK: 8 errors generated.
// CHECK-NOT: error
