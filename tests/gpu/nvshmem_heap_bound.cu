// Host only (no GPU needed, CI runs it): the symmetric heap the NVSHMEM launcher asks for
// (compiled::symmetric_bytes) is at least what a program's run allocates. A counting team stands
// in for NvshmemTeam: alloc_blocks and HaloExchange allocate through it exactly as in a run, for
// every PE count from 1 to 8 and 16, 27 and 64, 1-D to 3-D grids, even and uneven extents, halos
// of 1 and 2, corners.
//   nvshmem_heap_bound          prints one line per case and PASS/FAIL last
#include <cstdio>
#include <vector>

#include <stencilc/compiled_cuda_nvshmem.hpp>

namespace {

namespace rc = stencilc::rt::cuda;
namespace sc = stencilc::compiled;

// The team interface alloc_blocks and HaloExchange use; counts what nvshmem_malloc would get.
struct CountingTeam {
  int pes = 1;
  std::size_t bytes = 0;
  alignas(256) static inline char memory[256];  // nothing writes symmetric memory on the host here

  int n() const { return pes; }
  bool holds(int pe) const { return pe == 0; }
  template <class T>
  rc::Sym<T> alloc(std::size_t count) {
    const std::size_t size = count * sizeof(T) > 0 ? count * sizeof(T) : 1;
    bytes += size;
    rc::Sym<T> sym;
    sym.count = count;
    sym.n = pes;
    sym.ptr.assign(1, reinterpret_cast<T*>(memory));  // one symmetric address, as NVSHMEM's
    return sym;
  }
  template <class T>
  void upload(int, T*, const T*, std::size_t) {}
  long long heap_distance(int, int) const { return 0; }  // NVSHMEM's: 0 for an unmapped peer
};

// One program's grids as the launcher sees them: every grid exchanged or not, one element type.
template <int N>
bool check(int pes, std::array<int, N> extent, std::array<int, N> halo, bool corners, int grids, int exchanged,
           int* failures) {
  std::vector<stencilc::Grid<float, N>> storage;
  std::vector<sc::GridDesc<N>> descs;
  std::array<stencilc::Boundary, N> bounds;
  for (int d = 0; d < N; ++d) bounds[d] = d % 2 == 0 ? stencilc::periodic() : stencilc::fixed(halo[d]);
  for (int g = 0; g < grids; ++g) {
    sc::GridDesc<N> desc{"g", extent, bounds, halo, halo};
    descs.push_back(desc);
  }
  std::array<int, 3> extent3{1, 1, 1}, lo3{0, 0, 0};
  for (int d = 0; d < N; ++d) extent3[d] = extent[d], lo3[d] = halo[d];
  std::string error;
  auto grid = stencilc::rt::choose_process_grid(pes, N, extent3, lo3, lo3, "", &error);
  if (!grid) return true;  // no decomposition for this many PEs: nothing to check
  sc::Plan<N> plan;
  plan.pes = pes;
  plan.grid = *grid;
  plan.extent = extent;
  CountingTeam team;
  team.pes = pes;
  std::array<bool, N> periodic{};
  for (int d = 0; d < N; ++d) periodic[d] = d % 2 == 0;
  std::vector<std::size_t> sizes;
  std::vector<bool> flags;
  for (int g = 0; g < grids; ++g) {
    auto blocks = rc::alloc_blocks<float, N>(team, *grid, extent, halo, halo);
    team.alloc<rc::DBlock<float, N>>(1);  // the final block
    if (g < exchanged) rc::HaloExchange<float, N> ex(team, *grid, blocks, periodic, corners, "g");
    sizes.push_back(sizeof(float));
    flags.push_back(g < exchanged);
  }
  team.alloc<float>(1);                  // a scalar result
  team.alloc<std::uint64_t>(1 << 14);    // the scratch
  const std::size_t bound = sc::symmetric_bytes<N>(plan, descs, sizes, flags);
  const bool ok = team.bytes <= bound;
  std::printf("%s %dD %d PEs (%s), %d grids, %d exchanged, halo %d%s: %zu bytes allocated, bound %zu (%.2fx)\n",
              ok ? "ok  " : "FAIL", N, pes, stencilc::rt::format_dims(grid->dims.data(), N).c_str(), grids, exchanged,
              halo[0], corners ? ", corners" : "", team.bytes, bound, static_cast<double>(bound) / team.bytes);
  if (!ok) ++*failures;
  return ok;
}

}  // namespace

int main() {
  int failures = 0;
  for (int pes : {1, 2, 3, 4, 5, 6, 7, 8, 16, 27, 64}) {
    check<1>(pes, {1001}, {2}, false, 2, 1, &failures);
    check<2>(pes, {67, 53}, {1, 1}, false, 2, 1, &failures);
    check<2>(pes, {64, 64}, {2, 2}, true, 3, 3, &failures);
    check<3>(pes, {19, 13, 11}, {1, 1, 1}, true, 2, 2, &failures);
    check<3>(pes, {32, 24, 40}, {2, 1, 1}, false, 4, 2, &failures);
    // Sizes where the blocks, not the constant parts, make the heap.
    check<2>(pes, {4096, 4099}, {1, 1}, false, 2, 1, &failures);
    check<3>(pes, {256, 250, 255}, {2, 2, 2}, true, 2, 2, &failures);
  }
  std::printf("%s nvshmem_heap_bound (%d failed)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
