// The printer on hand-built IR: golden text for expressions, statements and whole modules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/IRPrinter.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

Expr v(const char* name, ScalarType t = ScalarType::F32) {
  return make_var(name, t);
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return make_binary(op, a, b);
}

TEST(IRPrinter, ParenthesesFollowCPrecedenceAndAssociativity) {
  Expr a = v("a"), b = v("b"), c = v("c");
  EXPECT_EQ(print(bin(BinaryOp::Sub, a, bin(BinaryOp::Sub, b, c))), "%a - (%b - %c)");
  EXPECT_EQ(print(bin(BinaryOp::Sub, bin(BinaryOp::Sub, a, b), c)), "%a - %b - %c");
  EXPECT_EQ(print(bin(BinaryOp::Mul, bin(BinaryOp::Add, a, b), c)), "(%a + %b) * %c");
  EXPECT_EQ(print(bin(BinaryOp::Add, bin(BinaryOp::Mul, a, b), c)), "%a * %b + %c");
  EXPECT_EQ(print(bin(BinaryOp::Add, a, bin(BinaryOp::Add, b, c))), "%a + (%b + %c)");
  EXPECT_EQ(print(bin(BinaryOp::Div, a, bin(BinaryOp::Mul, b, c))), "%a / (%b * %c)");
  Expr p = v("p", ScalarType::Bool), q = v("q", ScalarType::Bool), r = v("r", ScalarType::Bool);
  EXPECT_EQ(print(bin(BinaryOp::Or, p, bin(BinaryOp::And, q, r))), "%p || %q && %r");
  EXPECT_EQ(print(bin(BinaryOp::And, bin(BinaryOp::Or, p, q), r)), "(%p || %q) && %r");
  EXPECT_EQ(print(bin(BinaryOp::Eq, bin(BinaryOp::Lt, a, b), p)), "%a < %b == %p");
  EXPECT_EQ(print(bin(BinaryOp::Lt, a, bin(BinaryOp::Add, b, c))), "%a < %b + %c");
}

TEST(IRPrinter, UnaryOperatorsAndNegativeLiterals) {
  Expr x = v("x"), y = v("y");
  EXPECT_EQ(print(make_unary(UnaryOp::Neg, make_unary(UnaryOp::Neg, x))), "-(-%x)");
  EXPECT_EQ(print(make_unary(UnaryOp::Not, bin(BinaryOp::Lt, x, y))), "!(%x < %y)");
  EXPECT_EQ(print(bin(BinaryOp::Mul, make_unary(UnaryOp::Neg, x), y)), "-%x * %y");
  EXPECT_EQ(print(make_unary(UnaryOp::Neg, bin(BinaryOp::Mul, x, y))), "-(%x * %y)");
  // A negative literal prints bare; the negation of a literal keeps parentheses.
  EXPECT_EQ(print(make_int(-3)), "-3");
  EXPECT_EQ(print(make_unary(UnaryOp::Neg, make_int(3))), "-(3)");
  EXPECT_EQ(print(make_unary(UnaryOp::Neg, make_int(-3))), "-(-3)");
  EXPECT_EQ(print(bin(BinaryOp::Sub, v("n", ScalarType::I32), make_int(-3))), "%n - -3");
  EXPECT_EQ(print(bin(BinaryOp::Mul, make_float(-60.0, ScalarType::F32), x)), "-60.0f * %x");
}

