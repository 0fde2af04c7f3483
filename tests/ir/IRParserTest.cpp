// The parser: round trips, literal values, precedence, typing, locs and diagnostics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Nesting.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

using testing::parse_error;
using testing::parse_ok;

// Every statement kind, every parameter kind, functions, both program kinds, comments.
const char* kEveryNode = R"(module "samples/jacobi2d.cpp"

// Functions come first: programs call them.
func @laplacian4(%c: f32, %n1: f32, %n2: f32) -> f32 loc(11:1) {
  var %s: f32 = -60.0f * %c + 16.0f * %n1
  return (%s - %n2) / 12.0f loc(11:62)
}

program @jacobi(%a: grid<f32, 2>, %a_new: grid<f32, 2>, %f: const grid<f64, 3>, %iters: i32, %norm_every: i32, %norm: ref f32) loc(11:13) {
  for %t: i32 = 0 to %iters step 1 loc(12:3) {
    foreach %a_new.interior (%i, %j) loc(13:5) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0]) loc(14:7)
    }
    if %norm_every > 0 && (%t + 1) % %norm_every == 0 loc(16:5) {
      reduce %red0: f32 = sum %a_new.interior (%i, %j) loc(17:20) {
        var %r: f32 = %a_new[0, 0] - %a[0, 0] loc(18:9)
        if %r > 1.0f {
          yield %r
        } else {
          yield %r * %r loc(19:9)
        }
      }
      %norm = sqrt(%red0) loc(17:7)
    } else {
      %norm = @laplacian4(%norm, fmax(%norm, 1.0f), cast<f32>(extent(%f, 2))) loc("other.h":3:4)
    }
    foreach [0:1, 1:extent(%a, 1) - 1] (%i, %j) {
      store %a = select(%i == 0, 1.0f, pow(%a[0, 0], 2.0f))
    }
    exchange %a
    swap %a, %a_new loc(22:5)
  }
  while !(%norm < 0.5f) {
    scope loc(30:1) {
      var %k: i64
      %k = 3l
    }
    %norm = %norm * 0.5f
  }
}

spmd_program @ring(%u: block<f64, 1>, %v: const block<f64, 1>, %steps: i32) loc(5:1) {
  signal %left loc(6:3)
  for %t: i32 = 0 to %steps step 2 {
    put_signal %u[-1:0] <- %u[extent(%u, 0) - 1:extent(%u, 0)], %left = cast<u64>(%t + 1), pe = (my_pe() + 1) % n_pes() loc(9:5)
    wait_until %left ge cast<u64>(%t + 1) loc(10:5)
    quiet loc(11:5)
    barrier_all loc(12:5)
    foreach %u.owned (%i) {
      store %u = %v[0] + cast<f64>(origin(%u, 0) + halo(%v, 0))
    }
  }
}
)";

TEST(IRParser, RoundTripIsExact) {
  Module m = parse_ok(kEveryNode);
  std::string once = print(m);
  Module again = parse_ok(once);
  EXPECT_EQ(print(again), once);
}

TEST(IRParser, PrintedTextOfCanonicalInputIsTheInput) {
  // Without comments and with canonical spacing, parse then print gives the input back.
  const char* text = R"(module "t.cpp"

program @p(%x: f32, %n: i32, %b: bool) {
  var %y: f32 = %x - (%x - %x) * -%x / -(-%x)
  var %k: i32 = -3 - -(3) + (%n + 1) % 2
  var %c: bool = !(%b || %n < 3) && (%b || !%b) == %b
}
)";
  EXPECT_EQ(print(parse_ok(text)), text);
}

// Parses `expr` as the initializer of a variable of type `type` in a program with scalars
// %a %b %c %x (f32), %n (i32), %p %q (bool).
Expr parse_init(const std::string& expr, const std::string& type = "f32") {
  Module m = parse_ok(
      "module \"t\"\nprogram @p(%a: f32, %b: f32, %c: f32, %x: f32, %n: i32, "
      "%p: bool, %q: bool) {\n  var %e: " +
      type + " = " + expr + "\n}\n");
  if (m.programs.empty()) return nullptr;
  return as<VarDecl>(as<Block>(m.programs[0].body)->stmts[0])->init;
}

