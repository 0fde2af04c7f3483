// Test of the dataflow loop's reductions (runtime/include/stencilc/runtime/cuda/generated.cuh:
// DFlowReduce): every thread of every block of every PE must get the exact combination of every
// thread's value, from the blocking form (reduce) and the deferred one (post: the execution
// before's value; complete after the loop), with no barrier between executions.
//
//   flow_reduce --pes=N               four reductions in one loop, on N GPUs: a 64-bit sum every
//                                     step and a 32-bit max every third (reduce), a 64-bit sum
//                                     every second step and a 32-bit min every step (post and
//                                     complete), each thread's value a function of its PE, block,
//                                     thread and the step (closed forms on the device); 264 blocks
//                                     and 5; two launches of the same words (tags numbered on).
//                                     PASS/FAIL.
//   flow_reduce --pes=N --mode=stall  block 0 of the last PE leaves before the second step: every
//                                     other block times out naming the reduction and the block it
//                                     waits for (exit 3).
// post returns T{} and waits for nothing: only complete's value is checked for the deferred
// reductions, and in the stall mode the other blocks time out in a blocking reduce or in complete
// (the stalled block's warps never posted).
#include <cstdio>
#include <string>
#include <vector>

#include "stencilc/runtime/cuda/generated.cuh"
#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

struct Args {
  std::uint64_t* words[4];       // the four reductions' words (FlowReduceAlloc)
  unsigned long long* errors;    // this PE's: [0] wrong values seen, [1] the first wrong step, [2] which
  int step0;                     // the steps of the launches before
  int steps;
  int stall;
};

// Thread t of block b of PE p's value at step g, and its sum, max and min over every thread of
// every block (`blocks` per PE) of `pes` PEs.
__device__ long long value(long long p, long long b, long long t, long long g) {
  return (p + 1) * 1000003LL + b * 131LL + t * 7LL + g * 13LL;
}
__device__ long long sum_of(long long pes, long long blocks, long long threads, long long g) {
  return blocks * threads * 1000003LL * (pes * (pes + 1) / 2) + pes * threads * 131LL * (blocks * (blocks - 1) / 2) +
         pes * blocks * 7LL * (threads * (threads - 1) / 2) + pes * blocks * threads * 13LL * g;
}
__device__ int max_of(long long pes, long long blocks, long long threads, long long g) {
  return static_cast<int>(value(pes - 1, blocks - 1, threads - 1, g));
}
__device__ int min_of(long long g) { return static_cast<int>(value(0, 0, 0, g)); }

__device__ void expect(const Args& args, bool ok, long long step, int which) {
  if (ok) return;
  if (atomicAdd(&args.errors[0], 1ULL) == 0) {
    args.errors[1] = static_cast<unsigned long long>(step);
    args.errors[2] = static_cast<unsigned long long>(which);
  }
}

__global__ void reduce_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ Args args) {
  DFlowReduce<DevicePe> sum(pe, args.words[0]), max(pe, args.words[1]), lag_sum(pe, args.words[2]),
      lag_min(pe, args.words[3]);
  sum.setup();
  max.setup();
  lag_sum.setup();
  lag_min.setup();
  pe.barrier_all("flow_reduce: every PE's block count");
  const long long P = pe.n, B = gridDim.x, T = blockDim.x;
  const long long mine_p = pe.id, mine_b = blockIdx.x, mine_t = threadIdx.x;
  long long last_even = 0;
  for (int s = 1; s <= args.steps; ++s) {
    if (args.stall && pe.id == pe.n - 1 && blockIdx.x == 0 && s == 2) return;  // posts nothing more
    const long long g = args.step0 + s;
    const long long v = value(mine_p, mine_b, mine_t, g);
    expect(args, sum.reduce<long long>(v, ReduceOp::Sum) == sum_of(P, B, T, g), g, 0);
    if (g % 3 == 0) expect(args, max.reduce<int>(static_cast<int>(v), ReduceOp::Max) == max_of(P, B, T, g), g, 1);
    if (g % 2 == 0) {
      expect(args, lag_sum.post<long long>(v, ReduceOp::Sum) == 0, g, 2);  // the deferred post returns nothing
      last_even = g;
    }
    expect(args, lag_min.post<int>(static_cast<int>(v), ReduceOp::Min) == 0, g, 3);
  }
  if (lag_sum.pending()) expect(args, lag_sum.complete<long long>(ReduceOp::Sum) == sum_of(P, B, T, last_even), last_even, 4);
  if (lag_min.pending()) expect(args, lag_min.complete<int>(ReduceOp::Min) == min_of(args.step0 + args.steps), 0, 5);
  pe.barrier_all("flow_reduce: the end");
  sum.finish();
  max.finish();
  lag_sum.finish();
  lag_min.finish();
}

// One case: a team of n GPUs, `blocks` blocks each, launches of steps1 and steps2 steps. Returns
// the wrong values seen (every thread checks).
unsigned long long run_case(int n, int blocks, int steps1, int steps2, bool stall) {
  P2PTeam team(n);
  const FlowReduceAlloc words(team, 4);
  const Sym<unsigned long long> errors = team.alloc<unsigned long long>(3);
  LaunchConfig config;
  config.max_blocks = blocks;
  int done = 0;
  for (const int steps : {steps1, steps2}) {
    if (steps == 0) continue;
    const LaunchResult launched = team.launch_cooperative(
        reduce_kernel,
        [&](int pe) {
          Args args{};
          for (int k = 0; k < 4; ++k) args.words[k] = words.on(pe, k);
          args.errors = errors.on(pe);
          args.step0 = done;
          args.steps = steps;
          args.stall = stall ? 1 : 0;
          return std::make_tuple(team.device_pe(pe), args);
        },
        config);
    for (int pe = 1; pe < n; ++pe) {
      if (launched.blocks[pe] != launched.blocks[0]) {
        fatal("flow_reduce: PE %d launched %d blocks, PE 0 %d (the closed forms need the same count)", pe,
              launched.blocks[pe], launched.blocks[0]);
      }
    }
    done += steps;
  }
  unsigned long long wrong = 0;
  for (int pe = 0; pe < n; ++pe) {
    unsigned long long e[3] = {0, 0, 0};
    team.download(pe, e, errors.on(pe), 3);
    if (e[0] != 0) {
      std::printf("    PE %d: %llu wrong values, the first at step %llu in reduction %llu\n", pe, e[0], e[1], e[2]);
    }
    wrong += e[0];
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  const std::string mode = gputest::arg(argc, argv, "--mode", "check");
  if (mode == "stall") {
    run_case(n, 8, 5, 0, true);  // must not return
    std::printf("FAIL: the stalled reductions finished\n");
    return 1;
  }
  int failures = 0;
  for (const int blocks : {264, 5}) {
    const unsigned long long wrong = run_case(n, blocks, 23, 14, false);
    std::printf("check flow_reduce on %d GPU%s, %d blocks, 23 + 14 steps: %s (%llu wrong values)\n", n, n > 1 ? "s" : "",
                blocks, wrong == 0 ? "ok" : "FAILED", wrong);
    failures += wrong != 0;
  }
  std::printf("%s flow_reduce (%d GPU%s)\n", failures == 0 ? "PASS" : "FAIL", n, n > 1 ? "s" : "");
  return failures == 0 ? 0 : 1;
}
