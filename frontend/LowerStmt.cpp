// Lowering of program and point-update statements: time loops, for_each, reduce, swaps,
// exchanges, scalar statements and the SPMD communication intrinsics.
#include "frontend/Lowering.h"

#include <clang/AST/RecursiveASTVisitor.h>

namespace stencilc::frontend {

using namespace clang;

// ---------------------------------------------------------------------------------------------
// Names and scopes

bool ProgramLowering::visible(const std::string& name) const {
  for (const Scope& s : scopes_)
    if (s.names.count(name)) return true;
  for (const auto& [d, n] : grid_params_)
    if (n == name) return true;
  return false;
}

int ProgramLowering::scope_of(const ValueDecl* d) const {
  for (int i = (int)scopes_.size() - 1; i >= 0; --i)
    if (scopes_[i].decls.count(d)) return i;
  return -1;
}

std::string ProgramLowering::name_of(const ValueDecl* d) const {
  int i = scope_of(d);
  return i < 0 ? std::string() : scopes_[i].decls.at(d);
}

const ir::Param* ProgramLowering::grid_param(const ValueDecl* d) const {
  auto it = grid_params_.find(d);
  if (it == grid_params_.end()) return nullptr;
  for (const ir::Param& p : params_)
    if (p.name == it->second) return &p;
  return nullptr;
}

std::string ProgramLowering::fresh_name(const std::string& base) {
  std::string name = base;
  for (int k = 1; visible(name) || used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  scopes_.back().names.insert(name);
  return name;
}

std::string ProgramLowering::declare(const ValueDecl* d, const std::string& preferred) {
  cx_.check_reserved(d, d->getLocation());
  std::string name = preferred;
  for (int k = 1; visible(name); ++k) name = preferred + "_" + std::to_string(k);
  scopes_.back().decls[d] = name;
  scopes_.back().names.insert(name);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Programs, functions, parameters

std::optional<ir::Param> ProgramLowering::lower_param(const ParmVarDecl* p) {
  QualType t = p->getType();
  std::string name = p->getNameAsString();
  if (name.empty()) {
    cx_.error(p->getLocation(), "parameters of a stencil program must be named");
    return std::nullopt;
  }
  cx_.check_reserved(p, p->getLocation());  // lowered on as usual: one error, not one per use
  ir::Param param;
  param.name = name;
  if (auto g = cx_.grid_type(t)) {
    bool spmd = kind_ == ir::ProgramKind::Spmd;
    if (!t->isLValueReferenceType()) {
      cx_.error(p->getLocation(), std::string(g->is_block ? "block" : "grid") + " parameter '" + name +
                                      "' must be passed by reference");
      return std::nullopt;
    }
    if (g->is_block != spmd) {
      cx_.error(p->getLocation(), spmd ? "an SC_SPMD_PROGRAM takes stencilc::Block<T, N>& parameters, not grids; "
                                         "call it on global grids through stencilc::spmd(...)"
                                       : "stencilc::Block parameters are only allowed in an SC_SPMD_PROGRAM");
      return std::nullopt;
    }
    param.kind = g->is_block ? ir::ParamKind::Block : ir::ParamKind::Grid;
    param.type = g->elem;
    param.rank = g->rank;
    param.is_const = g->is_const;
    return param;
  }
  if (auto s = cx_.scalar_type(t)) {
    param.type = *s;
    bool by_ref = t->isLValueReferenceType() && !t.getNonReferenceType().isConstQualified();
    param.kind = by_ref ? ir::ParamKind::ScalarRef : ir::ParamKind::Scalar;
    return param;
  }
  cx_.error(p->getLocation(), "parameter '" + name + "' has unsupported type '" + t.getAsString() +
                                  "'; a stencil program takes grids by reference and scalars (bool, int, int64_t, "
                                  "uint64_t, float, double) by value or by reference");
  return std::nullopt;
}

std::optional<ir::Program> ProgramLowering::lower_program(const FunctionDecl* fd) {
  current_function_ = fd;
  if (!fd->getReturnType()->isVoidType())
    cx_.error(fd->getLocation(), "a stencil program must return void; hand results back through reference parameters");
  const char* marker = kind_ == ir::ProgramKind::Global ? "SC_PROGRAM" : "SC_SPMD_PROGRAM";
  if (isa<CXXMethodDecl>(fd)) {
    // The generated code takes the place of a function at namespace scope.
    cx_.error(fd->getLocation(), std::string(marker) + " marks a free function; '" + fd->getQualifiedNameAsString() +
                                     "' is a member function (make it a function at namespace scope)");
    return std::nullopt;
  }
  if (fd->isTemplated()) {
    cx_.error(fd->getLocation(), "a stencil program cannot be a template");
    return std::nullopt;  // its parameters' types are not known: nothing more to say
  }
  push_scope();
  for (const ParmVarDecl* p : fd->parameters()) {
    auto param = lower_param(p);
    if (!param) continue;
    params_.push_back(*param);
    if (param->kind == ir::ParamKind::Grid || param->kind == ir::ParamKind::Block) grid_params_[p] = param->name;
    else declare(p, param->name);
  }
  ir::Program program;
  program.name = fd->getNameAsString();
  program.kind = kind_;
  program.loc = cx_.loc(fd->getLocation());
  program.body = lower_block(fd->getBody());
  pop_scope();
  if (cx_.failed()) return std::nullopt;
  program.params = params_;
  return program;
}

std::optional<ir::Function> ProgramLowering::lower_function(const FunctionDecl* fd, const std::string& name) {
  current_function_ = fd;
  where_ = Where::Function;
  ir::Function fn;
  fn.name = name;
  fn.loc = cx_.loc(fd->getLocation());
  auto ret = cx_.scalar_type(fd->getReturnType());
  bool ok = true;
  if (!ret) {
    cx_.error(fd->getLocation(), "function '" + fd->getNameAsString() + "' called from a point update must return "
                                     "a scalar (bool, int, int64_t, uint64_t, float or double)");
    ok = false;
  }
  push_scope();
  point_scope_base_ = 0;
  for (const ParmVarDecl* p : fd->parameters()) {
    QualType t = p->getType();
    auto s = cx_.scalar_type(t);
    if (!s || (t->isReferenceType() && !t.getNonReferenceType().isConstQualified())) {
      cx_.error(p->getLocation(), "parameter '" + p->getNameAsString() + "' of '" + fd->getNameAsString() +
                                      "' must be a scalar passed by value");
      ok = false;
      continue;
    }
    fn.params.emplace_back(declare(p, p->getNameAsString()), *s);
  }
  if (!ok) return std::nullopt;
  fn.ret = *ret;
  reduce_type_ = *ret;
  fn.body = lower_block(fd->getBody());
  pop_scope();
  if (cx_.failed()) return std::nullopt;
  return fn;
}

// ---------------------------------------------------------------------------------------------
// Statements

ir::Stmt ProgramLowering::lower_block(const Stmt* s) {
  std::vector<ir::Stmt> out;
  push_scope();
  lower_stmt_into(s, out);
  pop_scope();
  return ir::make_block(std::move(out), cx_.loc(s->getBeginLoc()));
}

bool ProgramLowering::enter(SourceLocation at) {
  if (++nesting_ <= ir::kMaxSourceNestingDepth) return true;
  if (!nesting_reported_) {
    nesting_reported_ = true;
    cx_.error(at, "statements and expressions nested too deeply: stencilc supports " +
                      std::to_string(ir::kMaxSourceNestingDepth) + " levels (split the expression into variables)");
  }
  --nesting_;
  return false;
}

void ProgramLowering::lower_stmt_into(const Stmt* s, std::vector<ir::Stmt>& out) {
  if (!enter(s->getBeginLoc())) return;
  lower_stmt_level(s, out);
  leave();
}

void ProgramLowering::lower_stmt_level(const Stmt* s, std::vector<ir::Stmt>& out) {
  if (auto* cs = dyn_cast<CompoundStmt>(s)) {
    // Nested C++ blocks are flattened into the enclosing IR scope; declare() renames clashes.
    for (const Stmt* child : cs->body()) lower_stmt_into(child, out);
    return;
  }
  if (isa<NullStmt>(s)) return;
  if (where_ == Where::Program) lower_program_stmt(s, out);
  else lower_point_stmt(s, out);
}

namespace {

const char* unsupported_stmt_name(const Stmt* s) {
  if (isa<DoStmt>(s)) return "do-while loops";
  if (isa<SwitchStmt>(s)) return "switch statements";
  if (isa<BreakStmt>(s)) return "break statements";
  if (isa<ContinueStmt>(s)) return "continue statements";
  if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return "goto and labels";
  if (isa<CXXForRangeStmt>(s)) return "range-based for loops";
  if (isa<CXXTryStmt>(s)) return "try blocks";
  if (isa<AsmStmt>(s)) return "inline assembly";
  return nullptr;
}

/// Finds assignments and increments of a set of declarations in a statement.
class ModificationFinder : public RecursiveASTVisitor<ModificationFinder> {
 public:
  explicit ModificationFinder(std::set<const ValueDecl*> decls) : decls_(std::move(decls)) {}
  const Expr* found = nullptr;
  const ValueDecl* found_decl = nullptr;

  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->isAssignmentOp()) check(b->getLHS(), b);
    return !found;
  }
  bool VisitUnaryOperator(UnaryOperator* u) {
    if (u->isIncrementDecrementOp()) check(u->getSubExpr(), u);
    return !found;
  }
  bool VisitCallExpr(CallExpr* c) {
    // A scalar passed by non-const reference (e.g. std::swap) may be modified.
    if (auto* fd = c->getDirectCallee()) {
      for (unsigned i = 0; i < c->getNumArgs() && i < fd->getNumParams(); ++i) {
        QualType pt = fd->getParamDecl(i)->getType();
        if (pt->isLValueReferenceType() && !pt.getNonReferenceType().isConstQualified()) check(c->getArg(i), c);
      }
    }
    return !found;
  }

 private:
  std::set<const ValueDecl*> decls_;
  void check(const Expr* target, const Expr* at) {
    if (auto* d = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts()))
      if (decls_.count(d->getDecl()) && !found) {
        found = at;
        found_decl = d->getDecl();
      }
  }
};

class DeclRefCollector : public RecursiveASTVisitor<DeclRefCollector> {
 public:
  std::set<const ValueDecl*> decls;
  bool VisitDeclRefExpr(DeclRefExpr* d) {
    if (isa<VarDecl>(d->getDecl())) decls.insert(d->getDecl());
    return true;
  }
};

const CallExpr* find_reduce_call(const Stmt* s) {
  if (!s) return nullptr;
  if (auto* call = dyn_cast<CallExpr>(s); call && is_stencilc_function(callee_of(call), "reduce")) return call;
  if (isa<LambdaExpr>(s)) return nullptr;
  for (const Stmt* child : s->children())
    if (const CallExpr* r = find_reduce_call(child)) return r;
  return nullptr;
}

}  // namespace

