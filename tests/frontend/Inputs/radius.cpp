// A program whose stencil radius comes from the compile command (-DRADIUS=...).
#include <stencilc/stencilc.hpp>

#ifndef RADIUS
#error "compile with -DRADIUS=<n>"
#endif

SC_PROGRAM void p(const stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b) {
  stencilc::for_each(b.interior(), [&](int i) { b(i) = a(i - RADIUS) + a(i + RADIUS); });
}
