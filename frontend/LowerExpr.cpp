// Lowering of C++ expressions into IR expressions: scalars, grid reads at constant offsets,
// casts exactly where C++ converts, math intrinsics and calls to the file's inline functions.
#include "frontend/Lowering.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/OperationKinds.h>

namespace stencilc::frontend {

using namespace clang;

const Expr* strip(const Expr* e) {
  while (e) {
    const Expr* next = e->IgnoreParens();
    if (auto* m = dyn_cast<MaterializeTemporaryExpr>(next)) next = m->getSubExpr();
    else if (auto* c = dyn_cast<ExprWithCleanups>(next)) next = c->getSubExpr();
    else if (auto* b = dyn_cast<CXXBindTemporaryExpr>(next)) next = b->getSubExpr();
    else if (auto* f = dyn_cast<CXXFunctionalCastExpr>(next); f && isa<InitListExpr>(f->getSubExpr()->IgnoreParens()))
      next = f->getSubExpr();
    else if (auto* ic = dyn_cast<ImplicitCastExpr>(next);
             ic && (ic->getCastKind() == CK_NoOp || ic->getCastKind() == CK_LValueToRValue ||
                    ic->getCastKind() == CK_ConstructorConversion || ic->getCastKind() == CK_UncheckedDerivedToBase))
      next = ic->getSubExpr();
    else if (auto* ce = dyn_cast<CXXConstructExpr>(next); ce && ce->getNumArgs() == 1 &&
             (ce->getConstructor()->isCopyOrMoveConstructor() || ce->isElidable()))
      next = ce->getArg(0);
    if (next == e) return e;
    e = next;
  }
  return e;
}

const FunctionDecl* callee_of(const CallExpr* call) { return call->getDirectCallee(); }

bool is_stencilc_function(const FunctionDecl* fd, const char* name) {
  if (!fd || !fd->getIdentifier() || fd->getName() != name) return false;
  auto* ns = dyn_cast<NamespaceDecl>(fd->getDeclContext()->getEnclosingNamespaceContext());
  return ns && ns->getName() == "stencilc";
}

namespace {

std::optional<ir::BinaryOp> binary_op(BinaryOperatorKind k) {
  switch (k) {
    case BO_Add: return ir::BinaryOp::Add;
    case BO_Sub: return ir::BinaryOp::Sub;
    case BO_Mul: return ir::BinaryOp::Mul;
    case BO_Div: return ir::BinaryOp::Div;
    case BO_Rem: return ir::BinaryOp::Mod;
    case BO_LT: return ir::BinaryOp::Lt;
    case BO_LE: return ir::BinaryOp::Le;
    case BO_GT: return ir::BinaryOp::Gt;
    case BO_GE: return ir::BinaryOp::Ge;
    case BO_EQ: return ir::BinaryOp::Eq;
    case BO_NE: return ir::BinaryOp::Ne;
    case BO_LAnd: return ir::BinaryOp::And;
    case BO_LOr: return ir::BinaryOp::Or;
    default: return std::nullopt;
  }
}

/// Math functions a point body may call, by every spelling C and C++ give them.
std::optional<std::string> math_intrinsic(const FunctionDecl* fd) {
  if (!fd->getIdentifier()) return std::nullopt;
  std::string n = fd->getName().str();
  const DeclContext* dc = fd->getDeclContext()->getEnclosingNamespaceContext();
  bool in_std_or_global = fd->isInStdNamespace() || dc->isTranslationUnit() ||
                          fd->isExternC() || fd->getBuiltinID() != 0;
  if (!in_std_or_global) return std::nullopt;
  static const char* const names[] = {"sqrt", "exp", "sin", "cos", "fabs", "fmin", "fmax", "pow"};
  for (const char* m : names) {
    if (n == m || n == std::string(m) + "f") return std::string(m);
  }
  if (n == "abs" && fd->getReturnType()->isFloatingType()) return std::string("fabs");
  return std::nullopt;
}

ir::Expr fold_literal_cast(ir::ScalarType to, const ir::Expr& a) {
  if (a->type == to) return a;
  if (auto* i = ir::as<ir::IntImm>(a)) {
    if (ir::is_float(to)) return ir::make_float(to == ir::ScalarType::F32 ? (double)(float)i->value : (double)i->value, to);
    if (ir::is_integer(to)) return ir::make_int(i->value, to);
  }
  if (auto* f = ir::as<ir::FloatImm>(a)) {
    if (to == ir::ScalarType::F32) return ir::make_float((double)(float)f->value, to);
    if (to == ir::ScalarType::F64) return ir::make_float(f->value, to);
  }
  return ir::make_cast(to, a);
}

}  // namespace

std::optional<int64_t> ProgramLowering::constant_int(const Expr* e) const {
  if (e->isValueDependent()) return std::nullopt;
  if (auto v = e->getIntegerConstantExpr(cx_.ast())) return v->getExtValue();
  return std::nullopt;
}

ir::Expr ProgramLowering::lower_expr_as(const Expr* e, ir::ScalarType t) {
  ir::Expr x = lower_expr(e);
  if (!x) return nullptr;
  return fold_literal_cast(t, x);
}

namespace {

/// Lowers one expression tree; a null result means an error was reported.
class ExprLowering {
 public:
  explicit ExprLowering(ProgramLowering& pl) : pl_(pl), cx_(pl.cx()) {}

