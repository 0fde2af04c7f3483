// The block-role cost model (runtime/include/stencilc/runtime/roles.hpp) against the worked
// examples of docs/PASSES.md ("The cost model: whether and how many").
#include "stencilc/runtime/roles.hpp"

#include <gtest/gtest.h>

namespace {

using stencilc::rt::choose_comm_workers;
using stencilc::rt::part_points;
using stencilc::rt::RoleWork;

// A 5-point Jacobi block on one of two PEs (a 1-D cut: one face sent and one received, fp32):
// 8 bytes per point, one PE-wide and one group barrier per step.
RoleWork jacobi(int rows, int cols) {
  double inner = 0, boundary = 0;
  part_points<2>({rows, cols}, {1, 1}, {1, 1}, &inner, &boundary);
  RoleWork w;
  w.compute_bytes = inner * 8;
  w.comm_bytes = boundary * 8 + 2 * (cols * 4.0 * 2);  // pack one face, unpack one face
  w.transfers = true;
  w.pe_barriers = 1;
  w.group_barriers = 1;
  return w;
}

TEST(Roles, PartPoints) {
  double inner = 0, boundary = 0;
  part_points<2>({128, 256}, {1, 1}, {1, 1}, &inner, &boundary);
  EXPECT_EQ(inner, 126.0 * 254.0);
  EXPECT_EQ(boundary, 128.0 * 256.0 - 126.0 * 254.0);
  part_points<3>({2, 5, 5}, {1, 1, 1}, {1, 1, 1}, &inner, &boundary);  // thinner than the widths
  EXPECT_EQ(inner, 0.0);
  EXPECT_EQ(boundary, 50.0);
}

TEST(Roles, SmallBlocksSpecialiseWithSeveralCommWorkers) {
  // 256^2 on two GPUs, 132 workers: the latency dominates, the saved grid barrier pays.
  const auto c = choose_comm_workers(jacobi(128, 256), 132);
  EXPECT_GT(c.n_comm, 1);
  EXPECT_LT(c.n_comm, 66);
  EXPECT_LT(c.specialised_s, c.unspecialised_s);
}

TEST(Roles, LargeBlocksSpecialiseWithFewCommWorkers) {
  // 4096^2 on two GPUs: the inner part dominates; a few workers pack, wait and update the
  // boundary rows (measured best: 4 of 264, docs/PASSES.md).
  const auto c = choose_comm_workers(jacobi(2048, 4096), 132);
  EXPECT_GE(c.n_comm, 1);
  EXPECT_LE(c.n_comm, 4);
  EXPECT_LT(c.specialised_s, c.unspecialised_s);
  RoleWork w = jacobi(2048, 4096);
  w.items = 4;
  EXPECT_GE(choose_comm_workers(w, 264).n_comm, 2);
  EXPECT_LE(choose_comm_workers(w, 264).n_comm, 6);
}

TEST(Roles, SpecialisesWhenSomeCommGroupBeatsTheUnspecialisedKernel) {
  // heat3d 256^3 on two GPUs (fp64, 16 bytes per point, one exchanged plane, 32 pieces): the best
  // comm group is barely faster than no roles; the choice must still specialise (measured: 74.5 us
  // with 32 comm blocks, 93.4 without roles).
  const double plane = 256.0 * 256.0;
  RoleWork w;
  w.compute_bytes = 127 * plane * 16;
  w.comm_bytes = plane * 16 + 2 * 8 * (2 * plane);
  w.transfers = true;
  w.items = 32;
  w.pe_barriers = 1;
  w.group_barriers = 1;
  const auto c = choose_comm_workers(w, 264);
  EXPECT_GE(c.n_comm, 16);
  EXPECT_LE(c.n_comm, 40);
  EXPECT_LT(c.specialised_s, c.unspecialised_s);
}

TEST(Roles, EveryTransferPieceGetsItsOwnCommWorkerWhenLatencyDominates) {
  // Few comm bytes (one worker streams them in no time), 16 workers: without pieces one comm
  // worker suffices; 8 pieces on fewer workers would run in several rounds one after another, so
  // each gets its own worker.
  RoleWork w = jacobi(128, 256);
  w.comm_bytes = 1000;
  EXPECT_EQ(choose_comm_workers(w, 16).n_comm, 1);
  w.items = 8;
  EXPECT_EQ(choose_comm_workers(w, 16).n_comm, 8);
  w.items = 16;  // as many pieces as workers: only the unspecialised kernel runs them in one round
  EXPECT_EQ(choose_comm_workers(w, 16).n_comm, 0);
}

TEST(Roles, NothingToOverlapMeansNoRoles) {
  RoleWork w = jacobi(128, 256);
  w.compute_bytes = 0;  // no inner part
  EXPECT_EQ(choose_comm_workers(w, 132).n_comm, 0);
  EXPECT_EQ(choose_comm_workers(jacobi(128, 256), 1).n_comm, 0);  // one worker cannot split
}

TEST(Roles, WithoutTransfersOrGroupBarriersRolesDoNotPay) {
  // One PE and no neighbour: specialising only moves the boundary onto fewer workers.
  RoleWork w = jacobi(256, 256);
  w.transfers = false;
  w.group_barriers = 0;
  w.comm_bytes = 256.0 * 4 * 8;
  EXPECT_EQ(choose_comm_workers(w, 132).n_comm, 0);
}

}  // namespace
