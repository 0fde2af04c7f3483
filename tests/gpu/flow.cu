// Test of the dataflow synchronisation (runtime/include/stencilc/runtime/cuda/flow.cuh): a time
// loop with no barrier, each block waiting only for its neighbours, must compute exactly what a
// serial loop computes.
//
//   flow --pes=N               an exact integer stencil (uint32, wrapping arithmetic) of radius 1
//                              and 2 over rows cut along dimension 0 onto N GPUs (uneven), periodic
//                              and not, with every block and with 3 blocks, in two launches of the
//                              same team (the steps numbered on across launches), against the
//                              serial loop, cell by cell. PASS/FAIL.
//   flow --pes=N --mode=stall  the last PE's first block stops after step 1: its neighbours time
//                              out naming the dataflow step and the block they wait for (exit 3).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "stencilc/runtime/cuda/flow.cuh"
#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

using Cell = std::uint32_t;

struct Args {
  DBlock<Cell, 2> a, b;           // this PE's two buffers
  DBlock<Cell, 2> up_a, up_b;     // the PE above's (its high halo holds my first rows)
  DBlock<Cell, 2> down_a, down_b; // the PE below's (its low halo holds my last rows)
  FlowSignals flow;
  int up, down;                   // -1: none (not periodic, at the edge)
  int steps, radius;
  int stall;                      // the last PE's block 0 stops after step 1
};

// The update of one cell from its column, rows i - radius .. i + radius (wrapping arithmetic, so
// any wrong or stale input shows).
__host__ __device__ Cell update(const Cell* column, long stride, int radius) {
  Cell v = column[0] * 3u + 1u;
  for (int k = 1; k <= radius; ++k) {
    v += column[-k * stride] * static_cast<Cell>(5 + k) + column[k * stride] * static_cast<Cell>(11 + k);
  }
  return v;
}

__global__ void flow_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ Args args) {
  DBlock<Cell, 2> a = args.a, b = args.b, up_a = args.up_a, up_b = args.up_b,
                  down_a = args.down_a, down_b = args.down_b;
  const int rows = a.extent[0], cols = a.extent[1], r = args.radius;
  const DFlow<DevicePe> flow(pe, args.flow, rows, r, args.up, args.down);
  if (flow.active()) {
    const int r0 = flow.row_begin();
    const long points = static_cast<long>(flow.row_end() - r0) * cols;
    for (int s = 1; s <= args.steps; ++s) {
      if (args.stall && pe.id == pe.n - 1 && blockIdx.x == 0 && s == 2) break;  // stops publishing
      if (s > 1) flow.wait(s - 1);
      for (long p = threadIdx.x; p < points; p += blockDim.x) {
        const int i = r0 + static_cast<int>(p / cols), j = static_cast<int>(p % cols);
        const Cell v = update(&a(i, j), a.stride[0], r);
        b(i, j) = v;
        if (i < r && args.up >= 0) up_b(up_b.extent[0] + i, j) = v;
        if (i >= rows - r && args.down >= 0) down_b(i - rows, j) = v;
      }
      flow.publish(s);
      swap(a, b);
      swap(up_a, up_b);
      swap(down_a, down_b);
    }
  }
  flow.finish(args.steps);
}

// The serial loop: `steps` updates of the global grid (rows outside it are 0 unless periodic).
std::vector<Cell> reference(std::vector<Cell> a, int rows, int cols, int radius, bool periodic, int steps) {
  std::vector<Cell> b(a.size());
  std::vector<Cell> column(2 * radius + 1);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        for (int k = -radius; k <= radius; ++k) {
          int row = i + k;
          if (periodic) row = (row % rows + rows) % rows;
          column[k + radius] = row >= 0 && row < rows ? a[static_cast<std::size_t>(row) * cols + j] : 0u;
        }
        b[static_cast<std::size_t>(i) * cols + j] = update(&column[radius], 1, radius);
      }
    }
    a.swap(b);
  }
  return a;
}

Cell initial(int i, int j) { return gputest::hash32(static_cast<std::uint32_t>(i * 7919 + j * 31 + 5)); }

