// The verifier: for each rule, a module that obeys it and one that breaks it.
#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/Verifier.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

const char* kFunction = "func @f(%x: f32) -> f32 {\n  return %x\n}\n\n";
const char* kGlobalHeader =
    "program @p(%a: grid<f32, 2>, %b: grid<f32, 2>, %c: const grid<f32, 2>, %d: grid<f64, 2>, "
    "%e: grid<f32, 1>, %n: i32, %s: f32, %r: ref f32) loc(1:1) {\n";
const char* kSpmdHeader =
    "spmd_program @q(%u: block<f64, 1>, %v: const block<f64, 1>, %n: i32) loc(1:1) {\n";

std::vector<std::string> verify_text(const std::string& text) {
  Module m = testing::parse_ok(text);
  return verify(m);
}

std::vector<std::string> verify_global(const std::string& body) {
  return verify_text(std::string("module \"t.cpp\"\n\n") + kFunction + kGlobalHeader + body +
                     "\n}\n");
}

std::vector<std::string> verify_spmd(const std::string& body) {
  return verify_text(std::string("module \"t.cpp\"\n\n") + kSpmdHeader + body + "\n}\n");
}

std::string joined(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& e : errors) out += e + "\n";
  return out;
}

#define EXPECT_VALID(errors) EXPECT_TRUE((errors).empty()) << joined(errors)
#define EXPECT_INVALID(errors, text)                                         \
  do {                                                                       \
    std::vector<std::string> errs_ = (errors);                               \
    EXPECT_NE(joined(errs_).find(text), std::string::npos) << joined(errs_); \
  } while (0)

TEST(Verifier, MessagesNameTheProgramAndTheLoc) {
  std::vector<std::string> errors = verify_global("  %r = 1.0 loc(7:3)");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "t.cpp:7:3: error: in program @p: value assigned to %r has type f64, expected f32");
}

TEST(Verifier, BinaryOperandsAgree) {
  EXPECT_VALID(verify_global("  var %x: f32 = %s + 1.0f"));
  EXPECT_INVALID(verify_global("  var %x: f32 = %s + 1.0"),
                 "operands of '+' have different types f32 and f64");
  EXPECT_INVALID(verify_global("  var %x: bool = %n > 0 && %n"), "different types");
  EXPECT_INVALID(verify_global("  var %x: i32 = %n && %n"), "must be bool");
  EXPECT_INVALID(verify_global("  var %x: f32 = %s % %s"), "'%' on f32");
  EXPECT_INVALID(verify_global("  var %x: bool = true + false"), "arithmetic '+' on bool");
  EXPECT_INVALID(verify_global("  var %x: f32 = -true"), "negation of a bool");
  EXPECT_INVALID(verify_global("  var %x: bool = !%n"), "'!' of a i32 operand");
}

TEST(Verifier, ConditionsAreBool) {
  EXPECT_VALID(verify_global("  if %n > 0 {\n  }\n  while %n < 0 {\n  }"));
  EXPECT_INVALID(verify_global("  if %n {\n  }"), "if condition has type i32, expected bool");
  EXPECT_INVALID(verify_global("  while %s {\n  }"), "while condition has type f32");
  EXPECT_INVALID(verify_global("  var %x: f32 = select(%n, %s, %s)"), "select condition");
  EXPECT_INVALID(verify_global("  var %x: f32 = select(true, %s, 1.0)"),
                 "select arms have different types");
}

TEST(Verifier, AssignedStoredAndInitialValuesHaveTheDeclaredType) {
  EXPECT_VALID(verify_global("  var %x: i64 = cast<i64>(%n)\n  %x = 2l\n  %r = %s"));
  EXPECT_INVALID(verify_global("  var %x: i64 = %n"),
                 "initializer of %x has type i32, expected i64");
  EXPECT_INVALID(verify_global("  %r = %n"), "value assigned to %r has type i32");
  EXPECT_VALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %a = %b[0, 0]\n  }"));
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %a = 1.0\n  }"),
                 "value stored to %a has type f64, expected f32");
}

