// The grid barrier's arithmetic on the host (p2p.cuh: detail::grid_arrival, detail::grid_passed):
// blocks arrive at Control::grid_sync in every order, barrier after barrier, with the grid sizes
// of the launches (1 to 1000 blocks); no block's wait may end before the last arrival of its
// barrier, every wait must end at it, and the word's low half must be 0 between barriers, also
// across launches of different grid sizes. Prints the first failures and `N passed, M failed`.

#include <algorithm>
#include <cstdint>
#include <random>
#include <stencilc/runtime/cuda/p2p_pe.cuh>
#include <string>
#include <vector>

#include "tally.h"

namespace {

namespace rt = stencilc::rt::cuda;

// One barrier of `blocks` blocks arriving in `order` at `word`; checks it and returns the word after.
std::uint64_t one_barrier(std::uint64_t word, const std::vector<unsigned>& order, unsigned blocks,
                          const std::string& what) {
  std::vector<std::uint64_t> targets;
  bool early = false;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint64_t old = word;
    word += rt::detail::grid_arrival(order[k], blocks);
    targets.push_back(rt::detail::grid_passed(old));
    if (k + 1 < order.size()) {
      for (std::uint64_t t : targets) early = early || word >= t;  // a wait would end too soon
    }
  }
  const bool all_pass = std::all_of(targets.begin(), targets.end(), [&](std::uint64_t t) { return word >= t; });
  tally::check(!early, what + ": a wait ends before the last arrival");
  tally::check(all_pass, what + ": a wait does not end at the last arrival");
  tally::check((word & 0xffffffffu) == 0, what + ": the low half is not 0 between barriers");
  // The next barrier's first arrival must not see this one's target as passed already.
  tally::check(word < rt::detail::grid_passed(word), what + ": the next barrier is passed before it starts");
  return word;
}

}  // namespace

int main() {
  std::mt19937 rng(2026);
  std::uint64_t word = 0;  // one Control::grid_sync across every launch below
  for (unsigned blocks : {1u, 2u, 3u, 132u, 264u, 1000u, 264u, 7u}) {
    std::vector<unsigned> order(blocks);
    for (unsigned b = 0; b < blocks; ++b) order[b] = b;
    for (int barrier = 0; barrier < 40; ++barrier) {
      if (barrier == 0) {
        std::reverse(order.begin(), order.end());  // block 0 last
      } else if (barrier == 1) {
        std::sort(order.begin(), order.end());  // block 0 first
      } else {
        std::shuffle(order.begin(), order.end(), rng);
      }
      word = one_barrier(word, order, blocks, std::to_string(blocks) + " blocks, barrier " + std::to_string(barrier));
    }
  }
  tally::check((word >> 32) == 8 * 40, "the high half counts the barriers (" + std::to_string(word >> 32) + ")");
  return tally::finish();
}
