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

TEST(Roles, LargeBlocksSpecialiseWithOneCommWorker) {
  // 4096^2 on two GPUs: the inner part dominates; one worker packs and waits.
  const auto c = choose_comm_workers(jacobi(2048, 4096), 132);
  EXPECT_EQ(c.n_comm, 1);
  EXPECT_LT(c.specialised_s, c.unspecialised_s);
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
