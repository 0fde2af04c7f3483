// Tests of the host backend: the symmetric heap, puts and signals, bounded waits, barriers and
// allreduce. Failures seen on PE threads are collected and checked after run_team returns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "stencilc/runtime/host.hpp"

namespace {

using stencilc::rt::Cmp;
using stencilc::rt::Pe;
using stencilc::rt::ReduceOp;
using stencilc::rt::run_team;

// Death tests run in a re-executed child: PE threads and fork() do not mix.
class HostDeathTest : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST(Host, IdsAndCount) {
  for (int pes : {1, 2, 5}) {
    std::vector<int> seen(pes, 0);
    run_team(pes, [&](Pe& pe) {
      EXPECT_EQ(pe.n(), pes);
      seen[pe.id()] += 1;
    });
    for (int count : seen) EXPECT_EQ(count, 1);
  }
}

TEST(Host, SymAllocIsSymmetricZeroFilledAndAligned) {
  const int pes = 4;
  const std::vector<std::size_t> sizes{1, 64, 1000, 0, 4096 * 3 + 5};
  // copies[k][pe]: PE pe's copy of allocation k, as PE pe and as every other PE see it.
  std::vector<std::vector<unsigned char*>> copies(sizes.size(), std::vector<unsigned char*>(pes));
  std::vector<std::vector<std::vector<unsigned char*>>> seen(
      pes, std::vector<std::vector<unsigned char*>>(sizes.size()));
  std::vector<int> nonzero(pes, 0), misaligned(pes, 0);
  run_team(pes, [&](Pe& pe) {
    std::vector<unsigned char*> mine;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      auto* p = static_cast<unsigned char*>(pe.sym_alloc(sizes[k]));
      copies[k][pe.id()] = p;
      mine.push_back(p);
      if (reinterpret_cast<std::uintptr_t>(p) % 64 != 0) ++misaligned[pe.id()];
      for (std::size_t i = 0; i < sizes[k]; ++i) nonzero[pe.id()] += p[i] != 0;
      std::memset(p, 0xab, sizes[k]);  // the other PEs' copies must not change
    }
    pe.barrier_all();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      for (int q = 0; q < pe.n(); ++q) seen[pe.id()][k].push_back(pe.remote(mine[k], q));
    }
  });
  for (int p = 0; p < pes; ++p) {
    EXPECT_EQ(nonzero[p], 0);
    EXPECT_EQ(misaligned[p], 0);
    for (std::size_t k = 0; k < sizes.size(); ++k) EXPECT_EQ(seen[p][k], copies[k]);
  }
}

TEST(Host, RemoteOfAnInteriorAddressKeepsTheOffset) {
  run_team(3, [&](Pe& pe) {
    double* a = pe.sym_alloc_array<double>(100);
    int* b = pe.sym_alloc_array<int>(7);
    EXPECT_EQ(pe.remote(a + 42, 2), pe.remote(a, 2) + 42);
    EXPECT_EQ(pe.remote(b + 6, 0), pe.remote(b, 0) + 6);
    EXPECT_EQ(pe.remote(a, pe.id()), a);
  });
}

TEST(Host, PutSignalDeliversDataBeforeTheSignal) {
  const int pes = 4, rounds = 50, count = 2000;
  std::vector<int> bad(pes, 0);
  run_team(pes, [&](Pe& pe) {
    long* data = pe.sym_alloc_array<long>(count);
    std::uint64_t* ready = pe.sym_alloc_array<std::uint64_t>(1);
    std::uint64_t* ack = pe.sym_alloc_array<std::uint64_t>(1);
    const int right = (pe.id() + 1) % pe.n(), left = (pe.id() + pe.n() - 1) % pe.n();
    std::vector<long> out(count);
    for (int round = 1; round <= rounds; ++round) {
      // The right neighbour has read round - 1: its buffer may be overwritten.
      pe.wait_until(ack, Cmp::GE, round - 1, "ack");
      for (int i = 0; i < count; ++i) out[i] = 1000000L * round + 1000L * pe.id() + i;
      pe.put_signal(data, out.data(), sizeof(long) * count, ready, round, right);
      pe.wait_until(ready, Cmp::EQ, round, "data");
      for (int i = 0; i < count; ++i)
        bad[pe.id()] += data[i] != 1000000L * round + 1000L * left + i;
      pe.signal_set(ack, round, left);
    }
    pe.quiet();
  });
  for (int p = 0; p < pes; ++p) EXPECT_EQ(bad[p], 0) << "PE " << p;
}

