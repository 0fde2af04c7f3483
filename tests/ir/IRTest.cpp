// Builders, spellings, lookups, and the visitor and mutator defaults.
#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::ir {
namespace {

TEST(IRBuilders, ComputeResultTypes) {
  Expr x = make_var("x", ScalarType::F32);
  Expr n = make_var("n", ScalarType::I64);
  EXPECT_EQ(make_binary(BinaryOp::Add, x, x)->type, ScalarType::F32);
  EXPECT_EQ(make_binary(BinaryOp::Mod, n, n)->type, ScalarType::I64);
  EXPECT_EQ(make_binary(BinaryOp::Lt, x, x)->type, ScalarType::Bool);
  EXPECT_EQ(make_binary(BinaryOp::And, make_bool(true), make_bool(false))->type, ScalarType::Bool);
  EXPECT_EQ(make_unary(UnaryOp::Neg, n)->type, ScalarType::I64);
  EXPECT_EQ(make_unary(UnaryOp::Not, make_bool(true))->type, ScalarType::Bool);
  EXPECT_EQ(make_select(make_bool(true), x, x)->type, ScalarType::F32);
  EXPECT_EQ(make_cast(ScalarType::U64, x)->type, ScalarType::U64);
  EXPECT_EQ(make_grid_query(GridQueryOp::Extent, "g", 1)->type, ScalarType::I32);
  EXPECT_EQ(make_grid_read("g", {0, 1}, ScalarType::F64)->type, ScalarType::F64);
  EXPECT_EQ(make_int(3)->type, ScalarType::I32);
  EXPECT_EQ(make_float(0.5, ScalarType::F32)->type, ScalarType::F32);
  EXPECT_EQ(make_call("sqrt", {x}, ScalarType::F32, false)->type, ScalarType::F32);
}

TEST(IRBuilders, RangesCarryTheirRank) {
  EXPECT_EQ(make_interior("a", 2).rank, 2);
  EXPECT_EQ(make_owned("u", 1).kind, Range::Kind::Owned);
  Range box = make_box({make_int(0), make_int(1)}, {make_int(5), make_int(6)});
  EXPECT_EQ(box.rank, 2);
  EXPECT_EQ(box.kind, Range::Kind::Box);
}

TEST(IRSpellings, RoundTripAndClassify) {
  for (ScalarType t : {ScalarType::Bool, ScalarType::I32, ScalarType::I64, ScalarType::U64,
                       ScalarType::F32, ScalarType::F64}) {
    EXPECT_EQ(scalar_type_from_string(to_string(t)), t);
  }
  EXPECT_FALSE(scalar_type_from_string("float").has_value());
  EXPECT_TRUE(is_float(ScalarType::F32));
  EXPECT_FALSE(is_integer(ScalarType::Bool));
  EXPECT_TRUE(is_integer(ScalarType::U64));
  EXPECT_STREQ(to_string(BinaryOp::Le), "<=");
  EXPECT_STREQ(to_string(CmpOp::GE), "ge");
  EXPECT_STREQ(to_string(ReduceOp::Max), "max");
  EXPECT_TRUE(is_comparison(BinaryOp::Ne));
  EXPECT_TRUE(is_logical(BinaryOp::Or));
  EXPECT_LT(precedence(BinaryOp::Or), precedence(BinaryOp::And));
  EXPECT_LT(precedence(BinaryOp::Add), precedence(BinaryOp::Mul));
  EXPECT_TRUE(is_intrinsic("pow"));
  EXPECT_EQ(intrinsic_arity("fmax"), 2);
  EXPECT_EQ(intrinsic_arity("my_pe"), 0);
  EXPECT_FALSE(is_intrinsic("laplacian"));
  EXPECT_TRUE(is_spmd_intrinsic("n_pes"));
}

TEST(IRLookups, FindByName) {
  Module m;
  m.functions.push_back(Function{"f", ScalarType::F32, {}, nullptr, {}});
  Program p;
  p.name = "p";
  p.params.push_back(testing::param("a", ParamKind::Grid, ScalarType::F32, 2, false));
  m.programs.push_back(p);
  EXPECT_NE(m.find_function("f"), nullptr);
  EXPECT_EQ(m.find_function("p"), nullptr);
  ASSERT_NE(m.find_program("p"), nullptr);
  EXPECT_EQ(m.find_program("p")->find_param("a")->rank, 2);
  EXPECT_EQ(m.find_program("p")->find_param("b"), nullptr);
}

const char* kJacobi = R"(module "j.cpp"

program @jacobi(%a: grid<f32, 2>, %a_new: grid<f32, 2>, %iters: i32) {
  for %t: i32 = 0 to %iters step 1 {
    foreach %a_new.interior (%i, %j) {
      store %a_new = 0.25f * (%a[0, 1] + %a[0, -1] + %a[1, 0] + %a[-1, 0])
    }
    swap %a, %a_new
  }
}
)";

struct CountReads : IRVisitor {
  using IRVisitor::visit;
  int reads = 0, stores = 0;
  void visit(const GridRead*) override { ++reads; }
  void visit(const Store* op) override {
    ++stores;
    IRVisitor::visit(op);  // keep walking into the stored value
  }
};

TEST(IRVisitor, RecursesIntoEveryChild) {
  Module m = testing::parse_ok(kJacobi);
  CountReads count;
  count.visit(m);
  EXPECT_EQ(count.reads, 4);
  EXPECT_EQ(count.stores, 1);
}

TEST(IRMutator, IdentityKeepsEveryPointer) {
  Module m = testing::parse_ok(kJacobi);
  IRMutator identity;
  Module out = identity.mutate(m);
  EXPECT_EQ(out.programs[0].body, m.programs[0].body);
}

// Replaces reads of %a by reads of %b, leaving every other node alone.
struct RenameReads : IRMutator {
  using IRMutator::visit;
  Expr visit(const Ref<GridRead>& op) override {
    if (op->grid != "a") return op;
    return make_grid_read("b", op->offsets, op->type);
  }
};

TEST(IRMutator, RebuildsOnlyTheChangedPath) {
  Expr keep = make_var("k", ScalarType::F32);
  Expr e = make_binary(BinaryOp::Add, keep, make_grid_read("a", {0}, ScalarType::F32));
  Expr out = RenameReads().mutate(e);
  ASSERT_NE(out, e);
  auto* b = as<Binary>(out);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->a, keep);  // the unchanged sibling is shared, not copied
  EXPECT_EQ(print(out), "%k + %b[0]");
}

struct DropSwaps : IRMutator {
  using IRMutator::visit;
  Stmt visit(const Ref<Swap>&) override { return nullptr; }
};

TEST(IRMutator, NullStatementIsRemovedFromItsBlock) {
  Module m = testing::parse_ok(kJacobi);
  Module out = DropSwaps().mutate(m);
  std::string text = print(out);
  EXPECT_EQ(text.find("swap"), std::string::npos);
  EXPECT_NE(text.find("foreach"), std::string::npos);
}

}  // namespace
}  // namespace stencilc::ir
