// Micro-benchmarks of the p2p backend's device API (not a pass/fail test beyond "it ran and the
// data arrived"): the cost of each primitive inside a persistent kernel, timed with the GPU's
// global timer by the leader over many repetitions after a warm-up.
//
//   grid_barrier          cooperative-groups grid sync, 1 block per SM and as many as fit
//   barrier_all           across GPUs (grid sync, signals, grid sync)
//   allreduce_leader      one thread per GPU
//   allreduce             grid-wide (two grid syncs around allreduce_leader)
//   put latency           8-byte put_signal_block ping-pong, one-way (2 GPUs) or to self
//   put bandwidth         64 MiB put_block by one block, and by every block (a chunk each)
//   halo exchange         a 2-D 256 x 256 float grid (fixed x periodic), exchange + grid sync
//
//   bench --pes=1|2
#include <cstdio>
#include <string>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

enum Mode { kGridBarrier, kBarrierAll, kAllreduceLeader, kAllreduceGrid, kLatency, kPutOneBlock,
            kPutAllBlocks, kHalo };

struct BenchArgs {
  int mode;
  int reps;
  float* buf;              // symmetric
  const float* src;        // local
  long count;              // elements of a put
  std::uint64_t* sig;      // symmetric
  DBlock<float, 2> b;
  DHaloExchange<float, 2> halo;
  unsigned long long* clock;  // symmetric (local use): start, end
  double* sink;            // keeps allreduce results alive
};

__global__ void bench_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ BenchArgs a) {
  const int warmup = a.reps / 10 + 1;
  double acc = 0;
  const int peer = pe.n > 1 ? (pe.id + 1) % pe.n : pe.id;
  for (int phase = 0; phase < 2; ++phase) {
    const int reps = phase == 0 ? warmup : a.reps;
    const int base = phase == 0 ? 0 : warmup;  // epochs and rounds continue across phases
    if (phase == 1) {
      pe.grid_barrier();
      if (is_leader()) a.clock[0] = global_timer_ns();
    }
    switch (a.mode) {
      case kGridBarrier:
        for (int r = 0; r < reps; ++r) pe.grid_barrier();
        break;
      case kBarrierAll:
        for (int r = 0; r < reps; ++r) pe.barrier_all();
        break;
      case kAllreduceLeader:
        if (is_leader()) {
          for (int r = 0; r < reps; ++r) acc += pe.allreduce_leader(1.0 + r, ReduceOp::Sum);
        }
        break;
      case kAllreduceGrid:
        for (int r = 0; r < reps; ++r) acc += pe.allreduce(1.0 + r, ReduceOp::Sum);
        break;
      case kLatency:
        if (blockIdx.x == 0) {
          for (int r = base + 1; r <= base + reps; ++r) {
            if (pe.n == 1) {
              pe.put_signal_block(a.buf, a.src, 2, a.sig, r, pe.id);
              pe.wait_until(a.sig, Cmp::GE, r, "self");
            } else if (pe.id == 0) {
              pe.put_signal_block(a.buf, a.src, 2, a.sig, r, 1);
              pe.wait_until(a.sig, Cmp::GE, r, "pong");
            } else if (pe.id == 1) {
              pe.wait_until(a.sig, Cmp::GE, r, "ping");
              pe.put_signal_block(a.buf, a.src, 2, a.sig, r, 0);
            }
          }
        }
        break;
      case kPutOneBlock:
        if (blockIdx.x == 0) {
          for (int r = 0; r < reps; ++r) pe.put_block(a.buf, a.src, a.count, peer);
          if (threadIdx.x == 0) pe.quiet();
        }
        break;
      case kPutAllBlocks: {
        const long chunk = (a.count + gridDim.x - 1) / gridDim.x;
        const long lo = chunk * blockIdx.x;
        const long hi = lo + chunk < a.count ? lo + chunk : a.count;
        for (int r = 0; r < reps; ++r) {
          if (lo < hi) pe.put_block(a.buf + lo, a.src + lo, hi - lo, peer);
        }
        pe.quiet();
        pe.grid_barrier();
        break;
      }
      case kHalo:
        for (int r = base + 1; r <= base + reps; ++r) {
          a.halo.exchange(pe, a.b, r);
          pe.grid_barrier();
        }
        break;
    }
    if (phase == 1) {
      __syncthreads();
      if (is_leader()) a.clock[1] = global_timer_ns();
    }
  }
  if (acc == -1.0) a.sink[0] = acc;  // never true; keeps the reductions
  pe.barrier_all();  // no GPU leaves while a peer still writes into it
}

struct Bench {
  P2PTeam& team;
  Sym<float> buf;
  Sym<float> src;
  Sym<std::uint64_t> sig;
  Sym<unsigned long long> clock;
  Sym<double> sink;
  std::vector<DBlock<float, 2>> blocks;
  HaloExchange<float, 2>* halo = nullptr;

