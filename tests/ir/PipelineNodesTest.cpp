// The nodes the CPU-free pipeline adds (halo_send, halo_recv, allreduce, phase_barrier), the
// parameters' inferred halos and the `decomposed` mark: builders, printer golden text, exact round
// trip, visitor and mutator, and the verifier's rules for each.
#include <gtest/gtest.h>

#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Verifier.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

using testing::parse_error;
using testing::parse_ok;

// What decompose, insert-exchanges and lower-exchanges make of a Jacobi with a norm.
const char* kDecomposed = R"(module "jacobi2d.cpp"

program @jacobi(%a: grid<f32, 2> halo[1:1, 1:1], %a_new: grid<f32, 2> halo[1:1, 1:1], %u: grid<f64, 2> halo[0:2, 1:0] corners, %c: const grid<f32, 2> halo[0:0, 0:0], %iters: i32, %norm: ref f32) decomposed loc(4:17) {
  for %t: i32 = 0 to %iters step 1 loc(6:3) {
    halo_send %a loc(7:5)
    halo_recv %a loc(7:5)
    foreach %a_new.interior (%i, %j) loc(7:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(8:7)
    }
    phase_barrier
    reduce %red: f32 = sum %a_new.interior (%i, %j) loc(10:24) {
      yield %a_new[0, 0] - %a[0, 0]
    }
    allreduce %red sum loc(10:24)
    var %m: f32 = %red
    allreduce %m max
    allreduce %m min loc(11:1)
    %norm = sqrt(%red) loc(10:7)
    swap %a, %a_new loc(13:5)
  }
}
)";

Param grid(const std::string& name, int rank, std::vector<int> lo, std::vector<int> hi,
           bool corners = false) {
  Param p = testing::param(name, ParamKind::Grid, ScalarType::F32, rank, false);
  p.halo_lo = std::move(lo);
  p.halo_hi = std::move(hi);
  p.halo_corners = corners;
  return p;
}

TEST(PipelineNodes, BuildersKeepTheirOperands) {
  auto* send = as<HaloSend>(make_halo_send("a", {"", 3, 4}));
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(send->grid, "a");
  EXPECT_EQ(send->loc.line, 3);
  auto* recv = as<HaloRecv>(make_halo_recv("b"));
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(recv->grid, "b");
  auto* all = as<AllReduce>(make_all_reduce("r", ReduceOp::Max));
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->var, "r");
  EXPECT_EQ(all->op, ReduceOp::Max);
  EXPECT_NE(as<PhaseBarrier>(make_phase_barrier()), nullptr);
  EXPECT_EQ(as<HaloSend>(make_halo_recv("a")), nullptr);  // kinds stay apart
}

TEST(PipelineNodes, PrinterGolden) {
  Program p;
  p.name = "p";
  p.decomposed = true;
  p.loc = {"", 2, 1};
  p.params = {grid("a", 2, {1, 0}, {1, 2}), grid("u", 2, {1, 1}, {1, 1}, true),
              grid("b", 1, {}, {}),
              testing::param("n", ParamKind::Scalar, ScalarType::I32, 0, false)};
  p.params[1].type = ScalarType::F64;
  p.body =
      make_block({make_halo_send("a", {"", 3, 3}), make_halo_recv("a", {"", 3, 3}),
                  make_reduce("r", ScalarType::F32, ReduceOp::Min, make_interior("a", 2),
                              {"i", "j"}, make_block({make_yield(make_float(0, ScalarType::F32))})),
                  make_all_reduce("r", ReduceOp::Min, {"x.h", 4, 1}), make_phase_barrier()});
  Module m{"p.cpp", {}, {p}};
  EXPECT_EQ(print(m), R"(module "p.cpp"

program @p(%a: grid<f32, 2> halo[1:1, 0:2], %u: grid<f64, 2> halo[1:1, 1:1] corners, %b: grid<f32, 1>, %n: i32) decomposed loc(2:1) {
  halo_send %a loc(3:3)
  halo_recv %a loc(3:3)
  reduce %r: f32 = min %a.interior (%i, %j) {
    yield 0.0f
  }
  allreduce %r min loc("x.h":4:1)
  phase_barrier
}
)");
}