TEST(Verifier, YieldHasTheReduceType) {
  EXPECT_VALID(verify_global(
      "  reduce %m: f32 = max %a.interior (%i, %j) {\n    yield %a[0, 0]\n  }\n  %r = %m"));
  EXPECT_INVALID(
      verify_global("  reduce %m: f64 = sum %a.interior (%i, %j) {\n    yield %a[0, 0]\n  }"),
      "yielded value has type f32, expected f64");
}

TEST(Verifier, ReturnTypeAndCalls) {
  EXPECT_VALID(verify_global("  %r = @f(%s)"));
  EXPECT_INVALID(verify_global("  %r = @f()"), "@f takes 1 arguments, called with 0 arguments");
  EXPECT_INVALID(verify_global("  %r = @f(1.0)"), "argument 1 of @f has type f64, expected f32");
  EXPECT_INVALID(verify_text("module \"t\"\nfunc @g(%x: f32) -> f32 {\n  return 1.0\n}\n"),
                 "in function @g: returned value has type f64, expected f32");
  EXPECT_INVALID(verify_text("module \"t\"\nfunc @g(%x: f32) -> f32 {\n  var %y: f32 = %x\n}\n"),
                 "does not end in return on every path");
  EXPECT_VALID(verify_global("  %r = sqrt(%s) + fmin(%s, 1.0f)"));
  EXPECT_INVALID(verify_global("  %r = fmin(%s)"),
                 "fmin takes 2 argument(s), called with 1 argument");
  EXPECT_INVALID(verify_global("  var %x: i32 = fabs(%n)"), "fabs takes floating arguments");
}

TEST(Verifier, VariablesAreUsedInScope) {
  EXPECT_VALID(verify_global("  if true {\n    var %x: f32 = %s\n    %r = %x\n  }"));
  // The parser rejects out-of-scope names, so build the broken module by hand.
  Module m = testing::parse_ok(std::string("module \"t.cpp\"\n\n") + kGlobalHeader +
                               "  if true {\n"
                               "    var %x: f32 = %s\n  }\n}\n");
  Program& p = m.programs[0];
  std::vector<Stmt> stmts = as<Block>(p.body)->stmts;
  stmts.push_back(make_assign("r", make_var("x", ScalarType::F32), {"", 9, 3}));
  p.body = make_block(stmts);
  EXPECT_INVALID(verify(m), "t.cpp:9:3: error: in program @p: use of undeclared %x");
  // A name used with another type than it was declared with.
  stmts.back() = make_assign("r", make_var("s", ScalarType::F64));
  p.body = make_block(stmts);
  EXPECT_INVALID(verify(m), "%s used as f64 but declared f32");
}

TEST(Verifier, NamesAreDeclaredOncePerScope) {
  EXPECT_VALID(verify_global("  var %x: f32 = %s\n  if true {\n    var %x: i32 = 1\n  }"));
  EXPECT_INVALID(verify_global("  var %x: f32 = %s\n  var %x: f32 = %s"), "redeclaration of %x");
  EXPECT_INVALID(
      verify_global(
          "  foreach %a.interior (%i, %j) {\n    var %i: i32 = 0\n    store %a = 0.0f\n  }"),
      "redeclaration of %i");
  EXPECT_INVALID(verify_global("  for %t: i32 = 0 to 3 step 1 {\n    var %t: i32 = 0\n  }"),
                 "redeclaration of %t");
  EXPECT_INVALID(verify_global("  var %a: f32 = %s"), "%a is already a grid or block parameter");
  EXPECT_INVALID(verify_text("module \"t\"\nprogram @p(%x: i32, %x: f32) {\n}\n"),
                 "duplicate parameter %x");
  EXPECT_INVALID(verify_text("module \"t\"\nprogram @p() {\n}\nprogram @p() {\n}\n"),
                 "duplicate definition of @p");
}