TEST(IRParser, PrecedenceBuildsTheRightTree) {
  Expr sub_e = parse_init("%a - (%b - %c)");
  auto* sub = as<Binary>(sub_e);
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(as<Var>(sub->a));
  EXPECT_TRUE(as<Binary>(sub->b));
  Expr left_e = parse_init("%a - %b - %c");
  auto* left = as<Binary>(left_e);
  ASSERT_NE(left, nullptr);
  EXPECT_TRUE(as<Binary>(left->a));  // left associative
  Expr mul_e = parse_init("(%a + %b) * %c");
  auto* mul = as<Binary>(mul_e);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->op, BinaryOp::Mul);
  Expr neg_e = parse_init("-(-%x)");
  auto* neg = as<Unary>(neg_e);
  ASSERT_NE(neg, nullptr);
  EXPECT_TRUE(as<Unary>(neg->a));
  Expr nt_e = parse_init("!(%a < %b)", "bool");
  auto* nt = as<Unary>(nt_e);
  ASSERT_NE(nt, nullptr);
  EXPECT_EQ(as<Binary>(nt->a)->op, BinaryOp::Lt);
  Expr orr_e = parse_init("%p || %q && %p", "bool");
  auto* orr = as<Binary>(orr_e);
  ASSERT_NE(orr, nullptr);
  EXPECT_EQ(orr->op, BinaryOp::Or);
  for (const char* e : {"%a - (%b - %c)", "(%a + %b) * %c", "-(-%x)", "%a * -%b", "-%a * %b"}) {
    EXPECT_EQ(print(parse_init(e)), e);
  }
}

TEST(IRParser, MinusBeforeALiteralIsANegativeLiteral) {
  Expr lit_e = parse_init("-3", "i32");
  auto* lit = as<IntImm>(lit_e);
  ASSERT_NE(lit, nullptr);
  EXPECT_EQ(lit->value, -3);
  Expr neg_e = parse_init("-(3)", "i32");
  auto* neg = as<Unary>(neg_e);
  ASSERT_NE(neg, nullptr);
  EXPECT_EQ(as<IntImm>(neg->a)->value, 3);
  Expr u_e = parse_init("-3u", "u64");
  auto* u = as<Unary>(u_e);  // u64 literals are never negative
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(print(parse_init("-3u", "u64")), "-(3u)");
}

uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

TEST(IRParser, LiteralValuesRoundTripBitForBit) {
  const std::vector<Expr> literals = {
      make_int(0),
      make_int(-2147483648LL),
      make_int(2147483647),
      make_int(std::numeric_limits<int64_t>::min(), ScalarType::I64),
      make_int(std::numeric_limits<int64_t>::max(), ScalarType::I64),
      make_int(-1, ScalarType::U64),
      make_int(0, ScalarType::U64),
      make_float(-0.0, ScalarType::F32),
      make_float(-0.0, ScalarType::F64),
      make_float(1e30, ScalarType::F64),
      make_float(1e30f, ScalarType::F32),
      make_float(0.1f, ScalarType::F32),
      make_float(0.1, ScalarType::F64),
      make_float(std::numeric_limits<float>::denorm_min(), ScalarType::F32),
      make_float(std::numeric_limits<double>::denorm_min(), ScalarType::F64),
      make_float(-std::numeric_limits<float>::denorm_min() * 7, ScalarType::F32),
      make_float(std::numeric_limits<float>::max(), ScalarType::F32),
      make_float(std::numeric_limits<double>::max(), ScalarType::F64),
      make_float(std::numeric_limits<double>::min(), ScalarType::F64),
      make_float(INFINITY, ScalarType::F32),
      make_float(-INFINITY, ScalarType::F64),
      make_float(123456789.0, ScalarType::F64),
      make_float(1.0 / 3.0, ScalarType::F64),
      make_bool(true),
      make_bool(false)};
  for (const Expr& lit : literals) {
    Expr back = parse_init(print(lit), to_string(lit->type));
    ASSERT_NE(back, nullptr) << print(lit);
    EXPECT_EQ(back->type, lit->type) << print(lit);
    if (auto* i = as<IntImm>(lit)) {
      ASSERT_TRUE(as<IntImm>(back)) << print(lit);
      EXPECT_EQ(as<IntImm>(back)->value, i->value);
    } else if (auto* f = as<FloatImm>(lit)) {
      ASSERT_TRUE(as<FloatImm>(back)) << print(lit);
      EXPECT_EQ(bits(as<FloatImm>(back)->value), bits(f->value)) << print(lit);
    } else {
      EXPECT_EQ(as<BoolImm>(back)->value, as<BoolImm>(lit)->value);
    }
    EXPECT_EQ(print(back), print(lit));
  }
  Expr nan_e = parse_init("nanf");
  auto* nan = as<FloatImm>(nan_e);
  ASSERT_NE(nan, nullptr);
  EXPECT_TRUE(std::isnan(nan->value));
  EXPECT_EQ(print(parse_init("-nan", "f64")), "-nan");
}

