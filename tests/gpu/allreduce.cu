// Test 3: allreduce across GPUs is bit-identical on every PE and equal to the host's combination
// in PE order 0..n-1 (double and float sums whose result depends on the order, int Max, long
// long Min, unsigned 64-bit Sum), through allreduce_leader and the grid-wide allreduce (every
// thread of every block gets the leader's result; other threads' arguments must not count).
// Also barrier_all: each round every PE writes into every peer's memory, barrier_all, and
// every thread checks that it sees every PE's writes of this round.
//
//   allreduce --pes=1|2
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

constexpr int kRounds = 500;
constexpr int kGridRounds = 40;
constexpr int kBarrierRounds = 100;
constexpr int kCells = 4096;  // per PE, in the barrier test

__host__ __device__ inline double dvalue(int pe, int round) {
  const std::uint32_t h = gputest::hash32(static_cast<std::uint32_t>(round * 16 + pe));
  // Magnitudes 1e-8 .. 1e16 and both signs: sums in different orders differ.
  const double scale = pe % 2 == 0 ? 1e16 : 1e-8 * (1 + round % 7);
  return (static_cast<double>(h) / 4294967296.0 - 0.3) * scale;
}
__host__ __device__ inline float fvalue(int pe, int round) {
  return static_cast<float>(dvalue(pe, round + 1000) * (pe == 0 ? 1e-8 : 1.0));
}
__host__ __device__ inline int ivalue(int pe, int round) {
  return static_cast<int>(gputest::hash32(static_cast<std::uint32_t>(round * 31 + pe * 7)));
}
__host__ __device__ inline long long lvalue(int pe, int round) {
  return static_cast<long long>(
      (static_cast<unsigned long long>(gputest::hash32(round + 77 * pe)) << 31) ^
      gputest::hash32(round * 3 + pe));
}
__host__ __device__ inline unsigned long long uvalue(int pe, int round) {
  return (static_cast<unsigned long long>(gputest::hash32(round ^ (pe << 20))) << 32) |
         gputest::hash32(round + pe);
}

struct Results {
  double d[kRounds];
  float f[kRounds];
  int i[kRounds];
  long long l[kRounds];
  unsigned long long u[kRounds];
  double grid[kGridRounds];   // the leader's grid-wide result
  unsigned long long grid_mismatches;  // threads whose grid-wide result differs from the leader's
  unsigned long long barrier_errors;
};

struct Args {
  Results* results;     // symmetric (used locally)
  int* cells;           // symmetric: [n][kCells]; PE p writes row p on every PE
};

__global__ void allreduce_kernel(const __grid_constant__ DevicePe pe,
                                 const __grid_constant__ Args a) {
  Results* r = a.results;
  if (is_leader()) {
    for (int round = 0; round < kRounds; ++round) {
      r->d[round] = pe.allreduce_leader(dvalue(pe.id, round), ReduceOp::Sum);
      r->f[round] = pe.allreduce_leader(fvalue(pe.id, round), ReduceOp::Sum);
      r->i[round] = pe.allreduce_leader(ivalue(pe.id, round), ReduceOp::Max);
      r->l[round] = pe.allreduce_leader(lvalue(pe.id, round), ReduceOp::Min);
      r->u[round] = pe.allreduce_leader(uvalue(pe.id, round), ReduceOp::Sum);
    }
  }
  // Grid-wide: only the leader's argument counts; everyone gets the result.
  unsigned long long mismatches = 0;
  for (int round = 0; round < kGridRounds; ++round) {
    const double mine = is_leader() ? dvalue(pe.id, round + 5000) : 1e300;
    const double result = pe.allreduce(mine, ReduceOp::Sum);
    if (is_leader()) r->grid[round] = result;
    pe.grid_barrier();
    if (__double_as_longlong(result) != __double_as_longlong(r->grid[round])) ++mismatches;
    pe.grid_barrier();  // nobody reads r->grid[round] any more when the leader writes the next
  }
  if (mismatches != 0) atomicAdd(&r->grid_mismatches, mismatches);
  // barrier_all: every PE writes its row on every PE; after the barrier all rows are there.
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int threads = gridDim.x * blockDim.x;
  unsigned long long bad = 0;
  for (int round = 1; round <= kBarrierRounds; ++round) {
    for (int p = 0; p < pe.n; ++p) {
      int* row = pe.remote(a.cells + pe.id * kCells, p);
      for (int k = tid; k < kCells; k += threads) row[k] = round * 100000 + pe.id * 10000 + k % 997;
    }
    pe.barrier_all();
    for (int q = 0; q < pe.n; ++q) {
      for (int k = tid; k < kCells; k += threads) {
        if (a.cells[q * kCells + k] != round * 100000 + q * 10000 + k % 997) ++bad;
      }
    }
    pe.barrier_all();  // everyone has read this round before anyone writes the next
  }
  if (bad != 0) atomicAdd(&r->barrier_errors, bad);
}

