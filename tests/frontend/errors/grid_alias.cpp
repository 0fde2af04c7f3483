// One grid passed for two grid parameters: the reference reads and writes it through both names,
// the compiled program gives each parameter its own storage. An error at the call, where it shows.
// RUN: not %stencilc --emit=ir %s 2>&1 | FileCheck %s
#include <stencilc/stencilc.hpp>

SC_PROGRAM void p(stencilc::Grid<float, 1>& a, stencilc::Grid<float, 1>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i) { b(i) = 0.5f * (a(i - 1) + a(i + 1)); });
    std::swap(a, b);
  }
}

// Two read-only parameters may share a grid: nothing writes it.
SC_PROGRAM void q(const stencilc::Grid<float, 1>& x, const stencilc::Grid<float, 1>& y, stencilc::Grid<float, 1>& out) {
  stencilc::for_each(out.interior(), [&](int i) { out(i) = x(i) + y(i); });
}

SC_SPMD_PROGRAM void s(stencilc::Block<float, 1>& u, stencilc::Block<float, 1>& v) {
  stencilc::for_each(v.owned(), [&](int i) { v(i) = u(i); });
}

int main() {
  stencilc::Grid<float, 1> a({8}, {stencilc::fixed(1)}), c({8}, {stencilc::fixed(1)});
  p(a, a, 20);
  // CHECK: grid_alias.cpp:[[@LINE-1]]:8: error: grid 'a' is passed for both 'a' and 'b' of program 'p'; a grid the program writes must be passed for one parameter only (the compiled program gives each grid parameter its own storage)
  // CHECK: grid_alias.cpp:[[@LINE-2]]:5: note: 'a' is first passed here, for 'a'
  p(a, c, 20);
  q(a, a, c);
  q(c, a, c);
  // CHECK: grid_alias.cpp:[[@LINE-1]]:11: error: grid 'c' is passed for both 'x' and 'out' of program 'q'
  stencilc::spmd(s, stencilc::Split{0, 1}, c, c);
  // CHECK: grid_alias.cpp:[[@LINE-1]]:47: error: grid 'c' is passed for both 'u' and 'v' of program 's'
  // CHECK-NOT: error:
}
// CHECK-NOT: program @
