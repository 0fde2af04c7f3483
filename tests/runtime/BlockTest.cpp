// Tests of Block and alloc_block: layouts on uneven splits, the symmetric allocation, swap, and
// the bounds check (this executable is built with STENCILC_CHECK_BOUNDS).
#include <gtest/gtest.h>

#include <vector>

#include "stencilc/runtime/block.hpp"

#if !defined(STENCILC_CHECK_BOUNDS)
#error "BlockTest.cpp tests the bounds check: build it with STENCILC_CHECK_BOUNDS"
#endif

namespace {

using stencilc::rt::alloc_block;
using stencilc::rt::Block;
using stencilc::rt::Pe;
using stencilc::rt::ProcessGrid;
using stencilc::rt::run_team;

TEST(Block, LayoutOfUnevenBlocks) {
  const ProcessGrid grid{2, {2, 3, 1}};
  std::vector<Block<float, 2>> blocks(6);
  run_team(6, [&](Pe& pe) {
    Block<float, 2> b = alloc_block<float, 2>(pe, grid, {13, 7}, {1, 2}, {1, 1});
    blocks[pe.id()] = b;
    bool zero = true;
    for (int i = -1; i < b.extent[0] + 1; ++i) {
      for (int j = -2; j < b.extent[1] + 1; ++j) zero = zero && b(i, j) == 0.0f;
    }
    EXPECT_TRUE(zero);
  });
  const Block<float, 2>& first = blocks[0];  // 7 x 3 owned, 9 x 6 with halos
  EXPECT_EQ(first.extent, (std::array<int, 2>{7, 3}));
  EXPECT_EQ(first.origin, (std::array<int, 2>{0, 0}));
  EXPECT_EQ(first.stride, (std::array<long, 2>{6, 1}));
  EXPECT_EQ(first.allocated(), 54);
  const Block<float, 2>& last = blocks[5];  // 6 x 2 owned, 8 x 5 with halos
  EXPECT_EQ(last.extent, (std::array<int, 2>{6, 2}));
  EXPECT_EQ(last.origin, (std::array<int, 2>{7, 5}));
  EXPECT_EQ(last.stride, (std::array<long, 2>{5, 1}));
  EXPECT_EQ(last.global_extent, (std::array<int, 2>{13, 7}));
  EXPECT_EQ(&last(-1, -2), last.data - 5 - 2);  // the first cell of the allocation
  EXPECT_EQ(&last(1, 1), last.data + 6);
}

TEST(Block, EveryPeAllocatesTheLargestBlock) {
  // 10 cells over 3 PEs: 4, 3, 3 owned, 7, 6, 6 with halos: PE 2 may write 7 elements.
  run_team(3, [&](Pe& pe) {
    const ProcessGrid grid{1, {3, 1, 1}};
    Block<double, 1> b = alloc_block<double, 1>(pe, grid, {10}, {2}, {1});
    double* base = b.data - 2;
    const double src[7] = {1, 2, 3, 4, 5, 6, 7};
    pe.put(base, src, sizeof src, (pe.id() + 1) % 3);  // 7 elements: fatal if PE 2 had 6
    pe.barrier_all();
    EXPECT_EQ(base[6], 7.0);
  });
}

TEST(Block, SwapExchangesBuffersAndLayouts) {
  run_team(1, [&](Pe& pe) {
    const ProcessGrid grid{1, {1, 1, 1}};
    Block<int, 1> a = alloc_block<int, 1>(pe, grid, {5}, {1}, {1});
    Block<int, 1> b = alloc_block<int, 1>(pe, grid, {5}, {1}, {1});
    a(0) = 1;
    b(0) = 2;
    int* a_data = a.data;
    using stencilc::rt::swap;  // as generated code says it
    swap(a, b);
    EXPECT_EQ(b.data, a_data);
    EXPECT_EQ(a(0), 2);
    EXPECT_EQ(b(0), 1);
  });
}

void index_past_the_halo() {
  run_team(1, [&](Pe& pe) {
    const ProcessGrid grid{2, {1, 1, 1}};
    Block<double, 2> b = alloc_block<double, 2>(pe, grid, {4, 4}, {2, 1}, {0, 1});
    b(-2, 4) = 1.0;  // the corner: allowed
    b(0, -2) = 1.0;
  });
}

TEST(BlockDeathTest, CheckedIndicesStayInTheHaloedBox) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(index_past_the_halo(), testing::ExitedWithCode(2),
              "block index -2 out of range \\[-1, 5\\) in dimension 1 \\(owned \\[0, 4\\)");
}

}  // namespace
