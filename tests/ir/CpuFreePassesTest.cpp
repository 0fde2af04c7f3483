// The CPU-free passes (split-boundary, place-signaled-puts, persistent-fusion, specialize-blocks)
// on every sample: the pipeline's list, the phase-barrier checker on hand-written programs, and,
// for each sample's IR after the pipeline, that its barriers order every dependence and that
// each of them is needed (removing any one leaves a dependence unordered). Also that each pass
// is idempotent.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Verifier.h"
#include "passes/FuseSweeps.h"
#include "passes/PassManager.h"
#include "passes/PersistentFusion.h"
#include "passes/PhaseBarriers.h"
#include "passes/Pipelines.h"
#include "passes/PlaceSignaledPuts.h"
#include "passes/SpecializeBlocks.h"
#include "passes/SplitBoundary.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::passes {
namespace {

using namespace ir;

// tests/passes/Inputs: the front end's IR of the spec examples and of the other samples, the
// SPMD ones last.
const char* const kInputs[] = {"jacobi2d",      "heat3d",    "poisson9",     "wave2d",
                               "fdtd2d",        "advect2d",  "multiwrite2d", "box27",
                               "convergence2d", "cg2d",      "spmd_ring",    "spmd_heat2d"};

Module load(const std::string& name) {
  std::ifstream in(std::string(STENCILC_PASS_INPUTS) + "/" + name + ".ir");
  std::stringstream text;
  text << in.rdbuf();
  return testing::parse_ok(text.str());
}

Module run(const Module& m, const std::string& pipeline_text) {
  PassPipeline pipeline;
  std::string error;
  EXPECT_TRUE(pipeline.add_pipeline(pipeline_text, PassRegistry::builtin(), &error)) << error;
  PassResult r = pipeline.run(m);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0]);
  return r.module;
}

std::vector<std::string> pass_names(const char* pipeline_text) {
  PassPipeline pipeline;
  std::string error;
  EXPECT_TRUE(pipeline.add_pipeline(pipeline_text, PassRegistry::builtin(), &error)) << error;
  std::vector<std::string> names;
  for (const PassInfo& p : pipeline.passes()) names.push_back(p.name);
  return names;
}

/// Removes the k-th phase_barrier (in program order).
class DropBarrier : public IRMutator {
 public:
  explicit DropBarrier(int k) : k_(k) {}

 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<PhaseBarrier>& op) override { return n_++ == k_ ? nullptr : op; }

 private:
  int k_, n_ = 0;
};

struct CountBarriers : IRVisitor {
  using IRVisitor::visit;
  int all = 0, comm = 0, compute = 0;
  void visit(const PhaseBarrier* op) override {
    ++(op->role == WorkerRole::Comm ? comm : op->role == WorkerRole::Compute ? compute : all);
  }
};

/// Every dependence ordered, and every barrier needed for that.
void expect_minimal_barriers(const Program& p, const std::string& what) {
  EXPECT_EQ(unordered_dependences(p), std::vector<std::string>{}) << what;
  CountBarriers count;
  count.visit(p.body);
  for (int k = 0; k < count.all + count.comm + count.compute; ++k) {
    Program without = p;
    without.body = DropBarrier(k).mutate(p.body);
    EXPECT_FALSE(unordered_dependences(without).empty())
        << what << ": barrier #" << k << " is not needed in\n"
        << print(p);
  }
}

TEST(CpuFreePipeline, NamesRegisteredPassesInOrder) {
  EXPECT_EQ(pass_names(host_pipeline()),
            (std::vector<std::string>{"infer-halos", "decompose", "insert-exchanges",
                                      "lower-exchanges", "place-signaled-puts"}));
  EXPECT_EQ(pass_names(cpu_free_pipeline()),
            (std::vector<std::string>{"infer-halos", "decompose", "insert-exchanges",
                                      "lower-exchanges", "fuse-sweeps", "split-boundary",
                                      "place-signaled-puts",
                                      "persistent-fusion", "specialize-blocks", "select-loop-forms"}));
}

