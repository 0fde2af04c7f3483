// A rewriting walk over the IR, Halide style.
//
// `mutate` dispatches on the node kind to a `visit` overload that returns the replacement node.
// The defaults mutate every child and rebuild the node only when a child changed, so an
// unchanged subtree comes back as the very same pointer (passes and the pass manager rely on
// that to detect "nothing changed" cheaply). Override `visit` for the nodes a pass rewrites and
// start the subclass with `using IRMutator::visit;` so the other overloads stay visible.
//
// Returning a null Stmt from a statement inside a Block removes that statement.
//
//   struct DropExchanges : IRMutator {
//     using IRMutator::visit;
//     Stmt visit(const Ref<Exchange>& op) override { return nullptr; }
//   };
#pragma once

#include "ir/IR.h"

namespace stencilc::ir {

/// A typed handle on a node: returning it from a `visit` returns the node unchanged.
template <typename T>
using Ref = std::shared_ptr<const T>;

class IRMutator {
 public:
  virtual ~IRMutator() = default;

  // Entry points. Null in, null out.
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);
  virtual Range mutate(const Range& r);
  virtual Region mutate(const Region& r);
  virtual Function mutate(const Function& f);
  virtual Program mutate(const Program& p);
  virtual Module mutate(const Module& m);

 protected:
  // Expressions
  virtual Expr visit(const Ref<IntImm>& op);
  virtual Expr visit(const Ref<FloatImm>& op);
  virtual Expr visit(const Ref<BoolImm>& op);
  virtual Expr visit(const Ref<Var>& op);
  virtual Expr visit(const Ref<GridRead>& op);
  virtual Expr visit(const Ref<GridQuery>& op);
  virtual Expr visit(const Ref<Unary>& op);
  virtual Expr visit(const Ref<Binary>& op);
  virtual Expr visit(const Ref<Select>& op);
  virtual Expr visit(const Ref<Cast>& op);
  virtual Expr visit(const Ref<Call>& op);

  // Statements
  virtual Stmt visit(const Ref<Block>& op);
  virtual Stmt visit(const Ref<VarDecl>& op);
  virtual Stmt visit(const Ref<Assign>& op);
  virtual Stmt visit(const Ref<If>& op);
  virtual Stmt visit(const Ref<For>& op);
  virtual Stmt visit(const Ref<While>& op);
  virtual Stmt visit(const Ref<ForEach>& op);
  virtual Stmt visit(const Ref<Reduce>& op);
  virtual Stmt visit(const Ref<Store>& op);
  virtual Stmt visit(const Ref<Yield>& op);
  virtual Stmt visit(const Ref<Return>& op);
  virtual Stmt visit(const Ref<Swap>& op);
  virtual Stmt visit(const Ref<Exchange>& op);
  virtual Stmt visit(const Ref<SignalDecl>& op);
  virtual Stmt visit(const Ref<PutSignal>& op);
  virtual Stmt visit(const Ref<WaitUntil>& op);
  virtual Stmt visit(const Ref<Quiet>& op);
  virtual Stmt visit(const Ref<BarrierAll>& op);
  virtual Stmt visit(const Ref<HaloSend>& op);
  virtual Stmt visit(const Ref<HaloRecv>& op);
  virtual Stmt visit(const Ref<AllReduce>& op);
  virtual Stmt visit(const Ref<PhaseBarrier>& op);

  /// Mutates every element; sets *changed when any element came back different.
  std::vector<Expr> mutate_all(const std::vector<Expr>& es, bool* changed);
};

/// True when two ranges (or regions) hold the same kind, names and expression pointers.
bool same_nodes(const Range& a, const Range& b);
bool same_nodes(const Region& a, const Region& b);

}  // namespace stencilc::ir