  ir::Expr lower(const Expr* e) {
    if (!pl_.enter(e->getExprLoc())) return nullptr;
    ir::Expr x = lower_node(e);
    pl_.leave();
    return x;
  }

 private:
  ir::Expr lower_node(const Expr* e) {
    e = e->IgnoreParens();
    if (auto* lit = dyn_cast<IntegerLiteral>(e)) return literal_int(lit);
    if (auto* lit = dyn_cast<FloatingLiteral>(e)) return literal_float(lit);
    if (auto* lit = dyn_cast<CXXBoolLiteralExpr>(e)) return ir::make_bool(lit->getValue());
    if (auto* c = dyn_cast<ImplicitCastExpr>(e)) return lower_cast(c, c->getSubExpr());
    if (auto* c = dyn_cast<ExplicitCastExpr>(e)) return lower_cast(c, c->getSubExpr());
    if (auto* d = dyn_cast<DeclRefExpr>(e)) return lower_decl_ref(d);
    if (auto* u = dyn_cast<UnaryOperator>(e)) return lower_unary(u);
    if (auto* b = dyn_cast<BinaryOperator>(e)) return lower_binary(b);
    if (auto* c = dyn_cast<ConditionalOperator>(e)) return lower_conditional(c);
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e)) return lower_operator_call(op);
    if (auto* m = dyn_cast<CXXMemberCallExpr>(e)) return lower_member_call(m);
    if (auto* call = dyn_cast<CallExpr>(e)) return lower_call(call);
    if (auto* s = dyn_cast<ArraySubscriptExpr>(e)) {
      return fail(s->getExprLoc(), "array subscripts and pointer arithmetic are not part of the stencil language; "
                                   "read grids as g(i + c, ...)", s->getSourceRange());
    }
    if (isa<MaterializeTemporaryExpr, ExprWithCleanups, CXXBindTemporaryExpr>(e)) return lower(strip(e));
    if (isa<LambdaExpr>(e)) return fail(e->getExprLoc(), "a lambda is only allowed as the body of stencilc::for_each or stencilc::reduce");
    return fail(e->getExprLoc(), construct_name(e) + " are not supported in a stencil program", e->getSourceRange());
  }

  ProgramLowering& pl_;
  LoweringContext& cx_;

  ir::Expr fail(SourceLocation loc, const std::string& msg, SourceRange range = {}) {
    cx_.error(loc, msg, range);
    return nullptr;
  }

