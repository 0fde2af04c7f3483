// Programs that break the rules of the reference runtime on purpose, one per mode (argv[1]).
// Each must end with a clear message and the documented status, never hang; the expectations
// (status and message) are in CMakeLists.txt beside this file.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stencilc/stencilc.hpp>
#include <vector>

namespace {

// PE 1 sets signal #1 on PE 0 to 3, but PE 0 waits for 7.
SC_SPMD_PROGRAM void stuck_wait(stencilc::Block<double, 1>& a) {
  stencilc::Signal other;
  stencilc::Signal ready;
  if (stencilc::my_pe() == 1) {
    stencilc::put_signal(a.region({{-1}, {0}}), a.region({{0}, {1}}), ready, 3, 0);
  } else {
    stencilc::signal_wait_until(ready, stencilc::Cmp::GE, 7);
  }
}

// PE 0 never comes to the barrier.
SC_SPMD_PROGRAM void stuck_barrier(stencilc::Block<double, 1>&) {
  if (stencilc::my_pe() != 0) stencilc::barrier_all();
}

SC_SPMD_PROGRAM void block_index(stencilc::Block<double, 1>& a) {
  a(a.extent(0) + a.halo(0)) = 1.0;
}

SC_SPMD_PROGRAM void put_shape(stencilc::Block<double, 1>& a) {
  stencilc::Signal s;
  stencilc::put_signal(a.region({{-1}, {0}}), a.region({{0}, {2}}), s, 1, 0);
}

SC_SPMD_PROGRAM void put_bad_pe(stencilc::Block<double, 1>& a) {
  stencilc::Signal s;
  stencilc::put_signal(a.region({{-1}, {0}}), a.region({{0}, {1}}), s, 1, 5);
}

SC_SPMD_PROGRAM void put_outside(stencilc::Block<double, 1>& a) {
  stencilc::Signal s;
  const int n = a.extent(0);
  stencilc::put_signal(a.region({{n + 1}, {n + 2}}), a.region({{0}, {1}}), s, 1, 0);
}

SC_SPMD_PROGRAM void nothing(stencilc::Block<double, 1>&) {}

// Grids of 8 and 7 points on 2 PEs: local extents 4 and 4 on PE 0, 4 and 3 on PE 1. Every PE
// refuses: the layouts differ (in the global extent already, and on PE 1 locally).
SC_SPMD_PROGRAM void swap_layout(stencilc::Block<double, 1>& a, stencilc::Block<double, 1>& b) {
  stencilc::swap(a, b);
}

// Only PE 1 swaps: the PEs end with different handle -> buffer mappings.
SC_SPMD_PROGRAM void swap_mismatch(stencilc::Block<double, 1>& a, stencilc::Block<double, 1>& b) {
  if (stencilc::my_pe() == 1) stencilc::swap(a, b);
}

}  // namespace

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const char* mode = argc > 1 ? argv[1] : "";
  stencilc::Grid<double, 1> a({8}, {stencilc::periodic()});
  a.fill([](int i) { return 1.0 + i; });
  const stencilc::Split slabs{0, 1};
  if (std::strcmp(mode, "stuck_wait") == 0) {
    stencilc::spmd(stuck_wait, slabs, a);
  } else if (std::strcmp(mode, "stuck_barrier") == 0) {
    stencilc::spmd(stuck_barrier, slabs, a);
  } else if (std::strcmp(mode, "block_index") == 0) {
    stencilc::spmd(block_index, slabs, a);
  } else if (std::strcmp(mode, "put_shape") == 0) {
    stencilc::spmd(put_shape, slabs, a);
  } else if (std::strcmp(mode, "put_bad_pe") == 0) {
    stencilc::spmd(put_bad_pe, slabs, a);
  } else if (std::strcmp(mode, "put_outside") == 0) {
    stencilc::spmd(put_outside, slabs, a);
  } else if (std::strcmp(mode, "thin_slab") == 0) {
    stencilc::spmd(nothing, stencilc::Split{0, 3}, a);  // 8 points on 4 PEs: slabs of 2
  } else if (std::strcmp(mode, "empty_slab") == 0) {
    stencilc::spmd(nothing, slabs, a);  // 8 points on more than 8 PEs
  } else if (std::strcmp(mode, "swap_layout") == 0) {
    stencilc::Grid<double, 1> shorter({7}, {stencilc::periodic()});
    stencilc::spmd(swap_layout, slabs, a, shorter);
  } else if (std::strcmp(mode, "swap_mismatch") == 0) {
    stencilc::Grid<double, 1> b({8}, {stencilc::periodic()});
    stencilc::spmd(swap_mismatch, slabs, a, b);
  } else if (std::strcmp(mode, "grid_index") == 0) {
    stencilc::Grid<float, 2> g({4, 5}, {stencilc::periodic(), stencilc::fixed(1)});
    g(-1, 5) = 1.0f;
  } else if (std::strcmp(mode, "copy_from_size") == 0) {
    a.copy_from(std::vector<double>(7, 0.0));
  } else if (std::strcmp(mode, "signal_outside_spmd") == 0) {
    stencilc::Signal s;
  } else {
    std::fprintf(stderr, "runtime_errors: unknown mode '%s'\n", mode);
    return 1;
  }
  std::printf("runtime_errors: %s did not fail\n", mode);
  return 0;
}
