// Builders, spellings and lookups for the IR nodes declared in IR.h.
#include "ir/IR.h"

namespace stencilc::ir {

// ---------------------------------------------------------------------------------------------
// Spellings

const char* to_string(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::I32:
      return "i32";
    case ScalarType::I64:
      return "i64";
    case ScalarType::U64:
      return "u64";
    case ScalarType::F32:
      return "f32";
    case ScalarType::F64:
      return "f64";
  }
  return "?";
}

std::optional<ScalarType> scalar_type_from_string(const std::string& s) {
  for (ScalarType t : {ScalarType::Bool, ScalarType::I32, ScalarType::I64, ScalarType::U64,
                       ScalarType::F32, ScalarType::F64}) {
    if (s == to_string(t)) return t;
  }
  return std::nullopt;
}

bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
}

bool is_integer(ScalarType t) {
  return t == ScalarType::I32 || t == ScalarType::I64 || t == ScalarType::U64;
}

int byte_size(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 1;
    case ScalarType::I32:
    case ScalarType::F32:
      return 4;
    case ScalarType::I64:
    case ScalarType::U64:
    case ScalarType::F64:
      return 8;
  }
  return 8;
}

const char* to_string(GridQueryOp op) {
  switch (op) {
    case GridQueryOp::Extent:
      return "extent";
    case GridQueryOp::Origin:
      return "origin";
    case GridQueryOp::Halo:
      return "halo";
    case GridQueryOp::GlobalExtent:
      return "global_extent";
    case GridQueryOp::ExtentOn:
      return "extent_on";
    case GridQueryOp::OriginOn:
      return "origin_on";
    case GridQueryOp::InteriorLo:
      return "interior_lo";
    case GridQueryOp::InteriorHi:
      return "interior_hi";
  }
  return "?";
}

const char* to_string(ForEachPart p) {
  switch (p) {
    case ForEachPart::All:
      return "all";
    case ForEachPart::Boundary:
      return "boundary";
    case ForEachPart::Inner:
      return "inner";
  }
  return "?";
}

const char* to_string(WorkerRole r) {
  switch (r) {
    case WorkerRole::All:
      return "all";
    case WorkerRole::Comm:
      return "comm";
    case WorkerRole::Compute:
      return "compute";
  }
  return "?";
}

bool takes_pe(GridQueryOp op) { return op == GridQueryOp::ExtentOn || op == GridQueryOp::OriginOn; }

const char* to_string(UnaryOp op) {
  return op == UnaryOp::Neg ? "-" : "!";
}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::And:
      return "&&";
    case BinaryOp::Or:
      return "||";
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return true;
    default:
      return false;
  }
}

bool is_logical(BinaryOp op) {
  return op == BinaryOp::And || op == BinaryOp::Or;
}

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or:
      return 1;
    case BinaryOp::And:
      return 2;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 3;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 4;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 5;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return 6;
  }
  return 6;
}

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Max:
      return "max";
    case ReduceOp::Min:
      return "min";
  }
  return "?";
}

const char* to_string(CmpOp op) {
  switch (op) {
    case CmpOp::EQ:
      return "eq";
    case CmpOp::NE:
      return "ne";
    case CmpOp::GT:
      return "gt";
    case CmpOp::GE:
      return "ge";
    case CmpOp::LT:
      return "lt";
    case CmpOp::LE:
      return "le";
  }
  return "?";
}

int intrinsic_arity(const std::string& name) {
  if (name == "sqrt" || name == "exp" || name == "sin" || name == "cos" || name == "fabs") return 1;
  if (name == "fmin" || name == "fmax" || name == "pow") return 2;
  if (name == "my_pe" || name == "n_pes") return 0;
  return -1;
}

bool is_intrinsic(const std::string& name) {
  return intrinsic_arity(name) >= 0;
}

bool is_spmd_intrinsic(const std::string& name) {
  return name == "my_pe" || name == "n_pes";
}

// ---------------------------------------------------------------------------------------------
// Lookups