void ProgramLowering::lower_program_stmt(const Stmt* s, std::vector<ir::Stmt>& out) {
  // Reductions met inside this statement's expressions are hoisted in front of it.
  std::vector<ir::Stmt> saved;
  saved.swap(hoisted_);
  std::vector<ir::Stmt> produced;
  if (auto* ds = dyn_cast<DeclStmt>(s)) {
    lower_decl_stmt(ds, produced);
  } else if (auto* f = dyn_cast<ForStmt>(s)) {
    if (auto r = lower_for(f)) produced.push_back(r);
  } else if (auto* w = dyn_cast<WhileStmt>(s)) {
    if (w->getConditionVariable()) {
      cx_.error(w->getWhileLoc(), "a declaration in a while condition is not supported");
    } else if (const CallExpr* r = find_reduce_call(w->getCond())) {
      cx_.error(r->getExprLoc(), "stencilc::reduce in a loop condition is not supported; assign the reduction to "
                                 "a variable in the loop body and test the variable");
    } else {
      ir::Expr cond = lower_expr_as(w->getCond(), ir::ScalarType::Bool);
      ir::Stmt body = lower_block(w->getBody());
      if (cond) produced.push_back(ir::make_while(cond, body, cx_.loc(w->getWhileLoc())));
    }
  } else if (auto* i = dyn_cast<IfStmt>(s)) {
    if (auto r = lower_if(i)) produced.push_back(r);
  } else if (auto* e = dyn_cast<Expr>(s)) {
    const Expr* x = e->IgnoreParens();
    if (auto* c = dyn_cast<ExprWithCleanups>(x)) x = c->getSubExpr()->IgnoreParens();
    if (isa<CallExpr>(x) && !isa<CXXOperatorCallExpr>(x) && !isa<CXXMemberCallExpr>(x)) {
      lower_call_stmt(cast<CallExpr>(x), produced);
    } else if (auto* m = dyn_cast<CXXMemberCallExpr>(x)) {
      cx_.error(m->getExprLoc(), "member function '" + m->getMethodDecl()->getNameAsString() +
                                     "' cannot be called inside a stencil program");
    } else {
      lower_assignment(x, produced);
    }
  } else if (isa<ReturnStmt>(s)) {
    cx_.error(s->getBeginLoc(), "return statements are not supported in a stencil program");
  } else if (const char* what = unsupported_stmt_name(s)) {
    cx_.error(s->getBeginLoc(), std::string(what) + " are not supported in a stencil program");
  } else {
    cx_.error(s->getBeginLoc(), construct_name(s) + " are not supported in a stencil program");
  }
  out.insert(out.end(), hoisted_.begin(), hoisted_.end());
  out.insert(out.end(), produced.begin(), produced.end());
  hoisted_ = std::move(saved);
}