TEST(Host, PutSignalSetAndFetch) {
  run_team(2, [&](Pe& pe) {
    int* cell = pe.sym_alloc_array<int>(4);
    std::uint64_t* sig = pe.sym_alloc_array<std::uint64_t>(2);
    EXPECT_EQ(pe.signal_fetch(sig), 0u);
    if (pe.id() == 0) {
      const int values[2] = {7, 8};
      pe.put(cell + 1, values, sizeof values, 1);
      pe.quiet();
      pe.signal_set(sig + 1, 5, 1);
    } else {
      pe.wait_until(sig + 1, Cmp::GT, 4, "signal_set");
      EXPECT_EQ(pe.signal_fetch(sig + 1), 5u);
      EXPECT_EQ(cell[0], 0);
      EXPECT_EQ(cell[1], 7);
      EXPECT_EQ(cell[2], 8);
      EXPECT_EQ(cell[3], 0);
    }
    pe.barrier_all();
  });
}

TEST(Host, WaitUntilComparisons) {
  run_team(1, [&](Pe& pe) {
    std::uint64_t* sig = pe.sym_alloc_array<std::uint64_t>(1);
    pe.signal_set(sig, 5, 0);
    pe.wait_until(sig, Cmp::EQ, 5, "EQ");
    pe.wait_until(sig, Cmp::NE, 4, "NE");
    pe.wait_until(sig, Cmp::GT, 4, "GT");
    pe.wait_until(sig, Cmp::GE, 5, "GE");
    pe.wait_until(sig, Cmp::LT, 6, "LT");
    pe.wait_until(sig, Cmp::LE, 5, "LE");
  });
  EXPECT_FALSE(stencilc::rt::compare(5, Cmp::LT, 5));
  EXPECT_FALSE(stencilc::rt::compare(5, Cmp::NE, 5));
}

TEST(Host, BarrierOrdersEveryPeBeforeEveryPe) {
  const int pes = 5, rounds = 200;
  std::vector<int> bad(pes, 0);
  run_team(pes, [&](Pe& pe) {
    int* counts = pe.sym_alloc_array<int>(pe.n());
    for (int round = 1; round <= rounds; ++round) {
      counts[pe.id()] = round;  // plain stores: the barrier must order them
      pe.barrier_all();
      for (int q = 0; q < pe.n(); ++q) bad[pe.id()] += *pe.remote(counts + q, q) != round;
      pe.barrier_all();
    }
  });
  for (int p = 0; p < pes; ++p) EXPECT_EQ(bad[p], 0) << "PE " << p;
}

TEST(Host, AllreduceIsBitIdenticalAndInPeOrder) {
  const int pes = 6;
  // Sums of these depend on the order: 1e16 + 1 + 1 == 1e16 but 1 + 1 + 1e16 == 1e16 + 2.
  const std::vector<double> values{1.0, 1e16, 1.0, -1e16, 3.5, 1e-3};
  double expected_sum = values[0];
  for (int p = 1; p < pes; ++p) expected_sum += values[p];
  std::vector<double> sums(pes), maxes(pes), mins(pes);
  std::vector<long long> int_sums(pes);
  std::vector<float> float_sums(pes);
  run_team(pes, [&](Pe& pe) {
    const double mine = values[pe.id()];
    for (int repeat = 0; repeat < 20; ++repeat) {  // the slots alternate between rounds
      sums[pe.id()] = pe.allreduce(mine, ReduceOp::Sum);
      maxes[pe.id()] = pe.allreduce(mine, ReduceOp::Max);
      mins[pe.id()] = pe.allreduce(mine, ReduceOp::Min);
      int_sums[pe.id()] = pe.allreduce<long long>(pe.id() + 1, ReduceOp::Sum);
      float_sums[pe.id()] = pe.allreduce(static_cast<float>(mine), ReduceOp::Sum);
    }
  });
  for (int p = 0; p < pes; ++p) {
    EXPECT_EQ(std::memcmp(&sums[p], &expected_sum, sizeof(double)), 0)
        << "PE " << p << ": " << sums[p] << " vs " << expected_sum;
    EXPECT_EQ(std::memcmp(&float_sums[p], &float_sums[0], sizeof(float)), 0);
    EXPECT_EQ(maxes[p], 1e16);
    EXPECT_EQ(mins[p], -1e16);
    EXPECT_EQ(int_sums[p], 21);
  }
  EXPECT_NE(expected_sum, 1.0 + 1.0 + 1e16 - 1e16 + 3.5 + 1e-3);  // the order matters
}

