// The host pipeline's passes called as a library: the pipeline text names registered passes, the
// passes compose on a whole program, keep what they do not change, and fail without side effects.
#include <gtest/gtest.h>

#include "ir/IRPrinter.h"
#include "ir/Verifier.h"
#include "passes/Decompose.h"
#include "passes/InferHalos.h"
#include "passes/InsertExchanges.h"
#include "passes/LowerExchanges.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "passes/ScheduleFacts.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::passes {
namespace {

using namespace ir;

const char* kJacobi = R"(module "jacobi2d.cpp"

program @jacobi(%a: grid<f32, 2>, %a_new: grid<f32, 2>, %iters: i32, %norm: ref f32) loc(4:17) {
  for %t: i32 = 0 to %iters step 1 loc(6:3) {
    foreach %a_new.interior (%i, %j) loc(7:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(8:7)
    }
    reduce %red: f32 = sum %a_new.interior (%i, %j) loc(10:24) {
      yield %a_new[0, 0] - %a[0, 0]
    }
    %norm = %red loc(10:7)
    swap %a, %a_new loc(13:5)
  }
}
)";

TEST(HostPipeline, NamesRegisteredPassesInOrder) {
  PassPipeline pipeline;
  std::string error;
  ASSERT_TRUE(pipeline.add_pipeline(host_pipeline(), PassRegistry::builtin(), &error)) << error;
  std::vector<std::string> names;
  for (const PassInfo& p : pipeline.passes()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"infer-halos", "decompose", "insert-exchanges",
                                             "lower-exchanges", "place-signaled-puts"}));
}

TEST(HostPipeline, LowersJacobiToHaloTransfersAndAnAllReduce) {
  PassPipeline pipeline;
  std::string error;
  ASSERT_TRUE(pipeline.add_pipeline(host_pipeline(), PassRegistry::builtin(), &error));
  PassResult r = pipeline.run(testing::parse_ok(kJacobi));
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(print(r.module), R"(module "jacobi2d.cpp"

program @jacobi(%a: grid<f32, 2> halo[1:1, 1:1], %a_new: grid<f32, 2> halo[1:1, 1:1], %iters: i32, %norm: ref f32) decomposed loc(4:17) {
  for %t: i32 = 0 to %iters step 1 loc(6:3) {
    halo_send %a loc(7:5)
    halo_recv %a loc(7:5)
    foreach %a_new.interior (%i, %j) loc(7:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(8:7)
    }
    reduce %red: f32 = sum %a_new.interior (%i, %j) loc(10:24) {
      yield %a_new[0, 0] - %a[0, 0]
    }
    allreduce %red sum loc(10:24)
    %norm = %red loc(10:7)
    swap %a, %a_new loc(13:5)
  }
}
)");
}

TEST(HostPipeline, PassesKeepTheBodiesTheyDoNotChange) {
  Module m = testing::parse_ok(kJacobi);
  Module inferred = infer_halos(m);
  EXPECT_EQ(inferred.programs[0].body, m.programs[0].body);  // only the parameters change
  EXPECT_EQ(print(infer_halos(inferred)), print(inferred));  // and a second run changes nothing

  // Exchanges already where they belong: nothing is inserted, and the body is the same node.
  Module placed = insert_exchanges(inferred).module;
  Module again = insert_exchanges(placed).module;
  EXPECT_EQ(again.programs[0].body, placed.programs[0].body);

  // No exchange to lower: the same body comes back.
  PassResult decomposed = decompose(inferred);
  ASSERT_TRUE(decomposed.ok());
  PassResult lowered = lower_exchanges(decomposed.module);
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered.module.programs[0].body, decomposed.module.programs[0].body);
}

TEST(HostPipeline, FailingPassesHandTheModuleBackUnchanged) {
  Module m = testing::parse_ok(kJacobi);
  PassResult r = decompose(m);  // halos not inferred
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0],
            "jacobi2d.cpp:4:17: error: in program @jacobi: the halos of %a are not inferred (run "
            "infer-halos before decompose)");
  EXPECT_EQ(print(r.module), print(m));

  Module with_exchange = insert_exchanges(infer_halos(m)).module;
  PassResult l = lower_exchanges(with_exchange);  // not decomposed
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_NE(l.errors[0].find("jacobi2d.cpp:7:5: error: in program @jacobi: cannot lower the "
                             "exchange of %a: the program is not decomposed"),
            std::string::npos);
  EXPECT_EQ(print(l.module), print(with_exchange));
  EXPECT_TRUE(verify(l.module).empty());
}

}  // namespace
}  // namespace stencilc::passes

namespace stencilc::passes {
namespace {

// A step whose branches move different bytes: the then branch one grid (8 bytes a point), the
// else branch two updates (16 bytes a point); the condition named like fuse-sweeps' own.
std::string branches(const char* mark) {
  return std::string(R"(module "s.cpp"

program @s(%a: grid<f32, 1> halo[1:1], %b: grid<f32, 1> halo[1:1], %n: i32, %fused_ranges: bool) decomposed {
  for %t: i32 = 0 to %n step 1 {
    if %fused_ranges)") + mark + R"( {
      foreach %b.interior (%i) {
        store %b = %b[0] + 1.0f
      }
    } else {
      foreach %b.interior (%i) {
        store %b = %a[0]
      }
      foreach %a.interior (%i) {
        store %a = %b[0]
      }
    }
  }
}
)";
}

// ScheduleFacts takes fuse-sweeps' fused version (an If marked versioned, whatever its condition
// is called) and otherwise the branch that moves more: a user's own `if` on a flag named like the
// pass's condition is not taken for one.
TEST(ScheduleFacts, TakesTheFusedVersionOnlyWhereMarked) {
  const Module versioned = testing::parse_ok(branches(" versioned"));
  const ScheduleFacts fused = schedule_facts(versioned.programs[0]);
  EXPECT_EQ(fused.updates, 1);
  EXPECT_EQ(fused.bytes_per_point, 8);
  const Module user = testing::parse_ok(branches(""));
  const ScheduleFacts larger = schedule_facts(user.programs[0]);
  EXPECT_EQ(larger.updates, 2);
  EXPECT_EQ(larger.bytes_per_point, 16);
}

}  // namespace
}  // namespace stencilc::passes
