// Tests of the backend-independent decomposition: split(), the choice of process grid (cost,
// ties, thin blocks, overrides), neighbours and block layouts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "stencilc/runtime/decomposition.hpp"

namespace {

using stencilc::rt::block_layout;
using stencilc::rt::BlockLayout;
using stencilc::rt::choose_process_grid;
using stencilc::rt::neighbor;
using stencilc::rt::ProcessGrid;
using stencilc::rt::Span;
using stencilc::rt::split;
using Dims = std::array<int, 3>;

TEST(Split, PartsCoverTheExtentInOrderAndTheFirstOnesAreLarger) {
  for (int extent = 0; extent <= 23; ++extent) {
    for (int parts = 1; parts <= 7; ++parts) {
      int next = 0;
      for (int index = 0; index < parts; ++index) {
        const Span span = split(extent, parts, index);
        EXPECT_EQ(span.start, next) << extent << " / " << parts << " part " << index;
        const int expected = extent / parts + (index < extent % parts ? 1 : 0);
        EXPECT_EQ(span.count, expected) << extent << " / " << parts << " part " << index;
        next += span.count;
      }
      EXPECT_EQ(next, extent);
    }
  }
}

TEST(Split, Examples) {
  EXPECT_EQ(split(10, 3, 0).start, 0);
  EXPECT_EQ(split(10, 3, 0).count, 4);
  EXPECT_EQ(split(10, 3, 1).start, 4);
  EXPECT_EQ(split(10, 3, 1).count, 3);
  EXPECT_EQ(split(10, 3, 2).start, 7);
  EXPECT_EQ(split(2, 4, 3).start, 2);
  EXPECT_EQ(split(2, 4, 3).count, 0);
}

TEST(SplitDeathTest, BadArgumentsAreFatal) {
  EXPECT_EXIT(split(10, 0, 0), testing::ExitedWithCode(2), "split\\(extent 10, parts 0");
  EXPECT_EXIT(split(10, 3, 3), testing::ExitedWithCode(2), "index 3");
}

TEST(ProcessGrid, CoordsAreRowMajor) {
  const ProcessGrid grid{3, {2, 3, 4}};
  EXPECT_EQ(grid.size(), 24);
  EXPECT_EQ(grid.coords(0), (Dims{0, 0, 0}));
  EXPECT_EQ(grid.coords(1), (Dims{0, 0, 1}));
  EXPECT_EQ(grid.coords(4), (Dims{0, 1, 0}));
  EXPECT_EQ(grid.coords(12), (Dims{1, 0, 0}));
  EXPECT_EQ(grid.coords(23), (Dims{1, 2, 3}));
  for (int pe = 0; pe < grid.size(); ++pe) EXPECT_EQ(grid.pe_at(grid.coords(pe)), pe);
}

// The process grid chosen without an override, as "AxB", or the error.
std::string choose(int pes, int rank, Dims extents, Dims lo, Dims hi,
                   const std::string& spec = "") {
  std::string error;
  const std::optional<ProcessGrid> grid =
      choose_process_grid(pes, rank, extents, lo, hi, spec, &error);
  if (!grid) return "error: " + error;
  EXPECT_EQ(grid->rank, rank);
  EXPECT_EQ(grid->size(), pes);
  return stencilc::rt::format_dims(grid->dims.data(), grid->rank, "x");
}

TEST(ChooseProcessGrid, OneDimension) {
  EXPECT_EQ(choose(1, 1, {100, 1, 1}, {1, 0, 0}, {1, 0, 0}), "1");
  EXPECT_EQ(choose(4, 1, {100, 1, 1}, {1, 0, 0}, {1, 0, 0}), "4");
  EXPECT_EQ(choose(7, 1, {13, 1, 1}, {1, 0, 0}, {1, 0, 0}), "7");
}

TEST(ChooseProcessGrid, TiesCutDimensionZeroFirst) {
  EXPECT_EQ(choose(2, 2, {100, 100, 1}, {1, 1, 0}, {1, 1, 0}), "2x1");
  EXPECT_EQ(choose(4, 3, {64, 64, 64}, {1, 1, 1}, {1, 1, 1}), "2x2x1");
  EXPECT_EQ(choose(2, 3, {64, 64, 64}, {1, 1, 1}, {1, 1, 1}), "2x1x1");
}

TEST(ChooseProcessGrid, SquareGridsGetSquareProcessGrids) {
  EXPECT_EQ(choose(4, 2, {256, 256, 1}, {1, 1, 0}, {1, 1, 0}), "2x2");
  EXPECT_EQ(choose(16, 2, {256, 256, 1}, {1, 1, 0}, {1, 1, 0}), "4x4");
  EXPECT_EQ(choose(8, 3, {64, 64, 64}, {1, 1, 1}, {1, 1, 1}), "2x2x2");
  EXPECT_EQ(choose(6, 2, {120, 120, 1}, {1, 1, 0}, {1, 1, 0}), "3x2");
}

TEST(ChooseProcessGrid, CutsAcrossTheSmallestFaces) {
  // Cutting dimension 0 of a 1000 x 10 grid moves faces of 10 cells; cutting dimension 1, 1000.
  EXPECT_EQ(choose(4, 2, {1000, 10, 1}, {1, 1, 0}, {1, 1, 0}), "4x1");
  EXPECT_EQ(choose(4, 2, {10, 1000, 1}, {1, 1, 0}, {1, 1, 0}), "1x4");
  EXPECT_EQ(choose(4, 3, {8, 8, 512}, {1, 1, 1}, {1, 1, 1}), "1x1x4");
  // A dimension without halos costs nothing to cut.
  EXPECT_EQ(choose(4, 2, {100, 100, 1}, {1, 0, 0}, {1, 0, 0}), "1x4");
  // Deeper halos make a dimension costlier: 2 + 2 layers against 1 + 0.
  EXPECT_EQ(choose(2, 2, {100, 100, 1}, {2, 1, 0}, {2, 0, 0}), "1x2");
}

TEST(ChooseProcessGrid, RejectsBlocksThinnerThanTheHalo) {
  // Dimension 0 in 2 parts would give blocks 1 thick with a halo of 2.
  EXPECT_EQ(choose(2, 2, {3, 100, 1}, {2, 2, 0}, {2, 2, 0}), "1x2");
  // Asymmetric: the deeper side counts.
  EXPECT_EQ(choose(3, 1, {6, 1, 1}, {0, 0, 0}, {2, 0, 0}), "3");
  EXPECT_EQ(choose(4, 1, {4, 1, 1}, {0, 0, 0}, {0, 0, 0}), "4");  // no halo: 1 layer suffices

  const std::string error = choose(4, 1, {6, 1, 1}, {2, 0, 0}, {2, 0, 0});
  EXPECT_NE(error.find("error: cannot split a grid of 6 points with halos (2) below and (2) "
                       "above over 4 PEs"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("thinner than the halo"), std::string::npos) << error;
  EXPECT_NE(error.find("use fewer PEs (3 would fit)"), std::string::npos) << error;

  EXPECT_NE(choose(5, 1, {4, 1, 1}, {0, 0, 0}, {0, 0, 0}).find("(4 would fit)"), std::string::npos);
  EXPECT_NE(choose(8, 2, {6, 3, 1}, {2, 1, 0}, {2, 1, 0}).find("6 x 3"), std::string::npos);
}

// The count "use fewer PEs (N would fit)" names is the largest below the request that fits: the
// same as trying every smaller count, which is what it must not take the time of.
TEST(ChooseProcessGrid, NamesTheMostPesThatFit) {
  using stencilc::rt::detail::best_fit;
  using stencilc::rt::detail::DecompProblem;
  using stencilc::rt::detail::most_pes_that_fit;
  int checked = 0;
  for (int rank = 1; rank <= 3; ++rank) {
    for (int e0 : {1, 3, 7, 12}) {
      for (int e1 : {2, 5, 9}) {
        for (int halo : {0, 1, 2}) {
          const Dims extents{e0, rank > 1 ? e1 : 1, rank > 2 ? e1 + 1 : 1};
          const Dims h{halo, rank > 1 ? 1 : 0, rank > 2 ? halo : 0};
          for (int n_pes = 2; n_pes <= 40; ++n_pes) {
            DecompProblem problem{n_pes, rank, extents, h, h};
            int slow = 0;
            for (int n = n_pes - 1; n >= 1 && slow == 0; --n) {
              DecompProblem fewer = problem;
              fewer.n_pes = n;
              if (best_fit(fewer)) slow = n;
            }
            EXPECT_EQ(most_pes_that_fit(problem), slow)
                << n_pes << " PEs, rank " << rank << ", extents " << extents[0] << "x" << extents[1] << "x"
                << extents[2] << ", halo " << halo;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(ChooseProcessGrid, AMillionPesOnASmallGridAnswersAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = choose(1000000, 2, {64, 48, 1}, {1, 1, 0}, {1, 1, 0});
  const std::string error3 = choose(1000000, 3, {40, 30, 20}, {2, 1, 1}, {2, 1, 1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(error.find("use fewer PEs (3072 would fit)"), std::string::npos) << error;
  EXPECT_NE(error3.find("use fewer PEs (12000 would fit)"), std::string::npos) << error3;
  // Trying every smaller count took minutes; the answer is a loop over the part counts.
  EXPECT_LT(seconds, 1.0);
}

TEST(ChooseProcessGrid, HonoursAnOverride) {
  EXPECT_EQ(choose(4, 2, {100, 100, 1}, {1, 1, 0}, {1, 1, 0}, "4x1"), "4x1");
  EXPECT_EQ(choose(4, 2, {100, 100, 1}, {1, 1, 0}, {1, 1, 0}, "1x4"), "1x4");
  EXPECT_EQ(choose(4, 3, {8, 8, 8}, {1, 1, 1}, {1, 1, 1}, "4x1x1"), "4x1x1");
  EXPECT_EQ(choose(6, 2, {13, 7, 1}, {1, 1, 0}, {1, 1, 0}, "2x3"), "2x3");
}

TEST(ChooseProcessGrid, ChecksAnOverride) {
  const Dims e{100, 100, 1}, h{1, 1, 0};
  EXPECT_NE(choose(4, 2, e, h, h, "3x1").find("it makes 3 blocks for 4 PEs"), std::string::npos);
  EXPECT_NE(choose(4, 2, e, h, h, "2x2x1").find("it has 3 dimensions, the grid has 2"),
            std::string::npos);
  EXPECT_NE(choose(4, 2, e, h, h, "2x").find("bad decomposition '2x'"), std::string::npos);
  EXPECT_NE(choose(4, 2, e, h, h, "0x4").find("bad decomposition '0x4'"), std::string::npos);
  EXPECT_NE(choose(4, 2, e, h, h, "two").find("bad decomposition"), std::string::npos);
  EXPECT_NE(choose(4, 2, e, h, h, "1x1x1x4").find("bad decomposition"), std::string::npos);
  const std::string thin = choose(4, 2, {6, 100, 1}, {2, 1, 0}, {2, 1, 0}, "4x1");
  EXPECT_NE(thin.find("cannot use the decomposition '4x1' for a grid of 6 x 100 points"),
            std::string::npos)
      << thin;
  EXPECT_NE(thin.find("blocks would be 1 thick in dimension 0, thinner than the halo (2)"),
            std::string::npos)
      << thin;
}

TEST(ChooseProcessGrid, RejectsEmptyGridsAndNegativeHalos) {
  EXPECT_NE(choose(2, 2, {0, 8, 1}, {1, 1, 0}, {1, 1, 0}).find("dimension 0 has extent 0"),
            std::string::npos);
  EXPECT_NE(choose(2, 2, {8, 8, 1}, {1, -1, 0}, {1, 1, 0}).find("halos -1, 1"), std::string::npos);
  EXPECT_NE(choose(0, 1, {8, 1, 1}, {1, 0, 0}, {1, 0, 0}).find("0 PEs"), std::string::npos);
}

TEST(FindDecompOverride, OptionBeatsEnvironment) {
  const char* argv[] = {"prog", "--stencilc-decomp=2x2", "x", "--stencilc-decomp=4x1", nullptr};
  ::setenv("STENCILC_DECOMP", "1x4", 1);
  EXPECT_EQ(stencilc::rt::find_decomp_override(4, argv), "4x1");
  EXPECT_EQ(stencilc::rt::find_decomp_override(1, argv), "1x4");
  ::unsetenv("STENCILC_DECOMP");
  EXPECT_EQ(stencilc::rt::find_decomp_override(1, argv), "");
}

TEST(Neighbor, FixedAndPeriodicEdges) {
  const ProcessGrid grid{2, {2, 3, 1}};  // PE = 3 * row + column
  const std::array<bool, 3> fixed{false, false, false}, periodic{true, true, false};
  EXPECT_EQ(neighbor(grid, 0, {1, 0, 0}, fixed), 3);
  EXPECT_EQ(neighbor(grid, 0, {0, 1, 0}, fixed), 1);
  EXPECT_EQ(neighbor(grid, 0, {-1, 0, 0}, fixed), -1);
  EXPECT_EQ(neighbor(grid, 0, {0, -1, 0}, fixed), -1);
  EXPECT_EQ(neighbor(grid, 0, {1, 1, 0}, fixed), 4);
  EXPECT_EQ(neighbor(grid, 5, {1, 1, 0}, fixed), -1);
  EXPECT_EQ(neighbor(grid, 0, {-1, 0, 0}, periodic), 3);
  EXPECT_EQ(neighbor(grid, 0, {0, -1, 0}, periodic), 2);
  EXPECT_EQ(neighbor(grid, 0, {-1, -1, 0}, periodic), 5);
  EXPECT_EQ(neighbor(grid, 5, {1, 1, 0}, periodic), 0);
  // Periodic in dimension 0 only: wraps there, stops at the edge of dimension 1.
  EXPECT_EQ(neighbor(grid, 2, {1, 1, 0}, {true, false, false}), -1);
  EXPECT_EQ(neighbor(grid, 4, {1, 1, 0}, {true, false, false}), 2);
  // No dimension 2 in a rank-2 grid.
  EXPECT_EQ(neighbor(grid, 0, {0, 0, 1}, periodic), -1);
}

TEST(Neighbor, AnUncutPeriodicDimensionWrapsOntoThePeItself) {
  const ProcessGrid grid{2, {1, 2, 1}};
  const std::array<bool, 3> periodic{true, true, false};
  EXPECT_EQ(neighbor(grid, 0, {1, 0, 0}, periodic), 0);
  EXPECT_EQ(neighbor(grid, 1, {-1, 0, 0}, periodic), 1);
  EXPECT_EQ(neighbor(grid, 1, {1, 1, 0}, periodic), 0);
  EXPECT_EQ(neighbor(grid, 0, {0, 1, 0}, periodic), 1);
  EXPECT_EQ(neighbor(grid, 0, {0, -1, 0}, periodic), 1);  // two PEs: both sides are PE 1
  EXPECT_EQ(neighbor(grid, 0, {1, 0, 0}, {false, true, false}), -1);
  EXPECT_EQ(neighbor(ProcessGrid{1, {1, 1, 1}}, 0, {1, 0, 0}, periodic), 0);
}

TEST(BlockLayout, OriginsAndExtentsFollowSplit) {
  const ProcessGrid grid{2, {2, 3, 1}};
  const BlockLayout<2> first = block_layout<2>(grid, 0, {13, 7});
  EXPECT_EQ(first.origin, (std::array<int, 2>{0, 0}));
  EXPECT_EQ(first.extent, (std::array<int, 2>{7, 3}));
  const BlockLayout<2> last = block_layout<2>(grid, 5, {13, 7});
  EXPECT_EQ(last.origin, (std::array<int, 2>{7, 5}));
  EXPECT_EQ(last.extent, (std::array<int, 2>{6, 2}));
  const BlockLayout<3> cube = block_layout<3>(ProcessGrid{3, {1, 1, 2}}, 1, {5, 5, 5});
  EXPECT_EQ(cube.origin, (std::array<int, 3>{0, 0, 3}));
  EXPECT_EQ(cube.extent, (std::array<int, 3>{5, 5, 2}));
}

TEST(BlockLayoutDeathTest, RankMismatchIsFatal) {
  EXPECT_EXIT(block_layout<3>(ProcessGrid{2, {2, 1, 1}}, 0, {4, 4, 4}), testing::ExitedWithCode(2),
              "block_layout");
}

}  // namespace