  // Microseconds per repetition, and the grid used.
  double time(int mode, int reps, long count, const LaunchConfig& config, int* grid) {
    const LaunchResult launched = team.launch_cooperative(
        bench_kernel,
        [&](int pe) {
          BenchArgs args{};
          args.mode = mode;
          args.reps = reps;
          args.buf = buf.on(pe);
          args.src = src.on(pe);
          args.count = count;
          args.sig = sig.on(pe);
          args.b = blocks[pe];
          args.halo = halo->device(pe);
          args.clock = clock.on(pe);
          args.sink = sink.on(pe);
          return std::make_tuple(team.device_pe(pe), args);
        },
        config);
    unsigned long long clocks[2];
    team.download(0, clocks, clock.on(0), 2);
    if (grid != nullptr) *grid = launched.blocks[0];
    return (clocks[1] - clocks[0]) / 1000.0 / reps;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  P2PTeam team(n);
  gputest::Checker check;
  const long big = 16L << 20;  // floats: 64 MiB
  Bench bench{team, team.alloc<float>(big), team.alloc<float>(big), team.alloc<std::uint64_t>(1),
              team.alloc<unsigned long long>(2), team.alloc<double>(1), {}, nullptr};
  {
    std::vector<float> host(static_cast<std::size_t>(big));
    for (long i = 0; i < big; ++i) host[i] = static_cast<float>(gputest::hash32(i) % 1000);
    for (int pe = 0; pe < n; ++pe) team.upload(pe, bench.src.on(pe), host.data(), host.size());
  }
  std::string error;
  const std::optional<ProcessGrid> grid =
      choose_process_grid(n, 2, {256, 256, 1}, {1, 1, 0}, {1, 1, 0}, "", &error);
  bench.blocks = alloc_blocks<float, 2>(team, *grid, {256, 256}, {1, 1}, {1, 1});
  HaloExchange<float, 2> halo(team, *grid, bench.blocks, {false, true}, false, "bench");
  bench.halo = &halo;

  LaunchConfig one;
  one.blocks_per_sm = 1;
  LaunchConfig full;  // as many as fit
  // Each timing in its own statement: the block counts are read after the runs that set them.
  int g1 = 0, gf = 0, g2 = 0;
  const char* where = n > 1 ? "2 GPUs" : "1 GPU";
  const double barrier_one = bench.time(kGridBarrier, 20000, 0, one, &g1);
  const double barrier_full = bench.time(kGridBarrier, 20000, 0, full, &gf);
  std::printf("  timing %s: grid_barrier %.2f us (%d blocks), %.2f us (%d blocks)\n", where,
              barrier_one, g1, barrier_full, gf);
  const double barrier_all_us = bench.time(kBarrierAll, 10000, 0, one, &g1);
  const double leader_us = bench.time(kAllreduceLeader, 20000, 0, one, nullptr);
  const double allreduce_us = bench.time(kAllreduceGrid, 10000, 0, one, &g2);
  std::printf("  timing %s: barrier_all %.2f us (%d blocks); allreduce_leader %.2f us; "
              "grid-wide allreduce %.2f us (%d blocks)\n",
              where, barrier_all_us, g1, leader_us, allreduce_us, g2);
  const double latency_us = bench.time(kLatency, 20000, 0, one, nullptr) / (n > 1 ? 2 : 1);
  std::printf("  timing %s: 8-byte put_signal_block + wait_until, one-way %.2f us\n", where,
              latency_us);
  const double one_block_us = bench.time(kPutOneBlock, 10, big, one, nullptr);
  const double all_blocks_us = bench.time(kPutAllBlocks, 20, big, one, &g1);
  std::printf("  timing %s: 64 MiB put_block to %s: one block %.1f GB/s, %d blocks %.1f GB/s\n",
              where, n > 1 ? "the peer (both directions at once)" : "itself",
              big * 4.0 / (one_block_us * 1e3), g1, big * 4.0 / (all_blocks_us * 1e3));
  const double halo_us = bench.time(kHalo, 10000, 0, one, &g1);
  std::printf("  timing %s: halo exchange of 256x256 float (%s, fixed x periodic) + grid_barrier "
              "%.2f us (%d blocks)\n",
              where, format_dims(grid->dims.data(), 2, "x").c_str(), halo_us, g1);
  // The data of the last large put arrived.
  {
    const int to = n > 1 ? 1 : 0;
    std::vector<float> got(1024), want(1024);
    team.download(to, got.data(), bench.buf.on(to) + big - 1024, 1024);
    team.download(0, want.data(), bench.src.on(0) + big - 1024, 1024);
    check.expect(got == want, "the 64 MiB put did not arrive");
  }
  char name[64];
  std::snprintf(name, sizeof name, "bench (%s)", where);
  return gputest::finish(name, check);
}