void ProgramLowering::lower_point_stmt(const Stmt* s, std::vector<ir::Stmt>& out) {
  const char* place = where_ == Where::Function ? "a function called from a point update" : "a point update";
  if (auto* ds = dyn_cast<DeclStmt>(s)) {
    lower_decl_stmt(ds, out);
  } else if (auto* i = dyn_cast<IfStmt>(s)) {
    if (auto r = lower_if(i)) out.push_back(r);
  } else if (auto* r = dyn_cast<ReturnStmt>(s)) {
    if (where_ == Where::Point) {
      cx_.error(r->getReturnLoc(), "return is not supported in a for_each body");
    } else if (!r->getRetValue()) {
      cx_.error(r->getReturnLoc(), "this return must return a value");
    } else if (ir::Expr v = lower_expr_as(r->getRetValue(), reduce_type_)) {
      auto loc = cx_.loc(r->getReturnLoc());
      out.push_back(where_ == Where::Reduction ? ir::make_yield(v, loc) : ir::make_return(v, loc));
    }
  } else if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s)) {
    cx_.error(s->getBeginLoc(), std::string("loops are not supported inside ") + place);
  } else if (auto* e = dyn_cast<Expr>(s)) {
    const Expr* x = e->IgnoreParens();
    if (auto* c = dyn_cast<ExprWithCleanups>(x)) x = c->getSubExpr()->IgnoreParens();
    if (auto* call = dyn_cast<CallExpr>(x); call && !isa<CXXOperatorCallExpr>(x)) {
      const FunctionDecl* fd = callee_of(call);
      std::string n = fd ? fd->getQualifiedNameAsString() : "an indirect function";
      if (fd && (is_stencilc_function(fd, "for_each") || is_stencilc_function(fd, "reduce")))
        cx_.error(call->getExprLoc(), "'" + n + "' cannot be nested inside " + std::string(place));
      else if (fd && fd->getIdentifier() && is_stencilc_function(fd, fd->getName().str().c_str()))
        // exchange, swap and the SPMD intrinsics act on whole grids, between updates.
        cx_.error(call->getExprLoc(), "'" + n + "' is not allowed inside " + place + "; call it at program level, "
                                          "outside stencilc::for_each");
      else
        cx_.error(call->getExprLoc(), "a call to '" + n + "' as a statement has no effect in " + place +
                                          "; only its value can be used");
    } else {
      lower_assignment(x, out);
    }
  } else if (const char* what = unsupported_stmt_name(s)) {
    cx_.error(s->getBeginLoc(), std::string(what) + " are not supported inside " + place);
  } else {
    cx_.error(s->getBeginLoc(), construct_name(s) + " are not supported inside " + place);
  }
}