TEST(IRPrinter, LiteralsOfEveryKind) {
  EXPECT_EQ(print(make_int(3)), "3");
  EXPECT_EQ(print(make_int(3, ScalarType::I64)), "3l");
  EXPECT_EQ(print(make_int(3, ScalarType::U64)), "3u");
  EXPECT_EQ(print(make_int(-1, ScalarType::U64)), "18446744073709551615u");
  EXPECT_EQ(print(make_int(std::numeric_limits<int64_t>::min(), ScalarType::I64)),
            "-9223372036854775808l");
  EXPECT_EQ(print(make_float(0.25, ScalarType::F32)), "0.25f");
  EXPECT_EQ(print(make_float(0.25, ScalarType::F64)), "0.25");
  EXPECT_EQ(print(make_float(1.0, ScalarType::F64)), "1.0");
  EXPECT_EQ(print(make_float(-0.0, ScalarType::F32)), "-0.0f");
  EXPECT_EQ(print(make_float(1e30, ScalarType::F64)), "1e+30");
  EXPECT_EQ(print(make_float(0.1f, ScalarType::F32)), "0.1f");
  EXPECT_EQ(print(make_float(std::numeric_limits<float>::denorm_min(), ScalarType::F32)), "1e-45f");
  EXPECT_EQ(print(make_float(std::numeric_limits<double>::denorm_min(), ScalarType::F64)),
            "5e-324");
  EXPECT_EQ(print(make_float(INFINITY, ScalarType::F64)), "inf");
  EXPECT_EQ(print(make_float(-INFINITY, ScalarType::F32)), "-inff");
  EXPECT_EQ(print(make_float(NAN, ScalarType::F32)), "nanf");
  EXPECT_EQ(print(make_bool(false)), "false");
}

TEST(IRPrinter, CallsCastsSelectsAndQueries) {
  Expr x = v("x");
  EXPECT_EQ(print(make_call("sqrt", {x}, ScalarType::F32, false)), "sqrt(%x)");
  EXPECT_EQ(print(make_call("my_pe", {}, ScalarType::I32, false)), "my_pe()");
  EXPECT_EQ(print(make_call("lap", {x, x}, ScalarType::F32, true)), "@lap(%x, %x)");
  EXPECT_EQ(
      print(make_cast(ScalarType::U64, bin(BinaryOp::Add, v("t", ScalarType::I32), make_int(1)))),
      "cast<u64>(%t + 1)");
  EXPECT_EQ(print(make_select(make_bool(true), x, make_float(0, ScalarType::F32))),
            "select(true, %x, 0.0f)");
  EXPECT_EQ(print(make_grid_query(GridQueryOp::Halo, "u", 0)), "halo(%u, 0)");
  EXPECT_EQ(print(make_grid_read("a", {-1, 0, 2}, ScalarType::F64)), "%a[-1, 0, 2]");
}

TEST(IRPrinter, GlobalProgramGolden) {
  Program p;
  p.name = "jacobi";
  p.loc = {"", 11, 13};
  p.params = {testing::param("a", ParamKind::Grid, ScalarType::F32, 2, false),
              testing::param("c", ParamKind::Grid, ScalarType::F32, 2, true),
              testing::param("iters", ParamKind::Scalar, ScalarType::I32, 0, false),
              testing::param("norm", ParamKind::ScalarRef, ScalarType::F32, 0, false)};
  Expr t = make_var("t", ScalarType::I32);
  Stmt store = make_store("a",
                          bin(BinaryOp::Mul, make_float(0.5, ScalarType::F32),
                              make_grid_read("c", {0, 1}, ScalarType::F32)),
                          {"", 14, 7});
  Stmt reduce = make_reduce("r", ScalarType::F32, ReduceOp::Max, make_interior("a", 2), {"i", "j"},
                            make_block({make_yield(make_grid_read("a", {0, 0}, ScalarType::F32))}),
                            {"", 17, 20});
  Stmt branch = make_if(bin(BinaryOp::Gt, t, make_int(0)),
                        make_block({reduce, make_assign("norm", make_var("r", ScalarType::F32))}),
                        make_block({make_exchange("a", {"inc.h", 3, 4})}), {"", 16, 5});
  Stmt loop = make_for("t", ScalarType::I32, make_int(0), make_var("iters", ScalarType::I32), 1,
                       make_block({make_for_each(make_interior("a", 2), {"i", "j"},
                                                 make_block({store}), {"", 13, 5}),
                                   branch}),
                       {"", 12, 3});
  p.body = make_block({loop, make_while(make_bool(false), make_block({}))});
  Module m{"jacobi2d.cpp", {}, {p}};
  EXPECT_EQ(print(m), R"(module "jacobi2d.cpp"

program @jacobi(%a: grid<f32, 2>, %c: const grid<f32, 2>, %iters: i32, %norm: ref f32) loc(11:13) {
  for %t: i32 = 0 to %iters step 1 loc(12:3) {
    foreach %a.interior (%i, %j) loc(13:5) {
      store %a = 0.5f * %c[0, 1] loc(14:7)
    }
    if %t > 0 loc(16:5) {
      reduce %r: f32 = max %a.interior (%i, %j) loc(17:20) {
        yield %a[0, 0]
      }
      %norm = %r
    } else {
      exchange %a loc("inc.h":3:4)
    }
  }
  while false {
  }
}
)");
}