TEST_F(HostDeathTest, WaitTimesOutWithStatus3AndSaysWhat) {
  EXPECT_EXIT(
      {
        ::setenv("STENCILC_WAIT_TIMEOUT_MS", "100", 1);
        run_team(2, [](Pe& pe) {
          std::uint64_t* sig = pe.sym_alloc_array<std::uint64_t>(1);
          if (pe.id() == 1) {
            pe.signal_set(sig, 6, 1);
            pe.wait_until(sig, Cmp::GE, 7, "the test signal");
          }
        });
      },
      testing::ExitedWithCode(3),
      "stencilc: error: PE 1 of 2 waited [0-9]+ ms for the test signal: signal is 6, waiting for "
      ">= 7");
}

TEST_F(HostDeathTest, EveryWaitingPeReports) {
  // PE 0 and PE 1 wait in the barrier after sym_alloc's (#0), PE 2 for a signal.
  const char* barrier_report =
      "stencilc: error: PE 0 of 3 waited [0-9]+ ms for barrier_all "
      "\\(barrier #1\\): 2 of 3 PEs arrived";
  auto deadlock = [] {
    ::setenv("STENCILC_WAIT_TIMEOUT_MS", "100", 1);
    run_team(3, [](Pe& pe) {
      std::uint64_t* sig = pe.sym_alloc_array<std::uint64_t>(1);
      if (pe.id() == 2) {
        pe.wait_until(sig, Cmp::EQ, 1, "a signal nobody sets");
      } else {
        pe.barrier_all();
      }
    });
  };
  // The reports come in any order: one child per expected line.
  EXPECT_EXIT(deadlock(), testing::ExitedWithCode(3), barrier_report);
  EXPECT_EXIT(deadlock(), testing::ExitedWithCode(3),
              "PE 2 of 3 waited [0-9]+ ms for a signal nobody sets: signal is 0, waiting for == 1");
  EXPECT_EXIT(deadlock(), testing::ExitedWithCode(3),
              "giving up after STENCILC_WAIT_TIMEOUT_MS=100");
}

TEST_F(HostDeathTest, BadConfigurationExitsWithStatus2) {
  EXPECT_EXIT(run_team(0, [](Pe&) {}), testing::ExitedWithCode(2),
              "stencilc: error: cannot run 0 PEs");
  EXPECT_EXIT(
      {
        ::setenv("STENCILC_WAIT_TIMEOUT_MS", "soon", 1);
        run_team(1, [](Pe&) {});
      },
      testing::ExitedWithCode(2), "STENCILC_WAIT_TIMEOUT_MS='soon' is not a positive number");
  EXPECT_EXIT(stencilc::rt::fatal("bad %s", "thing"), testing::ExitedWithCode(2),
              "stencilc: error: bad thing");
}

TEST_F(HostDeathTest, MisuseOfTheHeapIsFatal) {
  EXPECT_EXIT(run_team(2, [](Pe& pe) { pe.sym_alloc(pe.id() == 0 ? 8 : 16); }),
              testing::ExitedWithCode(2),
              "sym_alloc #0: PE [01] asks for (8|16) bytes but PE [01] asked for (16|8) bytes");
  EXPECT_EXIT(run_team(1,
                       [](Pe& pe) {
                         int local = 0;
                         pe.remote(&local, 0);
                       }),
              testing::ExitedWithCode(2),
              "remote on PE 0: 0x[0-9a-f]+ is not in this PE's "
              "symmetric heap");
  EXPECT_EXIT(run_team(2,
                       [](Pe& pe) {
                         char* p = static_cast<char*>(pe.sym_alloc(16));
                         const char src[8] = {};
                         pe.put(p + 12, src, 8, 1);
                       }),
              testing::ExitedWithCode(2), "put on PE [01]: 8 bytes at offset 12 overrun");
  EXPECT_EXIT(run_team(2,
                       [](Pe& pe) {
                         std::uint64_t* sig = pe.sym_alloc_array<std::uint64_t>(1);
                         pe.signal_set(sig, 1, 2);
                       }),
              testing::ExitedWithCode(2), "signal_set on PE [01]: there is no PE 2");
  EXPECT_EXIT(run_team(2,
                       [](Pe& pe) {
                         if (pe.id() == 1) throw std::runtime_error("boom");
                       }),
              testing::ExitedWithCode(2), "PE 1 of 2: uncaught exception: boom");
}

}  // namespace