TEST(CpuFreePipeline, EverySampleIsOrderedByNeededBarriersOnly) {
  for (const char* name : kInputs) {
    Module host = run(load(name), host_pipeline());
    // persistent-fusion alone, as a host pipeline with it would run it.
    Module fused = persistent_fusion(host);
    EXPECT_TRUE(verify(fused).empty()) << name;
    expect_minimal_barriers(fused.programs.back(), std::string(name) + " (persistent-fusion)");
    // The whole pipeline, with roles and group barriers.
    Module full = run(load(name), cpu_free_pipeline());
    const Program& p = full.programs.back();
    EXPECT_TRUE(p.persistent) << name;
    expect_minimal_barriers(p, std::string(name) + " (cpu-free pipeline)");
  }
}

TEST(CpuFreePipeline, EveryPassIsIdempotent) {
  for (const char* name : kInputs) {
    Module lowered = run(load(name), "infer-halos,decompose,insert-exchanges,lower-exchanges");
    Module swept = fuse_sweeps(lowered);
    EXPECT_EQ(print(fuse_sweeps(swept)), print(swept)) << name;
    Module split = split_boundary(swept);
    EXPECT_EQ(print(split_boundary(split)), print(split)) << name;
    Module placed = place_signaled_puts(split);
    EXPECT_EQ(print(place_signaled_puts(placed)), print(placed)) << name;
    Module fused = persistent_fusion(placed);
    EXPECT_EQ(print(persistent_fusion(fused)), print(fused)) << name;
    PassResult specialised = specialize_blocks(fused);
    ASSERT_TRUE(specialised.ok()) << name;
    EXPECT_EQ(print(specialize_blocks(specialised.module).module), print(specialised.module))
        << name;
  }
}

TEST(CpuFreePipeline, BarriersPerStep) {
  // Jacobi: two PE-wide barriers per step (after the receive, after the update); specialised,
  // one of them only orders the comm workers.
  Module fused = persistent_fusion(run(load("jacobi2d"), host_pipeline()));
  CountBarriers before;
  before.visit(fused.programs[0].body);
  EXPECT_EQ(before.all, 2);
  Module full = run(load("jacobi2d"), cpu_free_pipeline());
  CountBarriers after;
  after.visit(full.programs[0].body);
  EXPECT_EQ(after.all, 1);
  EXPECT_EQ(after.comm, 1);
  EXPECT_EQ(after.compute, 0);
}

TEST(CpuFreePipeline, SpmdBarriersPerStep) {
  // The ring: one PE-wide barrier per step (before the boundary part) and one among the comm
  // workers (between the boundary part and the puts of its edge points).
  Module ring = run(load("spmd_ring"), cpu_free_pipeline());
  CountBarriers count;
  count.visit(ring.programs.back().body);
  EXPECT_EQ(count.all, 1);
  EXPECT_EQ(count.comm, 1);
  EXPECT_EQ(count.compute, 0);
}

TEST(CpuFreePipeline, SpmdProgramsWithoutTransfersOnlyBecomePersistent) {
  Module m = testing::parse_ok(R"(module "t.cpp"

spmd_program @s(%u: block<f64, 1>, %v: block<f64, 1>) {
  foreach %u.owned (%i) {
    store %u = %v[1]
  }
  barrier_all
}
)");
  Module out = specialize_blocks(persistent_fusion(place_signaled_puts(split_boundary(m)))).module;
  EXPECT_TRUE(out.programs[0].persistent);
  EXPECT_EQ(out.programs[0].body, m.programs[0].body);
}

TEST(CpuFreePipeline, PassesLeaveUndecomposedProgramsAlone) {
  Module m = testing::parse_ok(R"(module "t.cpp"

program @g(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1]) {
  exchange %a
  foreach %b.interior (%i) {
    store %b = %a[1]
  }
}
)");
  Module out = specialize_blocks(persistent_fusion(place_signaled_puts(split_boundary(m)))).module;
  EXPECT_EQ(print(out), print(m));
  EXPECT_EQ(out.programs[0].body, m.programs[0].body);
}

// ---- The checker on hand-written programs.

const char* kUnordered = R"(module "c.cpp"

program @p(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1]) decomposed persistent {
  foreach %a.interior (%i) loc(4:3) {
    store %a = 1.0f
  }
  halo_send %a loc(7:3)
  halo_recv %a loc(7:3)
  foreach %b.interior (%i) loc(9:3) {
    store %b = %a[-1]
  }
}
)";

