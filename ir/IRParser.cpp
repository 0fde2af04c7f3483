// Modules, declarations and statements of the IR's textual form (expressions: IRParseExpr.cpp).
#include "ir/IRParser.h"

#include "ir/IRParserImpl.h"
#include "ir/Nesting.h"

namespace stencilc::ir {

namespace detail {

namespace {

// Bounds both syntactic nesting and the depth of left-leaning operator chains, so that neither
// the parser nor the recursive walks over what it builds can exhaust the stack (of a thread
// made by run_with_deep_stack): Nesting.h.
constexpr int kMaxDepth = kMaxNestingDepth;

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::Eof:
      return "end of input";
    case TokKind::VarName:
      return "'%" + t.text + "'";
    case TokKind::FuncName:
      return "'@" + t.text + "'";
    case TokKind::String:
      return "a string";
    default:
      return "'" + t.text + t.suffix + "'";
  }
}

std::optional<CmpOp> cmp_op(const std::string& w) {
  for (CmpOp op : {CmpOp::EQ, CmpOp::NE, CmpOp::GT, CmpOp::GE, CmpOp::LT, CmpOp::LE}) {
    if (w == to_string(op)) return op;
  }
  return std::nullopt;
}

std::optional<ReduceOp> reduce_op(const std::string& w) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
    if (w == to_string(op)) return op;
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Tokens, scopes, errors

const Token& Parser::peek(size_t ahead) const {
  return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
}

Token Parser::take() {
  Token t = peek();
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

bool Parser::accept_punct(const std::string& p) {
  if (!peek().is_punct(p)) return false;
  take();
  return true;
}

void Parser::expect_punct(const std::string& p) {
  if (!accept_punct(p)) error(peek(), "expected '" + p + "', found " + describe(peek()));
}

bool Parser::accept_ident(const std::string& w) {
  if (!peek().is_ident(w)) return false;
  take();
  return true;
}

void Parser::expect_ident(const std::string& w) {
  if (!accept_ident(w)) error(peek(), "expected '" + w + "', found " + describe(peek()));
}

std::string Parser::expect_var_name(const char* what) {
  if (peek().kind != TokKind::VarName) {
    error(peek(), std::string("expected ") + what + " (%name), found " + describe(peek()));
  }
  return take().text;
}

int64_t Parser::expect_int(const char* what) {
  const Token& t = peek();
  if (t.kind != TokKind::Int || !t.suffix.empty()) {
    error(t, std::string("expected ") + what + ", found " + describe(t));
  }
  if (t.text.size() > 9) error(t, std::string(what) + " out of range");
  return std::stoll(take().text);
}

ScalarType Parser::expect_scalar_type() {
  const Token& t = peek();
  std::optional<ScalarType> type =
      t.kind == TokKind::Ident ? scalar_type_from_string(t.text) : std::nullopt;
  if (!type) error(t, "expected a type (bool, i32, i64, u64, f32, f64), found " + describe(t));
  take();
  return *type;
}

void Parser::error(const Token& at, const std::string& message) const {
  // A token the lexer could not read explains itself better than "expected ...".
  throw ParseError{at.line, at.col, at.kind == TokKind::Error ? at.text : message};
}

void Parser::enter(const Token& at) {
  if (++depth_ > kMaxDepth) error(at, "nesting too deep");
}

std::optional<ScalarType> Parser::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->vars.find(name);
    if (found != it->vars.end()) return found->second;
  }
  return std::nullopt;
}

