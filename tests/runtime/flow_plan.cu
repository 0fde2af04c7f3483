// The dataflow loop's host-side and partition logic, on the host (no GPU): flow_part (flow.cuh)
// must give every active block at least `radius` rows, cover a PE's rows once and in order, and
// never more blocks than the grid has; compiled::flow_plan must turn the loop on only where asked
// or where the cost model (flow_pays) says it pays, on p2p and a process grid that cuts dimension
// 0 only, with the right neighbours along it.
// Built with nvcc, run on the host. Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <stencilc/compiled_cuda.hpp>

#include "tally.h"

namespace rc = stencilc::rt::cuda;

namespace {

using tally::check;

void partition(int rows, int radius, int grid_blocks) {
  const std::string c = "rows " + std::to_string(rows) + ", radius " + std::to_string(radius) + ", " +
                        std::to_string(grid_blocks) + " blocks";
  const rc::FlowPart first = rc::flow_part(rows, radius, grid_blocks, 0);
  check(first.active >= 1 && first.active <= grid_blocks && first.active <= rc::kMaxFlowBlocks, c + ": active in range");
  int next = 0;
  bool wide = true, ordered = true;
  for (int g = 0; g < grid_blocks; ++g) {
    const rc::FlowPart p = rc::flow_part(rows, radius, grid_blocks, g);
    ordered = ordered && p.active == first.active;
    if (g >= p.active) {
      ordered = ordered && p.begin == p.end;
      continue;
    }
    ordered = ordered && p.begin == next && p.end >= p.begin;
    if (rows >= radius) wide = wide && p.end - p.begin >= radius;
    next = p.end;
  }
  check(ordered && next == rows, c + ": the ranges cover the rows once, in order");
  check(wide, c + ": every active block holds at least the radius");
}

void plan(const char* decomp, bool periodic, bool p2p, const char* env, bool want_on, int pe, int want_up, int want_down,
          const stencilc::compiled::FlowSize* size = nullptr) {
  stencilc::rt::ProcessGrid grid;
  std::sscanf(decomp, "%dx%dx%d", &grid.dims[0], &grid.dims[1], &grid.dims[2]);
  grid.rank = 3;
  if (env) setenv("STENCILC_DATAFLOW", env, 1); else unsetenv("STENCILC_DATAFLOW");
  const stencilc::compiled::FlowPlan f = stencilc::compiled::flow_plan("test", grid, periodic, p2p, size);
  const std::string c = std::string(decomp) + (periodic ? " periodic" : " fixed") + (p2p ? " p2p" : " nvshmem") +
                        " STENCILC_DATAFLOW=" + (env ? env : "(unset)") + " PE " + std::to_string(pe) +
                        (size ? " points " + std::to_string(size->points) : "");
  check(f.on == want_on, c + ": on " + std::to_string(f.on));
  if (want_on) {
    check(f.up(pe) == want_up, c + ": up " + std::to_string(f.up(pe)) + ", expected " + std::to_string(want_up));
    check(f.down(pe) == want_down, c + ": down " + std::to_string(f.down(pe)) + ", expected " + std::to_string(want_down));
  }
}

// flow_grid: plan's process grid for `pes` PEs and an extent of rows x cols (halos of 1), then
// the grid flow_grid keeps or takes, as "AxB".
std::string chosen(int pes, int rows, int cols, const char* dataflow, const char* decomp) {
  stencilc::compiled::Plan<2> p;
  p.pes = pes;
  p.extent = {rows, cols};
  p.halo_lo = p.halo_hi = {1, 1, 0};
  std::string error;
  p.grid = *stencilc::rt::choose_process_grid(pes, 2, {rows, cols, 1}, p.halo_lo, p.halo_hi, "", &error);
  if (dataflow) setenv("STENCILC_DATAFLOW", dataflow, 1); else unsetenv("STENCILC_DATAFLOW");
  if (decomp) setenv("STENCILC_DECOMP", decomp, 1); else unsetenv("STENCILC_DECOMP");
  const stencilc::compiled::Plan<2> q = stencilc::compiled::flow_grid(p, 1, 256);
  unsetenv("STENCILC_DECOMP");
  return std::to_string(q.grid.dims[0]) + "x" + std::to_string(q.grid.dims[1]);
}

void grid_choice(int pes, int rows, int cols, const char* dataflow, const char* decomp, const std::string& want) {
  const std::string got = chosen(pes, rows, cols, dataflow, decomp);
  check(got == want, std::to_string(pes) + " PEs, " + std::to_string(rows) + " x " + std::to_string(cols) +
                         ", STENCILC_DATAFLOW=" + (dataflow ? dataflow : "(unset)") + ", STENCILC_DECOMP=" +
                         (decomp ? decomp : "(unset)") + ": " + got + ", expected " + want);
}

}  // namespace

