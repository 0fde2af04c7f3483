// The verifier: expressions, ranges and regions (statements: Verifier.cpp).
#include <cmath>
#include <limits>

#include "ir/IRPrinter.h"
#include "ir/VerifierImpl.h"

namespace stencilc::ir::detail {

namespace {

std::string type_str(ScalarType t) {
  return to_string(t);
}

}  // namespace

void Verifier::check_typed(const Expr& e, ScalarType expected, const std::string& what) {
  check_expr(e);
  if (e && e->type != expected) {
    error(what + " has type " + type_str(e->type) + ", expected " + type_str(expected));
  }
}

void Verifier::check_expr(const Expr& e) {
  if (!e) return error("missing expression");
  switch (e->kind) {
    case ExprKind::IntImm: {
      auto* op = as<IntImm>(e);
      if (!is_integer(op->type)) error("integer literal of type " + type_str(op->type));
      if (op->type == ScalarType::I32 && (op->value < std::numeric_limits<int32_t>::min() ||
                                          op->value > std::numeric_limits<int32_t>::max())) {
        error("i32 literal " + std::to_string(op->value) + " out of range");
      }
      return;
    }
    case ExprKind::FloatImm: {
      auto* op = as<FloatImm>(e);
      if (!is_float(op->type)) error("floating literal of type " + type_str(op->type));
      // An f32 literal holds a float's value exactly, or printing it would change it.
      if (op->type == ScalarType::F32 && !std::isnan(op->value) &&
          static_cast<double>(static_cast<float>(op->value)) != op->value) {
        error("f32 literal " + std::to_string(op->value) + " is not representable in f32");
      }
      return;
    }
    case ExprKind::BoolImm:
      if (e->type != ScalarType::Bool) error("bool literal of type " + type_str(e->type));
      return;
    case ExprKind::Var:
      return check_var(as<Var>(e));
    case ExprKind::GridRead:
      return check_grid_read(as<GridRead>(e));
    case ExprKind::GridQuery:
      return check_grid_query(as<GridQuery>(e));
    case ExprKind::Unary:
      return check_unary(as<Unary>(e));
    case ExprKind::Binary:
      return check_binary(as<Binary>(e));
    case ExprKind::Select: {
      auto* op = as<Select>(e);
      check_typed(op->cond, ScalarType::Bool, "select condition");
      check_expr(op->t);
      check_expr(op->f);
      if (op->t && op->f && op->t->type != op->f->type) {
        error("select arms have different types " + type_str(op->t->type) + " and " +
              type_str(op->f->type));
      } else if (op->t && op->type != op->t->type) {
        error("select typed " + type_str(op->type) + " has arms of type " + type_str(op->t->type));
      }
      return;
    }
    case ExprKind::Cast:
      return check_expr(as<Cast>(e)->a);
    case ExprKind::Call:
      return check_call(as<Call>(e));
  }
}

void Verifier::check_var(const Var* op) {
  const std::string name = "%" + op->name;
  const VarInfo* v = lookup(op->name);
  if (!v) {
    error(find_grid(op->name) ? "grid " + name + " used as a scalar value"
                              : "use of undeclared " + name + " (or used outside its scope)");
    return;
  }
  if (v->kind == VarKind::Signal) return error("signal " + name + " used as a value");
  if (v->type != op->type) {
    error(name + " used as " + type_str(op->type) + " but declared " + type_str(v->type));
  }
}

void Verifier::check_grid_read(const GridRead* op) {
  const std::string name = "%" + op->grid;
  if (!in_point_body()) error("read of " + name + " outside a foreach or reduce body");
  const Param* p = find_grid(op->grid);
  if (!p) return error("read of " + name + ", which is not a grid or block parameter");
  if (static_cast<int>(op->offsets.size()) != p->rank) {
    error(name + " read with " + std::to_string(op->offsets.size()) + " offsets, but its rank is " +
          std::to_string(p->rank));
  }
  if (op->type != p->type) {
    error("read of " + name + " typed " + type_str(op->type) + ", but its elements are " +
          type_str(p->type));
  }
}

void Verifier::check_grid_query(const GridQuery* op) {
  const std::string name = "%" + op->grid;
  const Param* p = find_grid(op->grid);
  if (!p)
    return error(std::string(to_string(op->op)) + " of " + name +
                 ", which is not a grid or block parameter");
  if (op->dim < 0 || op->dim >= p->rank) {
    error("dimension " + std::to_string(op->dim) + " out of range for " + name + " of rank " +
          std::to_string(p->rank));
  }
  const bool interior = op->op == GridQueryOp::InteriorLo || op->op == GridQueryOp::InteriorHi;
  if (interior && p->kind != ParamKind::Grid) {
    error(std::string(to_string(op->op)) + " of " + name + ": only grids have interiors");
  } else if (!interior && op->op != GridQueryOp::Extent && p->kind != ParamKind::Block) {
    error(std::string(to_string(op->op)) + " of " + name +
          ": only blocks have origins, halos and per-PE layouts");
  }
  if (op->type != ScalarType::I32)
    error(std::string(to_string(op->op)) + " typed " + type_str(op->type) + ", expected i32");
  if (takes_pe(op->op) != (op->pe != nullptr)) {
    error(std::string(to_string(op->op)) + (op->pe ? " takes no PE" : " needs a PE"));
  } else if (op->pe) {
    check_expr(op->pe);
    if (op->pe->type != ScalarType::I32) error(std::string(to_string(op->op)) + ": the PE must be i32");
  }
}

void Verifier::check_unary(const Unary* op) {
  check_expr(op->a);
  if (!op->a) return;
  if (op->op == UnaryOp::Not) {
    if (op->a->type != ScalarType::Bool)
      error("'!' of a " + type_str(op->a->type) + " operand, expected bool");
    if (op->type != ScalarType::Bool) error("'!' typed " + type_str(op->type) + ", expected bool");
    return;
  }
  if (op->a->type == ScalarType::Bool) error("negation of a bool operand");
  if (op->type != op->a->type) {
    error("negation typed " + type_str(op->type) + " of a " + type_str(op->a->type) + " operand");
  }
}

void Verifier::check_binary(const Binary* op) {
  check_expr(op->a);
  check_expr(op->b);
  if (!op->a || !op->b) return;
  const std::string sym = std::string("'") + to_string(op->op) + "'";
  ScalarType t = op->a->type;
  if (t != op->b->type) {
    return error("operands of " + sym + " have different types " + type_str(t) + " and " +
                 type_str(op->b->type));
  }
  bool bool_result = is_comparison(op->op) || is_logical(op->op);
  if (is_logical(op->op) && t != ScalarType::Bool) {
    error("operands of " + sym + " must be bool, not " + type_str(t));
  } else if (!bool_result && t == ScalarType::Bool) {
    error("arithmetic " + sym + " on bool operands");
  } else if (op->op == BinaryOp::Mod && is_float(t)) {
    error("'%' on " + type_str(t) + " operands (use integer operands)");
  }
  ScalarType expected = bool_result ? ScalarType::Bool : t;
  if (op->type != expected) {
    error(sym + " typed " + type_str(op->type) + ", expected " + type_str(expected));
  }
}

void Verifier::check_call(const Call* op) {
  for (const Expr& a : op->args) check_expr(a);
  const std::string n =
      op->args.size() == 1 ? "1 argument" : std::to_string(op->args.size()) + " arguments";
  if (op->user) {
    const Function* f = m_.find_function(op->callee);
    if (!f) return error("call to undeclared function @" + op->callee);
    if (op->args.size() != f->params.size()) {
      return error("@" + op->callee + " takes " + std::to_string(f->params.size()) +
                   " arguments, called with " + n);
    }
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (op->args[i] && op->args[i]->type != f->params[i].second) {
        error("argument " + std::to_string(i + 1) + " of @" + op->callee + " has type " +
              type_str(op->args[i]->type) + ", expected " + type_str(f->params[i].second));
      }
    }
    if (op->type != f->ret) {
      error("call to @" + op->callee + " typed " + type_str(op->type) + ", but it returns " +
            type_str(f->ret));
    }
    return;
  }
  int arity = intrinsic_arity(op->callee);
  if (arity < 0) return error("unknown intrinsic '" + op->callee + "'");
  if (static_cast<int>(op->args.size()) != arity) {
    return error(op->callee + " takes " + std::to_string(arity) + " argument(s), called with " + n);
  }
  if (is_spmd_intrinsic(op->callee)) {
    if (!spmd()) error(op->callee + "() is only allowed in SPMD programs");
    if (op->type != ScalarType::I32)
      error(op->callee + "() typed " + type_str(op->type) + ", expected i32");
    return;
  }
  for (const Expr& a : op->args) {
    if (a && (!is_float(a->type) || a->type != op->args[0]->type)) {
      return error(op->callee + " takes floating arguments of one type, got " + type_str(a->type));
    }
  }
  if (op->args[0] && op->type != op->args[0]->type) {
    error(op->callee + " typed " + type_str(op->type) + " of a " + type_str(op->args[0]->type) +
          " argument");
  }
}

