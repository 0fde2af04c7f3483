// The host target's run-time checks where the compiled program would otherwise differ from the
// reference build: one grid passed for two parameters (hidden from the front end behind a
// reference), and a range that reaches outside the grids (bounds known at run time only). Each
// stops the run with a message naming the program, and the source location for a range; the
// reference build stops at the same range with its "index -2 out of range".
// RUN: %stencilc --target=host %s -o %t.exe
// RUN: %cxx -std=c++17 -pthread -I %include %s -o %t.ref
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstring>
#include <utility>

SC_PROGRAM void smooth(stencilc::Grid<double, 1>& a, stencilc::Grid<double, 1>& b, int steps) {
  for (int t = 0; t < steps; ++t) {
    stencilc::for_each(b.interior(), [&](int i) { b(i) = 0.5 * (a(i - 1) + a(i + 1)); });
    std::swap(a, b);
  }
}

SC_PROGRAM void fill_range(stencilc::Grid<double, 1>& a, int lo, int hi) {
  stencilc::for_each(stencilc::Box<1>{{lo}, {hi}}, [&](int i) { a(i) = i; });
}
// RANGE: host-runtime-checks.cpp:[[@LINE-2]]:3: program 'fill_range', grid 'a': index -2 out of range [0, 8) in dimension 0 (fixed boundary): the range [-2, 12) reaches outside the grid
// PERIODIC: host-runtime-checks.cpp:[[@LINE-3]]:3: program 'fill_range' runs a point update over [-2, 12) in dimension 0, outside the grids' points [0, 8): stencilc runs point updates over grid points only (shrink the range)

SC_PROGRAM void sum_range(const stencilc::Grid<double, 1>& a, int lo, int hi, double& sum) {
  sum = stencilc::reduce(stencilc::Box<1>{{lo}, {hi}}, stencilc::Sum{}, [&](int i) { return a(i); });
}
// REDUCE: host-runtime-checks.cpp:[[@LINE-2]]:9: program 'sum_range', grid 'a': index 11 out of range [0, 8) in dimension 0 (fixed boundary): the range [2, 12) reaches outside the grid

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const char* mode = argc > 1 ? argv[1] : "";
  stencilc::Grid<double, 1> a({8}, {stencilc::fixed(1)}), b({8}, {stencilc::fixed(1)});
  a.fill([](int i) { return i == 0 ? 1.0 : 0.0; });
  b.fill([](int i) { return i == 0 ? 1.0 : 0.0; });
  stencilc::Grid<double, 1>& same = a;
  double sum = 0;
  if (!std::strcmp(mode, "distinct")) smooth(a, b, 20);
  if (!std::strcmp(mode, "alias")) smooth(a, same, 20);
  if (!std::strcmp(mode, "range")) fill_range(a, -2, 12);
  if (!std::strcmp(mode, "inside")) fill_range(a, 1, 7);
  if (!std::strcmp(mode, "empty")) fill_range(a, 5, -3);
  if (!std::strcmp(mode, "reduce")) sum_range(a, 2, 12, sum);
  if (!std::strcmp(mode, "periodic")) {
    stencilc::Grid<double, 1> p({8}, {stencilc::periodic()});
    fill_range(p, -2, 12);
  }
  double total = sum;
  for (int i = 0; i < 8; ++i) total += a(i);
  std::printf("%s: total %.6f\n", mode, total);
  stencilc::finalize();
}

// Distinct grids, and ranges inside the grid or empty: the reference's results, on 1 and 3 PEs.
// RUN: %t.ref distinct | FileCheck %s --check-prefix=DISTINCT
// RUN: env STENCILC_PES=1 %t.exe distinct | FileCheck %s --check-prefix=DISTINCT
// RUN: env STENCILC_PES=3 %t.exe distinct | FileCheck %s --check-prefix=DISTINCT
// DISTINCT: distinct: total 3.659353
// RUN: %t.ref inside | FileCheck %s --check-prefix=INSIDE
// RUN: env STENCILC_PES=3 %t.exe inside | FileCheck %s --check-prefix=INSIDE
// INSIDE: inside: total 22.000000
// RUN: env STENCILC_PES=3 %t.exe empty | FileCheck %s --check-prefix=EMPTY
// EMPTY: empty: total 1.000000

// One grid for both parameters: the reference reads and writes it through both names; the
// compiled program stops.
// RUN: not env STENCILC_PES=1 %t.exe alias 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not env STENCILC_PES=3 %t.exe alias 2>&1 | FileCheck %s --check-prefix=ALIAS
// ALIAS: stencilc: error: program 'smooth' is called with the same grid for parameters 'a' and 'b'; a grid the program writes must be passed for one parameter only
// ALIAS-NOT: total

// A range outside the grid: the reference stops at its first bad index, so does the compiled program.
// RUN: not %t.ref range 2>&1 | FileCheck %s --check-prefix=REF-RANGE
// REF-RANGE: index -2 out of range [0, 8) in dimension 0 (fixed boundary)
// RUN: not env STENCILC_PES=1 %t.exe range 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not env STENCILC_PES=3 %t.exe range 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not %t.ref reduce 2>&1 | FileCheck %s --check-prefix=REF-REDUCE
// REF-REDUCE: index 8 out of range [0, 8) in dimension 0 (fixed boundary)
// RUN: not env STENCILC_PES=3 %t.exe reduce 2>&1 | FileCheck %s --check-prefix=REDUCE
// A periodic grid: the reference wraps the indices, stencilc does not run points outside the grid.
// RUN: not env STENCILC_PES=3 %t.exe periodic 2>&1 | FileCheck %s --check-prefix=PERIODIC
