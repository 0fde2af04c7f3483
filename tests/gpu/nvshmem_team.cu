// The NVSHMEM backend's team and device PE, one process per GPU:
//   mpirun -np 1|2|4 nvshmem_team                       the checks below; PASS/FAIL per PE
//   mpirun -np 2 nvshmem_team --mode=timeout            PE 0 waits for a signal nobody sends:
//                                                       exit 3, PE 0's wait reported, PE 1's
//                                                       barrier stopped after PE 0 failed
// Checks, each round verified on the device and the final state on the host:
//   - put_signal_block + wait_until around the ring (PE p to p + 1), several sizes;
//   - put_signal_block_2d of a strided box;
//   - allreduce_leader of double sums whose result depends on the order: bit-identical on every
//     PE and equal to the host's combination in PE order; the grid-wide allreduce;
//   - barrier_all: every PE writes into every PE, then sees every PE's writes;
//   - the halo exchange (HaloExchange) of a 2-D grid, periodic x fixed, poisoned halos, 4 epochs;
//   - all_direct() agrees with every PE's mappings of its peers' heaps (heap_distance).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <stencilc/runtime/cuda/nvshmem.cuh>

#include "stencilc/runtime/cuda/generated.cuh"
#include "stencilc/runtime/cuda/halo.cuh"

