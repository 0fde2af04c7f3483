// Lowering of the stencilc calls a program makes: for_each and reduce with their ranges and
// lambdas, swaps, exchanges and the SPMD communication intrinsics.
#include "frontend/Lowering.h"

#include <clang/AST/RecursiveASTVisitor.h>

namespace stencilc::frontend {

using namespace clang;

namespace {

/// The leaves of a (nested) braced initializer, in order.
void flatten_init(const Expr* e, std::vector<const Expr*>& out) {
  e = strip(e);
  if (auto* il = dyn_cast<InitListExpr>(e)) {
    for (const Expr* init : il->inits()) flatten_init(init, out);
    return;
  }
  if (auto* ce = dyn_cast<CXXConstructExpr>(e); ce && !ce->getConstructor()->isCopyOrMoveConstructor()) {
    for (const Expr* a : ce->arguments()) flatten_init(a, out);
    return;
  }
  out.push_back(e);
}

std::optional<int> box_rank(const LoweringContext& cx, QualType t) {
  auto* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(rd);
  if (!spec || spec->getTemplateArgs().size() < 1) return std::nullopt;
  return (int)spec->getTemplateArgs()[0].getAsIntegral().getExtValue();
}

}  // namespace

std::optional<ir::Range> ProgramLowering::lower_range(const Expr* e) {
  const Expr* x = strip(e);
  if (auto* ref = dyn_cast<DeclRefExpr>(x)) {
    if (auto* vd = dyn_cast<VarDecl>(ref->getDecl()); vd && box_vars_.count(vd)) return box_vars_.at(vd);
  }
  if (auto* m = dyn_cast<CXXMemberCallExpr>(x)) {
    auto* obj = dyn_cast<DeclRefExpr>(strip(m->getImplicitObjectArgument()));
    const ir::Param* grid = obj ? grid_param(obj->getDecl()) : nullptr;
    std::string method = m->getMethodDecl() ? m->getMethodDecl()->getNameAsString() : "";
    if (grid && method == "interior" && grid->kind == ir::ParamKind::Grid) return ir::make_interior(grid->name, grid->rank);
    if (grid && method == "owned" && grid->kind == ir::ParamKind::Block) return ir::make_owned(grid->name, grid->rank);
  }
  if (cx_.is_stencilc_class(x->getType(), "Box") && (isa<InitListExpr>(x) || isa<CXXConstructExpr>(x))) {
    auto rank = box_rank(cx_, x->getType());
    std::vector<const Expr*> leaves;
    flatten_init(x, leaves);
    if (!rank || (int)leaves.size() != 2 * *rank) {
      cx_.error(x->getExprLoc(), "a stencilc::Box<N> must be written {{lo...}, {hi...}} with N values each");
      return std::nullopt;
    }
    if (kind_ == ir::ProgramKind::Global && !check_box_bounds(leaves, *rank)) return std::nullopt;
    std::vector<ir::Expr> lo, hi;
    for (int i = 0; i < 2 * *rank; ++i) {
      ir::Expr v = lower_expr_as(leaves[i], ir::ScalarType::I32);
      if (!v) return std::nullopt;
      (i < *rank ? lo : hi).push_back(v);
    }
    return ir::make_box(std::move(lo), std::move(hi));
  }
  cx_.error(x->getExprLoc(), kind_ == ir::ProgramKind::Spmd
                                 ? "a range must be b.owned() or a stencilc::Box<N>{{lo...}, {hi...}}"
                                 : "a range must be g.interior() or a stencilc::Box<N>{{lo...}, {hi...}}",
            x->getSourceRange());
  return std::nullopt;
}

bool ProgramLowering::check_box_bounds(const std::vector<const Expr*>& leaves, int rank) {
  bool ok = true;
  for (int d = 0; d < rank; ++d) {
    auto lo = constant_int(leaves[d]), hi = constant_int(leaves[rank + d]);
    if (lo && hi && *hi <= *lo) continue;  // no points in this dimension: nothing is indexed
    // Global indices: a point below 0 is no grid's (the reference build stops at a fixed
    // dimension's index there and wraps a periodic one; stencilc runs grid points only).
    for (const Expr* bound : {leaves[d], leaves[rank + d]}) {
      auto value = bound == leaves[d] ? lo : hi;
      if (!value || *value >= 0) continue;
      cx_.error(bound->getExprLoc(),
                "the range's " + std::string(bound == leaves[d] ? "lower" : "upper") + " bound in dimension " +
                    std::to_string(d) + " is " + std::to_string(*value) +
                    ", below index 0 of every grid; a for_each or reduce runs over grid points only",
                bound->getSourceRange());
      ok = false;
      break;
    }
  }
  return ok;
}

const LambdaExpr* ProgramLowering::point_lambda(const Expr* e, int rank, const char* what) {
  auto* lambda = dyn_cast<LambdaExpr>(strip(e));
  if (!lambda) {
    cx_.error(e->getExprLoc(), std::string("the body of ") + what + " must be a lambda written in the call");
    return nullptr;
  }
  const CXXMethodDecl* op = lambda->getCallOperator();
  if ((int)op->getNumParams() != rank) {
    cx_.error(lambda->getBeginLoc(), std::string("the range of ") + what + " has rank " + std::to_string(rank) +
                                         " but the lambda takes " + std::to_string(op->getNumParams()) +
                                         (op->getNumParams() == 1 ? " index" : " indices"));
    return nullptr;
  }
  for (const ParmVarDecl* p : op->parameters()) {
    QualType t = p->getType();
    if (!t->isIntegerType() || t->isReferenceType()) {
      cx_.error(p->getLocation(), "the indices of a point update must be 'int' parameters");
      return nullptr;
    }
  }
  if (op->getTemplatedKind() != FunctionDecl::TK_NonTemplate && !op->isTemplateInstantiation()) {
    cx_.error(lambda->getBeginLoc(), "generic lambdas are not supported as point updates; declare the indices as int");
    return nullptr;
  }
  return lambda;
}

ir::Stmt ProgramLowering::lower_point_body(const LambdaExpr* lambda, Where where, std::vector<std::string>& indices) {
  Where saved_where = where_;
  auto saved_indices = point_indices_;
  size_t saved_base = point_scope_base_;
  where_ = where;
  point_indices_.assign(lambda->getCallOperator()->param_begin(), lambda->getCallOperator()->param_end());
  push_scope();
  point_scope_base_ = scopes_.size() - 1;
  for (const ParmVarDecl* p : point_indices_) indices.push_back(declare(p, p->getNameAsString()));
  ir::Stmt body = lower_block(lambda->getBody());
  pop_scope();
  where_ = saved_where;
  point_indices_ = std::move(saved_indices);
  point_scope_base_ = saved_base;
  return body;
}

namespace {

/// Grids a for_each writes, and the reads of them at non-zero offsets (Gauss-Seidel).
class WrittenGridReads : public RecursiveASTVisitor<WrittenGridReads> {
 public:
  std::set<const ValueDecl*> written;
  std::vector<const CXXOperatorCallExpr*> reads;

  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->isAssignmentOp()) note_target(b->getLHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* op) {
    if (op->getOperator() == OO_Call && !targets_.count(op)) reads.push_back(op);
    return true;
  }