void ProgramLowering::lower_decl_stmt(const DeclStmt* ds, std::vector<ir::Stmt>& out) {
  for (const Decl* d : ds->decls()) {
    auto* vd = dyn_cast<VarDecl>(d);
    if (!vd) {
      cx_.error(d->getLocation(), "only variable declarations are allowed in a stencil program");
      continue;
    }
    if (vd->isStaticLocal() || vd->hasExternalStorage()) {
      cx_.error(vd->getLocation(), "static and extern variables are not supported in a stencil program");
      continue;
    }
    QualType t = vd->getType();
    if (cx_.is_stencilc_class(t, "Box") && where_ == Where::Program) {
      if (!vd->getInit() || !t.isConstQualified()) {
        cx_.error(vd->getLocation(), "a stencilc::Box variable must be const and initialised");
        continue;
      }
      if (auto r = lower_range(vd->getInit())) box_vars_[vd] = *r;
      continue;
    }
    if (cx_.is_stencilc_class(t, "Signal")) {
      if (kind_ != ir::ProgramKind::Spmd || where_ != Where::Program) {
        cx_.error(vd->getLocation(), "stencilc::Signal variables are only allowed at the top level of an SC_SPMD_PROGRAM");
        continue;
      }
      std::string name = declare(vd, vd->getNameAsString());
      signals_.insert(vd);
      out.push_back(ir::make_signal_decl(name, cx_.loc(vd->getLocation())));
      continue;
    }
    auto st = cx_.scalar_type(t);
    if (!st || t->isReferenceType()) {
      cx_.error(vd->getLocation(), "variables of type '" + t.getAsString() + "' are not supported in a stencil program " +
                                       "(use bool, int, int64_t, uint64_t, float or double)");
      continue;
    }
    ir::Expr init;
    if (const Expr* e = vd->getInit()) {
      const Expr* core = strip(e);
      auto* call = dyn_cast<CallExpr>(core);
      if (where_ == Where::Program && call && is_stencilc_function(callee_of(call), "reduce") &&
          cx_.scalar_type(call->getType()) == st) {
        // `auto r = stencilc::reduce(...)`: the reduction defines r directly.
        reduce_result_name_ = vd->getNameAsString();
        ir::Expr result = lower_reduce(call);
        reduce_result_name_.clear();
        if (auto* v = ir::as<ir::Var>(result)) scopes_.back().decls[vd] = v->name;
        continue;
      }
      init = lower_expr_as(e, *st);
      if (!init) continue;
    }
    std::string name = declare(vd, vd->getNameAsString());
    out.push_back(ir::make_var_decl(name, *st, init, cx_.loc(vd->getLocation())));
  }
}