TEST(Verifier, StoresOnlyInPointBodiesToWritableGrids) {
  EXPECT_INVALID(verify_global("  store %a = 1.0f"), "store outside a foreach or reduce body");
  // A fused sweep (fuse-sweeps): a reduction that also stores, in global programs only.
  EXPECT_VALID(verify_global("  reduce %m: f32 = sum %a.interior (%i, %j) {\n    store %a = "
                             "1.0f\n    yield %b[0, 1]\n  }"));
  EXPECT_INVALID(verify_spmd("  reduce %m: f64 = sum %u.owned (%i) {\n    store %u = 1.0\n"
                             "    yield 1.0\n  }"),
                 "store in a reduce body of an SPMD program");
  EXPECT_INVALID(verify_global("  reduce %m: f32 = sum %a.interior (%i, %j) {\n    store %a = "
                               "1.0f\n    yield %a[0, 1]\n  }"),
                 "reduce writes %a and reads it at %a[0, 1]");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %a = "
                               "cast<f32>(interior_lo(%a, 0) + interior_hi(%c, 1) + interior_lo(%e, 1))\n  }"),
                 "dimension 1 out of range for %e of rank 1");
  EXPECT_INVALID(verify_spmd("  var %k: i32 = interior_hi(%u, 0)"),
                 "interior_hi of %u: only grids have interiors");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %c = 1.0f\n  }"),
                 "store to const %c");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %n = 1\n  }"),
                 "store to %n, which is not a grid or block parameter");
}

TEST(Verifier, WrittenGridIsReadOnlyAtTheCentre) {
  EXPECT_VALID(
      verify_global("  foreach %a.interior (%i, %j) {\n    store %a = %a[0, 0] + %b[0, 1]\n  }"));
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %a = %a[0, 1]\n  }"),
                 "foreach writes %a and reads it at %a[0, 1]");
  EXPECT_INVALID(
      verify_global(
          "  foreach %a.interior (%i, %j) {\n    store %b = %a[-1, 0]\n    store %a = 0.0f\n  }"),
      "reads it at %a[-1, 0]");
}

TEST(Verifier, RanksAgree) {
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    store %a = %b[0]\n  }"),
                 "%b read with 1 offsets, but its rank is 2");
  EXPECT_VALID(verify_global("  foreach %e.interior (%i) {\n    store %e = %e[0]\n  }"));
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i) {\n  }"),
                 "foreach has 1 indices for a range of rank 2");
  EXPECT_INVALID(verify_global("  reduce %m: f32 = sum [0:1] (%i, %j) {\n    yield 1.0f\n  }"),
                 "reduce has 2 indices for a range of rank 1");
  EXPECT_INVALID(verify_global("  var %x: i32 = extent(%a, 2)"), "dimension 2 out of range");
}

TEST(Verifier, RangesNameTheRightKindOfArray) {
  EXPECT_VALID(verify_spmd("  foreach %u.owned (%i) {\n    store %u = %v[0]\n  }"));
  EXPECT_INVALID(verify_spmd("  foreach %u.interior (%i) {\n  }"), "interior of block %u");
  EXPECT_INVALID(verify_global("  foreach %a.owned (%i, %j) {\n  }"), "owned box of grid %a");
  EXPECT_INVALID(verify_global("  foreach [0:%s, 0:1] (%i, %j) {\n  }"),
                 "range bound has type f32");
  // A range over a name that is no parameter (the parser refuses it, so build it by hand).
  Module m = testing::parse_ok(std::string("module \"t.cpp\"\n\n") + kGlobalHeader + "}\n");
  m.programs[0].body =
      make_block({make_for_each(make_interior("zz", 2), {"i", "j"}, make_block({}))});
  EXPECT_INVALID(verify(m), "range over %zz, which is not a grid or block parameter");
}