// No `using namespace stencilc::rt`: its `cuda` would make CUDA's own `cuda::std` ambiguous in
// the NVSHMEM headers' templates.
namespace {

using stencilc::rt::Cmp;
using stencilc::rt::ProcessGrid;
using stencilc::rt::ReduceOp;
using namespace stencilc::rt::cuda;

constexpr int kRounds = 64;
constexpr int kMaxCount = 70001;
constexpr int kRows = 13, kWidth = 7, kPitch = 29;
constexpr int kGridR = 37, kGridC = 23;  // the exchanged grid
constexpr int kEpochs = 4;

__host__ __device__ inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
__host__ __device__ inline double dvalue(int pe, int round) {
  const double scale = pe % 2 == 0 ? 1e16 : 1e-8 * (1 + round % 7);
  return (static_cast<double>(hash32(round * 16 + pe)) / 4294967296.0 - 0.3) * scale;
}
__host__ __device__ inline float cell_value(int i, int j, int epoch) {
  return static_cast<float>(i * 1000 + j) + 0.25f * static_cast<float>(epoch);
}

struct Args {
  float* ring;                // symmetric [kMaxCount]: what the previous PE put
  float* source;              // symmetric [kMaxCount]: what this PE puts
  std::uint64_t* ring_sig;    // symmetric [1]
  float* box;                 // symmetric [kRows * kPitch]
  std::uint64_t* box_sig;     // symmetric [1]
  int* cells;                 // symmetric [n]
  double* reduced;            // symmetric [kRounds]: allreduce_leader results
  double* grid_reduced;       // symmetric [1]
  unsigned long long* errors; // symmetric [1]: failed device checks
  DBlock<float, 2> block;
  DHaloExchange<float, 2> halo;
  int mode;                   // 0: checks, 1: timeout
};

__device__ void fail(const Args& a) { atomicAdd(a.errors, 1ULL); }

__global__ void team_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ Args a) {
  const int next = (pe.id + 1) % pe.n;
  if (a.mode == 1) {
    if (pe.id == 0 && is_leader()) pe.wait_until_thread(a.ring_sig, Cmp::GE, 1, "a signal nobody sends");
    pe.barrier_all("the barrier after the missing signal");
    return;
  }
  // Ring puts of growing sizes; block 0 sends, block 0 of the next PE checks.
  const int sizes[] = {1, 3, 64, 1001, kMaxCount};
  for (int s = 0; s < 5; ++s) {
    const int count = sizes[s];
    if (block_rank() == 0) {
      for (int i = thread_rank(); i < count; i += block_threads()) a.source[i] = pe.id * 1e6f + s * 1e5f + i;
      __syncthreads();
      pe.put_signal_block(a.ring, a.source, count, a.ring_sig, s + 1, next);
      pe.wait_until(a.ring_sig, Cmp::GE, s + 1, "the ring put");
      const int prev = (pe.id + pe.n - 1) % pe.n;
      for (int i = thread_rank(); i < count; i += block_threads()) {
        if (a.ring[i] != prev * 1e6f + s * 1e5f + i) fail(a);
      }
      __syncthreads();
      pe.quiet();  // the source is reused next round
    }
    pe.barrier_all("ring round");
  }
  // A strided box (kRows rows of kWidth, pitch kPitch) to the next PE.
  if (block_rank() == 0) {
    for (int i = thread_rank(); i < kRows * kPitch; i += block_threads()) a.source[i] = pe.id + 0.5f * i;
    __syncthreads();
    pe.put_signal_block_2d(a.box, kPitch, a.source, kPitch, kWidth, kRows, a.box_sig, 1, next);
    pe.wait_until(a.box_sig, Cmp::GE, 1, "the strided box");
    const int prev = (pe.id + pe.n - 1) % pe.n;
    for (int i = thread_rank(); i < kRows * kPitch; i += block_threads()) {
      const bool inside = i % kPitch < kWidth;
      if (a.box[i] != (inside ? prev + 0.5f * i : 0.0f)) fail(a);
    }
  }
  pe.barrier_all();
  // allreduce in PE order.
  if (is_leader()) {
    for (int round = 0; round < kRounds; ++round) {
      a.reduced[round] = pe.allreduce_leader(dvalue(pe.id, round), ReduceOp::Sum);
    }
  }
  const double mine = is_leader() ? dvalue(pe.id, 999) : 1e300;
  const double all = pe.allreduce(mine, ReduceOp::Sum);
  if (is_leader()) *a.grid_reduced = all;
  // barrier_all: PE p writes cells[p] on every PE; after the barrier every PE sees all.
  for (int round = 1; round <= 10; ++round) {
    if (is_leader()) {
      for (int p = 0; p < pe.n; ++p) nvshmem_int_p(&a.cells[pe.id], round * 100 + pe.id, p);
    }
    pe.barrier_all();
    if (thread_rank() == 0) {
      for (int p = 0; p < pe.n; ++p) {
        if (*static_cast<volatile int*>(&a.cells[p]) != round * 100 + p) fail(a);
      }
    }
    pe.barrier_all();
  }
  // The halo exchange: every epoch the owned cells get the epoch's values, then the exchange.
  DBlock<float, 2> b = a.block;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    const long long cells = static_cast<long long>(b.extent[0]) * b.extent[1];
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < cells;
         p += (long long)gridDim.x * blockDim.x) {
      const int i = static_cast<int>(p / b.extent[1]), j = static_cast<int>(p % b.extent[1]);
      b(i, j) = cell_value(b.origin[0] + i, b.origin[1] + j, epoch);
    }
    pe.grid_barrier();
    a.halo.exchange(pe, b, epoch);
    pe.grid_barrier();
    // Halo rows (dimension 0 periodic): rows -1 and extent hold the wrapped neighbours' cells.
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < b.extent[1]; j += gridDim.x * blockDim.x) {
      const int above = (b.origin[0] - 1 + kGridR) % kGridR, below = (b.origin[0] + b.extent[0]) % kGridR;
      if (b(-1, j) != cell_value(above, b.origin[1] + j, epoch)) fail(a);
      if (b(b.extent[0], j) != cell_value(below, b.origin[1] + j, epoch)) fail(a);
    }
    pe.grid_barrier();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int mode = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mode=timeout") == 0) mode = 1;
  }
  NvshmemTeam& team = NvshmemTeam::get(std::size_t{256} << 20);
  const int me = team.my_pe(), n = team.n();
  Args a{};
  a.ring = team.alloc<float>(kMaxCount).on(me);
  a.source = team.alloc<float>(kMaxCount).on(me);
  a.ring_sig = team.alloc<std::uint64_t>(1).on(me);
  a.box = team.alloc<float>(kRows * kPitch).on(me);
  a.box_sig = team.alloc<std::uint64_t>(1).on(me);
  a.cells = team.alloc<int>(static_cast<std::size_t>(team.n())).on(me);
  a.reduced = team.alloc<double>(kRounds).on(me);
  a.grid_reduced = team.alloc<double>(1).on(me);
  a.errors = team.alloc<unsigned long long>(1).on(me);
  a.mode = mode;
  // dimension 0 periodic and cut over the PEs, dimension 1 fixed; halos of 1 in dimension 0 only.
  ProcessGrid grid;
  grid.rank = 2;
  grid.dims = {n, 1, 1};
  auto blocks = alloc_blocks<float, 2>(team, grid, {kGridR, kGridC}, {1, 0}, {1, 0});
  {
    const DBlock<float, 2>& b = blocks[me];
    std::vector<float> poison(static_cast<std::size_t>(b.allocated()), std::nanf(""));
    team.upload(me, b.data - b.data_offset(), poison.data(), poison.size());
  }
  HaloExchange<float, 2> halo(team, grid, blocks, {true, false}, false, "u");
  a.block = blocks[me];
  a.halo = halo.device(me);
  const LaunchResult launched = team.launch_cooperative(
      team_kernel, [&](int pe) { return std::make_tuple(team.device_pe(pe), a); }, LaunchConfig{});
  if (mode == 1) {
    std::printf("FAIL timeout: the run should have stopped with status 3\n");
    return 1;
  }
  int failures = 0;
  unsigned long long errors = 0;
  team.download(me, &errors, a.errors, 1);
  if (errors != 0) {
    std::printf("  PE %d: %llu failed device checks\n", me, errors);
    ++failures;
  }
  std::vector<double> reduced(kRounds);
  team.download(me, reduced.data(), a.reduced, kRounds);
  for (int round = 0; round < kRounds; ++round) {
    double expected = dvalue(0, round);
    for (int p = 1; p < n; ++p) expected += dvalue(p, round);
    if (std::memcmp(&expected, &reduced[round], sizeof(double)) != 0) {
      if (failures++ < 5) std::printf("  PE %d: allreduce round %d is %.17g, PE order gives %.17g\n", me, round, reduced[round], expected);
    }
  }
  double grid_reduced = 0, expected = dvalue(0, 999);
  for (int p = 1; p < n; ++p) expected += dvalue(p, 999);
  team.download(me, &grid_reduced, a.grid_reduced, 1);
  if (std::memcmp(&expected, &grid_reduced, sizeof(double)) != 0) {
    std::printf("  PE %d: grid-wide allreduce %.17g, expected %.17g\n", me, grid_reduced, expected);
    ++failures;
  }
  // Bit-identical everywhere: every PE compares with PE 0's.
  std::vector<double> zero(reduced);
  MPI_Bcast(zero.data(), kRounds, MPI_DOUBLE, 0, team.comm());
  if (std::memcmp(zero.data(), reduced.data(), sizeof(double) * kRounds) != 0) {
    std::printf("  PE %d: allreduce results differ from PE 0's\n", me);
    ++failures;
  }
  // all_direct (found once when the team starts): every peer's heap mapped into its GPU, on
  // every PE, as heap_distance finds each peer here.
  int mapped_here = 1;
  for (int p = 0; p < n; ++p) {
    if (p != me && team.heap_distance(me, p) == 0) mapped_here = 0;
  }
  if (team.all_direct() != (team.min_all(mapped_here) == 1)) {
    std::printf("  PE %d: all_direct() is %d, the peers' mappings say otherwise\n", me, team.all_direct() ? 1 : 0);
    ++failures;
  }
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, team.comm());
  std::printf("%s nvshmem_team PE %d of %d (%d blocks)\n", failures == 0 ? "PASS" : "FAIL", me, n,
              launched.blocks[me]);
  return all_failures == 0 ? 0 : 1;
}