TEST(IRParser, ComputesEveryExpressionType) {
  Module m = parse_ok(kEveryNode);
  const Program& jacobi = m.programs[0];
  auto* loop = as<For>(as<Block>(jacobi.body)->stmts[0]);
  ASSERT_NE(loop, nullptr);
  auto* fe = as<ForEach>(as<Block>(loop->body)->stmts[0]);
  auto* store = as<Store>(as<Block>(fe->body)->stmts[0]);
  EXPECT_EQ(store->value->type, ScalarType::F32);
  auto* branch = as<If>(as<Block>(loop->body)->stmts[1]);
  EXPECT_EQ(branch->cond->type, ScalarType::Bool);
  auto* call = as<Assign>(as<Block>(branch->else_body)->stmts[0]);
  EXPECT_EQ(call->value->type, ScalarType::F32);
  EXPECT_EQ(call->loc.file, "other.h");
  EXPECT_EQ(call->loc.line, 3);
  EXPECT_EQ(as<Call>(call->value)->args[2]->type, ScalarType::F32);
  EXPECT_EQ(as<Cast>(as<Call>(call->value)->args[2])->a->type, ScalarType::I32);
  auto* red = as<Reduce>(as<Block>(branch->then_body)->stmts[0]);
  EXPECT_EQ(red->range.rank, 2);
  auto* norm = as<Assign>(as<Block>(branch->then_body)->stmts[1]);
  EXPECT_EQ(as<Call>(norm->value)->args[0]->type, ScalarType::F32);  // the reduce's result
  const Program& ring = m.programs[1];
  auto* put = as<PutSignal>(as<Block>(as<For>(as<Block>(ring.body)->stmts[1])->body)->stmts[0]);
  ASSERT_NE(put, nullptr);
  EXPECT_EQ(put->value->type, ScalarType::U64);
  EXPECT_EQ(put->pe->type, ScalarType::I32);
  EXPECT_EQ(ring.kind, ProgramKind::Spmd);
  EXPECT_TRUE(ring.find_param("v")->is_const);
  EXPECT_EQ(jacobi.find_param("norm")->kind, ParamKind::ScalarRef);
  EXPECT_EQ(jacobi.find_param("f")->rank, 3);
}

TEST(IRParser, ElseIfReadsAsANestedIf) {
  Module m = parse_ok(R"(module "t"
program @p(%n: i32, %x: ref i32) {
  if %n > 0 {
    %x = 1
  } else if %n < 0 {
    %x = -1
  }
}
)");
  auto* branch = as<If>(as<Block>(m.programs[0].body)->stmts[0]);
  ASSERT_NE(branch, nullptr);
  EXPECT_TRUE(as<If>(as<Block>(branch->else_body)->stmts[0]));
}

TEST(IRParser, ErrorsPointAtLineAndColumn) {
  EXPECT_EQ(parse_error("module \"t\"\n\nprogram @p() {\n  var %x: f32 = %y\n}\n"),
            "test.ir:4:17: error: use of undeclared %y\n"
            "  var %x: f32 = %y\n"
            "                ^\n");
  EXPECT_EQ(parse_error("module \"t\"\nprogram @p(%a: i32) {\n  %a = (1 + 2\n}\n"),
            "test.ir:4:1: error: expected ')', found '}'\n}\n^\n");
}

TEST(IRParser, ErrorsOfEveryKind) {
  auto error_of = [](const std::string& body) {
    return parse_error("module \"t\"\nprogram @p(%a: grid<f32, 1>, %n: i32) {\n" + body + "\n}\n");
  };
  EXPECT_NE(error_of("  var %x: f32 = 1.0fx").find("invalid suffix"), std::string::npos);
  EXPECT_NE(error_of("  var %x: i32 = 2147483648").find("out of range for i32"), std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = 1e39f").find("out of range for f32"), std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = %a").find("is a grid"), std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = %n[0]").find("not a grid"), std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = lap(1.0f)").find("unknown intrinsic"), std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = @lap(1.0f)").find("undeclared function @lap"),
            std::string::npos);
  EXPECT_NE(error_of("  frob %a").find("unknown statement 'frob'"), std::string::npos);
  EXPECT_NE(error_of("  foreach %a.outside (%i) {\n  }").find("expected 'interior' or 'owned'"),
            std::string::npos);
  EXPECT_NE(error_of("  var %x: f32 = 1.0f $").find("unexpected character '$'"), std::string::npos);
  EXPECT_NE(error_of("  var %x: float").find("expected a type"), std::string::npos);
  EXPECT_NE(parse_error("program @p() {}").find("expected 'module'"), std::string::npos);
  EXPECT_NE(parse_error("module \"t\nprogram").find("unterminated string"), std::string::npos);
  EXPECT_NE(parse_error("module \"t\"\nprogram @p() {\n").find("before end of input"),
            std::string::npos);
}

// The parser takes nesting up to kMaxNestingDepth, what the front end may produce, and rejects
// deeper input before it can exhaust the stack (of the deep-stack thread the tools run on).
TEST(IRParser, NestingUpToTheLimit) {
  auto parse_nested = [](int levels) {
    std::string error;
    const std::string text = "module \"t\"\nprogram @p() {\n  var %x: i32 = " + std::string(levels, '(') + "1" +
                             std::string(levels, ')') + "\n}\n";
    run_with_deep_stack([&] { return parse_module(text, "test.ir", &error) ? 0 : 1; });
    return error;
  };
  EXPECT_EQ(parse_nested(20000), "");
  EXPECT_EQ(parse_nested(kMaxNestingDepth - 10), "");
  EXPECT_NE(parse_nested(kMaxNestingDepth + 1).find("nesting too deep"), std::string::npos);
}

}  // namespace
}  // namespace stencilc::ir