void Verifier::check_range(const Range& r) {
  if (r.kind == Range::Kind::Box) {
    if (r.lo.size() != r.hi.size() || static_cast<int>(r.lo.size()) != r.rank) {
      error("box range with " + std::to_string(r.lo.size()) + " lower and " +
            std::to_string(r.hi.size()) + " upper bounds for rank " + std::to_string(r.rank));
    }
    if (r.rank < 1) error("empty box range");
    for (const Expr& e : r.lo) check_typed(e, ScalarType::I32, "range bound");
    for (const Expr& e : r.hi) check_typed(e, ScalarType::I32, "range bound");
    return;
  }
  const std::string name = "%" + r.grid;
  const Param* p = find_grid(r.grid);
  if (!p) return error("range over " + name + ", which is not a grid or block parameter");
  if (r.kind == Range::Kind::Interior && p->kind != ParamKind::Grid) {
    error("interior of block " + name + " (blocks have an owned box: " + name + ".owned)");
  }
  if (r.kind == Range::Kind::Owned && p->kind != ParamKind::Block) {
    error("owned box of grid " + name + " (grids have an interior: " + name + ".interior)");
  }
  if (r.rank != p->rank) {
    error("range of rank " + std::to_string(r.rank) + " over " + name + " of rank " +
          std::to_string(p->rank));
  }
}

void Verifier::check_region(const Region& r, const std::string& what) {
  const std::string name = "%" + r.block;
  const Param* p = find_grid(r.block);
  if (!p || p->kind != ParamKind::Block)
    return error("put_signal " + what + " " + name + " is not a block parameter");
  if (r.lo.size() != r.hi.size() || static_cast<int>(r.lo.size()) != p->rank) {
    error("put_signal " + what + " region of " + name + " has " + std::to_string(r.lo.size()) +
          " dimensions, but its rank is " + std::to_string(p->rank));
  }
  for (const Expr& e : r.lo) check_typed(e, ScalarType::I32, "region bound");
  for (const Expr& e : r.hi) check_typed(e, ScalarType::I32, "region bound");
}

}  // namespace stencilc::ir::detail