 private:
  std::set<const Expr*> targets_;
  void note_target(const Expr* lhs) {
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(strip(lhs)); op && op->getOperator() == OO_Call) {
      targets_.insert(op);
      if (auto* ref = dyn_cast<DeclRefExpr>(strip(op->getArg(0)))) written.insert(ref->getDecl());
    }
  }
};

}  // namespace

void ProgramLowering::check_no_gauss_seidel(const LambdaExpr* lambda, const ir::Stmt& body) {
  WrittenGridReads finder;
  finder.TraverseStmt(lambda->getBody());
  // Targets are only known after the whole body is seen, so filter the reads afterwards.
  Where saved_where = where_;
  auto saved_indices = point_indices_;
  point_indices_.assign(lambda->getCallOperator()->param_begin(), lambda->getCallOperator()->param_end());
  for (const CXXOperatorCallExpr* read : finder.reads) {
    auto* ref = dyn_cast<DeclRefExpr>(strip(read->getArg(0)));
    if (!ref || !finder.written.count(ref->getDecl())) continue;
    const ir::Param* grid = grid_param(ref->getDecl());
    if (!grid) continue;
    auto offsets = grid_offsets(read, *grid);
    if (!offsets) continue;
    bool centre = true;
    std::string list;
    for (size_t d = 0; d < offsets->size(); ++d) {
      centre = centre && (*offsets)[d] == 0;
      list += (d ? ", " : "") + std::to_string((*offsets)[d]);
    }
    if (!centre) {
      cx_.error(read->getExprLoc(), "'" + grid->name + "' is written by this for_each and read at offset (" + list +
                                        "): that would be Gauss-Seidel, not Jacobi; write into another grid and swap",
                read->getSourceRange());
    }
  }
  point_indices_ = std::move(saved_indices);
  where_ = saved_where;
  (void)body;
}

ir::Stmt ProgramLowering::lower_for_each(const CallExpr* call) {
  if (call->getNumArgs() != 2) {
    cx_.error(call->getExprLoc(), "stencilc::for_each takes a range and a lambda");
    return nullptr;
  }
  auto range = lower_range(call->getArg(0));
  if (!range) return nullptr;
  const LambdaExpr* lambda = point_lambda(call->getArg(1), range->rank, "stencilc::for_each");
  if (!lambda) return nullptr;
  std::vector<std::string> indices;
  ir::Stmt body = lower_point_body(lambda, Where::Point, indices);
  check_no_gauss_seidel(lambda, body);
  return ir::make_for_each(*range, indices, body, cx_.loc(call->getExprLoc()));
}