void ProgramLowering::lower_assignment(const Expr* x, std::vector<ir::Stmt>& out) {
  const Expr* target = nullptr;
  const Expr* value = nullptr;
  std::optional<ir::BinaryOp> compound;
  SourceLocation at = x->getBeginLoc();
  const CompoundAssignOperator* cao = nullptr;
  if (auto* b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) {
    target = b->getLHS();
    value = b->getRHS();
    if ((cao = dyn_cast<CompoundAssignOperator>(b))) {
      switch (b->getOpcode()) {
        case BO_AddAssign: compound = ir::BinaryOp::Add; break;
        case BO_SubAssign: compound = ir::BinaryOp::Sub; break;
        case BO_MulAssign: compound = ir::BinaryOp::Mul; break;
        case BO_DivAssign: compound = ir::BinaryOp::Div; break;
        case BO_RemAssign: compound = ir::BinaryOp::Mod; break;
        default:
          cx_.error(b->getOperatorLoc(), "unsupported compound assignment '" + b->getOpcodeStr().str() + "'");
          return;
      }
    }
  } else if (auto* u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp()) {
    target = u->getSubExpr();
    compound = u->isIncrementOp() ? ir::BinaryOp::Add : ir::BinaryOp::Sub;
  } else {
    cx_.error(at, "this expression statement is not supported in a stencil program (expected an assignment, "
                  "an increment or a call to a stencilc function)", x->getSourceRange());
    return;
  }

  // The new value, converted as C++ converts it for plain and compound assignment.
  auto compute = [&](ir::Expr old, ir::ScalarType target_type) -> ir::Expr {
    if (!compound) return lower_expr_as(value, target_type);
    if (!value) {  // ++ / --
      ir::Expr one = ir::is_float(target_type) ? ir::make_float(1.0, target_type) : ir::make_int(1, target_type);
      return ir::make_binary(*compound, old, one);
    }
    auto ct = cx_.scalar_type(cao->getComputationResultType());
    ir::Expr rhs = ct ? lower_expr_as(value, *ct) : nullptr;
    if (!ct || !rhs) return nullptr;
    ir::Expr lhs = old->type == *ct ? old : ir::make_cast(*ct, old);
    ir::Expr r = ir::make_binary(*compound, lhs, rhs);
    return r->type == target_type ? r : ir::make_cast(target_type, r);
  };

  const Expr* t = strip(target);
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(t); op && op->getOperator() == OO_Call) {
    auto* ref = dyn_cast<DeclRefExpr>(strip(op->getArg(0)));
    const ir::Param* grid = ref ? grid_param(ref->getDecl()) : nullptr;
    if (!grid) {
      cx_.error(at, "only grids can be written with g(i, j) = ...");
      return;
    }
    if (where_ != Where::Point) {
      cx_.error(op->getExprLoc(), std::string("grid '") + grid->name + "' can only be written inside a "
                                  "stencilc::for_each body", op->getSourceRange());
      return;
    }
    if (grid->is_const) {
      cx_.error(op->getExprLoc(), "grid '" + grid->name + "' is a const parameter and cannot be written");
      return;
    }
    auto offsets = grid_offsets(op, *grid);
    if (!offsets) return;
    for (int o : *offsets) {
      if (o != 0) {
        std::string list;
        for (size_t d = 0; d < offsets->size(); ++d) list += (d ? ", " : "") + std::to_string((*offsets)[d]);
        cx_.error(op->getExprLoc(), "a point update may only write the centre point; '" + grid->name +
                                        "' is written at offset (" + list + ")", op->getSourceRange());
        return;
      }
    }
    ir::Expr v = compute(ir::make_grid_read(grid->name, *offsets, grid->type), grid->type);
    if (v) out.push_back(ir::make_store(grid->name, v, cx_.loc(at)));
    return;
  }
  auto* ref = dyn_cast<DeclRefExpr>(t);
  if (!ref) {
    cx_.error(at, "the target of this assignment is not supported (assign scalar variables, or grid points inside "
                  "a for_each body)", target->getSourceRange());
    return;
  }
  const ValueDecl* d = ref->getDecl();
  std::string name = name_of(d);
  auto st = cx_.scalar_type(ref->getType());
  if (name.empty() || !st) {
    cx_.error(ref->getLocation(), "'" + d->getNameAsString() + "' cannot be assigned in a stencil program");
    return;
  }
  if (where_ != Where::Program && scope_of(d) < (int)point_scope_base_) {
    cx_.error(ref->getLocation(), "a point update cannot assign '" + d->getNameAsString() +
                                      "', a variable of the enclosing program; compute values across points "
                                      "with stencilc::reduce");
    return;
  }
  if (ir::Expr v = compute(ir::make_var(name, *st), *st)) out.push_back(ir::make_assign(name, v, cx_.loc(at)));
}