template <class T>
T combine(T (*value)(int, int), int n, int round, ReduceOp op) {
  T result = value(0, round);
  for (int p = 1; p < n; ++p) {
    const T next = value(p, round);
    if (op == ReduceOp::Sum) {
      result = static_cast<T>(result + next);
    } else if (op == ReduceOp::Max) {
      result = next > result ? next : result;
    } else {
      result = next < result ? next : result;
    }
  }
  return result;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  P2PTeam team(n);
  gputest::Checker check;
  Sym<Results> results = team.alloc<Results>(1);
  Sym<int> cells = team.alloc<int>(static_cast<std::size_t>(team.n()) * kCells);
  LaunchConfig config;
  config.max_blocks = 264;
  const LaunchResult launched = team.launch_cooperative(
      allreduce_kernel,
      [&](int pe) { return std::make_tuple(team.device_pe(pe), Args{results.on(pe), cells.on(pe)}); },
      config);
  std::vector<Results> host(static_cast<std::size_t>(n));
  for (int pe = 0; pe < n; ++pe) team.download(pe, &host[pe], results.on(pe), 1);
  for (int pe = 0; pe < n; ++pe) {
    const Results& r = host[pe];
    for (int round = 0; round < kRounds; ++round) {
      const double d = combine<double>(dvalue, n, round, ReduceOp::Sum);
      const float f = combine<float>(fvalue, n, round, ReduceOp::Sum);
      const int i = combine<int>(ivalue, n, round, ReduceOp::Max);
      const long long l = combine<long long>(lvalue, n, round, ReduceOp::Min);
      const unsigned long long u = combine<unsigned long long>(uvalue, n, round, ReduceOp::Sum);
      check.expect(same_bits(r.d[round], d), "PE %d round %d: double sum %.17g, expected %.17g",
                   pe, round, r.d[round], d);
      check.expect(same_bits(r.f[round], f), "PE %d round %d: float sum %.9g, expected %.9g", pe,
                   round, r.f[round], f);
      check.expect(r.i[round] == i, "PE %d round %d: int max %d, expected %d", pe, round,
                   r.i[round], i);
      check.expect(r.l[round] == l, "PE %d round %d: long long min %lld, expected %lld", pe, round,
                   r.l[round], l);
      check.expect(r.u[round] == u, "PE %d round %d: u64 sum %llu, expected %llu", pe, round,
                   r.u[round], u);
      check.expect(same_bits(r.d[round], host[0].d[round]), "PE %d round %d differs from PE 0", pe,
                   round);
    }
    for (int round = 0; round < kGridRounds; ++round) {
      const double d = combine<double>(
          +[](int p, int rr) { return dvalue(p, rr + 5000); }, n, round, ReduceOp::Sum);
      check.expect(same_bits(r.grid[round], d), "PE %d grid round %d: %.17g, expected %.17g", pe,
                   round, r.grid[round], d);
    }
    check.expect(r.grid_mismatches == 0, "PE %d: %llu threads got another grid-wide result", pe,
                 r.grid_mismatches);
    check.expect(r.barrier_errors == 0, "PE %d: %llu stale cells after barrier_all", pe,
                 r.barrier_errors);
  }
  std::printf("  %d rounds x 5 types leader-only, %d grid-wide rounds on %d blocks, %d barrier "
              "rounds; %.1f ms\n",
              kRounds, kGridRounds, launched.blocks[0], kBarrierRounds, launched.wall_ms);
  char name[64];
  std::snprintf(name, sizeof name, "allreduce + barrier_all (%d GPU%s)", n, n > 1 ? "s" : "");
  return gputest::finish(name, check);
}
