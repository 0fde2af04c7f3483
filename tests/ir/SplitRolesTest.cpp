// What the later CPU-free passes add to the IR: the parts of a split foreach with their widths
// (split-boundary), the `persistent` mark (persistent-fusion), worker roles and the cost on
// foreaches, transfers and barriers (specialize-blocks). Builders, printer golden text, exact
// round trip, parse errors, the mutator keeping the new fields, and the verifier's rules.
#include <gtest/gtest.h>

#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Verifier.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

using testing::parse_error;
using testing::parse_ok;

// Jacobi as the CPU-free pipeline leaves it, plus a one-sided split on a box range.
const char* kSpecialised = R"(module "jacobi2d.cpp"

program @jacobi(%a: grid<f32, 2> halo[1:1, 1:1], %a_new: grid<f32, 2> halo[1:1, 1:1], %q: grid<f64, 1> halo[1:0], %iters: i32) decomposed persistent loc(4:17) {
  for %t: i32 = 0 to %iters step 1 loc(6:3) {
    halo_send %a role(comm) loc(7:5)
    foreach[inner 1:1, 1:1] %a_new.interior (%i, %j) role(compute) cost(8 bytes/point) loc(7:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(8:7)
    }
    halo_recv %a role(comm) loc(7:5)
    phase_barrier role(comm) loc(7:5)
    foreach[boundary 1:1, 1:1] %a_new.interior (%i, %j) role(comm) loc(7:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(8:7)
    }
    phase_barrier role(compute)
    phase_barrier loc(9:5)
    swap %a, %a_new loc(10:5)
  }
  foreach[boundary 0:1] [1:%iters] (%i) {
    store %q = 1.0
  }
  halo_send %q
  foreach[inner 0:1] [1:%iters] (%i) {
    store %q = 1.0
  }
  halo_recv %q
}
)";

TEST(SplitRoles, Builders) {
  Stmt body = make_block({make_store("a", make_float(0, ScalarType::F32))});
  Stmt b = make_for_each_part(ForEachPart::Boundary, {1, 0}, {2, 1}, make_interior("a", 2),
                              {"i", "j"}, body, {"", 3, 4});
  auto* f = as<ForEach>(b);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->part, ForEachPart::Boundary);
  EXPECT_EQ(f->width_lo, (std::vector<int>{1, 0}));
  EXPECT_EQ(f->width_hi, (std::vector<int>{2, 1}));
  EXPECT_EQ(f->role, WorkerRole::All);
  EXPECT_EQ(f->bytes_per_point, 0);
  EXPECT_EQ(f->loc.line, 3);
  // A whole foreach is the default.
  EXPECT_EQ(as<ForEach>(make_for_each(make_interior("a", 2), {"i", "j"}, body))->part,
            ForEachPart::All);

  Stmt inner = with_role(make_for_each_part(ForEachPart::Inner, {1, 0}, {2, 1},
                                            make_interior("a", 2), {"i", "j"}, body),
                         WorkerRole::Compute, 12);
  EXPECT_EQ(as<ForEach>(inner)->role, WorkerRole::Compute);
  EXPECT_EQ(as<ForEach>(inner)->bytes_per_point, 12);
  EXPECT_EQ(as<ForEach>(inner)->width_hi, (std::vector<int>{2, 1}));  // the rest is kept
  EXPECT_TRUE(are_split_parts(*as<ForEach>(b), *as<ForEach>(inner)));
  EXPECT_FALSE(are_split_parts(*as<ForEach>(b), *as<ForEach>(b)));

  EXPECT_EQ(as<HaloSend>(with_role(make_halo_send("a", {"", 5, 1}), WorkerRole::Comm))->role,
            WorkerRole::Comm);
  EXPECT_EQ(as<HaloSend>(with_role(make_halo_send("a", {"", 5, 1}), WorkerRole::Comm))->loc.line,
            5);
  EXPECT_EQ(as<HaloRecv>(make_halo_recv("a", {}, WorkerRole::Comm))->role, WorkerRole::Comm);
  EXPECT_EQ(as<PhaseBarrier>(make_phase_barrier({}, WorkerRole::Compute))->role,
            WorkerRole::Compute);
  EXPECT_EQ(as<PhaseBarrier>(make_phase_barrier())->role, WorkerRole::All);
  Stmt swap = make_swap("a", "b");
  EXPECT_EQ(with_role(swap, WorkerRole::Comm), swap);  // nothing to set
  EXPECT_STREQ(to_string(ForEachPart::Inner), "inner");
  EXPECT_STREQ(to_string(WorkerRole::Compute), "compute");
}