TEST(PipelineNodes, PrinterShowsIllFormedHalosInsteadOfHidingThem) {
  EXPECT_EQ(print(grid("a", 2, {1}, {1, 2})), "%a: grid<f32, 2> halo[1:1, ?:2]");
  EXPECT_EQ(print(grid("a", 2, {}, {}, true)), "%a: grid<f32, 2> corners");
}

TEST(PipelineNodes, RoundTripIsExact) {
  Module m = parse_ok(kDecomposed);
  EXPECT_EQ(print(m), kDecomposed);
  EXPECT_TRUE(verify(m).empty());
  const Program& p = m.programs[0];
  EXPECT_TRUE(p.decomposed);
  EXPECT_EQ(p.params[2].halo_lo, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.params[2].halo_hi, (std::vector<int>{2, 0}));
  EXPECT_TRUE(p.params[2].halo_corners);
  EXPECT_FALSE(p.params[0].halo_corners);
  EXPECT_TRUE(p.params[4].halo_lo.empty());
}

TEST(PipelineNodes, ParseErrors) {
  const std::string head = "module \"t\"\nprogram @p(%a: grid<f32, 1>";
  EXPECT_NE(parse_error(head + " halo[]) {\n}\n").find("expected a halo width below"),
            std::string::npos);
  EXPECT_NE(parse_error(head + " halo[1]) {\n}\n").find("expected ':'"), std::string::npos);
  EXPECT_NE(parse_error(head + " halo[1:1) {\n}\n").find("expected ']'"), std::string::npos);
  EXPECT_NE(parse_error(head + ") decomposed {\n  allreduce %r avg\n}\n")
                .find("expected a reduction (sum, max, min), found 'avg'"),
            std::string::npos);
  EXPECT_NE(parse_error(head + ") {\n  halo_send a\n}\n").find("expected a grid (%name)"),
            std::string::npos);
}

// Counts the new statements; the default walk must reach them inside loops and ifs.
struct CountPipelineNodes : IRVisitor {
  using IRVisitor::visit;
  int sends = 0, recvs = 0, allreduces = 0, barriers = 0;
  void visit(const HaloSend*) override { ++sends; }
  void visit(const HaloRecv*) override { ++recvs; }
  void visit(const AllReduce*) override { ++allreduces; }
  void visit(const PhaseBarrier*) override { ++barriers; }
};

TEST(PipelineNodes, VisitorReachesEveryNewNode) {
  CountPipelineNodes count;
  count.visit(parse_ok(kDecomposed));
  EXPECT_EQ(count.sends, 1);
  EXPECT_EQ(count.recvs, 1);
  EXPECT_EQ(count.allreduces, 3);
  EXPECT_EQ(count.barriers, 1);
}

struct DropPhaseBarriers : IRMutator {
  using IRMutator::visit;
  Stmt visit(const Ref<PhaseBarrier>&) override { return nullptr; }
};