TEST(Verifier, YieldOnlyInReduceAndEveryPathYields) {
  EXPECT_VALID(verify_global(
      "  reduce %m: f32 = sum %a.interior (%i, %j) {\n    if %i > 0 {\n      yield 1.0f\n"
      "    } else {\n      yield 2.0f\n    }\n  }"));
  EXPECT_INVALID(verify_global("  reduce %m: f32 = sum %a.interior (%i, %j) {\n    if %i > 0 {\n   "
                               "   yield 1.0f\n    }\n  }"),
                 "reduce body does not end in yield on every path");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    yield 1.0f\n  }"),
                 "yield outside a reduce body");
  EXPECT_INVALID(verify_global("  yield 1.0f"), "yield outside a reduce body");
}

TEST(Verifier, ReturnOnlyInFunctions) {
  EXPECT_INVALID(verify_global("  return %s"), "return outside a function");
  EXPECT_INVALID(
      verify_text("module \"t\"\nfunc @g(%x: f32) -> f32 {\n  swap %x, %x\n  return %x\n}\n"),
      "swap is not allowed in a function");
}

TEST(Verifier, SwapsPairWritableArraysOfOneShape) {
  EXPECT_VALID(verify_global("  swap %a, %b"));
  EXPECT_INVALID(verify_global("  swap %a, %d"), "kinds, element types or ranks differ");
  EXPECT_INVALID(verify_global("  swap %a, %e"), "kinds, element types or ranks differ");
  EXPECT_INVALID(verify_global("  swap %a, %c"), "swap of const %c");
  EXPECT_INVALID(verify_global("  swap %a, %n"),
                 "swap of %n, which is not a grid or block parameter");
}

TEST(Verifier, ExchangeNamesAGrid) {
  EXPECT_VALID(verify_global("  exchange %a"));
  EXPECT_INVALID(verify_global("  exchange %n"), "exchange of %n, which is not a grid parameter");
  EXPECT_INVALID(verify_spmd("  exchange %u"), "exchange is only allowed in global programs");
}

TEST(Verifier, SpmdConstructsOnlyInSpmdPrograms) {
  EXPECT_VALID(verify_spmd(
      "  signal %s\n  put_signal %u[-1:0] <- %u[0:1], %s = 1u, pe = (my_pe() + 1) % n_pes()\n"
      "  wait_until %s ge 1u\n  quiet\n  barrier_all"));
  EXPECT_INVALID(verify_global("  quiet"), "quiet is only allowed in SPMD programs");
  EXPECT_INVALID(verify_global("  barrier_all"), "barrier_all is only allowed in SPMD programs");
  EXPECT_INVALID(verify_global("  signal %x"), "signal is only allowed in SPMD programs");
  EXPECT_INVALID(verify_global("  var %x: i32 = my_pe()"),
                 "my_pe() is only allowed in SPMD programs");
  EXPECT_INVALID(verify_text("module \"t\"\nprogram @p(%u: block<f32, 1>) {\n}\n"),
                 "block parameter %u in a global program");
  EXPECT_INVALID(verify_text("module \"t\"\nspmd_program @p(%g: grid<f32, 1>) {\n}\n"),
                 "grid parameter %g in an SPMD program");
  EXPECT_INVALID(verify_spmd("  var %x: i32 = origin(%n, 0)"),
                 "which is not a grid or block parameter");
  EXPECT_INVALID(verify_global("  var %x: i32 = halo(%a, 0)"),
                 "only blocks have origins, halos and per-PE layouts");
}

