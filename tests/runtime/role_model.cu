// The launcher's role table (compiled::RoleModel, compiled::role_work): on concrete blocks and
// exchanges it must give the same RoleWork, to the bit, and so the same comm blocks, as the lines
// the launcher emitted before the table (copied below as `emitted_*`): jacobi2d's one split update
// and one exchange, a 3-D program's two split updates and two exchanges of different element
// types, and an SPMD program's puts. And the launch's grid from the chosen form (launch_config),
// as the launcher set it: the dataflow form's blocks, the register-resident form's shared memory
// with every block resident, max_blocks_for's cap otherwise. Built with nvcc, run on the host.
// Prints a line per failure and `N passed, M failed`.

#include <array>
#include <cstdio>
#include <stencilc/compiled_cuda.hpp>
#include <string>
#include <vector>

#include "tally.h"

namespace sc = stencilc::compiled;
namespace rt = stencilc::rt;

namespace {

using tally::check;

/// What HaloExchange tells the cost model about a PE, fixed.
struct FakeExchange {
  unsigned sides;
  long long moved;
  int blocks;
  unsigned faces(int) const { return sides; }
  long long moved_elements(int) const { return moved; }
  int blocks_needed(int) const { return blocks; }
};

bool same(const rt::RoleWork& a, const rt::RoleWork& b) {
  return a.comm_bytes == b.comm_bytes && a.compute_bytes == b.compute_bytes &&
         a.transfers == b.transfers && a.items == b.items && a.pe_barriers == b.pe_barriers &&
         a.group_barriers == b.group_barriers;
}

/// jacobi2d's lines as the launcher emitted them: one inner part {1, 1} {1, 1} of 8 bytes a point,
/// the exchange of a (float), one PE barrier and one group barrier a step.
rt::RoleWork emitted_jacobi2d(const std::array<int, 2>& extent, const FakeExchange& sc_a_halo) {
  const int sc_pe = 0;
  rt::RoleWork sc_work;
  double sc_inner = 0, sc_boundary = 0;
  {
    std::array<int, 2> sc_wlo{1, 1}, sc_whi{1, 1};
    rt::cuda::keep_exchanged_faces(sc_wlo.data(), sc_whi.data(), 2, sc_a_halo.faces(sc_pe));
    rt::part_points<2>(extent, sc_wlo, sc_whi, &sc_inner, &sc_boundary);
  }
  sc_work.compute_bytes += sc_inner * 8;
  sc_work.comm_bytes += sc_boundary * 8;
  sc_work.comm_bytes += 2.0 * sizeof(float) * sc_a_halo.moved_elements(sc_pe);
  sc_work.transfers |= sc_a_halo.moved_elements(sc_pe) > 0;
  sc_work.items += sc_a_halo.blocks_needed(sc_pe);
  sc_work.pe_barriers = 1;
  sc_work.group_barriers = 1;
  return sc_work;
}

void jacobi2d() {
  const sc::RoleModel<2> table{{{{1, 1}, {1, 1}, 8}}, false, 1, 1};
  const std::array<int, 2> extents[] = {{512, 1024}, {4096, 8192}, {3, 2}, {1, 1}};
  const FakeExchange exchanges[] = {
      {0x3u, 2 * 2 * 1024, 4}, {0x1u, 1024, 2}, {0xfu, 8192, 8}, {0u, 0, 0}};
  for (const auto& extent : extents) {
    for (const FakeExchange& a : exchanges) {
      const rt::RoleWork want = emitted_jacobi2d(extent, a);
      const rt::RoleWork got =
          sc::role_work<2>(table, extent, {sc::exchange_load(a, 0, sizeof(float))});
      const std::string what = "jacobi2d on " + std::to_string(extent[0]) + " x " +
                               std::to_string(extent[1]) + ", faces " + std::to_string(a.sides);
      check(same(got, want), what + ": the table's RoleWork is the emitted lines'");
      for (int workers : {1, 2, 66, 132})
        check(rt::comm_workers(got, workers) == rt::comm_workers(want, workers),
              what + ": the same comm blocks");
    }
  }
  // A concrete value: 512 x 1024 with rows exchanged at both ends of dimension 0 keeps the
  // column faces in the inner part: 510 x 1024 inner points, 2 x 1024 boundary ones.
  const rt::RoleWork w =
      sc::role_work<2>(table, {512, 1024}, {sc::exchange_load(FakeExchange{0x3u, 4096, 4}, 0, 4)});
  check(w.compute_bytes == 510.0 * 1024 * 8, "jacobi2d: the inner part's bytes");
  check(w.comm_bytes == 2.0 * 1024 * 8 + 2.0 * 4 * 4096,
        "jacobi2d: the boundary's and the exchange's bytes");
  check(w.transfers && w.items == 4 && w.pe_barriers == 1 && w.group_barriers == 1,
        "jacobi2d: items and barriers");
}

/// Two split updates and two exchanges (a double grid u, a float grid v), as the launcher
/// emitted them for a 3-D program: the faces of both exchanges or-ed.
rt::RoleWork emitted_two(const std::array<int, 3>& extent, const FakeExchange& sc_halo_u,
                         const FakeExchange& sc_halo_v) {
  const int sc_pe = 0;
  rt::RoleWork sc_work;
  double sc_inner = 0, sc_boundary = 0;
  {
    std::array<int, 3> sc_wlo{1, 2, 1}, sc_whi{1, 1, 2};
    rt::cuda::keep_exchanged_faces(sc_wlo.data(), sc_whi.data(), 3,
                                   sc_halo_u.faces(sc_pe) | sc_halo_v.faces(sc_pe));
    rt::part_points<3>(extent, sc_wlo, sc_whi, &sc_inner, &sc_boundary);
  }
  sc_work.compute_bytes += sc_inner * 24;
  sc_work.comm_bytes += sc_boundary * 24;
  {
    std::array<int, 3> sc_wlo{2, 2, 2}, sc_whi{2, 2, 2};
    rt::cuda::keep_exchanged_faces(sc_wlo.data(), sc_whi.data(), 3,
                                   sc_halo_u.faces(sc_pe) | sc_halo_v.faces(sc_pe));
    rt::part_points<3>(extent, sc_wlo, sc_whi, &sc_inner, &sc_boundary);
  }
  sc_work.compute_bytes += sc_inner * 12;
  sc_work.comm_bytes += sc_boundary * 12;
  sc_work.comm_bytes += 2.0 * sizeof(double) * sc_halo_u.moved_elements(sc_pe);
  sc_work.transfers |= sc_halo_u.moved_elements(sc_pe) > 0;
  sc_work.items += sc_halo_u.blocks_needed(sc_pe);
  sc_work.comm_bytes += 2.0 * sizeof(float) * sc_halo_v.moved_elements(sc_pe);
  sc_work.transfers |= sc_halo_v.moved_elements(sc_pe) > 0;
  sc_work.items += sc_halo_v.blocks_needed(sc_pe);
  sc_work.pe_barriers = 2;
  sc_work.group_barriers = 3;
  return sc_work;
}

void two_updates() {
  const sc::RoleModel<3> table{
      {{{1, 2, 1}, {1, 1, 2}, 24}, {{2, 2, 2}, {2, 2, 2}, 12}}, false, 2, 3};
  const std::array<int, 3> extent{96, 64, 130};
  const FakeExchange us[] = {{0x3u, 2 * 64 * 130, 6}, {0x10u, 96 * 64, 3}, {0u, 0, 0}};
  const FakeExchange vs[] = {{0x4u, 96 * 130, 2}, {0x20u, 7, 1}};
  for (const FakeExchange& u : us) {
    for (const FakeExchange& v : vs) {
      const rt::RoleWork want = emitted_two(extent, u, v);
      const rt::RoleWork got = sc::role_work<3>(
          table, extent,
          {sc::exchange_load(u, 0, sizeof(double)), sc::exchange_load(v, 0, sizeof(float))});
      const std::string what =
          "two updates, faces " + std::to_string(u.sides) + " and " + std::to_string(v.sides);
      check(same(got, want), what + ": the table's RoleWork is the emitted lines'");
      check(rt::comm_workers(got, 132) == rt::comm_workers(want, 132),
            what + ": the same comm blocks");
    }
  }
}

/// An SPMD program's comm group: no exchange, the user's puts count their latency.
void spmd() {
  const sc::RoleModel<2> table{{}, true, 1, 2};
  const rt::RoleWork w = sc::role_work<2>(table, {256, 256}, {});
  check(w.transfers && w.comm_bytes == 0 && w.compute_bytes == 0 && w.items == 0,
        "spmd: the puts' latency only");
  check(w.pe_barriers == 1 && w.group_barriers == 2, "spmd: the barriers");
}

/// The launch's grid: max_blocks_for's cap (the barrier form, SPMD programs), the form's blocks
/// (dataflow), and its shared memory with every block resident (register-resident).
void launch_config() {
  sc::Plan<2> plan;
  plan.pes = 2;
  plan.grid.dims = {2, 1, 1};
  plan.extent = {4096, 4096};
  sc::LaunchSpec<2> spec{"jacobi", 256, &plan, nullptr};
  const int cap = sc::max_blocks_for<2>(plan, 256);
  rt::cuda::LaunchConfig c = sc::detail_launch::launch_config<2>(spec);
  check(
      c.block_threads == 256 && c.max_blocks == cap && c.dynamic_smem == 0 && c.blocks_per_sm == 0,
      "no form: max_blocks_for's cap");
  sc::FormChoice form;
  form.blocks = 40;
  form.smem = 12345;
  spec.form = &form;
  c = sc::detail_launch::launch_config<2>(spec);
  check(c.max_blocks == cap && c.dynamic_smem == 0, "the barrier form: max_blocks_for's cap");
  form.form = sc::LoopForm::Dataflow;
  c = sc::detail_launch::launch_config<2>(spec);
  check(c.max_blocks == 40 && c.dynamic_smem == 0, "the dataflow form: its blocks");
  form.form = sc::LoopForm::Regs;
  c = sc::detail_launch::launch_config<2>(spec);
  check(c.max_blocks == 40 && c.dynamic_smem == 12345 && c.blocks_per_sm == 0,
        "the register-resident form: its blocks and shared memory");
}

}  // namespace

int main() {
  jacobi2d();
  two_updates();
  spmd();
  launch_config();
  return tally::finish();
}