  std::optional<ir::ScalarType> type_of(const Expr* e) {
    auto t = cx_.scalar_type(e->getType());
    if (!t) {
      cx_.error(e->getExprLoc(), "values of type '" + e->getType().getAsString() +
                                     "' are not supported here (use bool, int, int64_t, uint64_t, float or double)",
                e->getSourceRange());
    }
    return t;
  }

  ir::Expr literal_int(const IntegerLiteral* lit) {
    auto t = type_of(lit);
    if (!t) return nullptr;
    return ir::make_int(lit->getValue().getSExtValue(), *t);
  }

  ir::Expr literal_float(const FloatingLiteral* lit) {
    auto t = type_of(lit);
    if (!t) return nullptr;
    return ir::make_float(lit->getValueAsApproximateDouble(), *t);
  }

  ir::Expr lower_cast(const CastExpr* c, const Expr* sub) {
    switch (c->getCastKind()) {
      case CK_LValueToRValue:
      case CK_NoOp:
      case CK_ConstructorConversion:
        return lower(sub);
      case CK_IntegralCast:
      case CK_IntegralToFloating:
      case CK_FloatingToIntegral:
      case CK_FloatingCast:
      case CK_IntegralToBoolean:
      case CK_FloatingToBoolean: {
        auto to = type_of(c);
        ir::Expr a = lower(sub);
        if (!to || !a) return nullptr;
        if (*to == ir::ScalarType::Bool && a->type != ir::ScalarType::Bool) {
          // C++ converts to bool by comparing with zero.
          ir::Expr zero = ir::is_float(a->type) ? ir::make_float(0.0, a->type) : ir::make_int(0, a->type);
          return ir::make_binary(ir::BinaryOp::Ne, a, zero);
        }
        return fold_literal_cast(*to, a);
      }
      case CK_ArrayToPointerDecay:
      case CK_PointerToIntegral:
      case CK_IntegralToPointer:
      case CK_PointerToBoolean:
      case CK_BitCast:
        return fail(c->getExprLoc(), "pointers are not part of the stencil language", c->getSourceRange());
      default:
        return fail(c->getExprLoc(), conversion_name(c->getCastKind()) + " are not supported in a stencil program",
                    c->getSourceRange());
    }
  }

  ir::Expr lower_decl_ref(const DeclRefExpr* d) {
    const ValueDecl* vd = d->getDecl();
    if (auto* ec = dyn_cast<EnumConstantDecl>(vd)) return ir::make_int(ec->getInitVal().getSExtValue(), ir::ScalarType::I32);
    if (pl_.grid_param(vd)) {
      return fail(d->getLocation(), "grid '" + vd->getNameAsString() + "' used as a value; read it as " +
                                        vd->getNameAsString() + "(i, ...) inside a point update");
    }
    std::string name = pl_.name_of(vd);
    if (!name.empty()) {
      auto t = type_of(d);
      if (!t) return nullptr;
      return ir::make_var(name, *t);
    }
    // A constant of the file (e.g. `constexpr double kAlpha = 0.1;`) becomes its value.
    if (auto* var = dyn_cast<VarDecl>(vd); var && var->getType().isConstQualified() && var->hasGlobalStorage()) {
      if (auto* value = var->evaluateValue()) {
        auto t = type_of(d);
        if (!t) return nullptr;
        if (value->isInt()) return ir::make_int(value->getInt().getSExtValue(), *t);
        if (value->isFloat()) return ir::make_float(value->getFloat().convertToDouble(), *t);
      }
    }
    return fail(d->getLocation(), "'" + vd->getNameAsString() +
                                      "' is not a parameter or local of this stencil program, nor a constant");
  }

