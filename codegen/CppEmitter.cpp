// C++ expressions and the target-independent statements (see CppEmitter.h).
#include "codegen/CppEmitter.h"

#include "ir/IRPrinter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace stencilc::codegen {

using namespace ir;

const char* cpp_type(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::I32: return "int";
    case ScalarType::I64: return "std::int64_t";
    case ScalarType::U64: return "std::uint64_t";
    case ScalarType::F32: return "float";
    case ScalarType::F64: return "double";
  }
  return "?";
}

std::string cpp_literal(const Expr& e) {
  if (auto* b = as<BoolImm>(e)) return b->value ? "true" : "false";
  if (auto* i = as<IntImm>(e)) {
    switch (i->type) {
      case ScalarType::I64: return "(" + std::to_string(i->value) + "ll)";
      case ScalarType::U64: return std::to_string(static_cast<uint64_t>(i->value)) + "ull";
      default:
        // INT_MIN has no literal of its own type in C++.
        if (i->value == INT32_MIN) return "(-2147483647 - 1)";
        return i->value < 0 ? "(" + std::to_string(i->value) + ")" : std::to_string(i->value);
    }
  }
  auto* f = as<FloatImm>(e);
  bool single = f->type == ScalarType::F32;
  std::string limits = std::string("std::numeric_limits<") + (single ? "float" : "double") + ">::";
  if (std::isnan(f->value)) return limits + "quiet_NaN()";
  if (std::isinf(f->value)) return f->value > 0 ? limits + "infinity()" : "(-" + limits + "infinity())";
  // The IR printer writes the shortest text that reads back to the same value; it is valid C++.
  std::string text = print_literal(e);
  return f->value < 0 || (f->value == 0 && std::signbit(f->value)) ? "(" + text + ")" : text;
}

std::string reduce_identity(ReduceOp op, ScalarType t) {
  std::string limits = std::string("std::numeric_limits<") + cpp_type(t) + ">::";
  switch (op) {
    case ReduceOp::Sum: return std::string(cpp_type(t)) + "(0)";
    case ReduceOp::Max: return limits + "lowest()";
    case ReduceOp::Min: return limits + "max()";
  }
  return "?";
}

