// Tests of HaloExchange on the host backend: after every recv, each halo cell with a source (in
// the global grid, or wrapped in a periodic dimension) holds the source's value of that epoch,
// and every other halo cell still holds the poison written before the first exchange. Runs
// every process grid that fits, for N = 1, 2, 3, periodic and fixed mixes, symmetric,
// asymmetric and one-sided halos, with and without corners, and PEs at different speeds.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "stencilc/runtime/halo.hpp"

namespace {

using stencilc::rt::alloc_block;
using stencilc::rt::Block;
using stencilc::rt::HaloExchange;
using stencilc::rt::Pe;
using stencilc::rt::ProcessGrid;
using stencilc::rt::run_team;

#if defined(STENCILC_TEST_TSAN)
constexpr int kEpochs = 3;  // ThreadSanitizer is ~10x slower; races show up in a few epochs
constexpr int kJitterEpochs = 40;
#else
constexpr int kEpochs = 5;
constexpr int kJitterEpochs = 150;
#endif
constexpr double kPoison = -12345.0;

struct Case {
  std::array<int, 3> extent;
  std::array<bool, 3> periodic;
  std::array<int, 3> lo, hi;
  bool corners;
};

template <int N>
std::array<int, N> first(const std::array<int, 3>& values) {
  std::array<int, N> out{};
  for (int d = 0; d < N; ++d) out[d] = values[d];
  return out;
}

// The value of global cell g at `epoch`: distinct for every cell and epoch.
template <int N>
double value_at(const std::array<int, N>& g, const std::array<int, N>& extent, int epoch) {
  long linear = 0;
  for (int d = 0; d < N; ++d) linear = linear * extent[d] + g[d];
  return epoch * 100000.0 + static_cast<double>(linear);
}

// What local cell idx must hold after recv(epoch).
template <int N>
double expected_at(const Block<double, N>& b, const std::array<int, N>& idx, const Case& c,
                   int epoch) {
  std::array<int, N> g{};
  int outside = 0;
  for (int d = 0; d < N; ++d) {
    outside += idx[d] < 0 || idx[d] >= b.extent[d];
    g[d] = b.origin[d] + idx[d];
    if (g[d] >= 0 && g[d] < b.global_extent[d]) continue;
    if (!c.periodic[d]) return kPoison;  // past a fixed edge: no source
    g[d] = (g[d] + b.global_extent[d]) % b.global_extent[d];
  }
  if (outside >= 2 && !c.corners) return kPoison;
  return value_at<N>(g, b.global_extent, epoch);
}

// Calls f(idx) for every cell of the block, halos included.
template <int N, class F>
void for_all_cells(const Block<double, N>& b, bool with_halos, F&& f) {
  std::array<int, 3> lo{0, 0, 0}, hi{1, 1, 1};
  for (int d = 0; d < N; ++d) {
    lo[d] = with_halos ? -b.halo_lo[d] : 0;
    hi[d] = b.extent[d] + (with_halos ? b.halo_hi[d] : 0);
  }
  for (int i = lo[0]; i < hi[0]; ++i) {
    for (int j = lo[1]; j < hi[1]; ++j) {
      for (int k = lo[2]; k < hi[2]; ++k) {
        const std::array<int, 3> all{i, j, k};
        f(first<N>(all));
      }
    }
  }
}

template <int N>
double& at(const Block<double, N>& b, const std::array<int, N>& idx) {
  if constexpr (N == 1) {
    return b(idx[0]);
  } else if constexpr (N == 2) {
    return b(idx[0], idx[1]);
  } else {
    return b(idx[0], idx[1], idx[2]);
  }
}

// Sleeps a random 0..max_us on some calls, so PEs drift apart.
struct Jitter {
  std::mt19937 rng;
  int max_us;
  void operator()() {
    if (max_us == 0) return;
    const int us = static_cast<int>(rng() % static_cast<unsigned>(max_us));
    if (us % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
};

// Runs `epochs` exchanges of case c on `grid` and returns what went wrong (at most a few lines).
template <int N>
std::vector<std::string> run_exchange(const Case& c, const ProcessGrid& grid, int epochs,
                                      int jitter_us) {
  std::vector<std::vector<std::string>> errors(grid.size());
  run_team(grid.size(), [&](Pe& pe) {
    const std::array<int, N> extent = first<N>(c.extent);
    Block<double, N> b = alloc_block<double, N>(pe, grid, extent, first<N>(c.lo), first<N>(c.hi));
    for_all_cells<N>(b, true, [&](const std::array<int, N>& idx) { at<N>(b, idx) = kPoison; });
    std::array<bool, N> periodic{};
    for (int d = 0; d < N; ++d) periodic[d] = c.periodic[d];
    HaloExchange<double, N> exchange(pe, grid, b, periodic, c.corners, "u");
    Jitter jitter{std::mt19937(1234u + pe.id()), jitter_us};
    std::vector<std::string>& mine = errors[pe.id()];
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      for_all_cells<N>(b, false, [&](const std::array<int, N>& idx) {
        std::array<int, N> g{};
        for (int d = 0; d < N; ++d) g[d] = b.origin[d] + idx[d];
        at<N>(b, idx) = value_at<N>(g, extent, epoch);
      });
      jitter();
      exchange.send(pe, b, epoch);
      jitter();
      exchange.recv(pe, b, epoch);
      for_all_cells<N>(b, true, [&](const std::array<int, N>& idx) {
        const double want = expected_at<N>(b, idx, c, epoch);
        if (at<N>(b, idx) == want || mine.size() >= 3) return;
        std::string where;
        for (int d = 0; d < N; ++d) where += (d ? ", " : "") + std::to_string(idx[d]);
        mine.push_back("PE " + std::to_string(pe.id()) + " epoch " + std::to_string(epoch) +
                       " local (" + where + "): " + std::to_string(at<N>(b, idx)) + ", want " +
                       std::to_string(want));
      });
    }
  });
  std::vector<std::string> all;
  for (const std::vector<std::string>& pe_errors : errors) {
    all.insert(all.end(), pe_errors.begin(), pe_errors.end());
  }
  return all;
}

// "2x3" for every process grid of `pes` PEs that fits the case.
template <int N>
std::vector<ProcessGrid> fitting_grids(const Case& c, int pes) {
  std::vector<ProcessGrid> grids;
  for (int a = 1; a <= pes; ++a) {
    for (int b = 1; b <= (N >= 2 ? pes : 1); ++b) {
      if (pes % (a * b) != 0 || (N == 1 && a != pes) || (N == 2 && a * b != pes)) continue;
      std::string spec = std::to_string(a);
      if (N >= 2) spec += "x" + std::to_string(b);
      if (N == 3) spec += "x" + std::to_string(pes / (a * b));
      std::string error;
      const std::optional<ProcessGrid> grid =
          stencilc::rt::choose_process_grid(pes, N, c.extent, c.lo, c.hi, spec, &error);
      if (grid) grids.push_back(*grid);
    }
  }
  return grids;
}

// Runs case c for every PE count and every process grid that fits; returns how many ran.
template <int N>
int check_case(const Case& c, const std::vector<int>& pe_counts) {
  int runs = 0;
  for (int pes : pe_counts) {
    for (const ProcessGrid& grid : fitting_grids<N>(c, pes)) {
      SCOPED_TRACE(testing::Message()
                   << N << "-D, process grid "
                   << stencilc::rt::format_dims(grid.dims.data(), N, "x") << ", periodic "
                   << c.periodic[0] << c.periodic[1] << c.periodic[2] << ", halo lo "
                   << stencilc::rt::format_dims(c.lo.data(), N, ",") << " hi "
                   << stencilc::rt::format_dims(c.hi.data(), N, ",")
                   << (c.corners ? ", corners" : ""));
      const std::vector<std::string> errors = run_exchange<N>(c, grid, kEpochs, 0);
      for (const std::string& error : errors) ADD_FAILURE() << error;
      ++runs;
    }
  }
  return runs;
}

using Halos = std::pair<std::array<int, 3>, std::array<int, 3>>;
const std::vector<Halos> kHalos{
    {{1, 1, 1}, {1, 1, 1}},  // (1, 1) everywhere
    {{2, 2, 2}, {1, 1, 1}},  // (2, 1): asymmetric
    {{0, 0, 0}, {2, 2, 2}},  // (0, 2): one-sided
    {{1, 0, 2}, {1, 2, 0}},  // a different shape per dimension
};

TEST(Halo, OneDimension) {
  int runs = 0;
  for (const Halos& h : kHalos) {
    for (bool periodic : {true, false}) {
      runs += check_case<1>(Case{{13, 1, 1}, {periodic, false, false}, h.first, h.second, false},
                            {1, 2, 3, 4});
    }
  }
  EXPECT_EQ(runs, 4 * 2 * 4);
}

TEST(Halo, TwoDimensions) {
  const std::vector<std::array<bool, 3>> periodic{
      {true, true, false}, {false, false, false}, {true, false, false}, {false, true, false}};
  int runs = 0;
  for (const Halos& h : kHalos) {
    for (const std::array<bool, 3>& p : periodic) {
      for (bool corners : {false, true}) {
        runs += check_case<2>(Case{{13, 7, 1}, p, h.first, h.second, corners}, {1, 2, 3, 4, 6});
      }
    }
  }
  EXPECT_GT(runs, 4 * 4 * 2 * 5);  // more than one process grid per PE count
}

TEST(Halo, ThreeDimensions) {
  const std::vector<std::array<bool, 3>> periodic{
      {true, true, true}, {false, false, false}, {true, false, true}};
  int runs = 0;
  for (const Halos& h : kHalos) {
    for (const std::array<bool, 3>& p : periodic) {
      for (bool corners : {false, true}) {
        runs += check_case<3>(Case{{13, 7, 5}, p, h.first, h.second, corners}, {1, 2, 3, 4, 6});
      }
    }
  }
  EXPECT_GT(runs, 4 * 3 * 2 * 5);
}

TEST(Halo, PesAtDifferentSpeeds) {
  const Case square{{13, 7, 1}, {true, true, false}, {1, 1, 0}, {1, 1, 0}, true};
  for (const std::string spec : {"2x2", "3x2", "1x4"}) {
    SCOPED_TRACE(spec);
    std::string error;
    const std::optional<ProcessGrid> grid = stencilc::rt::choose_process_grid(
        spec == "3x2" ? 6 : 4, 2, square.extent, square.lo, square.hi, spec, &error);
    ASSERT_TRUE(grid) << error;
    for (const std::string& e : run_exchange<2>(square, *grid, kJitterEpochs, 300)) {
      ADD_FAILURE() << e;
    }
  }
  const Case line{{13, 1, 1}, {true, false, false}, {2, 0, 0}, {1, 0, 0}, false};
  for (const std::string& e :
       run_exchange<1>(line, ProcessGrid{1, {3, 1, 1}}, kJitterEpochs, 300)) {
    ADD_FAILURE() << e;
  }
}

// Halos below in dimension 0 and above in dimension 1: receive from (-1, 0), (0, +1) and the
// corner between them; send the opposite ways. Fixed edges drop the directions past them.
TEST(Halo, DirectionsFollowTheHalosCornersAndEdges) {
  using Dirs = std::vector<std::array<int, 2>>;
  run_team(1, [&](Pe& pe) {
    const ProcessGrid grid{2, {1, 1, 1}};
    Block<double, 2> b = alloc_block<double, 2>(pe, grid, {4, 4}, {1, 0}, {0, 1});
    HaloExchange<double, 2> corners(pe, grid, b, {true, true}, true, "c");
    EXPECT_EQ(corners.recv_directions(), (Dirs{{-1, 0}, {-1, 1}, {0, 1}}));
    EXPECT_EQ(corners.send_directions(), (Dirs{{0, -1}, {1, -1}, {1, 0}}));
    HaloExchange<double, 2> faces(pe, grid, b, {true, true}, false, "f");
    EXPECT_EQ(faces.recv_directions(), (Dirs{{-1, 0}, {0, 1}}));
    HaloExchange<double, 2> edges(pe, grid, b, {false, true}, true, "e");
    EXPECT_EQ(edges.recv_directions(), (Dirs{{0, 1}}));
    EXPECT_EQ(edges.send_directions(), (Dirs{{0, -1}}));
  });
}

// With a one-sided halo and fixed edges, PE 0 only sends and PE 1 only receives: nothing but the
// acks keeps PE 0 from overwriting a slot PE 1 has not unpacked yet.
TEST(Halo, ASenderAheadWaitsForTheSlot) {
  const Case c{{8, 1, 1}, {false, false, false}, {2, 0, 0}, {0, 0, 0}, false};
  const ProcessGrid grid{1, {2, 1, 1}};
  std::vector<std::string> errors;
  run_team(2, [&](Pe& pe) {
    Block<double, 1> b = alloc_block<double, 1>(pe, grid, {8}, {2}, {0});
    HaloExchange<double, 1> exchange(pe, grid, b, {false}, false, "u");
    EXPECT_EQ(exchange.recv_directions().size(), pe.id() == 0 ? 0u : 1u);
    EXPECT_EQ(exchange.send_directions().size(), pe.id() == 0 ? 1u : 0u);
    for (int epoch = 1; epoch <= 6; ++epoch) {
      for (int i = 0; i < b.extent[0]; ++i) b(i) = value_at<1>({b.origin[0] + i}, {8}, epoch);
      exchange.send(pe, b, epoch);
      if (pe.id() == 0) continue;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // PE 0 runs ahead meanwhile
      exchange.recv(pe, b, epoch);
      for (int i = -2; i < 0; ++i) {
        if (b(i) != expected_at<1>(b, {i}, c, epoch)) errors.push_back(std::to_string(epoch));
      }
    }
  });
  EXPECT_EQ(errors, std::vector<std::string>{}) << "epochs with stale or overwritten halos";
}

// What generated code does: two blocks swapped every step, one exchange, a 5-point Jacobi step,
// checked against the same computation on the whole grid.
TEST(Halo, JacobiWithSwappedBlocksMatchesTheSerialResult) {
  const int ny = 13, nx = 9, steps = 12;
  auto initial = [&](int i, int j) { return static_cast<double>((i * 7 + j * 3) % 11); };
  std::vector<double> serial(ny * nx), next(ny * nx);
  for (int i = 0; i < ny; ++i) {
    for (int j = 0; j < nx; ++j) serial[i * nx + j] = initial(i, j);
  }
  next = serial;  // dimension 1 is fixed(1): columns 0 and nx - 1 never change
  for (int step = 0; step < steps; ++step) {
    for (int i = 0; i < ny; ++i) {
      for (int j = 1; j < nx - 1; ++j) {
        const int up = (i + ny - 1) % ny, down = (i + 1) % ny;  // periodic in dimension 0
        next[i * nx + j] = 0.25 * (serial[up * nx + j] + serial[down * nx + j] +
                                   serial[i * nx + j - 1] + serial[i * nx + j + 1]);
      }
    }
    std::swap(serial, next);
  }
  std::vector<double> result(ny * nx, -1.0);
  const ProcessGrid grid{2, {2, 2, 1}};
  run_team(4, [&](Pe& pe) {
    Block<double, 2> a = alloc_block<double, 2>(pe, grid, {ny, nx}, {1, 1}, {1, 1});
    Block<double, 2> a_new = alloc_block<double, 2>(pe, grid, {ny, nx}, {1, 1}, {1, 1});
    for (int i = 0; i < a.extent[0]; ++i) {
      for (int j = 0; j < a.extent[1]; ++j) {
        a(i, j) = a_new(i, j) = initial(a.origin[0] + i, a.origin[1] + j);
      }
    }
    HaloExchange<double, 2> exchange(pe, grid, a, {true, false}, false, "a");
    for (int step = 0; step < steps; ++step) {
      exchange.send(pe, a, step + 1);
      exchange.recv(pe, a, step + 1);
      for (int i = 0; i < a.extent[0]; ++i) {
        for (int j = 0; j < a.extent[1]; ++j) {
          const int gj = a.origin[1] + j;
          if (gj == 0 || gj == nx - 1) continue;
          a_new(i, j) = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1));
        }
      }
      swap(a, a_new);
    }
    for (int i = 0; i < a.extent[0]; ++i) {
      for (int j = 0; j < a.extent[1]; ++j) {
        result[(a.origin[0] + i) * nx + a.origin[1] + j] = a(i, j);
      }
    }
  });
  EXPECT_EQ(result, serial);
}