ir::Expr ProgramLowering::lower_reduce(const CallExpr* call) {
  if (call->getNumArgs() != 3) {
    cx_.error(call->getExprLoc(), "stencilc::reduce takes a range, Sum{}/Max{}/Min{} and a lambda");
    return nullptr;
  }
  std::string preferred = reduce_result_name_.empty() ? "red" : reduce_result_name_;
  reduce_result_name_.clear();
  auto range = lower_range(call->getArg(0));
  if (!range) return nullptr;
  std::optional<ir::ReduceOp> op;
  QualType opt = call->getArg(1)->getType();
  if (cx_.is_stencilc_class(opt, "Sum")) op = ir::ReduceOp::Sum;
  if (cx_.is_stencilc_class(opt, "Max")) op = ir::ReduceOp::Max;
  if (cx_.is_stencilc_class(opt, "Min")) op = ir::ReduceOp::Min;
  if (!op) {
    cx_.error(call->getArg(1)->getExprLoc(), "the operation of stencilc::reduce must be stencilc::Sum{}, Max{} or Min{}");
    return nullptr;
  }
  auto type = cx_.scalar_type(call->getType());
  if (!type || *type == ir::ScalarType::Bool) {
    cx_.error(call->getExprLoc(), "stencilc::reduce must produce a number (int, int64_t, float or double)");
    return nullptr;
  }
  const LambdaExpr* lambda = point_lambda(call->getArg(2), range->rank, "stencilc::reduce");
  if (!lambda) return nullptr;
  std::vector<std::string> indices;
  ir::ScalarType saved_type = reduce_type_;
  reduce_type_ = *type;
  ir::Stmt body = lower_point_body(lambda, Where::Reduction, indices);
  reduce_type_ = saved_type;
  std::string name = preferred == "red" ? fresh_name("red") : fresh_name(preferred);
  emit_before(ir::make_reduce(name, *type, *op, *range, indices, body, cx_.loc(call->getExprLoc())));
  return ir::make_var(name, *type);
}

// ---------------------------------------------------------------------------------------------
// Calls as statements

std::optional<ir::Region> ProgramLowering::lower_region(const Expr* e) {
  auto* m = dyn_cast<CXXMemberCallExpr>(strip(e));
  auto* obj = m ? dyn_cast<DeclRefExpr>(strip(m->getImplicitObjectArgument())) : nullptr;
  const ir::Param* block = obj ? grid_param(obj->getDecl()) : nullptr;
  if (!m || !block || m->getMethodDecl()->getName() != "region" || m->getNumArgs() != 1) {
    cx_.error(e->getExprLoc(), "a put region must be written b.region(stencilc::Box<N>{{lo...}, {hi...}}) on a block parameter");
    return std::nullopt;
  }
  auto box = lower_range(m->getArg(0));
  if (!box) return std::nullopt;
  if (box->kind == ir::Range::Kind::Owned) {
    box = ir::make_box({}, {});
    for (int d = 0; d < block->rank; ++d) {
      box->lo.push_back(ir::make_int(0));
      box->hi.push_back(ir::make_grid_query(ir::GridQueryOp::Extent, block->name, d));
    }
  }
  if (box->kind != ir::Range::Kind::Box || (int)box->lo.size() != block->rank) {
    cx_.error(e->getExprLoc(), "the region's box must have the block's rank");
    return std::nullopt;
  }
  return ir::Region{block->name, box->lo, box->hi};
}

std::string ProgramLowering::signal_name(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(strip(e));
  if (!ref || !signals_.count(ref->getDecl())) {
    cx_.error(e->getExprLoc(), "expected a stencilc::Signal declared in this SPMD program");
    return "";
  }
  return name_of(ref->getDecl());
}

namespace {

std::optional<ir::CmpOp> cmp_op(const Expr* e) {
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  auto* ec = ref ? dyn_cast<EnumConstantDecl>(ref->getDecl()) : nullptr;
  if (!ec) return std::nullopt;
  std::string n = ec->getNameAsString();
  if (n == "EQ") return ir::CmpOp::EQ;
  if (n == "NE") return ir::CmpOp::NE;
  if (n == "GT") return ir::CmpOp::GT;
  if (n == "GE") return ir::CmpOp::GE;
  if (n == "LT") return ir::CmpOp::LT;
  if (n == "LE") return ir::CmpOp::LE;
  return std::nullopt;
}

}  // namespace

