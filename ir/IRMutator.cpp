// Default IRMutator behaviour: mutate the children, rebuild only when one of them changed.
#include "ir/IRMutator.h"

namespace stencilc::ir {

namespace {

template <typename T, typename P>
Ref<T> cast_ref(const P& p) {
  return std::static_pointer_cast<const T>(p);
}

bool same_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

bool same_nodes(const Range& a, const Range& b) {
  return a.kind == b.kind && a.grid == b.grid && a.rank == b.rank && same_exprs(a.lo, b.lo) &&
         same_exprs(a.hi, b.hi);
}

bool same_nodes(const Region& a, const Region& b) {
  return a.block == b.block && same_exprs(a.lo, b.lo) && same_exprs(a.hi, b.hi);
}

// ---------------------------------------------------------------------------------------------
// Entry points

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::IntImm:
      return visit(cast_ref<IntImm>(e));
    case ExprKind::FloatImm:
      return visit(cast_ref<FloatImm>(e));
    case ExprKind::BoolImm:
      return visit(cast_ref<BoolImm>(e));
    case ExprKind::Var:
      return visit(cast_ref<Var>(e));
    case ExprKind::GridRead:
      return visit(cast_ref<GridRead>(e));
    case ExprKind::GridQuery:
      return visit(cast_ref<GridQuery>(e));
    case ExprKind::Unary:
      return visit(cast_ref<Unary>(e));
    case ExprKind::Binary:
      return visit(cast_ref<Binary>(e));
    case ExprKind::Select:
      return visit(cast_ref<Select>(e));
    case ExprKind::Cast:
      return visit(cast_ref<Cast>(e));
    case ExprKind::Call:
      return visit(cast_ref<Call>(e));
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::Block:
      return visit(cast_ref<Block>(s));
    case StmtKind::VarDecl:
      return visit(cast_ref<VarDecl>(s));
    case StmtKind::Assign:
      return visit(cast_ref<Assign>(s));
    case StmtKind::If:
      return visit(cast_ref<If>(s));
    case StmtKind::For:
      return visit(cast_ref<For>(s));
    case StmtKind::While:
      return visit(cast_ref<While>(s));
    case StmtKind::ForEach:
      return visit(cast_ref<ForEach>(s));
    case StmtKind::Reduce:
      return visit(cast_ref<Reduce>(s));
    case StmtKind::Store:
      return visit(cast_ref<Store>(s));
    case StmtKind::Yield:
      return visit(cast_ref<Yield>(s));
    case StmtKind::Return:
      return visit(cast_ref<Return>(s));
    case StmtKind::Swap:
      return visit(cast_ref<Swap>(s));
    case StmtKind::Exchange:
      return visit(cast_ref<Exchange>(s));
    case StmtKind::SignalDecl:
      return visit(cast_ref<SignalDecl>(s));
    case StmtKind::PutSignal:
      return visit(cast_ref<PutSignal>(s));
    case StmtKind::WaitUntil:
      return visit(cast_ref<WaitUntil>(s));
    case StmtKind::Quiet:
      return visit(cast_ref<Quiet>(s));
    case StmtKind::BarrierAll:
      return visit(cast_ref<BarrierAll>(s));
    case StmtKind::HaloSend:
      return visit(cast_ref<HaloSend>(s));
    case StmtKind::HaloRecv:
      return visit(cast_ref<HaloRecv>(s));
    case StmtKind::AllReduce:
      return visit(cast_ref<AllReduce>(s));
    case StmtKind::PhaseBarrier:
      return visit(cast_ref<PhaseBarrier>(s));
  }
  return s;
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) {
    out.push_back(mutate(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

Range IRMutator::mutate(const Range& r) {
  Range out = r;
  bool changed = false;
  out.lo = mutate_all(r.lo, &changed);
  out.hi = mutate_all(r.hi, &changed);
  return out;
}

Region IRMutator::mutate(const Region& r) {
  Region out = r;
  bool changed = false;
  out.lo = mutate_all(r.lo, &changed);
  out.hi = mutate_all(r.hi, &changed);
  return out;
}

Function IRMutator::mutate(const Function& f) {
  Function out = f;
  out.body = mutate(f.body);
  return out;
}

Program IRMutator::mutate(const Program& p) {
  Program out = p;
  out.body = mutate(p.body);
  return out;
}

Module IRMutator::mutate(const Module& m) {
  Module out;
  out.source = m.source;
  for (const Function& f : m.functions) out.functions.push_back(mutate(f));
  for (const Program& p : m.programs) out.programs.push_back(mutate(p));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Expressions

Expr IRMutator::visit(const Ref<IntImm>& op) {
  return op;
}
Expr IRMutator::visit(const Ref<FloatImm>& op) {
  return op;
}
Expr IRMutator::visit(const Ref<BoolImm>& op) {
  return op;
}
Expr IRMutator::visit(const Ref<Var>& op) {
  return op;
}
Expr IRMutator::visit(const Ref<GridRead>& op) {
  return op;
}
Expr IRMutator::visit(const Ref<GridQuery>& op) {
  if (!op->pe) return op;
  Expr pe = mutate(op->pe);
  if (pe == op->pe) return op;
  return make_grid_query(op->op, op->grid, op->dim, pe);
}

Expr IRMutator::visit(const Ref<Unary>& op) {
  Expr a = mutate(op->a);
  if (a == op->a) return op;
  // Keep the node's own type: Neg of an i64 stays i64 even if a pass hands back another type.
  return std::make_shared<Unary>(op->op, std::move(a), op->type);
}

Expr IRMutator::visit(const Ref<Binary>& op) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (a == op->a && b == op->b) return op;
  return std::make_shared<Binary>(op->op, std::move(a), std::move(b), op->type);
}

Expr IRMutator::visit(const Ref<Select>& op) {
  Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
  if (c == op->cond && t == op->t && f == op->f) return op;
  return std::make_shared<Select>(std::move(c), std::move(t), std::move(f), op->type);
}

Expr IRMutator::visit(const Ref<Cast>& op) {
  Expr a = mutate(op->a);
  if (a == op->a) return op;
  return make_cast(op->type, std::move(a));
}

Expr IRMutator::visit(const Ref<Call>& op) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(op->args, &changed);
  if (!changed) return op;
  return make_call(op->callee, std::move(args), op->type, op->user);
}

// ---------------------------------------------------------------------------------------------
// Statements

Stmt IRMutator::visit(const Ref<Block>& op) {
  bool changed = false;
  std::vector<Stmt> stmts;
  stmts.reserve(op->stmts.size());
  for (const Stmt& s : op->stmts) {
    Stmt m = mutate(s);
    if (m != s) changed = true;
    if (m) stmts.push_back(std::move(m));
  }
  if (!changed) return op;
  return make_block(std::move(stmts), op->loc);
}

Stmt IRMutator::visit(const Ref<VarDecl>& op) {
  Expr init = mutate(op->init);
  if (init == op->init) return op;
  return make_var_decl(op->name, op->type, std::move(init), op->loc);
}

Stmt IRMutator::visit(const Ref<Assign>& op) {
  Expr v = mutate(op->value);
  if (v == op->value) return op;
  return make_assign(op->name, std::move(v), op->loc);
}

Stmt IRMutator::visit(const Ref<If>& op) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_body), e = mutate(op->else_body);
  if (c == op->cond && t == op->then_body && e == op->else_body) return op;
  // A body mutated away is still a body: keep the If well formed with an empty block.
  if (!t) t = make_block({}, op->then_body->loc);
  return rebuild_if(*op, std::move(c), std::move(t), std::move(e));
}