class HaloDeathTest : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// PE 1 never sends: PE 0's recv must time out and say what it waited for.
void exchange_with_a_missing_send() {
  ::setenv("STENCILC_WAIT_TIMEOUT_MS", "100", 1);
  const ProcessGrid grid{1, {2, 1, 1}};
  run_team(2, [&](Pe& pe) {
    Block<float, 1> b = alloc_block<float, 1>(pe, grid, {8}, {1}, {1});
    HaloExchange<float, 1> exchange(pe, grid, b, {false}, false, "temperature");
    if (pe.id() == 0) exchange.send(pe, b, 1);
    exchange.recv(pe, b, 1);
  });
}

TEST_F(HaloDeathTest, AMissingSendTimesOutNamingTheGridAndPeer) {
  EXPECT_EXIT(exchange_with_a_missing_send(), testing::ExitedWithCode(3),
              "PE 0 of 2 waited [0-9]+ ms for the halo of grid 'temperature' from PE 1, direction "
              "\\(\\+1\\): signal is 0, waiting for >= 1");
}

// 4 cells over 3 PEs with halos of 2: blocks of 2, 1 and 1.
void exchange_on_thin_blocks() {
  const ProcessGrid grid{1, {3, 1, 1}};
  run_team(3, [&](Pe& pe) {
    Block<int, 1> b = alloc_block<int, 1>(pe, grid, {4}, {2}, {2});
    HaloExchange<int, 1> exchange(pe, grid, b, {true}, false, "g");
  });
}

TEST_F(HaloDeathTest, BlocksThinnerThanTheHaloAreFatal) {
  EXPECT_EXIT(exchange_on_thin_blocks(), testing::ExitedWithCode(2),
              "halo exchange of grid 'g': PE [12]'s block is 1 thick in dimension 0 but must "
              "supply 2 halo layers to PE [0-2]");
}

// Epoch 2 is skipped.
void exchange_skipping_an_epoch() {
  run_team(1, [&](Pe& pe) {
    const ProcessGrid grid{1, {1, 1, 1}};
    Block<double, 1> b = alloc_block<double, 1>(pe, grid, {4}, {1}, {1});
    HaloExchange<double, 1> exchange(pe, grid, b, {true}, false, "g");
    exchange.send(pe, b, 1);
    exchange.recv(pe, b, 1);
    exchange.send(pe, b, 3);
  });
}

TEST_F(HaloDeathTest, EpochsMustCountUp) {
  EXPECT_EXIT(exchange_skipping_an_epoch(), testing::ExitedWithCode(2),
              "send of epoch 3 after epoch 1");
}

}  // namespace