  ir::Expr lower_unary(const UnaryOperator* u) {
    switch (u->getOpcode()) {
      case UO_Plus: return lower(u->getSubExpr());
      case UO_Minus: {
        ir::Expr a = lower(u->getSubExpr());
        if (!a) return nullptr;
        if (auto* i = ir::as<ir::IntImm>(a)) return ir::make_int(-i->value, i->type);
        if (auto* f = ir::as<ir::FloatImm>(a)) return ir::make_float(-f->value, f->type);
        return ir::make_unary(ir::UnaryOp::Neg, a);
      }
      case UO_LNot: {
        ir::Expr a = lower(u->getSubExpr());
        return a ? ir::make_unary(ir::UnaryOp::Not, a) : nullptr;
      }
      case UO_Deref:
      case UO_AddrOf:
        return fail(u->getOperatorLoc(), "pointers are not part of the stencil language", u->getSourceRange());
      case UO_PreInc:
      case UO_PostInc:
      case UO_PreDec:
      case UO_PostDec:
        return fail(u->getOperatorLoc(), "increments are only allowed as statements of their own", u->getSourceRange());
      default:
        return fail(u->getOperatorLoc(), "unsupported unary operator '" +
                                             UnaryOperator::getOpcodeStr(u->getOpcode()).str() + "'");
    }
  }

  ir::Expr lower_binary(const BinaryOperator* b) {
    if (b->getLHS()->getType()->isPointerType() || b->getRHS()->getType()->isPointerType())
      return fail(b->getOperatorLoc(), "pointer arithmetic is not part of the stencil language", b->getSourceRange());
    if (b->isAssignmentOp())
      return fail(b->getOperatorLoc(), "assignments are only allowed as statements of their own", b->getSourceRange());
    auto op = binary_op(b->getOpcode());
    if (!op) {
      return fail(b->getOperatorLoc(), "unsupported operator '" + b->getOpcodeStr().str() +
                                           "' (bitwise operators, shifts and commas are not part of the language)",
                  b->getSourceRange());
    }
    if ((*op == ir::BinaryOp::And || *op == ir::BinaryOp::Or) && pl_.where() == Where::Program)
      check_no_reduction(b->getRHS(), "the right operand of '" + b->getOpcodeStr().str() + "'");
    ir::Expr l = lower(b->getLHS());
    ir::Expr r = lower(b->getRHS());
    if (!l || !r) return nullptr;
    if (l->type != r->type) {
      return fail(b->getOperatorLoc(), "internal: operands of '" + b->getOpcodeStr().str() + "' have different types");
    }
    return ir::make_binary(*op, l, r);
  }

  ir::Expr lower_conditional(const ConditionalOperator* c) {
    if (pl_.where() == Where::Program) {
      check_no_reduction(c->getTrueExpr(), "a conditional expression");
      check_no_reduction(c->getFalseExpr(), "a conditional expression");
    }
    ir::Expr cond = lower(c->getCond());
    ir::Expr t = lower(c->getTrueExpr());
    ir::Expr f = lower(c->getFalseExpr());
    if (!cond || !t || !f) return nullptr;
    return ir::make_select(cond, t, f);
  }

  /// A reduction under `&&`, `||` or `?:` would run unconditionally once hoisted: refuse it.
  void check_no_reduction(const Expr* e, const std::string& where) {
    if (const CallExpr* r = find_reduce(e)) {
      cx_.error(r->getExprLoc(), "stencilc::reduce in " + where +
                                     " is not supported; assign the reduction to a variable first");
    }
  }

  static const CallExpr* find_reduce(const Stmt* s) {
    if (!s) return nullptr;
    if (auto* call = dyn_cast<CallExpr>(s); call && is_stencilc_function(callee_of(call), "reduce")) return call;
    if (isa<LambdaExpr>(s)) return nullptr;
    for (const Stmt* child : s->children())
      if (const CallExpr* r = find_reduce(child)) return r;
    return nullptr;
  }

