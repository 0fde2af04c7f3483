// Default IRVisitor behaviour: dispatch on the node kind, then visit every child in order.
#include "ir/IRVisitor.h"

namespace stencilc::ir {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::IntImm:
      return visit(as<IntImm>(e));
    case ExprKind::FloatImm:
      return visit(as<FloatImm>(e));
    case ExprKind::BoolImm:
      return visit(as<BoolImm>(e));
    case ExprKind::Var:
      return visit(as<Var>(e));
    case ExprKind::GridRead:
      return visit(as<GridRead>(e));
    case ExprKind::GridQuery:
      return visit(as<GridQuery>(e));
    case ExprKind::Unary:
      return visit(as<Unary>(e));
    case ExprKind::Binary:
      return visit(as<Binary>(e));
    case ExprKind::Select:
      return visit(as<Select>(e));
    case ExprKind::Cast:
      return visit(as<Cast>(e));
    case ExprKind::Call:
      return visit(as<Call>(e));
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Block:
      return visit(as<Block>(s));
    case StmtKind::VarDecl:
      return visit(as<VarDecl>(s));
    case StmtKind::Assign:
      return visit(as<Assign>(s));
    case StmtKind::If:
      return visit(as<If>(s));
    case StmtKind::For:
      return visit(as<For>(s));
    case StmtKind::While:
      return visit(as<While>(s));
    case StmtKind::ForEach:
      return visit(as<ForEach>(s));
    case StmtKind::Reduce:
      return visit(as<Reduce>(s));
    case StmtKind::Store:
      return visit(as<Store>(s));
    case StmtKind::Yield:
      return visit(as<Yield>(s));
    case StmtKind::Return:
      return visit(as<Return>(s));
    case StmtKind::Swap:
      return visit(as<Swap>(s));
    case StmtKind::Exchange:
      return visit(as<Exchange>(s));
    case StmtKind::SignalDecl:
      return visit(as<SignalDecl>(s));
    case StmtKind::PutSignal:
      return visit(as<PutSignal>(s));
    case StmtKind::WaitUntil:
      return visit(as<WaitUntil>(s));
    case StmtKind::Quiet:
      return visit(as<Quiet>(s));
    case StmtKind::BarrierAll:
      return visit(as<BarrierAll>(s));
    case StmtKind::HaloSend:
      return visit(as<HaloSend>(s));
    case StmtKind::HaloRecv:
      return visit(as<HaloRecv>(s));
    case StmtKind::AllReduce:
      return visit(as<AllReduce>(s));
    case StmtKind::PhaseBarrier:
      return visit(as<PhaseBarrier>(s));
  }
}

void IRVisitor::visit(const Range& r) {
  for (const Expr& e : r.lo) visit(e);
  for (const Expr& e : r.hi) visit(e);
}

void IRVisitor::visit(const Region& r) {
  for (const Expr& e : r.lo) visit(e);
  for (const Expr& e : r.hi) visit(e);
}

void IRVisitor::visit(const Function& f) {
  visit(f.body);
}
void IRVisitor::visit(const Program& p) {
  visit(p.body);
}

void IRVisitor::visit(const Module& m) {
  for (const Function& f : m.functions) visit(f);
  for (const Program& p : m.programs) visit(p);
}

// Leaves
void IRVisitor::visit(const IntImm*) {}
void IRVisitor::visit(const FloatImm*) {}
void IRVisitor::visit(const BoolImm*) {}
void IRVisitor::visit(const Var*) {}
void IRVisitor::visit(const GridRead*) {}
void IRVisitor::visit(const GridQuery* op) {
  if (op->pe) visit(op->pe);
}

void IRVisitor::visit(const Unary* op) {
  visit(op->a);
}

void IRVisitor::visit(const Binary* op) {
  visit(op->a);
  visit(op->b);
}

void IRVisitor::visit(const Select* op) {
  visit(op->cond);
  visit(op->t);
  visit(op->f);
}

void IRVisitor::visit(const Cast* op) {
  visit(op->a);
}

void IRVisitor::visit(const Call* op) {
  for (const Expr& a : op->args) visit(a);
}

void IRVisitor::visit(const Block* op) {
  for (const Stmt& s : op->stmts) visit(s);
}

void IRVisitor::visit(const VarDecl* op) {
  visit(op->init);
}
void IRVisitor::visit(const Assign* op) {
  visit(op->value);
}

void IRVisitor::visit(const If* op) {
  visit(op->cond);
  visit(op->then_body);
  visit(op->else_body);
}

void IRVisitor::visit(const For* op) {
  visit(op->lo);
  visit(op->hi);
  visit(op->body);
}

void IRVisitor::visit(const While* op) {
  visit(op->cond);
  visit(op->body);
}

void IRVisitor::visit(const ForEach* op) {
  visit(op->range);
  visit(op->body);
}

void IRVisitor::visit(const Reduce* op) {
  visit(op->range);
  visit(op->body);
}

void IRVisitor::visit(const Store* op) {
  visit(op->value);
}
void IRVisitor::visit(const Yield* op) {
  visit(op->value);
}
void IRVisitor::visit(const Return* op) {
  visit(op->value);
}
void IRVisitor::visit(const Swap*) {}
void IRVisitor::visit(const Exchange*) {}
void IRVisitor::visit(const SignalDecl*) {}

void IRVisitor::visit(const PutSignal* op) {
  visit(op->dst);
  visit(op->src);
  visit(op->value);
  visit(op->pe);
}

void IRVisitor::visit(const WaitUntil* op) {
  visit(op->value);
}
void IRVisitor::visit(const Quiet*) {}
void IRVisitor::visit(const BarrierAll*) {}
void IRVisitor::visit(const HaloSend*) {}
void IRVisitor::visit(const HaloRecv*) {}
void IRVisitor::visit(const AllReduce*) {}
void IRVisitor::visit(const PhaseBarrier*) {}

}  // namespace stencilc::ir