void ProgramLowering::lower_call_stmt(const CallExpr* call, std::vector<ir::Stmt>& out) {
  const FunctionDecl* fd = callee_of(call);
  auto loc = cx_.loc(call->getExprLoc());
  bool spmd = kind_ == ir::ProgramKind::Spmd;
  auto is = [&](const char* n) { return is_stencilc_function(fd, n); };
  auto spmd_only = [&](const char* n) {
    if (!spmd) cx_.error(call->getExprLoc(), std::string("stencilc::") + n + " is only available in an SC_SPMD_PROGRAM");
    return spmd;
  };
  if (!fd) {
    cx_.error(call->getExprLoc(), "indirect calls are not supported in a stencil program");
  } else if (is("for_each")) {
    if (auto s = lower_for_each(call)) out.push_back(s);
  } else if (is("reduce")) {
    cx_.error(call->getExprLoc(), "the result of stencilc::reduce is unused");
  } else if (is("swap") || (fd->isInStdNamespace() && fd->getName() == "swap")) {
    auto* a = call->getNumArgs() == 2 ? dyn_cast<DeclRefExpr>(strip(call->getArg(0))) : nullptr;
    auto* b = call->getNumArgs() == 2 ? dyn_cast<DeclRefExpr>(strip(call->getArg(1))) : nullptr;
    const ir::Param* ga = a ? grid_param(a->getDecl()) : nullptr;
    const ir::Param* gb = b ? grid_param(b->getDecl()) : nullptr;
    if (!ga || !gb) {
      cx_.error(call->getExprLoc(), "only grid parameters of the program can be swapped");
    } else if (ga->type != gb->type || ga->rank != gb->rank || ga->kind != gb->kind) {
      cx_.error(call->getExprLoc(), "swapped grids must have the same element type and rank");
    } else if (ga->is_const || gb->is_const) {
      cx_.error(call->getExprLoc(), "a const grid parameter cannot be swapped");
    } else {
      out.push_back(ir::make_swap(ga->name, gb->name, loc));
    }
  } else if (is("exchange")) {
    auto* a = call->getNumArgs() == 1 ? dyn_cast<DeclRefExpr>(strip(call->getArg(0))) : nullptr;
    const ir::Param* g = a ? grid_param(a->getDecl()) : nullptr;
    if (!g || g->kind != ir::ParamKind::Grid) cx_.error(call->getExprLoc(), "stencilc::exchange takes a grid parameter of a global-view program");
    else out.push_back(ir::make_exchange(g->name, loc));
  } else if (is("put_signal")) {
    if (!spmd_only("put_signal")) return;
    if (call->getNumArgs() != 5) {
      cx_.error(call->getExprLoc(), "stencilc::put_signal takes (dst_region, src_region, signal, value, pe)");
      return;
    }
    auto dst = lower_region(call->getArg(0));
    auto src = lower_region(call->getArg(1));
    std::string sig = signal_name(call->getArg(2));
    ir::Expr value = lower_expr_as(call->getArg(3), ir::ScalarType::U64);
    ir::Expr pe = lower_expr_as(call->getArg(4), ir::ScalarType::I32);
    if (dst && src && !sig.empty() && value && pe) {
      if (dst->block != src->block) {
        cx_.error(call->getExprLoc(), "put_signal copies between the same symmetric block on two PEs; "
                                      "the regions name '" + dst->block + "' and '" + src->block + "'");
        return;
      }
      out.push_back(ir::make_put_signal(*dst, *src, sig, value, pe, loc));
    }
  } else if (is("signal_wait_until")) {
    if (!spmd_only("signal_wait_until")) return;
    if (call->getNumArgs() != 3) {
      cx_.error(call->getExprLoc(), "stencilc::signal_wait_until takes (signal, stencilc::Cmp::X, value)");
      return;
    }
    std::string sig = signal_name(call->getArg(0));
    auto cmp = cmp_op(call->getArg(1));
    if (!cmp) cx_.error(call->getArg(1)->getExprLoc(), "the comparison must be a stencilc::Cmp constant");
    ir::Expr value = lower_expr_as(call->getArg(2), ir::ScalarType::U64);
    if (!sig.empty() && cmp && value) out.push_back(ir::make_wait_until(sig, *cmp, value, loc));
  } else if (is("quiet")) {
    if (spmd_only("quiet")) out.push_back(ir::make_quiet(loc));
  } else if (is("barrier_all")) {
    if (spmd_only("barrier_all")) out.push_back(ir::make_barrier_all(loc));
  } else {
    cx_.error(call->getExprLoc(), "call to '" + fd->getQualifiedNameAsString() +
                                      "' is not allowed in a stencil program; at program level only "
                                      "stencilc::for_each, reduce, swap and exchange (and the SPMD intrinsics) "
                                      "may be called");
  }
}

}  // namespace stencilc::frontend