TEST(IRPrinter, SpmdProgramAndFunctionGolden) {
  Function f{"twice",
             ScalarType::F64,
             {{"x", ScalarType::F64}},
             make_block({make_var_decl("y", ScalarType::F64, nullptr),
                         make_assign("y", bin(BinaryOp::Mul, make_float(2, ScalarType::F64),
                                              make_var("x", ScalarType::F64))),
                         make_return(make_var("y", ScalarType::F64))}),
             {"", 1, 1}};
  Program p;
  p.name = "ring";
  p.kind = ProgramKind::Spmd;
  p.params = {testing::param("u", ParamKind::Block, ScalarType::F64, 1, false)};
  Expr one = make_int(1);
  Expr ext = make_grid_query(GridQueryOp::Extent, "u", 0);
  Region dst{"u", {make_int(-1)}, {make_int(0)}};
  Region src{"u", {bin(BinaryOp::Sub, ext, one)}, {ext}};
  Expr pe =
      bin(BinaryOp::Mod, bin(BinaryOp::Add, make_call("my_pe", {}, ScalarType::I32, false), one),
          make_call("n_pes", {}, ScalarType::I32, false));
  Expr value = make_cast(ScalarType::U64, one);
  p.body = make_block(
      {make_signal_decl("left"), make_put_signal(dst, src, "left", value, pe, {"", 9, 5}),
       make_wait_until("left", CmpOp::GE, value), make_quiet(), make_barrier_all(),
       make_block(
           {make_for_each(make_box({one}, {ext}), {"i"},
                          make_block({make_store(
                              "u", make_call("twice", {make_grid_read("u", {0}, ScalarType::F64)},
                                             ScalarType::F64, true))}))},
           {"", 20, 3})});
  Module m{"ring.cpp", {f}, {p}};
  EXPECT_EQ(print(m), R"(module "ring.cpp"

func @twice(%x: f64) -> f64 loc(1:1) {
  var %y: f64
  %y = 2.0 * %x
  return %y
}

spmd_program @ring(%u: block<f64, 1>) {
  signal %left
  put_signal %u[-1:0] <- %u[extent(%u, 0) - 1:extent(%u, 0)], %left = cast<u64>(1), pe = (my_pe() + 1) % n_pes() loc(9:5)
  wait_until %left ge cast<u64>(1)
  quiet
  barrier_all
  scope loc(20:3) {
    foreach [1:extent(%u, 0)] (%i) {
      store %u = @twice(%u[0])
    }
  }
}
)");
}

TEST(IRPrinter, LocInTheModuleSourceOmitsTheFile) {
  EXPECT_EQ(print_loc({"a.cpp", 3, 4}, "a.cpp"), "loc(3:4)");
  EXPECT_EQ(print_loc({"b.h", 3, 4}, "a.cpp"), "loc(\"b.h\":3:4)");
  EXPECT_EQ(print_loc({}, "a.cpp"), "");
  EXPECT_EQ(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}

TEST(IRPrinter, NullNodesPrintInsteadOfCrashing) {
  EXPECT_EQ(print(Expr{}), "<null>");
  EXPECT_EQ(print(make_binary(BinaryOp::Add, v("a"), make_var("b", ScalarType::F32))), "%a + %b");
  EXPECT_EQ(print(make_store("a", nullptr)), "store %a = <null>\n");
}

}  // namespace
}  // namespace stencilc::ir