  /// `g(i + c0, j + c1)`: a grid read at constant offsets from the point indices.
  ir::Expr lower_operator_call(const CXXOperatorCallExpr* op) {
    if (op->getOperator() != OO_Call) {
      return fail(op->getOperatorLoc(), std::string("unsupported operator '") +
                                            getOperatorSpelling(op->getOperator()) + "' on a class type");
    }
    const Expr* object = strip(op->getArg(0));
    auto* ref = dyn_cast<DeclRefExpr>(object);
    const ir::Param* grid = ref ? pl_.grid_param(ref->getDecl()) : nullptr;
    if (!grid) return fail(op->getExprLoc(), "only grids can be called like g(i, j)", op->getSourceRange());
    auto offsets = grid_offsets(op, *grid);
    if (!offsets) return nullptr;
    return ir::make_grid_read(grid->name, *offsets, grid->type);
  }

 public:
  /// The constant offsets of a grid access `g(i + c0, ...)`, checked against the point indices.
  std::optional<std::vector<int>> grid_offsets(const CXXOperatorCallExpr* op, const ir::Param& grid) {
    const auto& indices = pl_.point_indices();
    const std::string& gname = grid.name;
    unsigned n = op->getNumArgs() - 1;
    if ((int)n != grid.rank) {
      cx_.error(op->getExprLoc(), "'" + gname + "' has rank " + std::to_string(grid.rank) + " but is indexed with " +
                                      std::to_string(n) + (n == 1 ? " index" : " indices"),
                op->getSourceRange());
      return std::nullopt;
    }
    if (indices.empty()) {
      cx_.error(op->getExprLoc(), "grid '" + gname + "' is read outside a point update; grids are only read "
                                                     "inside stencilc::for_each and stencilc::reduce bodies",
                op->getSourceRange());
      return std::nullopt;
    }
    if ((int)indices.size() != grid.rank) {
      cx_.error(op->getExprLoc(), "'" + gname + "' has rank " + std::to_string(grid.rank) +
                                      " but the enclosing point update has " + std::to_string(indices.size()) +
                                      " indices", op->getSourceRange());
      return std::nullopt;
    }
    std::vector<int> offsets;
    for (unsigned d = 0; d < n; ++d) {
      auto off = index_offset(op->getArg(d + 1), indices[d]);
      if (!off) {
        cx_.error(op->getArg(d + 1)->getBeginLoc(),
                  "index " + std::to_string(d) + " of '" + gname + "' must be '" + indices[d]->getNameAsString() +
                      "' plus or minus an integer constant",
                  op->getArg(d + 1)->getSourceRange());
        return std::nullopt;
      }
      offsets.push_back((int)*off);
    }
    return offsets;
  }