TEST(PhaseBarriers, ReportsWhatIsUnordered) {
  Module m = testing::parse_ok(kUnordered);
  std::vector<std::string> problems = unordered_dependences(m.programs[0]);
  EXPECT_EQ(problems,
            (std::vector<std::string>{
                "halo_send %a loc(7:3) reads the send layers of %a after foreach %a.interior (%i) "
                "loc(4:3) with no phase_barrier between them",
                "foreach %b.interior (%i) loc(9:3) reads the halo of %a after halo_recv %a "
                "loc(7:3) with no phase_barrier between them",
                "foreach %b.interior (%i) loc(9:3) reads the send layers and inner cells of %a "
                "after foreach %a.interior (%i) loc(4:3) with no phase_barrier between them"}));
  // Placing the barriers orders both, with one barrier each.
  Program placed = m.programs[0];
  placed.body = place_phase_barriers(placed);
  EXPECT_TRUE(unordered_dependences(placed).empty());
  CountBarriers count;
  count.visit(placed.body);
  EXPECT_EQ(count.all, 2);
}

TEST(PhaseBarriers, GroupBarriersOrderOnlyTheirGroup) {
  // The boundary part (comm) writes what the send (comm) packs: a comm barrier does. The inner
  // part (compute) reads %a off-centre inside the block, which the comm workers' first update
  // wrote: that needs a PE-wide barrier, which the comm one is not.
  const char* text = R"(module "g.cpp"

program @p(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1], %n: i32) decomposed persistent {
  for %t: i32 = 0 to %n step 1 {
    foreach[boundary 1:1] %a.interior (%i) role(comm) {
      store %a = %b[0]
    }
    foreach[inner 1:1] %a.interior (%i) role(compute) cost(8 bytes/point) {
      store %a = %b[0]
    }
    phase_barrier role(comm)
    halo_send %a role(comm)
    foreach[inner 1:1] %b.interior (%i) role(compute) cost(8 bytes/point) {
      store %b = %a[1]
    }
    halo_recv %a role(comm)
    phase_barrier role(comm)
    foreach[boundary 1:1] %b.interior (%i) role(comm) {
      store %b = %a[1]
    }
  }
}
)";
  Module m = testing::parse_ok(text);
  ASSERT_TRUE(verify(m).empty()) << verify(m)[0];
  std::vector<std::string> problems = unordered_dependences(m.programs[0]);
  const std::string cross =
      "foreach[inner 1:1] %b.interior (%i) role(compute) cost(8 bytes/point) reads the send "
      "layers and inner cells of %a after foreach[boundary 1:1] %a.interior (%i) role(comm) with "
      "no phase_barrier between them";
  // And around the back edge, comm work after comm work with no barrier at all.
  const std::string back =
      "foreach[boundary 1:1] %a.interior (%i) role(comm) writes the send layers and inner cells "
      "of %a after foreach[boundary 1:1] %b.interior (%i) role(comm) with no role(comm) or "
      "PE-wide phase_barrier between them";
  EXPECT_NE(std::find(problems.begin(), problems.end(), cross), problems.end());
  EXPECT_NE(std::find(problems.begin(), problems.end(), back), problems.end());
  // Re-placing and narrowing (what specialize-blocks does) orders everything.
  Module fixed = specialize_blocks(m).module;
  EXPECT_TRUE(unordered_dependences(fixed.programs[0]).empty()) << print(fixed);
  expect_minimal_barriers(fixed.programs[0], "hand-written");
}

TEST(PhaseBarriers, TheTwoPartsOfOneForeachDoNotDependOnEachOther) {
  const char* text = R"(module "p.cpp"

program @p(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1]) decomposed persistent {
  foreach[boundary 1:1] %b.interior (%i) {
    store %b = %b[0] + %a[1]
  }
  foreach[inner 1:1] %b.interior (%i) {
    store %b = %b[0] + %a[1]
  }
}
)";
  Module m = testing::parse_ok(text);
  EXPECT_TRUE(unordered_dependences(m.programs[0]).empty());
  // Two boundary parts of different foreaches are another matter.
  std::string twice = text;
  twice.replace(twice.find("foreach[inner"), 13, "foreach[boundary");
  Module n = testing::parse_ok(twice);
  EXPECT_EQ(unordered_dependences(n.programs[0]),
            std::vector<std::string>{
                "foreach[boundary 1:1] %b.interior (%i) reads the send layers and inner cells of "
                "%b after foreach[boundary 1:1] %b.interior (%i) with no phase_barrier between "
                "them"});
}

}  // namespace
}  // namespace stencilc::passes