TEST(Verifier, CommunicationOperandsAreChecked) {
  EXPECT_INVALID(verify_spmd("  signal %s\n  wait_until %s ge 1"),
                 "wait_until value has type i32, expected u64");
  EXPECT_INVALID(verify_spmd("  signal %s\n  put_signal %v[0:1] <- %u[0:1], %s = 1u, pe = 0"),
                 "put_signal into const %v");
  EXPECT_INVALID(verify_spmd("  signal %s\n  put_signal %u[0:1] <- %n[0:1], %s = 1u, pe = 0"),
                 "put_signal source %n is not a block parameter");
  EXPECT_INVALID(verify_spmd("  put_signal %u[0:1] <- %u[0:1], %n = 1u, pe = 0"),
                 "%n is not a signal in scope");
  EXPECT_INVALID(verify_spmd("  signal %s\n  put_signal %u[0:1] <- %u[0:1], %s = 1u, pe = 0u"),
                 "target pe has type u64");
  EXPECT_INVALID(verify_spmd("  signal %s\n  foreach %u.owned (%i) {\n    quiet\n  }"),
                 "quiet is not allowed in a foreach or reduce body");
}

TEST(Verifier, ForStepIsPositive) {
  EXPECT_VALID(verify_global("  for %t: i32 = 0 to %n step 2 {\n  }"));
  EXPECT_INVALID(verify_global("  for %t: i32 = 0 to %n step 0 {\n  }"),
                 "for step must be positive, got 0");
  EXPECT_INVALID(verify_global("  for %t: i32 = 0 to %n step -1 {\n  }"), "got -1");
  EXPECT_INVALID(verify_global("  for %t: f32 = 0.0f to %s step 1 {\n  }"), "non-integer type f32");
}

TEST(Verifier, AssignmentTargets) {
  EXPECT_VALID(verify_global("  var %x: f32 = %s\n  %x = 1.0f\n  %r = %x\n  %s = %x\n  %n = 2"));
  EXPECT_INVALID(verify_global("  for %t: i32 = 0 to %n step 1 {\n    %t = 3\n  }"),
                 "cannot assign loop variable %t");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    %i = 3\n  }"),
                 "cannot assign index %i");
  EXPECT_INVALID(verify_global("  foreach %a.interior (%i, %j) {\n    %r = 3.0f\n  }"),
                 "assignment to %r inside a point body");
  EXPECT_VALID(
      verify_global("  foreach %a.interior (%i, %j) {\n    var %x: f32 = 1.0f\n    %x = 2.0f\n    "
                    "store %a = %x\n  }"));
  EXPECT_INVALID(verify_global("  %a = 1.0f"), "cannot assign grid %a");
}

TEST(Verifier, GridReadsNeedAPoint) {
  Module m = testing::parse_ok(std::string("module \"t.cpp\"\n\n") + kGlobalHeader + "}\n");
  m.programs[0].body = make_block({make_assign("r", make_grid_read("a", {0, 0}, ScalarType::F32))});
  EXPECT_INVALID(verify(m), "read of %a outside a foreach or reduce body");
}

TEST(Verifier, LoopsAndPointUpdatesDoNotNestInPointBodies) {
  EXPECT_INVALID(
      verify_global(
          "  foreach %a.interior (%i, %j) {\n    foreach %b.interior (%k, %l) {\n    }\n  }"),
      "foreach is not allowed in a foreach or reduce body");
  EXPECT_INVALID(
      verify_global(
          "  foreach %a.interior (%i, %j) {\n    for %t: i32 = 0 to 2 step 1 {\n    }\n  }"),
      "for is not allowed in a foreach or reduce body");
}

TEST(Verifier, LiteralsFitTheirType) {
  Module m = testing::parse_ok(std::string("module \"t.cpp\"\n\n") + kGlobalHeader + "}\n");
  m.programs[0].body = make_block({make_assign("r", make_float(0.1, ScalarType::F32))});
  EXPECT_INVALID(verify(m), "is not representable in f32");
  m.programs[0].body = make_block({make_assign("n", make_int(1LL << 40))});
  EXPECT_INVALID(verify(m), "i32 literal 1099511627776 out of range");
}

}  // namespace
}  // namespace stencilc::ir