const Param* Parser::find_grid(const std::string& name) const {
  for (const Param& p : params_) {
    if (p.name == name && (p.kind == ParamKind::Grid || p.kind == ParamKind::Block)) return &p;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Module, functions, programs

Module Parser::parse_module() {
  Module m;
  expect_ident("module");
  if (peek().kind != TokKind::String) error(peek(), "expected the source file name in quotes");
  m.source = take().text;
  while (peek().kind != TokKind::Eof) {
    const Token& t = peek();
    if (t.is_ident("func")) {
      parse_function(m);
    } else if (t.is_ident("program") || t.is_ident("spmd_program")) {
      parse_program(m, t.text == "program" ? ProgramKind::Global : ProgramKind::Spmd);
    } else {
      error(t, "expected 'func', 'program' or 'spmd_program', found " + describe(t));
    }
  }
  return m;
}

SourceLoc Parser::parse_opt_loc() {
  SourceLoc l;
  if (!accept_ident("loc")) return l;
  expect_punct("(");
  if (peek().kind == TokKind::String) {
    l.file = take().text;
    expect_punct(":");
  }
  l.line = static_cast<int>(expect_int("a line number"));
  expect_punct(":");
  l.col = static_cast<int>(expect_int("a column number"));
  expect_punct(")");
  return l;
}

Param Parser::parse_param() {
  Param p;
  p.name = expect_var_name("a parameter");
  expect_punct(":");
  if (accept_ident("ref")) {
    p.kind = ParamKind::ScalarRef;
    p.type = expect_scalar_type();
    return p;
  }
  p.is_const = accept_ident("const");
  if (!peek().is_ident("grid") && !peek().is_ident("block")) {
    if (p.is_const) error(peek(), "expected 'grid' or 'block' after 'const'");
    p.kind = ParamKind::Scalar;
    p.type = expect_scalar_type();
    return p;
  }
  p.kind = take().text == "grid" ? ParamKind::Grid : ParamKind::Block;
  expect_punct("<");
  p.type = expect_scalar_type();
  expect_punct(",");
  p.rank = static_cast<int>(expect_int("a rank"));
  expect_punct(">");
  if (accept_ident("halo")) parse_halo(p);
  p.halo_corners = accept_ident("corners");
  return p;
}

void Parser::parse_halo(Param& p) {
  expect_punct("[");
  parse_widths(&p.halo_lo, &p.halo_hi, "a halo width");
  expect_punct("]");
}

void Parser::parse_widths(std::vector<int>* lo, std::vector<int>* hi, const std::string& what) {
  // Negative widths parse so that tests can hand the verifier ill-formed IR.
  auto width = [this](const std::string& what) {
    bool negative = accept_punct("-");
    int w = static_cast<int>(expect_int(what.c_str()));
    return negative ? -w : w;
  };
  do {
    lo->push_back(width(what + " below"));
    expect_punct(":");
    hi->push_back(width(what + " above"));
  } while (accept_punct(","));
}

void Parser::parse_function(Module& m) {
  take();  // func
  if (peek().kind != TokKind::FuncName) error(peek(), "expected a function name (@name)");
  Function f;
  f.name = take().text;
  scopes_.assign(1, Scope{});
  params_.clear();
  expect_punct("(");
  while (!peek().is_punct(")")) {
    if (!f.params.empty()) expect_punct(",");
    std::string name = expect_var_name("a parameter");
    expect_punct(":");
    ScalarType t = expect_scalar_type();
    f.params.emplace_back(name, t);
    declare(name, t);
  }
  take();
  expect_punct("-");
  expect_punct(">");
  f.ret = expect_scalar_type();
  f.loc = parse_opt_loc();
  functions_[f.name] = f;  // the signature first, so that a body may call itself
  f.body = parse_block();
  functions_[f.name] = f;
  m.functions.push_back(std::move(f));
}

void Parser::parse_program(Module& m, ProgramKind kind) {
  take();  // program / spmd_program
  if (peek().kind != TokKind::FuncName) error(peek(), "expected a program name (@name)");
  Program p;
  p.kind = kind;
  p.name = take().text;
  scopes_.assign(1, Scope{});
  expect_punct("(");
  while (!peek().is_punct(")")) {
    if (!p.params.empty()) expect_punct(",");
    p.params.push_back(parse_param());
    const Param& param = p.params.back();
    if (param.kind == ParamKind::Scalar || param.kind == ParamKind::ScalarRef) {
      declare(param.name, param.type);
    }
  }
  take();
  params_ = p.params;
  p.decomposed = accept_ident("decomposed");
  p.persistent = accept_ident("persistent");
  p.loc = parse_opt_loc();
  p.body = parse_block();
  params_.clear();
  m.programs.push_back(std::move(p));
}

// ---------------------------------------------------------------------------------------------
// Statements

Stmt Parser::parse_block(SourceLoc loc) {
  expect_punct("{");
  scopes_.emplace_back();
  std::vector<Stmt> stmts;
  while (!accept_punct("}")) {
    if (peek().kind == TokKind::Eof) error(peek(), "expected '}' before end of input");
    stmts.push_back(parse_stmt());
  }
  scopes_.pop_back();
  return make_block(std::move(stmts), std::move(loc));
}

Stmt Parser::parse_body_with(const std::vector<std::string>& names, ScalarType t) {
  scopes_.emplace_back();
  for (const std::string& n : names) declare(n, t);
  Stmt body = parse_block();
  scopes_.pop_back();
  return body;
}

Stmt Parser::parse_stmt() {
  const Token& t = peek();
  DepthGuard guard(*this, t);
  if (t.kind == TokKind::VarName) {
    std::string name = take().text;
    expect_punct("=");
    Expr v = parse_expr();
    return make_assign(name, v, parse_opt_loc());
  }
  if (t.kind != TokKind::Ident) error(t, "expected a statement, found " + describe(t));
  if (t.text == "if") return parse_if();
  if (t.text == "for") return parse_for();
  if (t.text == "foreach") return parse_for_each();
  if (t.text == "reduce") return parse_reduce();
  if (t.text == "put_signal") return parse_put_signal();
  if (t.text == "while") {
    take();
    Expr c = parse_expr();
    const unsigned forms = parse_opt_forms();
    SourceLoc loc = parse_opt_loc();
    return with_forms(make_while(c, parse_block(), loc), forms);
  }
  if (t.text == "scope") {
    take();
    return parse_block(parse_opt_loc());
  }
  return parse_simple_stmt(take());
}

Stmt Parser::parse_simple_stmt(const Token& t) {
  const std::string& w = t.text;
  if (w == "var") {
    std::string name = expect_var_name("a variable");
    expect_punct(":");
    ScalarType type = expect_scalar_type();
    Expr init = accept_punct("=") ? parse_expr() : nullptr;
    declare(name, type);
    return make_var_decl(name, type, init, parse_opt_loc());
  }
  if (w == "store") {
    std::string grid = expect_var_name("a grid or block");
    expect_punct("=");
    Expr v = parse_expr();
    return make_store(grid, v, parse_opt_loc());
  }
  if (w == "yield") {
    Expr v = parse_expr();
    return make_yield(v, parse_opt_loc());
  }
  if (w == "return") {
    // `return` has a value when something other than its loc follows on the same line.
    const Token& n = peek();
    bool has_value =
        n.line == t.line && !n.is_punct("}") && !n.is_ident("loc") && n.kind != TokKind::Eof;
    Expr v = has_value ? parse_expr() : nullptr;
    return make_return(v, parse_opt_loc());
  }
  if (w == "swap") {
    std::string a = expect_var_name("a grid");
    expect_punct(",");
    std::string b = expect_var_name("a grid");
    return make_swap(a, b, parse_opt_loc());
  }
  if (w == "exchange") {
    std::string g = expect_var_name("a grid");
    return make_exchange(g, parse_opt_loc());
  }
  if (w == "signal") {
    std::string name = expect_var_name("a signal");
    declare(name, ScalarType::U64);
    return make_signal_decl(name, parse_opt_loc());
  }
  if (w == "wait_until") {
    std::string sig = expect_var_name("a signal");
    std::optional<CmpOp> cmp = peek().kind == TokKind::Ident ? cmp_op(peek().text) : std::nullopt;
    if (!cmp) error(peek(), "expected a comparison (eq, ne, gt, ge, lt, le)");
    take();
    Expr v = parse_expr();
    WorkerRole role = parse_opt_role();
    return make_wait_until(sig, *cmp, v, parse_opt_loc(), role);
  }
  if (w == "quiet") return make_quiet(parse_opt_loc());
  if (w == "barrier_all") return make_barrier_all(parse_opt_loc());
  if (w == "halo_send" || w == "halo_recv") {
    std::string g = expect_var_name("a grid");
    WorkerRole role = parse_opt_role();
    return w == "halo_send" ? make_halo_send(g, parse_opt_loc(), role)
                            : make_halo_recv(g, parse_opt_loc(), role);
  }
  if (w == "allreduce") {
    std::string var = expect_var_name("a scalar");
    std::optional<ReduceOp> op =
        peek().kind == TokKind::Ident ? reduce_op(peek().text) : std::nullopt;
    if (!op) error(peek(), "expected a reduction (sum, max, min), found " + describe(peek()));
    take();
    const bool last = peek().kind == TokKind::Ident && peek().text == "last";
    if (last) take();
    return make_all_reduce(var, *op, parse_opt_loc(), last);
  }
  if (w == "phase_barrier") {
    WorkerRole role = parse_opt_role();
    return make_phase_barrier(parse_opt_loc(), role);
  }
  error(t, "unknown statement '" + w + "'");
}

Stmt Parser::parse_if() {
  take();  // if
  Expr c = parse_expr();
  const bool versioned = accept_ident("versioned");
  SourceLoc loc = parse_opt_loc();
  Stmt then_body = parse_block();
  Stmt else_body;
  if (accept_ident("else")) {
    // `else if` is accepted for hand-written IR; it reads as an else block holding the if.
    else_body = peek().is_ident("if") ? make_block({parse_if()}) : parse_block();
  }
  return versioned ? make_versions(c, then_body, else_body, loc)
                   : make_if(c, then_body, else_body, loc);
}

Stmt Parser::parse_for() {
  take();  // for
  std::string var = expect_var_name("a loop variable");
  expect_punct(":");
  ScalarType type = expect_scalar_type();
  expect_punct("=");
  Expr lo = parse_expr();
  expect_ident("to");
  Expr hi = parse_expr();
  expect_ident("step");
  bool negative = accept_punct("-");
  int64_t step = expect_int("a constant step");
  const unsigned forms = parse_opt_forms();
  SourceLoc loc = parse_opt_loc();
  Stmt body = parse_body_with({var}, type);
  return with_forms(make_for(var, type, lo, hi, negative ? -step : step, body, loc), forms);
}

unsigned Parser::parse_opt_forms() {
  if (!accept_ident("forms")) return 0;
  expect_punct("(");
  unsigned forms = 0;
  do {
    const Token& t = peek();
    if (accept_ident("dataflow")) {
      forms |= kFormDataflow;
    } else if (accept_ident("regs")) {
      forms |= kFormRegs;
    } else {
      error(t, "expected a loop form (dataflow or regs), found " + describe(t));
    }
  } while (accept_punct(","));
  expect_punct(")");
  return forms;
}

Range Parser::parse_range() {
  if (accept_punct("[")) {
    std::vector<Expr> lo, hi;
    while (!accept_punct("]")) {
      if (!lo.empty()) expect_punct(",");
      lo.push_back(parse_expr());
      expect_punct(":");
      hi.push_back(parse_expr());
    }
    return make_box(std::move(lo), std::move(hi));
  }
  const Token& t = peek();
  std::string grid = expect_var_name("a range (%g.interior, %b.owned or [lo:hi, ...])");
  const Param* p = find_grid(grid);
  if (!p) error(t, "%" + grid + " is not a grid or block");
  expect_punct(".");
  if (accept_ident("interior")) return make_interior(grid, p->rank);
  if (accept_ident("owned")) return make_owned(grid, p->rank);
  error(peek(), "expected 'interior' or 'owned', found " + describe(peek()));
}

std::vector<std::string> Parser::parse_indices() {
  expect_punct("(");
  std::vector<std::string> names;
  while (!accept_punct(")")) {
    if (!names.empty()) expect_punct(",");
    names.push_back(expect_var_name("an index"));
  }
  return names;
}

Stmt Parser::parse_for_each() {
  take();  // foreach
  ForEachPart part = ForEachPart::All;
  std::vector<int> width_lo, width_hi;
  // `foreach[boundary 1:1, 0:2] range`: a box range starts with an expression, never with these.
  if (peek().is_punct("[") &&
      (peek(1).is_ident("boundary") || peek(1).is_ident("inner") || peek(1).is_ident("all"))) {
    take();
    std::string w = take().text;
    part = w == "boundary" ? ForEachPart::Boundary
           : w == "inner"  ? ForEachPart::Inner
                           : ForEachPart::All;
    if (!peek().is_punct("]")) parse_widths(&width_lo, &width_hi, "a width");
    expect_punct("]");
  }
  Range r = parse_range();
  std::vector<std::string> indices = parse_indices();
  WorkerRole role = parse_opt_role();
  int bytes_per_point = 0;
  if (accept_ident("cost")) {
    expect_punct("(");
    bytes_per_point = static_cast<int>(expect_int("a number of bytes per point"));
    expect_ident("bytes");
    expect_punct("/");
    expect_ident("point");
    expect_punct(")");
  }
  std::vector<std::string> through;
  if (accept_ident("through")) {
    expect_punct("(");
    do {
      through.push_back(expect_var_name("a grid written through"));
    } while (accept_punct(","));
    expect_punct(")");
  }
  SourceLoc loc = parse_opt_loc();
  Stmt body = parse_body_with(indices, ScalarType::I32);
  Stmt f = make_for_each_part(part, std::move(width_lo), std::move(width_hi), std::move(r), indices,
                              body, loc);
  if (role != WorkerRole::All || bytes_per_point != 0) f = with_role(f, role, bytes_per_point);
  return through.empty() ? f : with_through(f, std::move(through));
}

WorkerRole Parser::parse_opt_role() {
  if (!accept_ident("role")) return WorkerRole::All;
  expect_punct("(");
  WorkerRole role = WorkerRole::All;
  if (accept_ident("comm")) {
    role = WorkerRole::Comm;
  } else if (accept_ident("compute")) {
    role = WorkerRole::Compute;
  } else {
    error(peek(), "expected a role (comm, compute), found " + describe(peek()));
  }
  expect_punct(")");
  return role;
}

Stmt Parser::parse_reduce() {
  take();  // reduce
  std::string result = expect_var_name("a result");
  expect_punct(":");
  ScalarType type = expect_scalar_type();
  expect_punct("=");
  std::optional<ReduceOp> op =
      peek().kind == TokKind::Ident ? reduce_op(peek().text) : std::nullopt;
  if (!op) error(peek(), "expected a reduction (sum, max, min), found " + describe(peek()));
  take();
  Range r = parse_range();
  std::vector<std::string> indices = parse_indices();
  SourceLoc loc = parse_opt_loc();
  Stmt body = parse_body_with(indices, ScalarType::I32);
  declare(result, type);  // the result is visible after the reduction, not inside it
  return make_reduce(result, type, *op, std::move(r), indices, body, loc);
}

Region Parser::parse_region() {
  Region r;
  r.block = expect_var_name("a block");
  expect_punct("[");
  while (!accept_punct("]")) {
    if (!r.lo.empty()) expect_punct(",");
    r.lo.push_back(parse_expr());
    expect_punct(":");
    r.hi.push_back(parse_expr());
  }
  return r;
}

Stmt Parser::parse_put_signal() {
  take();  // put_signal
  Region dst = parse_region();
  expect_punct("<");
  expect_punct("-");
  Region src = parse_region();
  expect_punct(",");
  std::string signal = expect_var_name("a signal");
  expect_punct("=");
  Expr value = parse_expr();
  expect_punct(",");
  expect_ident("pe");
  expect_punct("=");
  Expr pe = parse_expr();
  WorkerRole role = parse_opt_role();
  return make_put_signal(std::move(dst), std::move(src), signal, value, pe, parse_opt_loc(), role);
}

}  // namespace detail

std::optional<Module> parse_module(const std::string& text, const std::string& filename,
                                   std::string* error) {
  try {
    return detail::Parser(text).parse_module();
  } catch (const detail::ParseError& e) {
    if (error) *error = format_diagnostic(filename, text, e.line, e.col, e.message);
    return std::nullopt;
  }
}

}  // namespace stencilc::ir