TEST(SplitRoles, PrinterGolden) {
  Program p;
  p.name = "p";
  p.decomposed = p.persistent = true;
  p.params = {testing::param("a", ParamKind::Grid, ScalarType::F32, 1)};
  p.params[0].halo_lo = p.params[0].halo_hi = {1};
  Stmt body = make_block({make_store("a", make_float(0, ScalarType::F32))});
  p.body = make_block({make_halo_send("a", {"", 2, 3}, WorkerRole::Comm),
                       with_role(make_for_each_part(ForEachPart::Inner, {1}, {2},
                                                    make_interior("a", 1), {"i"}, body),
                                 WorkerRole::Compute, 8),
                       make_phase_barrier({}, WorkerRole::Comm),
                       make_for_each_part(ForEachPart::Boundary, {1}, {2}, make_interior("a", 1),
                                          {"i"}, body, {"", 4, 5})});
  EXPECT_EQ(print(Module{"p.cpp", {}, {p}}), R"(module "p.cpp"

program @p(%a: grid<f32, 1> halo[1:1]) decomposed persistent {
  halo_send %a role(comm) loc(2:3)
  foreach[inner 1:2] %a.interior (%i) role(compute) cost(8 bytes/point) {
    store %a = 0.0f
  }
  phase_barrier role(comm)
  foreach[boundary 1:2] %a.interior (%i) loc(4:5) {
    store %a = 0.0f
  }
}
)");
}

TEST(SplitRoles, RoundTripIsExactAndVerifies) {
  Module m = parse_ok(kSpecialised);
  EXPECT_EQ(print(m), kSpecialised);
  EXPECT_EQ(verify(m), std::vector<std::string>{});
  const Program& p = m.programs[0];
  EXPECT_TRUE(p.persistent);
  auto* loop = as<For>(as<Block>(p.body)->stmts[0]);
  const auto& stmts = as<Block>(loop->body)->stmts;
  EXPECT_EQ(as<HaloSend>(stmts[0])->role, WorkerRole::Comm);
  auto* inner = as<ForEach>(stmts[1]);
  EXPECT_EQ(inner->part, ForEachPart::Inner);
  EXPECT_EQ(inner->bytes_per_point, 8);
  EXPECT_EQ(as<PhaseBarrier>(stmts[3])->role, WorkerRole::Comm);
  EXPECT_EQ(as<PhaseBarrier>(stmts[5])->role, WorkerRole::Compute);
  EXPECT_EQ(as<PhaseBarrier>(stmts[6])->role, WorkerRole::All);
  // A box range still parses after `foreach` (the part's `[` is told apart by its keyword).
  auto* box = as<ForEach>(as<Block>(p.body)->stmts[1]);
  EXPECT_EQ(box->range.kind, Range::Kind::Box);
  EXPECT_EQ(box->width_lo, (std::vector<int>{0}));
  EXPECT_EQ(box->width_hi, (std::vector<int>{1}));
}

TEST(SplitRoles, ParseErrors) {
  const std::string head =
      "module \"t\"\nprogram @p(%a: grid<f32, 1> halo[1:1]) decomposed persistent {\n";
  EXPECT_NE(
      parse_error(head + "  foreach[inner 1] %a.interior (%i) {\n  }\n}\n").find("expected ':'"),
      std::string::npos);
  EXPECT_NE(
      parse_error(head + "  foreach[inner 1:1 %a.interior (%i) {\n  }\n}\n").find("expected ']'"),
      std::string::npos);
  EXPECT_NE(parse_error(head + "  foreach[inner x:1] %a.interior (%i) {\n  }\n}\n")
                .find("expected a width below"),
            std::string::npos);
  EXPECT_NE(parse_error(head + "  halo_send %a role(io)\n}\n")
                .find("expected a role (comm, compute), found 'io'"),
            std::string::npos);
  EXPECT_NE(parse_error(head + "  phase_barrier role comm\n}\n").find("expected '('"),
            std::string::npos);
  EXPECT_NE(parse_error(head + "  foreach[inner 1:1] %a.interior (%i) cost(8) {\n  }\n}\n")
                .find("expected 'bytes'"),
            std::string::npos);
  EXPECT_NE(
      parse_error(head + "  foreach[inner 1:1] %a.interior (%i) cost(x bytes/point) {\n  }\n}\n")
          .find("expected a number of bytes per point"),
      std::string::npos);
  // `persistent` comes after `decomposed`.
  EXPECT_NE(
      parse_error("module \"t\"\nprogram @p() persistent decomposed {\n}\n").find("expected '{'"),
      std::string::npos);
}

// A pass that rewrites point bodies (here: every 0.0f becomes 1.0f) must keep what the pipeline
// attached to the foreach.
struct BumpZeros : IRMutator {
  using IRMutator::visit;
  Expr visit(const Ref<FloatImm>& op) override {
    return op->value == 0.0 ? make_float(1.0, op->type) : Expr(op);
  }
};

