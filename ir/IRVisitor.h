// A read-only walk over the IR, Halide style.
//
// Subclasses override `visit` for the nodes they care about and call the base version to keep
// recursing into children. Because overriding one `visit` overload hides the others, start a
// subclass with `using IRVisitor::visit;`.
//
//   struct CountReads : IRVisitor {
//     using IRVisitor::visit;
//     int n = 0;
//     void visit(const GridRead* op) override { ++n; }
//   };
#pragma once

#include "ir/IR.h"

namespace stencilc::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;

  // Entry points: dispatch on the node kind. Null expressions and statements are skipped.
  virtual void visit(const Expr& e);
  virtual void visit(const Stmt& s);
  virtual void visit(const Range& r);
  virtual void visit(const Region& r);
  virtual void visit(const Function& f);
  virtual void visit(const Program& p);
  virtual void visit(const Module& m);

  // Expressions
  virtual void visit(const IntImm* op);
  virtual void visit(const FloatImm* op);
  virtual void visit(const BoolImm* op);
  virtual void visit(const Var* op);
  virtual void visit(const GridRead* op);
  virtual void visit(const GridQuery* op);
  virtual void visit(const Unary* op);
  virtual void visit(const Binary* op);
  virtual void visit(const Select* op);
  virtual void visit(const Cast* op);
  virtual void visit(const Call* op);

  // Statements
  virtual void visit(const Block* op);
  virtual void visit(const VarDecl* op);
  virtual void visit(const Assign* op);
  virtual void visit(const If* op);
  virtual void visit(const For* op);
  virtual void visit(const While* op);
  virtual void visit(const ForEach* op);
  virtual void visit(const Reduce* op);
  virtual void visit(const Store* op);
  virtual void visit(const Yield* op);
  virtual void visit(const Return* op);
  virtual void visit(const Swap* op);
  virtual void visit(const Exchange* op);
  virtual void visit(const SignalDecl* op);
  virtual void visit(const PutSignal* op);
  virtual void visit(const WaitUntil* op);
  virtual void visit(const Quiet* op);
  virtual void visit(const BarrierAll* op);
  virtual void visit(const HaloSend* op);
  virtual void visit(const HaloRecv* op);
  virtual void visit(const AllReduce* op);
  virtual void visit(const PhaseBarrier* op);
};

}  // namespace stencilc::ir