const Param* Program::find_param(const std::string& n) const {
  for (const Param& p : params) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

const Function* Module::find_function(const std::string& n) const {
  for (const Function& f : functions) {
    if (f.name == n) return &f;
  }
  return nullptr;
}

const Program* Module::find_program(const std::string& n) const {
  for (const Program& p : programs) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Expression builders

Expr make_int(int64_t v, ScalarType t) {
  return std::make_shared<IntImm>(t, v);
}
Expr make_float(double v, ScalarType t) {
  return std::make_shared<FloatImm>(t, v);
}
Expr make_bool(bool v) {
  return std::make_shared<BoolImm>(v);
}
Expr make_var(const std::string& name, ScalarType t) {
  return std::make_shared<Var>(t, name);
}

Expr make_grid_read(const std::string& grid, std::vector<int> offsets, ScalarType t) {
  return std::make_shared<GridRead>(t, grid, std::move(offsets));
}

Expr make_grid_query(GridQueryOp op, const std::string& grid, int dim, Expr pe) {
  return std::make_shared<GridQuery>(op, grid, dim, std::move(pe));
}

Expr make_unary(UnaryOp op, Expr a) {
  ScalarType t = op == UnaryOp::Not ? ScalarType::Bool : a->type;
  return std::make_shared<Unary>(op, std::move(a), t);
}

Expr make_binary(BinaryOp op, Expr a, Expr b) {
  ScalarType t = is_comparison(op) || is_logical(op) ? ScalarType::Bool : a->type;
  return std::make_shared<Binary>(op, std::move(a), std::move(b), t);
}

Expr make_select(Expr c, Expr t, Expr f) {
  ScalarType ty = t->type;
  return std::make_shared<Select>(std::move(c), std::move(t), std::move(f), ty);
}

Expr make_cast(ScalarType to, Expr a) {
  return std::make_shared<Cast>(to, std::move(a));
}

Expr make_call(const std::string& callee, std::vector<Expr> args, ScalarType t, bool user) {
  return std::make_shared<Call>(t, callee, std::move(args), user);
}

// ---------------------------------------------------------------------------------------------
// Statement builders

Stmt make_block(std::vector<Stmt> stmts, SourceLoc l) {
  return std::make_shared<Block>(std::move(stmts), std::move(l));
}

Stmt make_var_decl(const std::string& name, ScalarType t, Expr init, SourceLoc l) {
  return std::make_shared<VarDecl>(name, t, std::move(init), std::move(l));
}

Stmt make_assign(const std::string& name, Expr v, SourceLoc l) {
  return std::make_shared<Assign>(name, std::move(v), std::move(l));
}

Stmt make_if(Expr c, Stmt t, Stmt e, SourceLoc l) {
  return std::make_shared<If>(std::move(c), std::move(t), std::move(e), std::move(l));
}

Stmt rebuild_if(const If& old, Expr c, Stmt t, Stmt e) {
  auto out = std::make_shared<If>(std::move(c), std::move(t), std::move(e), old.loc);
  out->versioned = old.versioned;
  return out;
}

Stmt make_versions(Expr c, Stmt fused, Stmt unfused, SourceLoc l) {
  auto out = std::make_shared<If>(std::move(c), std::move(fused), std::move(unfused), std::move(l));
  out->versioned = true;
  return out;
}

Stmt make_for(const std::string& var, ScalarType t, Expr lo, Expr hi, int64_t step, Stmt body,
              SourceLoc l) {
  return std::make_shared<For>(var, t, std::move(lo), std::move(hi), step, std::move(body),
                               std::move(l));
}

Stmt make_while(Expr c, Stmt body, SourceLoc l) {
  return std::make_shared<While>(std::move(c), std::move(body), std::move(l));
}

Stmt make_for_each(Range r, std::vector<std::string> indices, Stmt body, SourceLoc l) {
  return std::make_shared<ForEach>(std::move(r), std::move(indices), std::move(body), std::move(l));
}

Stmt make_for_each_part(ForEachPart part, std::vector<int> width_lo, std::vector<int> width_hi,
                        Range r, std::vector<std::string> indices, Stmt body, SourceLoc l) {
  auto f =
      std::make_shared<ForEach>(std::move(r), std::move(indices), std::move(body), std::move(l));
  f->part = part;
  f->width_lo = std::move(width_lo);
  f->width_hi = std::move(width_hi);
  return f;
}

namespace {
std::string first_store(const Stmt& s) {
  if (auto* st = as<Store>(s)) return st->grid;
  if (auto* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts) {
      std::string g = first_store(x);
      if (!g.empty()) return g;
    }
  }
  if (auto* i = as<If>(s)) {
    std::string g = first_store(i->then_body);
    return g.empty() && i->else_body ? first_store(i->else_body) : g;
  }
  return "";
}
}  // namespace

std::string split_reference_block(const ForEach& f) {
  return first_store(f.body);
}

Stmt with_through(const Stmt& s, std::vector<std::string> grids) {
  auto* f = as<ForEach>(s);
  if (!f) return s;
  auto out = std::make_shared<ForEach>(*f);
  out->through = std::move(grids);
  return out;
}

Stmt with_widths(const Stmt& s, std::vector<int> width_lo, std::vector<int> width_hi) {
  auto* f = as<ForEach>(s);
  if (!f) return s;
  auto out = std::make_shared<ForEach>(*f);
  out->width_lo = std::move(width_lo);
  out->width_hi = std::move(width_hi);
  return out;
}

Stmt with_forms(const Stmt& s, unsigned forms) {
  if (auto* f = as<For>(s)) {
    auto out = std::make_shared<For>(*f);
    out->forms = forms;
    return out;
  }
  if (auto* w = as<While>(s)) {
    auto out = std::make_shared<While>(*w);
    out->forms = forms;
    return out;
  }
  return s;
}

unsigned loop_forms(const Stmt& s) {
  if (auto* f = as<For>(s)) return f->forms;
  if (auto* w = as<While>(s)) return w->forms;
  return 0;
}

Stmt with_role(const Stmt& s, WorkerRole role, int bytes_per_point) {
  if (auto* f = as<ForEach>(s)) {
    auto out = std::make_shared<ForEach>(*f);
    out->role = role;
    out->bytes_per_point = bytes_per_point;
    return out;
  }
  if (auto* h = as<HaloSend>(s)) return make_halo_send(h->grid, h->loc, role);
  if (auto* h = as<HaloRecv>(s)) return make_halo_recv(h->grid, h->loc, role);
  if (auto* p = as<PutSignal>(s))
    return make_put_signal(p->dst, p->src, p->signal, p->value, p->pe, p->loc, role);
  if (auto* w = as<WaitUntil>(s)) return make_wait_until(w->signal, w->cmp, w->value, w->loc, role);
  if (as<PhaseBarrier>(s)) return make_phase_barrier(s->loc, role);
  return s;
}

Stmt make_reduce(const std::string& result, ScalarType t, ReduceOp op, Range r,
                 std::vector<std::string> indices, Stmt body, SourceLoc l) {
  return std::make_shared<Reduce>(result, t, op, std::move(r), std::move(indices), std::move(body),
                                  std::move(l));
}

Stmt make_store(const std::string& grid, Expr v, SourceLoc l) {
  return std::make_shared<Store>(grid, std::move(v), std::move(l));
}

Stmt make_yield(Expr v, SourceLoc l) {
  return std::make_shared<Yield>(std::move(v), std::move(l));
}

Stmt make_return(Expr v, SourceLoc l) {
  return std::make_shared<Return>(std::move(v), std::move(l));
}

Stmt make_swap(const std::string& a, const std::string& b, SourceLoc l) {
  return std::make_shared<Swap>(a, b, std::move(l));
}

Stmt make_exchange(const std::string& grid, SourceLoc l) {
  return std::make_shared<Exchange>(grid, std::move(l));
}

Stmt make_signal_decl(const std::string& name, SourceLoc l) {
  return std::make_shared<SignalDecl>(name, std::move(l));
}

Stmt make_put_signal(Region dst, Region src, const std::string& signal, Expr value, Expr pe,
                     SourceLoc l, WorkerRole role) {
  return std::make_shared<PutSignal>(std::move(dst), std::move(src), signal, std::move(value),
                                     std::move(pe), std::move(l), role);
}

Stmt make_wait_until(const std::string& signal, CmpOp cmp, Expr value, SourceLoc l,
                     WorkerRole role) {
  return std::make_shared<WaitUntil>(signal, cmp, std::move(value), std::move(l), role);
}

Stmt make_quiet(SourceLoc l) {
  return std::make_shared<Quiet>(std::move(l));
}
Stmt make_barrier_all(SourceLoc l) {
  return std::make_shared<BarrierAll>(std::move(l));
}

Stmt make_halo_send(const std::string& grid, SourceLoc l, WorkerRole role) {
  return std::make_shared<HaloSend>(grid, std::move(l), role);
}

Stmt make_halo_recv(const std::string& grid, SourceLoc l, WorkerRole role) {
  return std::make_shared<HaloRecv>(grid, std::move(l), role);
}

Stmt make_all_reduce(const std::string& var, ReduceOp op, SourceLoc l, bool last) {
  return std::make_shared<AllReduce>(var, op, std::move(l), last);
}

Stmt make_phase_barrier(SourceLoc l, WorkerRole role) {
  return std::make_shared<PhaseBarrier>(std::move(l), role);
}

// ---------------------------------------------------------------------------------------------
// Ranges

Range make_interior(const std::string& grid, int rank) {
  Range r;
  r.kind = Range::Kind::Interior;
  r.grid = grid;
  r.rank = rank;
  return r;
}

Range make_owned(const std::string& block, int rank) {
  Range r;
  r.kind = Range::Kind::Owned;
  r.grid = block;
  r.rank = rank;
  return r;
}

Range make_box(std::vector<Expr> lo, std::vector<Expr> hi) {
  Range r;
  r.kind = Range::Kind::Box;
  r.rank = static_cast<int>(lo.size());
  r.lo = std::move(lo);
  r.hi = std::move(hi);
  return r;
}

}  // namespace stencilc::ir