ir::Stmt ProgramLowering::lower_if(const IfStmt* s) {
  if (s->getInit() || s->getConditionVariable()) {
    cx_.error(s->getIfLoc(), "if statements with an initializer or a declared condition are not supported");
    return nullptr;
  }
  if (s->isConstexpr()) {
    cx_.error(s->getIfLoc(), "'if constexpr' is not supported in a stencil program");
    return nullptr;
  }
  ir::Expr cond = lower_expr_as(s->getCond(), ir::ScalarType::Bool);
  ir::Stmt then_body = lower_block(s->getThen());
  ir::Stmt else_body = s->getElse() ? lower_block(s->getElse()) : nullptr;
  if (!cond) return nullptr;
  return ir::make_if(cond, then_body, else_body, cx_.loc(s->getIfLoc()));
}

ir::Stmt ProgramLowering::lower_for(const ForStmt* f) {
  auto form_error = [&](SourceLocation at) {
    cx_.error(at, "time loops must have the form 'for (int t = lo; t < hi; ++t)' (also t <= hi, t++, t += c "
                  "with a positive constant c)");
    return nullptr;
  };
  auto* init = dyn_cast_or_null<DeclStmt>(f->getInit());
  const VarDecl* var = init && init->isSingleDecl() ? dyn_cast<VarDecl>(init->getSingleDecl()) : nullptr;
  auto vt = var ? cx_.scalar_type(var->getType()) : std::nullopt;
  if (!var || !var->getInit() || !vt || !ir::is_integer(*vt)) return form_error(f->getForLoc());

  // Condition: t < hi, t <= hi, hi > t, hi >= t.
  auto* cond = dyn_cast_or_null<BinaryOperator>(f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) return form_error(f->getForLoc());
  auto is_var = [&](const Expr* e) {
    auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == var;
  };
  const Expr* bound = nullptr;
  bool inclusive = false;
  if ((cond->getOpcode() == BO_LT || cond->getOpcode() == BO_LE) && is_var(cond->getLHS())) {
    bound = cond->getRHS();
    inclusive = cond->getOpcode() == BO_LE;
  } else if ((cond->getOpcode() == BO_GT || cond->getOpcode() == BO_GE) && is_var(cond->getRHS())) {
    bound = cond->getLHS();
    inclusive = cond->getOpcode() == BO_GE;
  }
  if (!bound) return form_error(cond->getExprLoc());

  // Increment: ++t, t++, t += c, t = t + c.
  std::optional<int64_t> step;
  const Expr* inc = f->getInc() ? f->getInc()->IgnoreParens() : nullptr;
  if (auto* u = dyn_cast_or_null<UnaryOperator>(inc); u && u->isIncrementOp() && is_var(u->getSubExpr())) step = 1;
  if (auto* b = dyn_cast_or_null<CompoundAssignOperator>(inc); b && b->getOpcode() == BO_AddAssign && is_var(b->getLHS()))
    step = constant_int(b->getRHS());
  if (auto* b = dyn_cast_or_null<BinaryOperator>(inc); b && b->getOpcode() == BO_Assign && is_var(b->getLHS()))
    if (auto* add = dyn_cast<BinaryOperator>(b->getRHS()->IgnoreParenImpCasts()); add && add->getOpcode() == BO_Add && is_var(add->getLHS()))
      step = constant_int(add->getRHS());
  if (!step || *step <= 0) return form_error(inc ? inc->getExprLoc() : f->getForLoc());

  // C++ re-evaluates the bound every iteration; the IR evaluates it once, so nothing it reads may change.
  DeclRefCollector refs;
  refs.TraverseStmt(const_cast<Expr*>(bound));
  refs.decls.insert(var);
  ModificationFinder mods(refs.decls);
  mods.TraverseStmt(const_cast<Stmt*>(f->getBody()));
  if (mods.found) {
    bool counter = mods.found_decl == var;
    cx_.error(mods.found->getBeginLoc(), counter ? "the loop counter '" + var->getNameAsString() + "' is modified in the loop body"
                                                : "the loop bound reads '" + mods.found_decl->getNameAsString() +
                                                      "', which the loop body modifies; use a while loop");
    return nullptr;
  }
  if (const CallExpr* r = find_reduce_call(bound)) {
    cx_.error(r->getExprLoc(), "stencilc::reduce in a loop bound is not supported; assign it to a variable first");
    return nullptr;
  }

  ir::Expr lo = lower_expr_as(var->getInit(), *vt);
  ir::Expr hi = lower_expr_as(bound, *vt);
  if (hi && inclusive) hi = ir::make_binary(ir::BinaryOp::Add, hi, ir::make_int(1, *vt));
  push_scope();
  std::string name = declare(var, var->getNameAsString());
  ir::Stmt body = lower_block(f->getBody());
  pop_scope();
  if (!lo || !hi) return nullptr;
  return ir::make_for(name, *vt, lo, hi, *step, body, cx_.loc(f->getForLoc()));
}

}  // namespace stencilc::frontend