TEST(SplitRoles, MutatorKeepsPartsWidthsRolesAndCosts) {
  const char* text = R"(module "m.cpp"

program @p(%a: grid<f32, 1> halo[1:1]) decomposed persistent {
  for %t: i32 = 0 to 2 step 1 {
    halo_send %a role(comm)
    foreach[inner 2:1] %a.interior (%i) role(compute) cost(4 bytes/point) {
      store %a = 0.0f
    }
    halo_recv %a role(comm)
    phase_barrier role(comm)
    foreach[boundary 2:1] %a.interior (%i) role(comm) {
      store %a = 0.0f
    }
  }
}
)";
  Module m = parse_ok(text);
  EXPECT_EQ(IRMutator().mutate(m).programs[0].body, m.programs[0].body);
  std::string bumped = print(BumpZeros().mutate(m));
  std::string expected = text;
  for (size_t at; (at = expected.find("0.0f")) != std::string::npos;)
    expected.replace(at, 4, "1.0f");
  EXPECT_EQ(bumped, expected);
}

// ---------------------------------------------------------------------------------------------
// Verifier

std::string verify_text(const std::string& text) {
  std::string out;
  for (const std::string& e : verify(parse_ok(text))) out += e + "\n";
  return out;
}

// A 2-D program with grids %a, %b (halos inferred) and a scalar %n; `body` goes in a time loop.
std::string program(const std::string& body, const std::string& marks = " decomposed persistent") {
  return "module \"t.cpp\"\n\nprogram @p(%a: grid<f32, 2> halo[1:1, 1:1], %b: grid<f32, 2> "
         "halo[1:1, 1:1], %n: i32)" +
         marks + " loc(1:1) {\n  for %t: i32 = 0 to %n step 1 {\n" + body + "\n  }\n}\n";
}

