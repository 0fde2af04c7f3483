// The verifier: modules, programs and statements (expressions: VerifyExprs.cpp).
#include "ir/Verifier.h"

#include <algorithm>
#include <set>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/VerifierImpl.h"

namespace stencilc::ir {

namespace detail {

namespace {

const char* stmt_name(StmtKind k) {
  switch (k) {
    case StmtKind::Block:
      return "scope";
    case StmtKind::VarDecl:
      return "var";
    case StmtKind::Assign:
      return "assignment";
    case StmtKind::If:
      return "if";
    case StmtKind::For:
      return "for";
    case StmtKind::While:
      return "while";
    case StmtKind::ForEach:
      return "foreach";
    case StmtKind::Reduce:
      return "reduce";
    case StmtKind::Store:
      return "store";
    case StmtKind::Yield:
      return "yield";
    case StmtKind::Return:
      return "return";
    case StmtKind::Swap:
      return "swap";
    case StmtKind::Exchange:
      return "exchange";
    case StmtKind::SignalDecl:
      return "signal";
    case StmtKind::PutSignal:
      return "put_signal";
    case StmtKind::WaitUntil:
      return "wait_until";
    case StmtKind::Quiet:
      return "quiet";
    case StmtKind::BarrierAll:
      return "barrier_all";
    case StmtKind::HaloSend:
      return "halo_send";
    case StmtKind::HaloRecv:
      return "halo_recv";
    case StmtKind::AllReduce:
      return "allreduce";
    case StmtKind::PhaseBarrier:
      return "phase_barrier";
  }
  return "?";
}

bool is_spmd_only(StmtKind k) {
  return k == StmtKind::SignalDecl || k == StmtKind::PutSignal || k == StmtKind::WaitUntil ||
         k == StmtKind::Quiet || k == StmtKind::BarrierAll;
}

/// True when every path through `s` ends in a statement of kind `k` (an if needs both arms).
bool ends_in(const Stmt& s, StmtKind k) {
  if (!s) return false;
  if (s->kind == k) return true;
  if (auto* b = as<Block>(s)) return !b->stmts.empty() && ends_in(b->stmts.back(), k);
  if (auto* i = as<If>(s))
    return i->else_body && ends_in(i->then_body, k) && ends_in(i->else_body, k);
  return false;
}

/// The grids a point update stores to, and its reads at a non-zero offset with the loc of the
/// statement holding each (the nearest valid one).
struct StoresAndOffsetReads : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> stored;
  std::vector<std::pair<const GridRead*, SourceLoc>> offset_reads;
  SourceLoc loc;
  void visit(const Stmt& s) override {
    SourceLoc saved = loc;
    if (s && s->loc.valid()) loc = s->loc;
    IRVisitor::visit(s);
    loc = saved;
  }
  void visit(const Store* op) override {
    stored.insert(op->grid);
    IRVisitor::visit(op);
  }
  void visit(const GridRead* op) override {
    for (int o : op->offsets) {
      if (o != 0) {
        offset_reads.push_back({op, loc});
        return;
      }
    }
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Diagnostics and scopes

void Verifier::error(const std::string& message) {
  error_at(loc_, message);
}

void Verifier::error_at(const SourceLoc& loc, const std::string& message) {
  std::string out;
  if (loc.valid()) {
    out = (loc.file.empty() ? m_.source : loc.file) + ":" + std::to_string(loc.line) + ":" +
          std::to_string(loc.col) + ": ";
  }
  out += "error: ";
  if (program_) out += "in program @" + program_->name + ": ";
  if (function_) out += "in function @" + function_->name + ": ";
  errors_.push_back(out + message);
}

void Verifier::declare(const std::string& name, ScalarType t, VarKind kind) {
  if (scopes_.back().count(name)) error("redeclaration of %" + name + " in the same scope");
  if (find_grid(name)) error("%" + name + " is already a grid or block parameter");
  scopes_.back()[name] = VarInfo{t, kind, in_point_body()};
}

const Verifier::VarInfo* Verifier::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

const Param* Verifier::find_grid(const std::string& name) const {
  if (!program_) return nullptr;
  const Param* p = program_->find_param(name);
  return p && (p->kind == ParamKind::Grid || p->kind == ParamKind::Block) ? p : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Modules, functions, programs

std::vector<std::string> Verifier::run() {
  check_names();
  for (const Function& f : m_.functions) check_function(f);
  for (const Program& p : m_.programs) check_program(p);
  return errors_;
}

void Verifier::check_names() {
  std::set<std::string> seen;
  for (const Function& f : m_.functions) {
    if (!seen.insert(f.name).second) error_at(f.loc, "duplicate definition of @" + f.name);
  }
  for (const Program& p : m_.programs) {
    if (!seen.insert(p.name).second) error_at(p.loc, "duplicate definition of @" + p.name);
  }
}

void Verifier::check_function(const Function& f) {
  function_ = &f;
  context_ = Context::Function;
  loc_ = f.loc;
  scopes_.assign(1, {});
  for (const auto& [name, type] : f.params) declare(name, type, VarKind::Param);
  check_body(f.body);
  if (!ends_in(f.body, StmtKind::Return)) error_at(f.loc, "does not end in return on every path");
  function_ = nullptr;
}

void Verifier::check_program(const Program& p) {
  program_ = &p;
  context_ = Context::Program;
  loc_ = p.loc;
  scopes_.assign(1, {});
  // An SPMD program already is one PE's view: there is nothing to decompose.
  if (p.decomposed && p.kind == ProgramKind::Spmd) error("an SPMD program cannot be decomposed");
  if (p.persistent && !p.decomposed && p.kind != ProgramKind::Spmd)
    error("only a decomposed or SPMD program can be persistent");
  check_params(p);
  check_body(p.body);
  program_ = nullptr;
}

void Verifier::check_params(const Program& p) {
  std::set<std::string> seen;
  for (const Param& param : p.params) {
    const std::string name = "%" + param.name;
    if (!seen.insert(param.name).second) error("duplicate parameter " + name);
    check_halo(param);
    bool is_array = param.kind == ParamKind::Grid || param.kind == ParamKind::Block;
    if (!is_array) {
      if (param.is_const) error("scalar parameter " + name + " cannot be const");
      declare(param.name, param.type,
              param.kind == ParamKind::ScalarRef ? VarKind::RefParam : VarKind::Param);
      continue;
    }
    if (param.kind == ParamKind::Grid && p.kind == ProgramKind::Spmd) {
      error("grid parameter " + name + " in an SPMD program (SPMD programs take blocks)");
    }
    if (param.kind == ParamKind::Block && p.kind == ProgramKind::Global) {
      error("block parameter " + name + " in a global program (global programs take grids)");
    }
    if (param.rank < 1 || param.rank > 3)
      error(name + " has rank " + std::to_string(param.rank) + ", expected 1 to 3");
    if (param.type != ScalarType::F32 && param.type != ScalarType::F64 &&
        param.type != ScalarType::I32) {
      error(name + " has element type " + to_string(param.type) + ", expected f32, f64 or i32");
    }
  }
}

void Verifier::check_halo(const Param& p) {
  const std::string name = "%" + p.name;
  bool is_array = p.kind == ParamKind::Grid || p.kind == ParamKind::Block;
  bool inferred = !p.halo_lo.empty() || !p.halo_hi.empty();
  if (!is_array) {
    if (inferred || p.halo_corners) error("scalar parameter " + name + " cannot have halos");
    return;
  }
  if (p.halo_corners && !inferred) error(name + " has corners but no halo widths");
  if (!inferred) return;
  size_t rank = static_cast<size_t>(p.rank);
  if (p.halo_lo.size() != rank || p.halo_hi.size() != rank) {
    error(name + " has halo widths for " +
          std::to_string(std::max(p.halo_lo.size(), p.halo_hi.size())) + " dimensions, expected " +
          std::to_string(p.rank));
  }
  for (const std::vector<int>* widths : {&p.halo_lo, &p.halo_hi}) {
    for (int w : *widths) {
      if (w < 0) error(name + " has a negative halo width " + std::to_string(w));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Statements

void Verifier::check_body(const Stmt& body, bool new_scope) {
  auto* b = as<Block>(body);
  if (!b) {
    error(body ? "a body must be a block" : "missing body");
    if (body) check_stmt(body);
    return;
  }
  if (new_scope) push_scope();
  for (const Stmt& s : b->stmts) check_stmt(s);
  if (new_scope) pop_scope();
  check_split_pairs(b);
}

void Verifier::check_placement(const Stmt& s) {
  const std::string name = stmt_name(s->kind);
  switch (s->kind) {
    case StmtKind::Block:
    case StmtKind::VarDecl:
    case StmtKind::Assign:
    case StmtKind::If:
      break;
    case StmtKind::Store:
      // A reduce body stores only in global programs: fuse-sweeps' one sweep of point
      // updates and a reduction (docs/IR.md, "Fused sweeps").
      if (context_ == Context::ReduceBody && program_ && spmd())
        error("store in a reduce body of an SPMD program");
      else if (context_ != Context::ForEachBody && context_ != Context::ReduceBody)
        error("store outside a foreach or reduce body");
      break;
    case StmtKind::Yield:
      if (context_ != Context::ReduceBody) error("yield outside a reduce body");
      break;
    case StmtKind::Return:
      if (context_ != Context::Function) error("return outside a function");
      break;
    default:
      if (context_ == Context::Function) error(name + " is not allowed in a function");
      if (in_point_body()) error(name + " is not allowed in a foreach or reduce body");
  }
  if (program_ && is_spmd_only(s->kind) && !spmd())
    error(name + " is only allowed in SPMD programs");
  if (program_ && s->kind == StmtKind::Exchange && spmd())
    error("exchange is only allowed in global programs");
  bool decomposed_only = s->kind == StmtKind::HaloSend || s->kind == StmtKind::HaloRecv ||
                         s->kind == StmtKind::AllReduce;
  if (program_ && decomposed_only && !program_->decomposed)
    error(name + " is only allowed in decomposed programs");
}

void Verifier::check_stmt(const Stmt& s) {
  if (!s) return error("null statement");
  SourceLoc saved = loc_;
  if (s->loc.valid()) loc_ = s->loc;
  check_placement(s);
  switch (s->kind) {
    case StmtKind::Block:
      check_body(s);
      break;
    case StmtKind::VarDecl:
      check_var_decl(as<VarDecl>(s));
      break;
    case StmtKind::Assign:
      check_assign(as<Assign>(s));
      break;
    case StmtKind::If: {
      auto* op = as<If>(s);
      check_typed(op->cond, ScalarType::Bool, "if condition");
      if (op->versioned && !op->else_body) error("if versioned has no else branch (the unfused version)");
      check_body(op->then_body);
      if (op->else_body) check_body(op->else_body);
      break;
    }
    case StmtKind::For:
      check_forms(s);
      ++loops_;
      check_for(as<For>(s));
      --loops_;
      break;
    case StmtKind::While:
      check_forms(s);
      check_typed(as<While>(s)->cond, ScalarType::Bool, "while condition");
      ++loops_;
      check_body(as<While>(s)->body);
      --loops_;
      break;
    case StmtKind::ForEach:
      check_for_each(s);
      break;
    case StmtKind::Reduce:
      check_reduce(s);
      break;
    case StmtKind::Store:
      check_store(as<Store>(s));
      break;
    case StmtKind::Yield:
      check_typed(as<Yield>(s)->value, reduce_type_, "yielded value");
      break;
    case StmtKind::Return:
      check_return(as<Return>(s));
      break;
    case StmtKind::Swap:
      check_swap(as<Swap>(s));
      break;
    case StmtKind::Exchange: {
      const Param* p = find_grid(as<Exchange>(s)->grid);
      if (!p || p->kind != ParamKind::Grid)
        error("exchange of %" + as<Exchange>(s)->grid + ", which is not a grid parameter");
      break;
    }
    case StmtKind::SignalDecl:
      declare(as<SignalDecl>(s)->name, ScalarType::U64, VarKind::Signal);
      break;
    case StmtKind::PutSignal:
      check_put_signal(as<PutSignal>(s));
      check_role(s, as<PutSignal>(s)->role);
      break;
    case StmtKind::WaitUntil:
      check_signal_use(as<WaitUntil>(s)->signal);
      check_typed(as<WaitUntil>(s)->value, ScalarType::U64, "wait_until value");
      check_role(s, as<WaitUntil>(s)->role);
      break;
    case StmtKind::HaloSend:
      check_decomposed_stmt(s);
      check_role(s, as<HaloSend>(s)->role);
      break;
    case StmtKind::HaloRecv:
      check_decomposed_stmt(s);
      check_role(s, as<HaloRecv>(s)->role);
      break;
    case StmtKind::AllReduce:
      check_decomposed_stmt(s);
      break;
    case StmtKind::PhaseBarrier:
      check_role(s, as<PhaseBarrier>(s)->role);
      break;
    case StmtKind::Quiet:
    case StmtKind::BarrierAll:
      break;
  }
  loc_ = saved;
}

void Verifier::check_for_each(const Stmt& s) {
  auto* op = as<ForEach>(s);
  check_point_loop(s, op->range, op->indices, op->body);
  check_reads_of_written("foreach", op->body);
  check_for_each_part(op);
  check_through(op);
  check_role(s, op->role);
}

void Verifier::check_reduce(const Stmt& s) {
  auto* op = as<Reduce>(s);
  check_point_loop(s, op->range, op->indices, op->body);
  if (!ends_in(op->body, StmtKind::Yield)) error("reduce body does not end in yield on every path");
  check_reads_of_written("reduce", op->body);
  declare(op->result, op->type, VarKind::ReduceResult);
}

void Verifier::check_return(const Return* op) {
  if (!function_) return;
  if (!op->value)
    error(std::string("return without a value in a function returning ") +
          to_string(function_->ret));
  else
    check_typed(op->value, function_->ret, "returned value");
}

void Verifier::check_var_decl(const VarDecl* op) {
  if (op->init) check_typed(op->init, op->type, "initializer of %" + op->name);
  declare(op->name, op->type, VarKind::Local);
}

void Verifier::check_assign(const Assign* op) {
  const std::string name = "%" + op->name;
  const VarInfo* v = lookup(op->name);
  if (!v) {
    error(find_grid(op->name) ? "cannot assign grid " + name + " (store to it inside a foreach)"
                              : "assignment to undeclared " + name);
    return check_expr(op->value);
  }
  switch (v->kind) {
    case VarKind::LoopVar:
      error("cannot assign loop variable " + name);
      break;
    case VarKind::Index:
      error("cannot assign index " + name);
      break;
    case VarKind::Signal:
      error("cannot assign signal " + name);
      break;
    default:
      break;
  }
  // Point bodies run in parallel: writing a scalar from outside the body would be a race.
  if (in_point_body() && !v->in_point_body) {
    error("assignment to " + name +
          " inside a point body (only the body's own locals may be assigned)");
  }
  check_typed(op->value, v->type, "value assigned to " + name);
}

void Verifier::check_for(const For* op) {
  if (op->step <= 0) error("for step must be positive, got " + std::to_string(op->step));
  if (!is_integer(op->type))
    error(std::string("loop variable %") + op->var + " has non-integer type " +
          to_string(op->type));
  check_typed(op->lo, op->type, "loop lower bound");
  check_typed(op->hi, op->type, "loop upper bound");
  // As in C++, the loop variable and the body's own declarations share one scope.
  push_scope();
  declare(op->var, op->type, VarKind::LoopVar);
  check_body(op->body, /*new_scope=*/false);
  pop_scope();
}

void Verifier::check_forms(const Stmt& s) {
  const unsigned forms = loop_forms(s);
  if (forms == 0) return;
  const std::string what = std::string(stmt_name(s->kind)) + " forms(...)";
  if (program_ && (program_->kind != ProgramKind::Global || !program_->decomposed))
    error(what + " is only allowed in decomposed global programs");
  if (loops_ > 0) error(what + " is only allowed on a loop at the top of the program");
  if ((forms & kFormRegs) && !(forms & kFormDataflow)) error(what + ": regs is a dataflow form");
  if ((forms & kFormRegs) && s->kind != StmtKind::For) error(what + ": regs takes a for loop");
}

void Verifier::check_point_loop(const Stmt& s, const Range& r,
                                const std::vector<std::string>& indices, const Stmt& body) {
  check_range(r);
  if (static_cast<int>(indices.size()) != r.rank) {
    error(std::string(stmt_name(s->kind)) + " has " + std::to_string(indices.size()) +
          " indices for a range of rank " + std::to_string(r.rank));
  }
  Context saved = context_;
  context_ = s->kind == StmtKind::ForEach ? Context::ForEachBody : Context::ReduceBody;
  if (auto* red = as<Reduce>(s)) reduce_type_ = red->type;
  // As for a C++ lambda, the indices and the body's own declarations share one scope.
  push_scope();
  for (const std::string& i : indices) declare(i, ScalarType::I32, VarKind::Index);
  check_body(body, /*new_scope=*/false);
  pop_scope();
  context_ = saved;
}

void Verifier::check_store(const Store* op) {
  const Param* p = find_grid(op->grid);
  if (!p) {
    error("store to %" + op->grid + ", which is not a grid or block parameter");
    return check_expr(op->value);
  }
  if (p->is_const) error("store to const %" + op->grid);
  check_typed(op->value, p->type, "value stored to %" + op->grid);
}

void Verifier::check_reads_of_written(const char* what, const Stmt& body) {
  StoresAndOffsetReads walk;
  walk.loc = loc_;
  walk.visit(body);
  std::set<std::string> reported;
  for (const auto& [r, loc] : walk.offset_reads) {
    if (walk.stored.count(r->grid) && reported.insert(r->grid).second) {
      error_at(loc, std::string(what) + " writes %" + r->grid + " and reads it at " +
                        print(make_grid_read(r->grid, r->offsets, r->type)) +
                        " (a point update may read a grid it writes only at offset 0)");
    }
  }
}

void Verifier::check_for_each_part(const ForEach* op) {
  if (op->part == ForEachPart::All) {
    if (!op->width_lo.empty() || !op->width_hi.empty()) error("a whole foreach cannot have widths");
    if (op->bytes_per_point != 0) error("only the inner part of a split foreach can have a cost");
    return;
  }
  const std::string what = std::string("foreach[") + to_string(op->part) + "]";
  // The parts are defined by the faces of the PE's block: in a decomposed program the block all
  // its grids share, in an SPMD program the block the body stores to first.
  if (program_ && !program_->decomposed && program_->kind != ProgramKind::Spmd)
    error(what + " is only allowed in decomposed and SPMD programs");
  if (program_ && program_->kind == ProgramKind::Spmd && split_reference_block(*op).empty())
    error(what +
          " stores to no block: an SPMD part's widths are measured from the faces of the block "
          "it stores to");
  size_t rank = static_cast<size_t>(op->range.rank);
  if (op->width_lo.size() != rank || op->width_hi.size() != rank) {
    error(what + " has widths for " +
          std::to_string(std::max(op->width_lo.size(), op->width_hi.size())) +
          " dimensions, expected " + std::to_string(op->range.rank));
  }
  bool any = false;
  for (const std::vector<int>* widths : {&op->width_lo, &op->width_hi}) {
    for (int w : *widths) {
      if (w < 0) error(what + " has a negative width " + std::to_string(w));
      any = any || w > 0;
    }
  }
  if (!any) error(what + " has zero widths: its boundary would be empty");
  if (op->bytes_per_point < 0) error(what + " has a negative cost");
  if (op->bytes_per_point != 0 && op->role != WorkerRole::Compute)
    error(what + " has a cost but no role(compute): the cost belongs to a specialised inner part");
  if (op->role == WorkerRole::Compute && op->bytes_per_point <= 0)
    error(what + " role(compute) has no cost (bytes/point): the runtime's cost model needs it");
}

void Verifier::check_through(const ForEach* op) {
  if (op->through.empty()) return;
  const std::string what = "foreach through(...)";
  if (program_ && !program_->decomposed) error(what + " is only allowed in decomposed programs");
  if (op->part != ForEachPart::All) error(what + " is only allowed on a whole foreach");
  StoresAndOffsetReads walk;
  walk.visit(op->body);
  std::set<std::string> seen;
  for (const std::string& g : op->through) {
    if (!seen.insert(g).second) error(what + " names %" + g + " twice");
    const Param* p = program_ ? program_->find_param(g) : nullptr;
    if (program_ && (!p || p->kind != ParamKind::Grid))
      error(what + ": %" + g + " is not a grid parameter");
    else if (!walk.stored.count(g))
      error(what + ": the foreach does not store to %" + g);
  }
}

void Verifier::check_role(const Stmt& s, WorkerRole role) {
  if (role == WorkerRole::All) return;
  const std::string what = std::string(stmt_name(s->kind)) + " role(" + to_string(role) + ")";
  if (program_ && !program_->persistent) error(what + " is only allowed in persistent programs");
  auto* f = as<ForEach>(s);
  if (f && role == WorkerRole::Comm && f->part != ForEachPart::Boundary)
    error(what + ": only the boundary part of a split foreach runs on the comm workers");
  if (f && role == WorkerRole::Compute && f->part != ForEachPart::Inner)
    error(what + ": only the inner part of a split foreach runs on the compute workers");
  bool transfer = s->kind == StmtKind::HaloSend || s->kind == StmtKind::HaloRecv ||
                  s->kind == StmtKind::PutSignal || s->kind == StmtKind::WaitUntil;
  if (transfer && role != WorkerRole::Comm) error(what + ": transfers run on the comm workers");
}

void Verifier::check_split_pairs(const Block* b) {
  // Each part pairs with one partner in the same block; together they cover the range once.
  std::vector<const ForEach*> parts;
  for (const Stmt& s : b->stmts) {
    auto* f = as<ForEach>(s);
    if (f && f->part != ForEachPart::All) parts.push_back(f);
  }
  std::vector<bool> paired(parts.size(), false);
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = i + 1; j < parts.size() && !paired[i]; ++j) {
      if (paired[j] || !are_split_parts(*parts[i], *parts[j])) continue;
      paired[i] = paired[j] = true;
      const ForEach* boundary = parts[i]->part == ForEachPart::Boundary ? parts[i] : parts[j];
      const ForEach* inner = boundary == parts[i] ? parts[j] : parts[i];
      bool whole = boundary->role == WorkerRole::All && inner->role == WorkerRole::All;
      bool specialised = boundary->role == WorkerRole::Comm && inner->role == WorkerRole::Compute;
      if (!whole && !specialised) {
        error_at(boundary->loc.valid() ? boundary->loc : loc_,
                 "the parts of a split foreach are specialised together (boundary role(comm), "
                 "inner role(compute)) or not at all");
      }
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (paired[i]) continue;
    const char* other = parts[i]->part == ForEachPart::Boundary ? "inner" : "boundary";
    error_at(parts[i]->loc.valid() ? parts[i]->loc : loc_,
             std::string("foreach[") + to_string(parts[i]->part) + "] without its " + other +
                 " part in the same block (same range, indices, widths and body)");
  }
}

void Verifier::check_swap(const Swap* op) {
  const Param* a = find_grid(op->a);
  const Param* b = find_grid(op->b);
  if (!a || !b) {
    error("swap of %" + (a ? op->b : op->a) + ", which is not a grid or block parameter");
    return;
  }
  if (a->kind != b->kind || a->type != b->type || a->rank != b->rank) {
    error("swap of " + print(*a) + " and " + print(*b) + ": kinds, element types or ranks differ");
  }
  if (a->is_const || b->is_const) error("swap of const %" + (a->is_const ? op->a : op->b));
}

void Verifier::check_put_signal(const PutSignal* op) {
  check_region(op->dst, "destination");
  check_region(op->src, "source");
  if (op->dst.lo.size() != op->src.lo.size())
    error("put_signal source and destination ranks differ");
  const Param* dst = find_grid(op->dst.block);
  if (dst && dst->is_const) error("put_signal into const %" + op->dst.block);
  check_signal_use(op->signal);
  check_typed(op->value, ScalarType::U64, "signal value");
  check_typed(op->pe, ScalarType::I32, "target pe");
}

void Verifier::check_decomposed_stmt(const Stmt& s) {
  if (auto* op = as<AllReduce>(s)) return check_all_reduce(op);
  auto* send = as<HaloSend>(s);
  const std::string& grid = send ? send->grid : as<HaloRecv>(s)->grid;
  const std::string what = std::string(stmt_name(s->kind)) + " of %" + grid;
  const Param* p = find_grid(grid);
  if (!p || p->kind != ParamKind::Grid) {
    error(what + ", which is not a grid parameter");
  } else if (p->halo_lo.empty()) {
    error(what + ", whose halos are not inferred");  // the runtime sizes its slots from them
  }
}

void Verifier::check_all_reduce(const AllReduce* op) {
  const std::string name = "%" + op->var;
  const VarInfo* v = lookup(op->var);
  if (!v) return error("allreduce of undeclared " + name);
  // What the PEs combine is a partial result each of them computed: a reduction's, or a local's.
  if ((v->kind != VarKind::ReduceResult && v->kind != VarKind::Local) ||
      v->type == ScalarType::Bool)
    error("allreduce of " + name + ", which is not a reduction result or a numeric local");
}

void Verifier::check_signal_use(const std::string& name) {
  const VarInfo* v = lookup(name);
  if (!v || v->kind != VarKind::Signal) error("%" + name + " is not a signal in scope");
}

}  // namespace detail

std::vector<std::string> verify(const Module& m) {
  return detail::Verifier(m).run();
}

}  // namespace stencilc::ir