int main() {
  for (int rows : {1, 2, 3, 7, 64, 128, 129, 1000, 5000})
    for (int radius : {1, 2, 3})
      for (int blocks : {1, 3, 32, 132, 264, 2000}) partition(rows, radius, blocks);
  // The cost model: at most 16 points per thread of an active block (min(blocks, rows / radius))
  // on one PE; on several, 24 for a 2-D loop and 56 for a 3-D one. 264 blocks of 256 threads (an
  // H200 at 2 per SM); 2 PEs and 2-D unless said.
  namespace sc = stencilc::compiled;
  auto size = [](long long rows, long long cols, int radius, int pes = 2, int rank = 2) {
    sc::FlowSize f;
    f.rows = rows;
    f.points = rows * cols;
    f.radius = radius;
    f.blocks = 264;
    f.block_threads = 256;
    f.pes = pes;
    f.rank = rank;
    return f;
  };
  check(sc::flow_pays(size(128, 256, 1)), "jacobi2d 256^2 on 2 PEs: 1 point a thread");
  check(sc::flow_pays(size(512, 1024, 1)), "1024^2 on 2 PEs: 7.8 points a thread");
  check(sc::flow_pays(size(1024, 1024, 1, 1)), "1024^2 on 1 PE: 15.5 points a thread");
  check(sc::flow_pays(size(768, 1536, 1)), "1536^2 on 2 PEs: 17.5 points a thread");
  check(!sc::flow_pays(size(1536, 1536, 1, 1)), "1536^2 on 1 PE: 35 points a thread");
  check(!sc::flow_pays(size(768, 1536, 1, 1)), "17.5 points a thread on 1 PE");
  check(!sc::flow_pays(size(1024, 2048, 1)), "2048^2 on 2 PEs: 31 points a thread");
  check(sc::flow_pays(size(512, 1024, 2)), "radius 2, 512 rows: 256 active blocks, 8 points a thread");
  check(sc::flow_pays(size(32, 64 * 64, 1, 2, 3)), "heat3d 64^3 on 2 PEs: 32 planes, 16 points a thread");
  check(sc::flow_pays(size(48, 96 * 96, 1, 2, 3)), "heat3d 96^3 on 2 PEs: 48 planes, 36 points a thread");
  check(sc::flow_pays(size(56, 112 * 112, 1, 2, 3)), "heat3d 112^3 on 2 PEs: 56 planes, 49 points a thread");
  check(!sc::flow_pays(size(64, 128 * 128, 1, 2, 3)), "heat3d 128^3 on 2 PEs: 64 planes, 64 points a thread");
  check(!sc::flow_pays(size(96, 96 * 96, 1, 1, 3)), "heat3d 96^3 on 1 PE: 36 points a thread");
  check(sc::flow_pays(size(64, 64 * 64, 1, 1, 3)), "heat3d 64^3 on 1 PE: 16 points a thread");
  check(!sc::flow_pays(size(112, 112 * 112, 1, 1, 3)), "heat3d 112^3 on 1 PE: 49 points a thread");
  check(!sc::flow_pays(size(64, 128 * 128, 1, 2)), "64 points a thread in 2-D");
  check(sc::flow_pays(size(16, 32 * 32, 1, 2, 3)), "heat3d 32^3 on 2 PEs: 4 points a thread");
  check(!sc::flow_pays(sc::FlowSize{}), "no size known: off");
  // The grid: a block per radius of rows, at most 1024 (and STENCILC_MAX_BLOCKS).
  unsetenv("STENCILC_MAX_BLOCKS");
  check(sc::flow_blocks(size(128, 256, 1)) == 128, "128 rows, radius 1: 128 blocks");
  check(sc::flow_blocks(size(129, 256, 2)) == 64, "129 rows, radius 2: 64 blocks");
  check(sc::flow_blocks(size(5000, 64, 1)) == rc::kMaxFlowBlocks, "5000 rows: the flags' 1024");
  check(sc::flow_blocks(size(1, 64, 2)) == 1, "fewer rows than the radius: 1 block");
  setenv("STENCILC_MAX_BLOCKS", "32", 1);
  check(sc::flow_blocks(size(128, 256, 1)) == 32, "STENCILC_MAX_BLOCKS=32 caps it");
  unsetenv("STENCILC_MAX_BLOCKS");
  const sc::FlowSize small = size(128, 256, 1), large = size(1024, 2048, 1);
  plan("2x1x1", false, true, nullptr, true, 0, -1, 1, &small);  // unset: the cost model
  plan("2x1x1", false, true, "auto", true, 1, 0, -1, &small);
  plan("2x1x1", false, true, "auto", false, 0, 0, 0, &large);
  plan("2x1x1", false, true, "0", false, 0, 0, 0, &small);
  plan("1x1x1", false, true, "auto", true, 0, -1, -1, &small);    // one PE too
  plan("2x1x1", false, true, "1", true, 0, -1, 1, &large);        // asked for: on whatever the size
  plan("2x2x1", false, true, "auto", false, 0, 0, 0, &small);      // cuts dimension 1 too
  plan("2x1x1", false, false, "auto", false, 0, 0, 0, &small);     // nvshmem
  // Without a size the cost model keeps it off; asked for, on p2p with an N x 1 x 1 grid only.
  plan("2x1x1", true, true, nullptr, false, 0, 0, 0);
  plan("2x1x1", true, true, "0", false, 0, 0, 0);
  plan("2x1x1", true, true, "1", true, 0, 1, 1);
  plan("3x1x1", true, true, "1", true, 0, 2, 1);
  plan("3x1x1", false, true, "1", true, 0, -1, 1);
  plan("3x1x1", false, true, "1", true, 2, 1, -1);
  plan("1x1x1", true, true, "1", true, 0, 0, 0);   // one periodic PE: its own neighbour
  plan("1x1x1", false, true, "1", true, 0, -1, -1);
  plan("2x2x1", true, true, "1", false, 0, 0, 0);  // cuts dimension 1 too: keeps its barriers
  plan("2x1x1", true, false, "1", false, 0, 0, 0); // nvshmem
  // The process grid (flow_grid): least halo traffic (2 x 2 on 4 PEs at 256^2) unless the form
  // would run on the grid cutting dimension 0 only. Asked for: that grid; off: plan's; a forced
  // grid stays; too few rows for N x 1: plan's. (The cost model's choice needs a GPU's SM count:
  // with none it keeps plan's.)
  grid_choice(4, 256, 256, "0", nullptr, "2x2");
  grid_choice(4, 256, 256, "1", nullptr, "4x1");
  grid_choice(4, 256, 256, "1", "2x2", "2x2");
  grid_choice(2, 256, 256, "1", nullptr, "2x1");
  grid_choice(4, 3, 256, "1", nullptr, chosen(4, 3, 256, "0", nullptr));
  grid_choice(4, 256, 256, "auto", nullptr, "2x2");
  return tally::finish();
}
