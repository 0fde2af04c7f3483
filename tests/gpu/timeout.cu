// Test 4: failures must end the run with a diagnostic, never hang. Each mode is one process;
// run.sh checks its exit status, its stderr and how long it took.
//
//   timeout --pes=N --mode=missing   PE 0 waits for a signal nobody sends; the other PEs wait in
//                                    barrier_all for PE 0. Exit 3, every PE's wait reported.
//   timeout --pes=N --mode=halo      the last PE stops sending halos after epoch 1: its receivers
//                                    time out naming the grid, the PE and the direction. Exit 3.
//                                    (It must not send epoch 3 either: that send would be a
//                                    device-side fatal, epoch out of order, which could come
//                                    first where no PE waits on the last one's own halos: 4 PEs.)
//   timeout --pes=N --mode=epoch     a halo send of epoch 3 after epoch 1: a device-side fatal
//                                    error naming the grid and the epochs. Exit 2.
//   timeout --pes=N --mode=toomany   a team of N + 1 GPUs when N are visible. Exit 2.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

__global__ void missing_kernel(const __grid_constant__ DevicePe pe, std::uint64_t* sig) {
  if (pe.id == 0) {
    if (blockIdx.x == 0) pe.wait_until(sig, Cmp::GE, 1, "a signal that nobody sends");
    return;
  }
  pe.barrier_all();
}

struct HaloArgs {
  DBlock<float, 2> b;
  DHaloExchange<float, 2> halo;
  int mode;  // 0: skip the last PE's send of epoch 2; 1: send epoch 3 after epoch 1
};

__global__ void halo_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ HaloArgs a) {
  if (a.mode == 1) {
    a.halo.send(pe, a.b, 1);
    a.halo.send(pe, a.b, 3);
    return;
  }
  for (int epoch = 1; epoch <= 3; ++epoch) {
    pe.grid_barrier();
    if (!(epoch >= 2 && pe.id == pe.n - 1)) a.halo.send(pe, a.b, epoch);
    a.halo.recv(pe, a.b, epoch);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  const std::string mode = gputest::arg(argc, argv, "--mode", "missing");
  if (mode == "toomany") {
    P2PTeam team(n + 1);  // must not return
    std::printf("FAIL: a team of %d GPUs was made\n", n + 1);
    return 1;
  }
  P2PTeam team(n);
  if (mode == "missing") {
    Sym<std::uint64_t> sig = team.alloc<std::uint64_t>(1);
    LaunchConfig config;
    config.blocks_per_sm = 1;
    team.launch_cooperative(
        missing_kernel, [&](int pe) { return std::make_tuple(team.device_pe(pe), sig.on(pe)); },
        config);
  } else if (mode == "halo" || mode == "epoch") {
    std::string error;
    const std::optional<ProcessGrid> grid =
        choose_process_grid(n, 2, {40, 30, 1}, {1, 1, 0}, {1, 1, 0}, "", &error);
    std::vector<DBlock<float, 2>> blocks =
        alloc_blocks<float, 2>(team, *grid, {40, 30}, {1, 1}, {1, 1});
    HaloExchange<float, 2> halo(team, *grid, blocks, {false, true}, false, "u");
    LaunchConfig config;
    config.blocks_per_sm = 1;
    team.launch_cooperative(
        halo_kernel,
        [&](int pe) {
          return std::make_tuple(team.device_pe(pe),
                                 HaloArgs{blocks[pe], halo.device(pe), mode == "epoch" ? 1 : 0});
        },
        config);
  } else {
    std::printf("unknown mode '%s'\n", mode.c_str());
    return 1;
  }
  std::printf("FAIL: mode %s returned normally\n", mode.c_str());
  return 1;
}
