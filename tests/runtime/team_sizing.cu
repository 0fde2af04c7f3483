// The CUDA runtime's tables sized at run time from the PE count (no GPU: a stand-in team plays
// P2PTeam's symmetric heaps, one per PE at its own address): every PE of a 64- and a 200-PE team
// gets its own flow flags and reduction words, a reduction's words hold every (slot, PE, block)
// entry, the header and every PE's lazy entries without overlap, the error area holds a record
// per PE, and every halo channel carries the distance from its PE's heap to its peer's (the
// PeerRef a send or recv uses instead of a table) on 2-D and 3-D process grids of 64 PEs.
// Built with nvcc, run on the host. Prints a line per failure and `N passed, M failed`.
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <stencilc/runtime/cuda/flow.cuh>
#include <stencilc/runtime/cuda/halo.cuh>

#include "tally.h"

namespace rc = stencilc::rt::cuda;

namespace {

using tally::check;

// P2PTeam's allocation scheme without a GPU: PE p's heap starts at a base of its own (addresses
// only, never dereferenced), allocations at one offset of every heap; uploads are kept by address.
struct HeapsTeam {
  int pes = 1;
  std::size_t used = 0;
  std::map<std::uintptr_t, std::vector<char>> uploads;

  static std::uintptr_t base(int pe) { return (std::uintptr_t{1} << 40) + static_cast<std::uintptr_t>(pe) * (std::uintptr_t{1} << 32); }
  int n() const { return pes; }
  bool holds(int pe) const { return pe >= 0 && pe < pes; }
  template <class T>
  rc::Sym<T> alloc(std::size_t count) {
    rc::Sym<T> sym;
    sym.count = count;
    sym.offset = (used + 255) & ~std::size_t{255};
    sym.n = pes;
    used = sym.offset + (count * sizeof(T) > 0 ? count * sizeof(T) : 1);
    for (int p = 0; p < pes; ++p) sym.ptr.push_back(reinterpret_cast<T*>(base(p) + sym.offset));
    return sym;
  }
  template <class T>
  void upload(int, T* dst, const T* src, std::size_t count) {
    std::vector<char>& bytes = uploads[reinterpret_cast<std::uintptr_t>(dst)];
    bytes.resize(count * sizeof(T));
    std::memcpy(bytes.data(), src, bytes.size());
  }
  long long heap_distance(int pe, int peer) const {
    return static_cast<long long>(base(peer)) - static_cast<long long>(base(pe));
  }
};

void flow_memory(int pes) {
  const std::string c = std::to_string(pes) + " PEs";
  HeapsTeam team;
  team.pes = pes;
  const rc::FlowAlloc flow(team);
  bool own = true;
  for (int p = 0; p < pes; ++p) {
    const rc::FlowSignals s = flow.on(p);
    own = own && reinterpret_cast<std::uintptr_t>(s.flags) >> 32 == HeapsTeam::base(p) >> 32 &&
          reinterpret_cast<std::uintptr_t>(s.edge) >> 32 == HeapsTeam::base(p) >> 32;
  }
  check(own, c + ": every PE's flow flags in its own heap");

  HeapsTeam words_team;
  words_team.pes = pes;
  const rc::FlowReduceAlloc words(words_team, 3);
  check(words_team.used == rc::FlowReduceAlloc::bytes(3, pes), c + ": FlowReduceAlloc::bytes is what it allocates");
  const std::size_t per = rc::flow_reduce_words(pes);
  bool apart = true;
  for (int p = 0; p < pes; ++p) {
    for (int k = 0; k < 3; ++k) apart = apart && words.on(p, k) == words.on(p, 0) + per * static_cast<std::size_t>(k);
  }
  check(apart, c + ": reduction k's words follow k - 1's");
  // DFlowReduce's layout (reduce.cuh): slot entries, then the header (counts, base), then the lazy
  // entries; the last of each part ends before the next begins.
  const std::size_t n = static_cast<std::size_t>(pes);
  const std::size_t last_entry =
      ((static_cast<std::size_t>(rc::kFlowReduceSlots - 1) * n + (n - 1)) * rc::kMaxFlowBlocks + (rc::kMaxFlowBlocks - 1)) * 2 + 1;
  const std::size_t header = rc::flow_reduce_header(pes);
  check(last_entry < header, c + ": the slots end before the header");
  const std::size_t first_lazy = header + n + 1;
  const std::size_t last_lazy = first_lazy + ((n - 1) * rc::kFlowLazyEntries + (rc::kFlowLazyEntries - 1)) * 2 + 1;
  check(last_lazy < per, c + ": every PE's lazy entries fit the words");
  check(last_lazy + 1 == per, c + ": and nothing is left over");
}

void error_area(int pes) {
  std::vector<unsigned char> memory(rc::error_area_bytes(pes));
  auto* area = reinterpret_cast<rc::ErrorArea*>(memory.data());
  bool inside = true;
  for (int p = 0; p < pes; ++p) {
    const auto* r = reinterpret_cast<const unsigned char*>(area->record(p));
    inside = inside && r >= memory.data() + sizeof(rc::ErrorArea) && r + sizeof(rc::ErrorRecord) <= memory.data() + memory.size() &&
             reinterpret_cast<std::uintptr_t>(r) % alignof(rc::ErrorRecord) == 0;
  }
  check(inside, std::to_string(pes) + " PEs: every record inside the error area, aligned");
}

// Every channel of every PE's uploaded plan: its peer_delta is the distance between the two heaps.
template <int N>
void halo_peers(std::array<int, N> dims, std::array<int, N> extent, bool corners) {
  std::string c;
  int pes = 1;
  for (int d = 0; d < N; ++d) {
    c += (d > 0 ? "x" : "") + std::to_string(dims[d]);
    pes *= dims[d];
  }
  c = std::to_string(N) + "-D on " + c + (corners ? ", corners" : "");
  stencilc::rt::ProcessGrid grid;
  grid.rank = N;
  for (int d = 0; d < N; ++d) grid.dims[d] = dims[d];
  HeapsTeam team;
  team.pes = pes;
  std::array<int, N> halo{};
  std::array<bool, N> periodic{};
  for (int d = 0; d < N; ++d) halo[d] = 1, periodic[d] = d % 2 == 0;
  const auto blocks = rc::alloc_blocks<float, N>(team, grid, extent, halo, halo);
  const rc::HaloExchange<float, N> exchange(team, grid, blocks, periodic, corners, "g");
  using Plan = rc::HaloPlan<float, N>;
  int channels = 0, right = 0;
  std::map<int, int> peers_of_pe0;
  for (int p = 0; p < pes; ++p) {
    const auto found = team.uploads.find(reinterpret_cast<std::uintptr_t>(exchange.device(p).plan));
    if (found == team.uploads.end() || found->second.size() != sizeof(Plan)) continue;
    Plan plan;
    std::memcpy(static_cast<void*>(&plan), found->second.data(), sizeof(Plan));
    auto count = [&](const typename Plan::Channel& ch) {
      ++channels;
      const long long want = static_cast<long long>(HeapsTeam::base(ch.peer)) - static_cast<long long>(HeapsTeam::base(p));
      right += ch.peer_delta == want ? 1 : 0;
      if (p == 0) peers_of_pe0[ch.peer] = 1;
    };
    for (int s = 0; s < plan.n_send; ++s) count(plan.send[s]);
    for (int r = 0; r < plan.n_recv; ++r) count(plan.recv[r]);
  }
  check(channels > 0 && right == channels,
        c + ": every channel's peer_delta is its heaps' distance (" + std::to_string(right) + " of " + std::to_string(channels) + ")");
  check(static_cast<int>(peers_of_pe0.size()) > 1, c + ": PE 0 has several peers");
}

}  // namespace

int main() {
  for (int pes : {1, 2, 8, 9, 64, 200}) {
    flow_memory(pes);
    error_area(pes);
  }
  halo_peers<2>({8, 8}, {83, 75}, false);
  halo_peers<2>({16, 4}, {70, 70}, true);
  halo_peers<3>({4, 4, 4}, {38, 38, 38}, true);
  halo_peers<3>({2, 4, 8}, {21, 19, 23}, false);
  return tally::finish();
}
