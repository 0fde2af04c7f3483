// fold_constants: what folds, in which type, and what C semantics keep unfolded.
#include <gtest/gtest.h>

#include "ir/IRPrinter.h"
#include "passes/FoldConstants.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::passes {
namespace {

using namespace ir;

// Folds `expr`, the initializer of a variable of type `type` in a program with scalars
// %s (f32), %n (i32), %p (bool); returns the folded initializer's text.
std::string fold(const std::string& expr, const std::string& type) {
  Module m = testing::parse_ok(
      "module \"t\"\nprogram @p(%s: f32, %n: i32, %p: bool) {\n  var %e: " + type + " = " + expr +
      "\n}\n");
  if (m.programs.empty()) return "<parse error>";
  Module out = fold_constants(m);
  return print(as<VarDecl>(as<Block>(out.programs[0].body)->stmts[0])->init);
}

TEST(FoldConstants, IntegerArithmeticFollowsC) {
  EXPECT_EQ(fold("2 + 3 * 4", "i32"), "14");
  EXPECT_EQ(fold("(1 + 2) * %n", "i32"), "3 * %n");
  EXPECT_EQ(fold("7 / 2", "i32"), "3");
  EXPECT_EQ(fold("-7 / 2", "i32"), "-3");  // truncation toward zero
  EXPECT_EQ(fold("-7 % 3", "i32"), "-1");  // the remainder takes the dividend's sign
  EXPECT_EQ(fold("3000000000l * 3l", "i64"), "9000000000l");
  EXPECT_EQ(fold("0u - 1u", "u64"), "18446744073709551615u");  // unsigned wraps
  EXPECT_EQ(fold("18446744073709551615u * 2u", "u64"), "18446744073709551614u");
  EXPECT_EQ(fold("-(3)", "i32"), "-3");
}

TEST(FoldConstants, UndefinedIntegerOperationsStay) {
  EXPECT_EQ(fold("7 / 0", "i32"), "7 / 0");
  EXPECT_EQ(fold("7 % 0", "i32"), "7 % 0");
  EXPECT_EQ(fold("7u / 0u", "u64"), "7u / 0u");
  EXPECT_EQ(fold("2147483647 + 1", "i32"), "2147483647 + 1");
  EXPECT_EQ(fold("-2147483648 / -1", "i32"), "-2147483648 / -1");
  EXPECT_EQ(fold("-2147483648 % -1", "i32"), "-2147483648 % -1");
  EXPECT_EQ(fold("9223372036854775807l + 1l", "i64"), "9223372036854775807l + 1l");
  EXPECT_EQ(fold("-(-2147483648)", "i32"), "-(-2147483648)");
  EXPECT_EQ(fold("65536 * 65536", "i32"), "65536 * 65536");
}

TEST(FoldConstants, FloatArithmeticInItsOwnType) {
  EXPECT_EQ(fold("0.1 + 0.2", "f64"), "0.30000000000000004");
  EXPECT_EQ(fold("0.1f + 0.2f", "f32"), "0.3f");
  EXPECT_EQ(fold("16777216.0f + 1.0f", "f32"), "16777216.0f");  // rounds in float
  EXPECT_EQ(fold("16777216.0 + 1.0", "f64"), "16777217.0");
  EXPECT_EQ(fold("1.0f / 3.0f", "f32"), "0.33333334f");
  EXPECT_EQ(fold("-(0.0f)", "f32"), "-0.0f");
  EXPECT_EQ(fold("1.0f / 0.0f", "f32"), "1.0f / 0.0f");  // division by zero is kept
  EXPECT_EQ(fold("sqrt(4.0)", "f64"), "sqrt(4.0)");      // the device's libm decides
}

TEST(FoldConstants, Comparisons) {
  EXPECT_EQ(fold("1 < 2", "bool"), "true");
  EXPECT_EQ(fold("-1 < 0", "bool"), "true");
  EXPECT_EQ(fold("1u > 18446744073709551615u", "bool"), "false");  // unsigned comparison
  EXPECT_EQ(fold("0.1f == 0.1f", "bool"), "true");
  EXPECT_EQ(fold("nan == nan", "bool"), "false");
  EXPECT_EQ(fold("true != false", "bool"), "true");
  EXPECT_EQ(fold("!(1 < 2)", "bool"), "false");
}

TEST(FoldConstants, LogicalOperatorsWithOneLiteral) {
  EXPECT_EQ(fold("%p && true", "bool"), "%p");
  EXPECT_EQ(fold("false && %p", "bool"), "false");
  EXPECT_EQ(fold("%p || true", "bool"), "true");
  EXPECT_EQ(fold("false || %n > 0", "bool"), "%n > 0");
  EXPECT_EQ(fold("1 > 0 && %n > 2", "bool"), "%n > 2");
}

TEST(FoldConstants, Casts) {
  EXPECT_EQ(fold("cast<i32>(3.9)", "i32"), "3");
  EXPECT_EQ(fold("cast<i32>(-3.9)", "i32"), "-3");
  EXPECT_EQ(fold("cast<i32>(1e10)", "i32"), "cast<i32>(1e+10)");  // out of range: undefined
  EXPECT_EQ(fold("cast<i32>(nan)", "i32"), "cast<i32>(nan)");
  EXPECT_EQ(fold("cast<u64>(-1.0)", "u64"), "cast<u64>(-1.0)");
  EXPECT_EQ(fold("cast<u64>(-1)", "u64"), "18446744073709551615u");
  EXPECT_EQ(fold("cast<i32>(4294967297l)", "i32"), "1");
  EXPECT_EQ(fold("cast<f32>(16777217)", "f32"), "16777216.0f");
  EXPECT_EQ(fold("cast<f32>(0.1)", "f32"), "0.1f");
  EXPECT_EQ(fold("cast<f32>(9007199254740993l)", "f32"), "9.007199e+15f");
  EXPECT_EQ(fold("cast<bool>(0.5)", "bool"), "true");
  EXPECT_EQ(fold("cast<f64>(true)", "f64"), "1.0");
  EXPECT_EQ(fold("cast<f32>(%n + 1)", "f32"), "cast<f32>(%n + 1)");
}

TEST(FoldConstants, SelectWithALiteralCondition) {
  EXPECT_EQ(fold("select(1 < 2, %s, 0.0f)", "f32"), "%s");
  EXPECT_EQ(fold("select(false, %s, 2.0f * 3.0f)", "f32"), "6.0f");
  EXPECT_EQ(fold("select(%p, 1, 2)", "i32"), "select(%p, 1, 2)");
}

TEST(FoldConstants, NothingToFoldKeepsTheModule) {
  Module m =
      testing::parse_ok("module \"t\"\nprogram @p(%n: i32, %r: ref i32) {\n  %r = %n + 1\n}\n");
  Module out = fold_constants(m);
  EXPECT_EQ(out.programs[0].body, m.programs[0].body);
}

}  // namespace
}  // namespace stencilc::passes