std::string reduce_combine(ReduceOp op, const std::string& acc, const std::string& v) {
  switch (op) {
    case ReduceOp::Sum: return acc + " = " + acc + " + " + v + ";";
    case ReduceOp::Max: return acc + " = " + v + " > " + acc + " ? " + v + " : " + acc + ";";
    case ReduceOp::Min: return acc + " = " + v + " < " + acc + " ? " + v + " : " + acc + ";";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Expressions

namespace {
constexpr int kPrecAtom = 100;
constexpr int kPrecUnary = 50;
constexpr int kPrecSelect = 0;

int expr_precedence(const Expr& e) {
  if (auto* b = as<Binary>(e)) return precedence(b->op);
  if (as<Unary>(e)) return kPrecUnary;
  if (as<Select>(e)) return kPrecSelect;
  return kPrecAtom;
}
}  // namespace

std::string CppEmitter::operand(const Expr& e, int parent, bool right) {
  int p = expr_precedence(e);
  std::string text = expr(e);
  // Left-associative operators: the right operand needs parentheses at equal precedence too.
  bool paren = p < parent || (right && p == parent && p != kPrecAtom);
  return paren ? "(" + text + ")" : text;
}

std::string CppEmitter::call(const Call* c) {
  std::string args;
  for (size_t i = 0; i < c->args.size(); ++i) args += (i ? ", " : "") + expr(c->args[i]);
  if (c->user) return user_call(c->callee) + "(" + args + ")";
  if (c->callee == "my_pe" || c->callee == "n_pes") return "sc_cx." + c->callee + "()";
  return math_function(c->callee) + "(" + args + ")";
}

namespace {

/// A divisor whose reciprocal is an exact normal float (a power of two from 2^-126 to 2^126):
/// `a / c` is the product `a * (1 / c)`, correctly rounded whatever a, and compilers emit it so.
bool exact_reciprocal(const Expr& divisor) {
  if (divisor->kind != ExprKind::FloatImm) return false;
  const double v = as<FloatImm>(divisor)->value;
  int exponent = 0;
  return std::isfinite(v) && std::frexp(v, &exponent) == (v < 0 ? -0.5 : 0.5) && exponent - 1 >= -126 &&
         exponent - 1 <= 126;
}

}  // namespace

std::string CppEmitter::float_division(const Expr& a, const Expr& b) {
  const int p = precedence(BinaryOp::Div);
  return operand(a, p, false) + " / " + operand(b, p, true);
}

std::string CppEmitter::expr(const Expr& e) {
  switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::BoolImm:
      return cpp_literal(e);
    case ExprKind::Var:
      return as<Var>(e)->name;
    case ExprKind::GridRead:
      return grid_read(as<GridRead>(e));
    case ExprKind::GridQuery:
      return grid_query(as<GridQuery>(e));
    case ExprKind::Unary: {
      auto* u = as<Unary>(e);
      return std::string(u->op == UnaryOp::Neg ? "-" : "!") + operand(u->a, kPrecUnary + 1, false);
    }
    case ExprKind::Binary: {
      auto* b = as<Binary>(e);
      int p = precedence(b->op);
      if (b->op == BinaryOp::Div && b->a->type == ScalarType::F32 && b->b->type == ScalarType::F32 &&
          !exact_reciprocal(b->b))
        return float_division(b->a, b->b);
      return operand(b->a, p, false) + " " + to_string(b->op) + " " + operand(b->b, p, true);
    }
    case ExprKind::Select: {
      auto* s = as<Select>(e);
      return "(" + expr(s->cond) + " ? " + expr(s->t) + " : " + expr(s->f) + ")";
    }
    case ExprKind::Cast: {
      auto* c = as<Cast>(e);
      return std::string("static_cast<") + cpp_type(c->type) + ">(" + expr(c->a) + ")";
    }
    case ExprKind::Call:
      return call(as<Call>(e));
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Statements

std::string cpp_line_directive(long line, const std::string& file) {
  std::string quoted;
  for (char c : file) {
    if (c == '\\' || c == '"') quoted += '\\';
    quoted += c;
  }
  return "#line " + std::to_string(line) + " \"" + quoted + "\"";
}

void CppEmitter::line(int indent, const std::string& text) {
  out_ << std::string(2 * indent, ' ') << text << "\n";
}

void CppEmitter::comment(int indent, const Stmt& s) {
  // The IR op's header line, so a reader of the generated code can find it in the IR dump.
  std::string text = print(s, 0, module_ ? module_->source : "");
  std::string first = text.substr(0, text.find('\n'));
  if (!first.empty() && first.back() == '{') first.pop_back();
  while (!first.empty() && first.back() == ' ') first.pop_back();
  line(indent, "// " + first);
}

void CppEmitter::error(const Stmt& s, const std::string& message) {
  std::string where = s && s->loc.valid() ? std::to_string(s->loc.line) + ":" + std::to_string(s->loc.col) + ": " : "";
  errors_.push_back((module_ ? module_->source + ":" : std::string()) + where + "error: " + message);
}

void CppEmitter::body(const Stmt& block, int indent) {
  if (auto* b = as<Block>(block)) {
    for (const Stmt& s : b->stmts) stmt(s, indent);
  } else if (block) {
    stmt(block, indent);
  }
}

void CppEmitter::function(const Function& f, const std::string& qualifiers) {
  std::string params;
  for (size_t i = 0; i < f.params.size(); ++i)
    params += (i ? ", " : "") + std::string(cpp_type(f.params[i].second)) + " " + f.params[i].first;
  line(0, "// func @" + f.name);
  line(0, qualifiers + " " + cpp_type(f.ret) + " " + f.name + "(" + params + ") {");
  body(f.body, 1);
  line(0, "}");
  line(0, "");
}

std::string CppEmitter::grid_read(const GridRead* r) {
  std::string idx;
  for (size_t d = 0; d < r->offsets.size(); ++d) {
    int o = r->offsets[d];
    std::string l = d < loop_vars_.size() ? loop_vars_[d] : "?";
    idx += (d ? ", " : "") + (o == 0 ? l : l + (o > 0 ? " + " : " - ") + std::to_string(std::abs(o)));
  }
  return r->grid + "(" + idx + ")";
}

void CppEmitter::loop(const Stmt& s, int indent, const std::vector<std::string>& prologue) {
  comment(indent, s);
  if (auto* f = as<For>(s)) {
    std::string t = cpp_type(f->type);
    // The bound is evaluated once, as the IR says (the front end checked nothing changes it).
    line(indent, "for (" + t + " " + f->var + " = " + expr(f->lo) + ", sc_end_" + f->var + " = " + expr(f->hi) +
                     "; " + f->var + " < sc_end_" + f->var + "; " + f->var + " += " + std::to_string(f->step) + ") {");
  } else {
    line(indent, "while (" + expr(as<While>(s)->cond) + ") {");
  }
  for (const std::string& l : prologue) line(indent + 1, l);
  body(s->kind == StmtKind::For ? as<For>(s)->body : as<While>(s)->body, indent + 1);
  line(indent, "}");
}

void CppEmitter::store(const Store* s, int indent) {
  GridRead centre(ScalarType::F32, s->grid, std::vector<int>(loop_vars_.size(), 0));
  line(indent, grid_read(&centre) + " = " + expr(s->value) + ";");
}

void CppEmitter::yield(const Yield* s, int indent) { line(indent, "return " + expr(s->value) + ";"); }

void CppEmitter::swap(const Swap* s, int indent) {
  line(indent, "swap(" + s->a + ", " + s->b + ");  // swap %" + s->a + ", %" + s->b + ": the buffers trade places");
}

void CppEmitter::target_stmt(const Stmt& s, int /*indent*/) {
  error(s, "'" + print(s).substr(0, print(s).find(' ')) + "' is not supported by this target");
}

void CppEmitter::stmt(const Stmt& s, int indent) {
  const bool one_line = s->kind == StmtKind::VarDecl || s->kind == StmtKind::Assign ||
                        s->kind == StmtKind::Store || s->kind == StmtKind::Yield;
  if (!one_line || !s->loc.valid() || !module_) return statement(s, indent);
  // A statement the user wrote on one line, written as one line, takes the user's line number
  // (then the generated file's again, splice() fills it in): a compiler's diagnostic about it
  // names the user's statement. A statement written as several lines keeps the generated ones.
  std::ostringstream outer;
  outer.swap(out_);
  statement(s, indent);
  outer.swap(out_);
  const std::string text = outer.str();
  if (std::count(text.begin(), text.end(), '\n') != 1) {
    out_ << text;
    return;
  }
  out_ << cpp_line_directive(s->loc.line, s->loc.file.empty() ? module_->source : s->loc.file)
       << "\n"
       << text << kResumeGeneratedLines << "\n";
}

void CppEmitter::statement(const Stmt& s, int indent) {
  switch (s->kind) {
    case StmtKind::Block:
      line(indent, "{");
      body(s, indent + 1);
      line(indent, "}");
      return;
    case StmtKind::VarDecl: {
      auto* v = as<VarDecl>(s);
      line(indent, std::string(cpp_type(v->type)) + " " + v->name + (v->init ? " = " + expr(v->init) : " {}") + ";");
      return;
    }
    case StmtKind::Assign: {
      auto* a = as<Assign>(s);
      line(indent, a->name + " = " + expr(a->value) + ";");
      return;
    }
    case StmtKind::If: {
      auto* i = as<If>(s);
      line(indent, "if (" + expr(i->cond) + ") {");
      body(i->then_body, indent + 1);
      if (i->else_body) {
        line(indent, "} else {");
        body(i->else_body, indent + 1);
      }
      line(indent, "}");
      return;
    }
    case StmtKind::For:
    case StmtKind::While:
      return loop(s, indent);
    case StmtKind::Return: {
      auto* r = as<Return>(s);
      line(indent, r->value ? "return " + expr(r->value) + ";" : "return;");
      return;
    }
    case StmtKind::ForEach:
      return for_each(s, indent);
    case StmtKind::Reduce:
      return reduce(s, indent);
    case StmtKind::Store:
      return store(as<Store>(s), indent);
    case StmtKind::Yield:
      return yield(as<Yield>(s), indent);
    case StmtKind::Swap:
      return swap(as<Swap>(s), indent);
    default:
      return target_stmt(s, indent);
  }
}

}  // namespace stencilc::codegen