 private:
  /// `i`, `i + c`, `c + i`, `i - c` with c an integer constant: returns the offset.
  std::optional<int64_t> index_offset(const Expr* e, const ParmVarDecl* index) {
    e = e->IgnoreParenImpCasts();
    if (auto* d = dyn_cast<DeclRefExpr>(e)) {
      if (d->getDecl() == index) return 0;
      return std::nullopt;
    }
    if (auto* b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_Add) {
        if (auto l = index_offset(b->getLHS(), index))
          if (auto c = pl_.constant_int(b->getRHS())) return *l + *c;
        if (auto r = index_offset(b->getRHS(), index))
          if (auto c = pl_.constant_int(b->getLHS())) return *r + *c;
      }
      if (b->getOpcode() == BO_Sub) {
        if (auto l = index_offset(b->getLHS(), index))
          if (auto c = pl_.constant_int(b->getRHS())) return *l - *c;
      }
    }
    return std::nullopt;
  }

  /// `g.extent(d)`, and for blocks `origin(d)` and `halo(d)`.
  ir::Expr lower_member_call(const CXXMemberCallExpr* m) {
    const CXXMethodDecl* method = m->getMethodDecl();
    const Expr* object = strip(m->getImplicitObjectArgument());
    auto* ref = dyn_cast<DeclRefExpr>(object);
    const ir::Param* grid = ref ? pl_.grid_param(ref->getDecl()) : nullptr;
    std::string name = method ? method->getNameAsString() : "?";
    if (!grid) return fail(m->getExprLoc(), "call to member function '" + name + "' is not supported here", m->getSourceRange());
    std::optional<ir::GridQueryOp> op;
    if (name == "extent") op = ir::GridQueryOp::Extent;
    if (grid->kind == ir::ParamKind::Block) {
      if (name == "origin") op = ir::GridQueryOp::Origin;
      if (name == "halo") op = ir::GridQueryOp::Halo;
      if (name == "global_extent") op = ir::GridQueryOp::GlobalExtent;
      if (name == "extent_on") op = ir::GridQueryOp::ExtentOn;
      if (name == "origin_on") op = ir::GridQueryOp::OriginOn;
    }
    if (!op) {
      return fail(m->getExprLoc(), "'" + name + "' of " + grid->name + " cannot be used as a value here",
                  m->getSourceRange());
    }
    ir::Expr pe;
    unsigned dim_arg = 0;
    if (ir::takes_pe(*op)) {
      if (m->getNumArgs() != 2) return fail(m->getExprLoc(), name + " takes (pe, dimension)");
      pe = pl_.lower_expr_as(m->getArg(0), ir::ScalarType::I32);
      if (!pe) return nullptr;
      dim_arg = 1;
    }
    auto dim = m->getNumArgs() == dim_arg + 1 ? pl_.constant_int(m->getArg(dim_arg)) : std::nullopt;
    if (!dim || *dim < 0 || *dim >= grid->rank) {
      return fail(m->getExprLoc(), "the dimension of " + name + "() must be a constant in [0, " +
                                       std::to_string(grid->rank) + ")", m->getSourceRange());
    }
    return ir::make_grid_query(*op, grid->name, (int)*dim, pe);
  }

  ir::Expr lower_call(const CallExpr* call) {
    const FunctionDecl* fd = callee_of(call);
    if (!fd) return fail(call->getExprLoc(), "indirect calls are not supported in a stencil program", call->getSourceRange());
    if (is_stencilc_function(fd, "reduce")) {
      if (pl_.where() != Where::Program)
        return fail(call->getExprLoc(), "stencilc::reduce cannot be nested in a point update or function");
      return pl_.lower_reduce(call);
    }
    if (is_stencilc_function(fd, "my_pe") || is_stencilc_function(fd, "n_pes")) {
      if (pl_.kind() != ir::ProgramKind::Spmd)
        return fail(call->getExprLoc(), "stencilc::" + fd->getNameAsString() + "() is only available in an SC_SPMD_PROGRAM");
      return ir::make_call(fd->getNameAsString(), {}, ir::ScalarType::I32, false);
    }
    std::vector<ir::Expr> args;
    for (const Expr* a : call->arguments()) {
      ir::Expr x = lower(a);
      if (!x) return nullptr;
      args.push_back(x);
    }
    if (auto m = math_intrinsic(fd)) {
      auto t = type_of(call);
      if (!t) return nullptr;
      if (!ir::is_float(*t)) return fail(call->getExprLoc(), "'" + *m + "' is only supported on float and double");
      for (auto& a : args) a = fold_literal_cast(*t, a);
      return ir::make_call(*m, std::move(args), *t, false);
    }
    auto name = cx_.lower_function(fd, call->getExprLoc());
    if (!name) return nullptr;
    auto t = type_of(call);
    if (!t) return nullptr;
    return ir::make_call(*name, std::move(args), *t, true);
  }
};

}  // namespace

ir::Expr ProgramLowering::lower_expr(const Expr* e) { return ExprLowering(*this).lower(e); }

std::optional<std::vector<int>> ProgramLowering::grid_offsets(const CXXOperatorCallExpr* op, const ir::Param& grid) {
  return ExprLowering(*this).grid_offsets(op, grid);
}

}  // namespace stencilc::frontend