Stmt IRMutator::visit(const Ref<For>& op) {
  Expr lo = mutate(op->lo), hi = mutate(op->hi);
  Stmt body = mutate(op->body);
  if (lo == op->lo && hi == op->hi && body == op->body) return op;
  if (!body) body = make_block({}, op->body->loc);
  return with_forms(make_for(op->var, op->type, std::move(lo), std::move(hi), op->step, std::move(body), op->loc),
                    op->forms);
}

Stmt IRMutator::visit(const Ref<While>& op) {
  Expr c = mutate(op->cond);
  Stmt body = mutate(op->body);
  if (c == op->cond && body == op->body) return op;
  if (!body) body = make_block({}, op->body->loc);
  return with_forms(make_while(std::move(c), std::move(body), op->loc), op->forms);
}

Stmt IRMutator::visit(const Ref<ForEach>& op) {
  Range r = mutate(op->range);
  Stmt body = mutate(op->body);
  if (same_nodes(r, op->range) && body == op->body) return op;
  if (!body) body = make_block({}, op->body->loc);
  // A copy keeps what the pipeline attached (part, widths, role, cost).
  auto out = std::make_shared<ForEach>(*op);
  out->range = std::move(r);
  out->body = std::move(body);
  return out;
}

Stmt IRMutator::visit(const Ref<Reduce>& op) {
  Range r = mutate(op->range);
  Stmt body = mutate(op->body);
  if (same_nodes(r, op->range) && body == op->body) return op;
  if (!body) body = make_block({}, op->body->loc);
  return make_reduce(op->result, op->type, op->op, std::move(r), op->indices, std::move(body),
                     op->loc);
}

Stmt IRMutator::visit(const Ref<Store>& op) {
  Expr v = mutate(op->value);
  if (v == op->value) return op;
  return make_store(op->grid, std::move(v), op->loc);
}

Stmt IRMutator::visit(const Ref<Yield>& op) {
  Expr v = mutate(op->value);
  if (v == op->value) return op;
  return make_yield(std::move(v), op->loc);
}

Stmt IRMutator::visit(const Ref<Return>& op) {
  Expr v = mutate(op->value);
  if (v == op->value) return op;
  return make_return(std::move(v), op->loc);
}

Stmt IRMutator::visit(const Ref<Swap>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<Exchange>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<SignalDecl>& op) {
  return op;
}

Stmt IRMutator::visit(const Ref<PutSignal>& op) {
  Region dst = mutate(op->dst), src = mutate(op->src);
  Expr v = mutate(op->value), pe = mutate(op->pe);
  if (same_nodes(dst, op->dst) && same_nodes(src, op->src) && v == op->value && pe == op->pe) {
    return op;
  }
  return make_put_signal(std::move(dst), std::move(src), op->signal, std::move(v), std::move(pe),
                         op->loc, op->role);
}

Stmt IRMutator::visit(const Ref<WaitUntil>& op) {
  Expr v = mutate(op->value);
  if (v == op->value) return op;
  return make_wait_until(op->signal, op->cmp, std::move(v), op->loc, op->role);
}

Stmt IRMutator::visit(const Ref<Quiet>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<BarrierAll>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<HaloSend>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<HaloRecv>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<AllReduce>& op) {
  return op;
}
Stmt IRMutator::visit(const Ref<PhaseBarrier>& op) {
  return op;
}

}  // namespace stencilc::ir