// The two parts of `foreach %b.interior { store %b = %a[1, 0] }`, with optional extras.
std::string part(const std::string& which, const std::string& widths = "1:1, 1:1",
                 const std::string& extra = "", const std::string& loc = "") {
  return "    foreach[" + which + " " + widths + "] %b.interior (%i, %j)" + extra + loc +
         " {\n      store %b = %a[1, 0]\n    }\n";
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

TEST(SplitRolesVerifier, PartsHaveOneWidthPairPerDimensionAndAPartner) {
  EXPECT_VALID(program(part("boundary") + part("inner")));
  EXPECT_VALID(
      program(part("inner", "0:2, 1:0") + "    halo_recv %a\n" + part("boundary", "0:2, 1:0")));
  EXPECT_VALID(
      program(part("boundary") + part("inner"), " decomposed"));  // before persistent-fusion
  EXPECT_INVALID(program(part("boundary") + part("inner"), ""),
                 "foreach[boundary] is only allowed in decomposed and SPMD programs");
  EXPECT_INVALID(program(part("boundary", "1:1") + part("inner", "1:1")),
                 "foreach[boundary] has widths for 1 dimensions, expected 2");
  EXPECT_INVALID(program(part("boundary", "1:-1, 0:0") + part("inner", "1:-1, 0:0")),
                 "foreach[inner] has a negative width -1");
  EXPECT_INVALID(program(part("boundary", "0:0, 0:0") + part("inner", "0:0, 0:0")),
                 "foreach[boundary] has zero widths: its boundary would be empty");
  EXPECT_INVALID(program(part("all", "1:1, 1:1")), "a whole foreach cannot have widths");
  // Every part has its partner in the same block: same widths, range and body.
  EXPECT_INVALID(program(part("boundary", "1:1, 1:1", "", " loc(5:5)")),
                 "t.cpp:5:5: error: in program @p: foreach[boundary] without its inner part in the "
                 "same block (same range, indices, widths and body)");
  EXPECT_INVALID(program(part("inner")), "foreach[inner] without its boundary part");
  EXPECT_INVALID(program(part("boundary", "1:1, 1:1") + part("inner", "1:1, 1:2")),
                 "foreach[boundary] without its inner part");
  EXPECT_INVALID(program(part("boundary") + "    if %n > 0 {\n" + part("inner") + "    }"),
                 "foreach[inner] without its boundary part");
  EXPECT_INVALID(program(part("boundary") + part("boundary") + part("inner")),
                 "foreach[boundary] without its inner part");
  std::string other_body = part("inner");
  other_body.replace(other_body.find("%a[1, 0]"), 8, "%a[0, 1]");
  EXPECT_INVALID(program(part("boundary") + other_body), "without its inner part");
}

TEST(SplitRolesVerifier, PersistentProgramsAreDecomposed) {
  EXPECT_INVALID(program("", " persistent"),
                 "t.cpp:1:1: error: in program @p: only a decomposed or SPMD program can be "
                 "persistent");
}

// An SPMD program with blocks %a, %b and a signal %s; `body` goes in a time loop.
std::string spmd_program(const std::string& body, const std::string& marks = " persistent") {
  return "module \"t.cpp\"\n\nspmd_program @p(%a: block<f64, 1>, %b: block<f64, 1>, %n: i32)" +
         marks + " loc(1:1) {\n  signal %s\n  for %t: i32 = 0 to %n step 1 {\n" + body +
         "\n  }\n}\n";
}

// SPMD programs go through the same passes: they may be persistent, have split foreaches (their
// widths measured from the block they store to) and roles, on put_signal and wait_until too.
TEST(SplitRolesVerifier, SpmdProgramsSplitAndSpecialise) {
  auto spmd_part = [](const std::string& which, const std::string& extra = "",
                      const std::string& body = "store %b = %a[1]") {
    return "    foreach[" + which + " 1:1] %b.owned (%i)" + extra + " {\n      " + body +
           "\n    }\n";
  };
  const std::string put = "    put_signal %b[-1:0] <- %b[0:1], %s = 1u, pe = 0";
  const std::string wait = "    wait_until %s ge 1u";
  EXPECT_VALID(spmd_program(spmd_part("boundary") + spmd_part("inner"), ""));
  EXPECT_VALID(spmd_program(spmd_part("boundary", " role(comm)") + put + " role(comm)\n" +
                            spmd_part("inner", " role(compute) cost(16 bytes/point)") + wait +
                            " role(comm)\n    phase_barrier role(comm)"));
  EXPECT_INVALID(spmd_program(spmd_part("boundary", "", "var %x: f64 = %a[1]") +
                                  spmd_part("inner", "", "var %x: f64 = %a[1]"),
                              ""),
                 "foreach[boundary] stores to no block: an SPMD part's widths are measured from "
                 "the faces of the block it stores to");
  EXPECT_INVALID(spmd_program(put + " role(comm)", ""),
                 "put_signal role(comm) is only allowed in persistent programs");
  EXPECT_INVALID(spmd_program(wait + " role(compute)"),
                 "wait_until role(compute): transfers run on the comm workers");
  EXPECT_INVALID(spmd_program("", " decomposed persistent"),
                 "an SPMD program cannot be decomposed");
}

TEST(SplitRolesVerifier, RolesAndCosts) {
  const std::string comm = " role(comm)", compute = " role(compute) cost(12 bytes/point)";
  EXPECT_VALID(program("    halo_send %a role(comm)\n" + part("inner", "1:1, 1:1", compute) +
                       "    halo_recv %a role(comm)\n    phase_barrier role(comm)\n" +
                       part("boundary", "1:1, 1:1", comm) + "    phase_barrier role(compute)"));
  // Only in persistent programs.
  EXPECT_INVALID(program("    halo_send %a role(comm)", " decomposed"),
                 "halo_send role(comm) is only allowed in persistent programs");
  EXPECT_INVALID(program("    phase_barrier role(comm)", " decomposed"),
                 "phase_barrier role(comm) is only allowed in persistent programs");
  // Transfers run on the comm workers.
  EXPECT_INVALID(program("    halo_recv %a role(compute)"),
                 "halo_recv role(compute): transfers run on the comm workers");
  // The boundary on comm, the inner part on compute, both or neither.
  EXPECT_INVALID(
      program(part("boundary", "1:1, 1:1", compute) + part("inner", "1:1, 1:1", comm)),
      "foreach role(comm): only the boundary part of a split foreach runs on the comm workers");
  EXPECT_INVALID(
      program(part("boundary", "1:1, 1:1", compute) + part("inner")),
      "foreach role(compute): only the inner part of a split foreach runs on the compute workers");
  EXPECT_INVALID(
      program(part("boundary", "1:1, 1:1", comm) + part("inner")),
      "the parts of a split foreach are specialised together (boundary role(comm), inner "
      "role(compute)) or not at all");
  EXPECT_INVALID(
      program("    foreach %b.interior (%i, %j) role(comm) {\n      store %b = 0.0f\n    }"),
      "only the boundary part of a split foreach runs on the comm workers");
  // The cost goes with role(compute) on the inner part, and that part needs one.
  EXPECT_INVALID(
      program(part("boundary", "1:1, 1:1", comm) + part("inner", "1:1, 1:1", " role(compute)")),
      "foreach[inner] role(compute) has no cost (bytes/point)");
  EXPECT_INVALID(program(part("boundary") + part("inner", "1:1, 1:1", " cost(8 bytes/point)")),
                 "foreach[inner] has a cost but no role(compute)");
  EXPECT_INVALID(
      program(
          "    foreach %b.interior (%i, %j) cost(8 bytes/point) {\n      store %b = 0.0f\n    }"),
      "only the inner part of a split foreach can have a cost");
}

}  // namespace
}  // namespace stencilc::ir
