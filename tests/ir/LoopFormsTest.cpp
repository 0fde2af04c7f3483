// The dataflow form's analysis of a step (passes/LoopForms.h): its walks, the exchange that carries
// each walk's face cells, the step of one update, and the allreduce a fused sweep is combined with.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "passes/LoopForms.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::passes {
namespace {

using namespace ir;
using Faces = std::vector<std::pair<std::string, std::string>>;

// fdtd2d's step as the pipeline leaves it, shortened: two updates in place, one that is not
// split, a split one whose grid another grid swaps with.
const char* kSteps = R"(module "steps.cpp"

program @walks(%ex: grid<f64, 2> halo[0:0, 0:1], %ey: grid<f64, 2> halo[0:1, 0:0], %hz: grid<f64, 2> halo[1:0, 1:0], %hz_new: grid<f64, 2> halo[1:0, 1:0], %n: i32) decomposed persistent {
  for %t: i32 = 0 to %n step 1 {
    halo_send %hz
    foreach[inner 1:0, 0:0] %ey.interior (%i, %j) {
      store %ey = %ey[0, 0] - 0.5 * (%hz[0, 0] - %hz[-1, 0])
    }
    halo_recv %hz
    phase_barrier
    foreach[boundary 1:0, 0:0] %ey.interior (%i, %j) {
      store %ey = %ey[0, 0] - 0.5 * (%hz[0, 0] - %hz[-1, 0])
    }
    phase_barrier
    foreach %ex.interior (%i, %j) {
      store %ex = %ex[0, 0] - 0.5 * %hz[0, 0]
    }
    phase_barrier
    halo_send %ey
    halo_send %ex
    halo_recv %ey
    halo_recv %ex
    phase_barrier
    foreach %hz_new.interior (%i, %j) {
      store %hz_new = %hz[0, 0] - 0.7 * (%ex[0, 1] - %ex[0, 0] + %ey[1, 0] - %ey[0, 0])
    }
    phase_barrier
    swap %hz, %hz_new
  }
}
)";

TEST(LoopForms, WalksAndTheExchangesThatCarryTheirFaces) {
  const Module m = testing::parse_ok(kSteps);
  const FlowLoop f = find_flow_loop(m.programs[0]);
  ASSERT_NE(f.loop, nullptr);
  EXPECT_EQ(f.update, nullptr);  // several walks
  ASSERT_EQ(f.walks.size(), 3u);  // the split update once (its boundary part), ex, hz_new
  EXPECT_EQ(f.walks[0].faces, (Faces{{"ey", "ey"}}));
  EXPECT_EQ(f.walks[1].faces, (Faces{{"ex", "ex"}}));
  EXPECT_EQ(f.walks[2].faces, (Faces{{"hz_new", "hz"}}));  // through the grid it swaps with
  EXPECT_EQ(f.exchanged, (std::vector<std::string>{"hz", "ey", "ex"}));
  EXPECT_EQ(f.radius, 1);
}

// A step of one update keeps the form's fastest walk (FlowLoop::update and its face stores).
TEST(LoopForms, OneUpdateStep) {
  const Module m = testing::parse_ok(R"(module "one.cpp"

program @one(%a: grid<f32, 1> halo[2:2], %b: grid<f32, 1> halo[2:2], %n: i32) decomposed persistent {
  for %t: i32 = 0 to %n step 1 {
    halo_send %a
    foreach[inner 2:2] %b.interior (%i) {
      store %b = %a[-2] + %a[2]
    }
    halo_recv %a
    phase_barrier
    foreach[boundary 2:2] %b.interior (%i) {
      store %b = %a[-2] + %a[2]
    }
    phase_barrier
    swap %a, %b
  }
}
)");
  const FlowLoop f = find_flow_loop(m.programs[0]);
  ASSERT_NE(f.update, nullptr);
  EXPECT_EQ(f.put_handle, "a");
  EXPECT_EQ(f.put_grid, "b");
  ASSERT_EQ(f.walks.size(), 1u);
  EXPECT_EQ(f.walks[0].faces, (Faces{{"b", "a"}}));
  EXPECT_EQ(f.radius, 2);
}

// A written grid that swaps with two exchanged grids has no one exchange for its faces: no form.
TEST(LoopForms, TwoCandidateExchangesNoForm) {
  const Module m = testing::parse_ok(R"(module "two.cpp"

program @two(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1], %c: grid<f32, 1> halo[1:1], %n: i32) decomposed persistent {
  for %t: i32 = 0 to %n step 1 {
    halo_send %a
    halo_send %b
    halo_recv %a
    halo_recv %b
    phase_barrier
    foreach %c.interior (%i) {
      store %c = %a[-1] + %b[1]
    }
    phase_barrier
    swap %c, %a
    swap %c, %b
  }
}
)");
  EXPECT_EQ(find_flow_loop(m.programs[0]).loop, nullptr);
}

// A reduction's allreduce may follow it past phase barriers and exchanges, not past anything
// else.
TEST(LoopForms, AllreduceAfterTheReduction) {
  const Module m = testing::parse_ok(R"(module "red.cpp"

program @red(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1], %out: ref f32, %n: i32) decomposed persistent {
  reduce %r: f32 = sum %a.interior (%i) {
    store %b = %a[0]
    yield %a[0]
  }
  phase_barrier
  halo_send %b
  halo_recv %b
  allreduce %r sum
  reduce %s: f32 = sum %a.interior (%i) {
    yield %a[0]
  }
  %out = %r
  allreduce %s sum
}
)");
  const Block* body = as<Block>(m.programs[0].body);
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(allreduce_after(*body, 0), 4u);
  EXPECT_EQ(allreduce_after(*body, 5), body->stmts.size());  // an assignment between
  EXPECT_EQ(allreduce_after(*body, 1), body->stmts.size());  // not a reduction
}

}  // namespace
}  // namespace stencilc::passes
