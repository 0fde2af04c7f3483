// A file without SC_PROGRAM or SC_SPMD_PROGRAM (the marker forgotten) compiles to its plain
// serial self: stencilc says so instead of succeeding silently.
// RUN: %stencilc --emit=ir %s -o %t.ir 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=IR < %t.ir
#include <stencilc/stencilc.hpp>
// CHECK: no_program.cpp:1:1: warning: no function in this file is marked SC_PROGRAM or SC_SPMD_PROGRAM; nothing is compiled for the target and the file runs as plain serial C++
// CHECK-NOT: error
// IR: module "{{.*}}no_program.cpp"
// IR-NOT: program

void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i - 1) + a(i + 1); });
}
