// Test of the shared point loops (runtime/include/stencilc/runtime/cuda/generated.cuh's Rounds):
// every item of every execution is taken by exactly one thread, whether the execution shares its
// rounds through the counter or strides alone, with batches of 1 to 8 items a round, several
// executions back to back with no barrier between them (each waits for the one before to release
// the counter), and in two launches (the counter zero at each, as the launcher allocates it).
//
//   rounds --pes=N      on each of N GPUs (every PE its own counter), the compute group being
//                       every block but the first (as with block roles); each item counted with
//                       an atomic, every count checked to be 1. PASS/FAIL.
#include <cstdio>
#include <vector>

#include "stencilc/runtime/cuda/generated.cuh"
#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

constexpr int kExecutions = 7;
// Items and batch of each execution: the small ones stride alone (fewer than kBalanceMinRounds
// rounds a thread), the others share; odd counts leave partial rounds.
constexpr unsigned kItems[kExecutions] = {1000, 3000017, 777777, 5000000, 12345, 2500001, 64};
constexpr unsigned kBatch[kExecutions] = {1, 1, 4, 8, 2, 3, 1};

struct Args {
  unsigned* counts;  // every execution's items, one after another
  std::uint64_t* words;
  unsigned items[kExecutions], batch[kExecutions];
};

__global__ void rounds_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ Args args) {
  const Workers compute{1, static_cast<int>(gridDim.x) - 1};
  if (!compute.has_me()) return;
  __shared__ unsigned slot;
  Balance balance{args.words, &slot, 0};
  unsigned* counts = args.counts;
  for (int e = 0; e < kExecutions; ++e) {
    const unsigned items = args.items[e], batch = args.batch[e];
    for (Rounds<DevicePe> r(pe, compute, items, batch, balance); r.next();) {
      for (unsigned k = 0; k < batch; ++k) {
        const unsigned item = r.first() + k * r.stride();
        if (item < items) atomicAdd(counts + item, 1u);
      }
    }
    counts += items;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 1);
  P2PTeam team(n);
  std::size_t total = 0;
  for (unsigned items : kItems) total += items;
  Sym<unsigned> counts = team.alloc<unsigned>(total);
  Sym<std::uint64_t> words = team.alloc<std::uint64_t>(kBalanceWords);
  int failures = 0;
  for (int launch = 1; launch <= 2; ++launch) {
    for (int pe = 0; pe < n; ++pe) {
      const std::vector<unsigned> zeros(total, 0u);
      team.upload(pe, counts.on(pe), zeros.data(), total);
      const std::uint64_t zero_words[kBalanceWords] = {};
      team.upload(pe, words.on(pe), zero_words, kBalanceWords);
    }
    LaunchConfig config;
    const LaunchResult launched = team.launch_cooperative(
        rounds_kernel,
        [&](int pe) {
          Args args{counts.on(pe), words.on(pe), {}, {}};
          for (int e = 0; e < kExecutions; ++e) {
            args.items[e] = kItems[e];
            args.batch[e] = kBatch[e];
          }
          return std::make_tuple(team.device_pe(pe), args);
        },
        config);
    for (int pe = 0; pe < n; ++pe) {
      std::vector<unsigned> got(total);
      team.download(pe, got.data(), counts.on(pe), total);
      std::size_t at = 0;
      for (int e = 0; e < kExecutions; ++e) {
        int wrong = 0;
        for (unsigned i = 0; i < kItems[e]; ++i) {
          if (got[at + i] != 1u && ++wrong <= 3) {
            std::printf("    PE %d launch %d execution %d: item %u taken %u times\n", pe, launch, e, i,
                        got[at + i]);
          }
        }
        at += kItems[e];
        failures += wrong != 0;
      }
    }
    std::printf("check rounds, launch %d on %d GPU%s (%d blocks of %d threads): %s\n", launch, n,
                n > 1 ? "s" : "", launched.blocks.empty() ? 0 : launched.blocks[0], launched.block_threads,
                failures == 0 ? "ok" : "FAILED");
  }
  std::printf("%s rounds (%d GPU%s)\n", failures == 0 ? "PASS" : "FAIL", n, n > 1 ? "s" : "");
  return failures == 0 ? 0 : 1;
}