TEST(PipelineNodes, MutatorKeepsPointersAndHalos) {
  Module m = parse_ok(kDecomposed);
  Module same = IRMutator().mutate(m);
  EXPECT_EQ(same.programs[0].body, m.programs[0].body);
  Module out = DropPhaseBarriers().mutate(m);
  std::string text = print(out);
  EXPECT_EQ(text.find("phase_barrier"), std::string::npos);
  EXPECT_NE(text.find("halo_send %a loc(7:5)"), std::string::npos);
  EXPECT_NE(text.find("halo[0:2, 1:0] corners"), std::string::npos);
  EXPECT_NE(text.find(") decomposed loc(4:17)"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Verifier

std::string verify_text(const std::string& text) {
  std::string out;
  for (const std::string& e : verify(parse_ok(text))) out += e + "\n";
  return out;
}

// A program with grids %a (halos inferred), %b (not inferred) and %k (const), scalars %n and %r.
std::string program(const std::string& body, const std::string& mark = " decomposed",
                    const std::string& kind = "program") {
  return "module \"t.cpp\"\n\n" + kind +
         " @p(%a: grid<f32, 2> halo[1:1, 1:1], %b: grid<f32, 2>, %k: const grid<f32, 2> "
         "halo[0:0, 0:0], %n: i32, %r: ref f32)" +
         mark + " loc(1:1) {\n" + body + "\n}\n";
}

#define EXPECT_VALID(text)                 \
  do {                                     \
    std::string errs_ = verify_text(text); \
    EXPECT_EQ(errs_, "");                  \
  } while (0)
#define EXPECT_INVALID(text, message)                           \
  do {                                                          \
    std::string errs_ = verify_text(text);                      \
    EXPECT_NE(errs_.find(message), std::string::npos) << errs_; \
  } while (0)

TEST(PipelineNodesVerifier, HaloWidthsMatchTheRankAndAreNotNegative) {
  EXPECT_VALID(program(""));
  EXPECT_VALID(program("", ""));
  EXPECT_INVALID("module \"t\"\nprogram @p(%a: grid<f32, 2> halo[1:1]) loc(1:1) {\n}\n",
                 "t:1:1: error: in program @p: %a has halo widths for 1 dimensions, expected 2");
  EXPECT_INVALID("module \"t\"\nprogram @p(%a: grid<f32, 1> halo[-1:0]) {\n}\n",
                 "error: in program @p: %a has a negative halo width -1");
  EXPECT_INVALID("module \"t\"\nprogram @p(%a: grid<f32, 1> halo[0:-2]) {\n}\n",
                 "negative halo width -2");
  EXPECT_INVALID("module \"t\"\nprogram @p(%a: grid<f32, 1> corners) {\n}\n",
                 "%a has corners but no halo widths");
  // Blocks follow the same rule.
  EXPECT_VALID("module \"t\"\nspmd_program @q(%u: block<f64, 1> halo[2:2]) {\n}\n");
  EXPECT_INVALID("module \"t\"\nspmd_program @q(%u: block<f64, 1> halo[2:2, 0:0]) {\n}\n",
                 "%u has halo widths for 2 dimensions, expected 1");
}

TEST(PipelineNodesVerifier, HalosOnScalarsAreRejected) {
  Program p;
  p.name = "p";
  Param n = testing::param("n", ParamKind::Scalar, ScalarType::I32, 0, false);
  n.halo_lo = n.halo_hi = {1};
  p.params = {n};
  p.body = make_block({});
  Module m{"t.cpp", {}, {p}};
  std::vector<std::string> errors = verify(m);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "error: in program @p: scalar parameter %n cannot have halos");
}

TEST(PipelineNodesVerifier, OnlyGlobalProgramsAreDecomposed) {
  EXPECT_INVALID("module \"t\"\nspmd_program @q(%u: block<f64, 1>) decomposed loc(2:1) {\n}\n",
                 "t:2:1: error: in program @q: an SPMD program cannot be decomposed");
}

TEST(PipelineNodesVerifier, HaloTransfersNameGridsWithInferredHalos) {
  EXPECT_VALID(program("  halo_send %a\n  halo_recv %a\n  halo_send %k\n  halo_recv %k"));
  EXPECT_VALID(
      program("  for %t: i32 = 0 to %n step 1 {\n    if %t > 0 {\n      halo_send %a\n"
              "    }\n    halo_recv %a\n  }"));
  EXPECT_INVALID(program("  halo_send %b loc(4:3)"),
                 "t.cpp:4:3: error: in program @p: halo_send of %b, whose halos are not inferred");
  EXPECT_INVALID(program("  halo_recv %b"), "halo_recv of %b, whose halos are not inferred");
  EXPECT_INVALID(program("  halo_send %n"), "halo_send of %n, which is not a grid parameter");
  EXPECT_INVALID(program("  halo_recv %zz"), "halo_recv of %zz, which is not a grid parameter");
  EXPECT_INVALID(program("  halo_send %a", ""), "halo_send is only allowed in decomposed programs");
  EXPECT_INVALID(program("  halo_recv %a", ""), "halo_recv is only allowed in decomposed programs");
  EXPECT_INVALID(program("  foreach %a.interior (%i, %j) {\n    halo_send %a\n    store %a = 0.0f\n"
                         "  }"),
                 "halo_send is not allowed in a foreach or reduce body");
  EXPECT_INVALID(
      "module \"t\"\nspmd_program @q(%u: block<f64, 1> halo[1:1]) {\n"
      "  halo_recv %u\n}\n",
      "halo_recv is only allowed in decomposed programs");
  EXPECT_INVALID(
      "module \"t\"\nspmd_program @q(%u: block<f64, 1> halo[1:1]) {\n"
      "  halo_send %u\n}\n",
      "halo_send of %u, which is not a grid parameter");
}

TEST(PipelineNodesVerifier, AllReduceCombinesAReductionOrANumericLocal) {
  const std::string reduce =
      "  reduce %s: f32 = sum %a.interior (%i, %j) {\n    yield %a[0, 0]\n  }\n";
  EXPECT_VALID(program(reduce + "  allreduce %s sum\n  allreduce %s max\n  allreduce %s min"));
  EXPECT_VALID(program("  var %count: i64 = 1l\n  allreduce %count sum"));
  EXPECT_VALID(program("  if %n > 0 {\n" + reduce + "    allreduce %s sum\n  }"));
  EXPECT_INVALID(program(reduce + "  allreduce %s sum", ""),
                 "allreduce is only allowed in decomposed programs");
  EXPECT_INVALID(program("  allreduce %s sum\n" + reduce),
                 "allreduce of undeclared %s");  // the result exists after its reduce only
  EXPECT_INVALID(program("  if %n > 0 {\n" + reduce + "  }\n  allreduce %s sum"),
                 "allreduce of undeclared %s");  // nor outside the scope it was declared in
  EXPECT_INVALID(program("  allreduce %n sum"),
                 "allreduce of %n, which is not a reduction result or a numeric local");
  EXPECT_INVALID(program("  allreduce %r sum"), "which is not a reduction result");
  EXPECT_INVALID(program("  var %f: bool = true\n  allreduce %f max"),
                 "allreduce of %f, which is not a reduction result or a numeric local");
  EXPECT_INVALID(program("  for %t: i32 = 0 to %n step 1 {\n    allreduce %t sum\n  }"),
                 "allreduce of %t, which is not a reduction result");
  EXPECT_INVALID(program("  reduce %s: f32 = sum %a.interior (%i, %j) {\n    var %x: f32 = 0.0f\n"
                         "    allreduce %x sum\n    yield %x\n  }"),
                 "allreduce is not allowed in a foreach or reduce body");
}

TEST(PipelineNodesVerifier, PhaseBarrierAnywhereAtProgramLevel) {
  EXPECT_VALID(
      program("  phase_barrier\n  for %t: i32 = 0 to %n step 1 {\n    phase_barrier\n  }"));
  EXPECT_VALID(program("  phase_barrier", ""));
  EXPECT_VALID("module \"t\"\nspmd_program @q(%u: block<f64, 1>) {\n  phase_barrier\n}\n");
  EXPECT_INVALID(
      program("  foreach %a.interior (%i, %j) {\n    phase_barrier\n    store %a = 0.0f\n"
              "  }"),
      "phase_barrier is not allowed in a foreach or reduce body");
  EXPECT_INVALID("module \"t\"\nfunc @f() -> f32 {\n  phase_barrier\n  return 0.0f\n}\n",
                 "error: in function @f: phase_barrier is not allowed in a function");
}

}  // namespace
}  // namespace stencilc::ir