// One case: a team of n GPUs, two launches of steps1 and steps2 steps. Returns the wrong cells.
int run_case(int n, int rows, int cols, int radius, bool periodic, int max_blocks, int steps1, int steps2,
             bool stall) {
  P2PTeam team(n);
  std::string error;
  const std::optional<ProcessGrid> grid = choose_process_grid(
      n, 2, {rows, cols, 1}, {radius, 0, 0}, {radius, 0, 0}, format("%dx1", n).c_str(), &error);
  if (!grid) fatal("%s", error.c_str());
  std::vector<DBlock<Cell, 2>> a = alloc_blocks<Cell, 2>(team, *grid, {rows, cols}, {radius, 0}, {radius, 0});
  std::vector<DBlock<Cell, 2>> b = alloc_blocks<Cell, 2>(team, *grid, {rows, cols}, {radius, 0}, {radius, 0});
  const FlowAlloc flow(team);
  // Owned cells and the halo rows from the global grid (0 outside it unless periodic), both
  // buffers alike.
  for (int pe = 0; pe < n; ++pe) {
    const DBlock<Cell, 2>& blk = a[pe];
    std::vector<Cell> host(static_cast<std::size_t>(blk.allocated()), 0u);
    for (int i = -radius; i < blk.extent[0] + radius; ++i) {
      int row = blk.origin[0] + i;
      if (periodic) row = (row % rows + rows) % rows;
      if (row < 0 || row >= rows) continue;
      for (int j = 0; j < cols; ++j) host[blk.data_offset() + i * blk.stride[0] + j] = initial(row, j);
    }
    team.upload(pe, a[pe].data - a[pe].data_offset(), host.data(), host.size());
    team.upload(pe, b[pe].data - b[pe].data_offset(), host.data(), host.size());
  }
  LaunchConfig config;
  config.max_blocks = max_blocks;
  int done = 0;
  for (const int steps : {steps1, steps2}) {
    const bool odd = done % 2 == 1;  // the buffers' roles after the launches so far
    team.launch_cooperative(
        flow_kernel,
        [&](int pe) {
          const int up = pe > 0 ? pe - 1 : periodic ? n - 1 : -1;
          const int down = pe + 1 < n ? pe + 1 : periodic ? 0 : -1;
          Args args{};
          args.a = (odd ? b : a)[pe];
          args.b = (odd ? a : b)[pe];
          args.up_a = (odd ? b : a)[up < 0 ? pe : up];
          args.up_b = (odd ? a : b)[up < 0 ? pe : up];
          args.down_a = (odd ? b : a)[down < 0 ? pe : down];
          args.down_b = (odd ? a : b)[down < 0 ? pe : down];
          args.flow = flow.on(pe);
          args.up = up;
          args.down = down;
          args.steps = steps;
          args.radius = radius;
          args.stall = stall ? 1 : 0;
          return std::make_tuple(team.device_pe(pe), args);
        },
        config);
    done += steps;
  }
  std::vector<Cell> global(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) global[static_cast<std::size_t>(i) * cols + j] = initial(i, j);
  }
  const std::vector<Cell> expected = reference(global, rows, cols, radius, periodic, done);
  int wrong = 0;
  for (int pe = 0; pe < n; ++pe) {
    const DBlock<Cell, 2>& blk = (done % 2 == 0 ? a : b)[pe];
    const std::vector<Cell> cells = gputest::owned_cells(team, pe, blk);
    for (int i = 0; i < blk.extent[0]; ++i) {
      for (int j = 0; j < cols; ++j) {
        const Cell got = cells[static_cast<std::size_t>(i) * cols + j];
        const Cell want = expected[static_cast<std::size_t>(blk.origin[0] + i) * cols + j];
        if (got != want && ++wrong <= 5) {
          std::printf("    PE %d cell (%d, %d) is %u, expected %u\n", pe, blk.origin[0] + i, j, got, want);
        }
      }
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  const std::string mode = gputest::arg(argc, argv, "--mode", "check");
  if (mode == "stall") {
    run_case(n, 64 * n + 3, 40, 1, true, 0, 5, 0, true);  // must not return
    std::printf("FAIL: the stalled flow finished\n");
    return 1;
  }
  int failures = 0;
  struct Case { int rows, cols, radius; bool periodic; int max_blocks; };
  // Uneven rows; more blocks than rows (some blocks idle), one block per row or two, and few
  // blocks with many rows each.
  for (const Case c : {Case{97 * n + 1, 45, 1, true, 0}, Case{97 * n + 1, 45, 2, true, 0},
                       Case{13 * n + 2, 33, 1, false, 0}, Case{13 * n + 2, 33, 2, false, 0},
                       Case{301 * n - 1, 70, 2, true, 3}, Case{41 * n, 29, 1, false, 3}}) {
    const int wrong = run_case(n, c.rows, c.cols, c.radius, c.periodic, c.max_blocks, 37, 24, false);
    std::printf("check flow on %d GPU%s, %d x %d, radius %d, %s, %s, 37 + 24 steps: %s (%d wrong cells)\n",
                n, n > 1 ? "s" : "", c.rows, c.cols, c.radius, c.periodic ? "periodic" : "fixed edges",
                c.max_blocks ? "3 blocks" : "every block", wrong == 0 ? "ok" : "FAILED", wrong);
    failures += wrong != 0;
  }
  std::printf("%s flow (%d GPU%s)\n", failures == 0 ? "PASS" : "FAIL", n, n > 1 ? "s" : "");
  return failures == 0 ? 0 : 1;
}
