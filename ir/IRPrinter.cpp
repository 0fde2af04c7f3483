// Prints the IR in the textual form that IRParser reads back.
#include "ir/IRPrinter.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace stencilc::ir {

namespace {

// Above the binary levels of precedence(BinaryOp). Negative literals print with a leading `-`,
// so they bind like a unary operator.
enum Prec { kPrecUnary = 7, kPrecPrimary };

bool is_numeric_literal(const Expr& e) {
  return as<IntImm>(e) || as<FloatImm>(e);
}

int expr_precedence(const Expr& e) {
  if (auto* b = as<Binary>(e)) return precedence(b->op);
  if (as<Unary>(e)) return kPrecUnary;
  if (e && print_literal(e)[0] == '-') return kPrecUnary;
  return kPrecPrimary;
}

std::string format_float(double v, ScalarType t) {
  char buf[64];
  std::to_chars_result r = t == ScalarType::F32
                               ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                               : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // `1` would read back as an integer: keep a `.` (inf and nan are floats already).
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  if (t == ScalarType::F32) s += "f";
  return s;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string print_exprs(const std::vector<Expr>& es) {
  std::vector<std::string> parts;
  parts.reserve(es.size());
  for (const Expr& e : es) parts.push_back(print(e));
  return join(parts);
}

std::string print_operand(const Expr& e, bool parenthesize) {
  std::string s = print(e);
  return parenthesize ? "(" + s + ")" : s;
}

std::string print_call(const Call* c) {
  return (c->user ? "@" : "") + c->callee + "(" + print_exprs(c->args) + ")";
}

std::string print_bounds(const std::string& prefix, const std::vector<Expr>& lo,
                         const std::vector<Expr>& hi) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < lo.size() || d < hi.size(); ++d) {
    dims.push_back(print(d < lo.size() ? lo[d] : nullptr) + ":" +
                   print(d < hi.size() ? hi[d] : nullptr));
  }
  return prefix + "[" + join(dims) + "]";
}

std::string indentation(int indent) {
  return std::string(2 * static_cast<size_t>(indent), ' ');
}

std::string print_indices(const std::vector<std::string>& indices) {
  std::vector<std::string> parts;
  parts.reserve(indices.size());
  for (const std::string& i : indices) parts.push_back("%" + i);
  return "(" + join(parts) + ")";
}

// `lo:hi` per dimension; a width missing from one of the two vectors (ill-formed IR, which the
// verifier reports) prints as `?`.
std::string print_widths(const std::vector<int>& lo, const std::vector<int>& hi) {
  auto width = [](const std::vector<int>& v, size_t d) {
    return d < v.size() ? std::to_string(v[d]) : std::string("?");
  };
  std::vector<std::string> dims;
  for (size_t d = 0; d < lo.size() || d < hi.size(); ++d)
    dims.push_back(width(lo, d) + ":" + width(hi, d));
  return join(dims);
}

// `[boundary 1:1, 0:2]` for a part of a split foreach; nothing for a whole one (unless it carries
// widths anyway, which the verifier reports: then `[all 1:1]`).
std::string print_part(const ForEach& f) {
  if (f.part == ForEachPart::All && f.width_lo.empty() && f.width_hi.empty()) return "";
  std::string widths = print_widths(f.width_lo, f.width_hi);
  return std::string("[") + to_string(f.part) + (widths.empty() ? "" : " " + widths) + "]";
}

std::string print_role(WorkerRole r) {
  return r == WorkerRole::All ? "" : std::string(" role(") + to_string(r) + ")";
}

std::string print_forms(unsigned forms) {
  if (forms == 0) return "";
  std::string out;
  if (forms & kFormDataflow) out += "dataflow";
  if (forms & kFormRegs) out += std::string(out.empty() ? "" : ", ") + "regs";
  return " forms(" + out + ")";
}

std::string print_cost(const ForEach& f) {
  if (f.bytes_per_point == 0) return "";
  return " cost(" + std::to_string(f.bytes_per_point) + " bytes/point)";
}

std::string print_through(const ForEach& f) {
  if (f.through.empty()) return "";
  std::string out;
  for (const std::string& g : f.through) out += std::string(out.empty() ? "" : ", ") + "%" + g;
  return " through(" + out + ")";
}

// Prints statements line by line; knows the module's source so locs in it omit the file.
class StmtPrinter {
 public:
  StmtPrinter(std::ostringstream& out, std::string source)
      : out_(out), source_(std::move(source)) {}

  void print_stmt(const Stmt& s, int indent);
  // The statements of a body (a Block, or any single statement), one level deeper than `indent`.
  void print_body(const Stmt& body, int indent);

 private:
  void line(int indent, const std::string& text, const SourceLoc& loc) {
    out_ << indentation(indent) << text;
    std::string l = print_loc(loc, source_);
    if (!l.empty()) out_ << " " << l;
  }
  // `header loc {`, the body, `}`.
  void nested(int indent, const std::string& header, const SourceLoc& loc, const Stmt& body) {
    line(indent, header, loc);
    out_ << " {\n";
    print_body(body, indent);
    out_ << indentation(indent) << "}\n";
  }
  void print_if(const If* op, int indent);
  std::string print_put_signal(const PutSignal* op);

  std::ostringstream& out_;
  std::string source_;
};

void StmtPrinter::print_body(const Stmt& body, int indent) {
  if (auto* b = as<Block>(body)) {
    for (const Stmt& s : b->stmts) print_stmt(s, indent + 1);
  } else if (body) {
    print_stmt(body, indent + 1);
  }
}

void StmtPrinter::print_if(const If* op, int indent) {
  line(indent, "if " + print(op->cond) + (op->versioned ? " versioned" : ""), op->loc);
  out_ << " {\n";
  print_body(op->then_body, indent);
  if (op->else_body) {
    out_ << indentation(indent) << "} else {\n";
    print_body(op->else_body, indent);
  }
  out_ << indentation(indent) << "}\n";
}

std::string StmtPrinter::print_put_signal(const PutSignal* op) {
  return "put_signal " + print_bounds("%" + op->dst.block, op->dst.lo, op->dst.hi) + " <- " +
         print_bounds("%" + op->src.block, op->src.lo, op->src.hi) + ", %" + op->signal + " = " +
         print(op->value) + ", pe = " + print(op->pe);
}

void StmtPrinter::print_stmt(const Stmt& s, int indent) {
  if (!s) {
    line(indent, "<null>", {});
    out_ << "\n";
    return;
  }
  std::string text;
  switch (s->kind) {
    case StmtKind::Block:
      return nested(indent, "scope", s->loc, s);
    case StmtKind::If:
      return print_if(as<If>(s), indent);
    case StmtKind::For: {
      auto* op = as<For>(s);
      return nested(indent,
                    "for %" + op->var + ": " + to_string(op->type) + " = " + print(op->lo) +
                        " to " + print(op->hi) + " step " + std::to_string(op->step) + print_forms(op->forms),
                    s->loc, op->body);
    }
    case StmtKind::While: {
      auto* op = as<While>(s);
      return nested(indent, "while " + print(op->cond) + print_forms(op->forms), s->loc, op->body);
    }
    case StmtKind::ForEach: {
      auto* op = as<ForEach>(s);
      return nested(indent,
                    "foreach" + print_part(*op) + " " + print(op->range) + " " +
                        print_indices(op->indices) + print_role(op->role) + print_cost(*op) +
                        print_through(*op),
                    s->loc, op->body);
    }
    case StmtKind::Reduce: {
      auto* op = as<Reduce>(s);
      return nested(indent,
                    "reduce %" + op->result + ": " + to_string(op->type) + " = " +
                        to_string(op->op) + " " + print(op->range) + " " +
                        print_indices(op->indices),
                    s->loc, op->body);
    }
    case StmtKind::VarDecl: {
      auto* op = as<VarDecl>(s);
      text = "var %" + op->name + ": " + to_string(op->type);
      if (op->init) text += " = " + print(op->init);
      break;
    }
    case StmtKind::Assign:
      text = "%" + as<Assign>(s)->name + " = " + print(as<Assign>(s)->value);
      break;
    case StmtKind::Store:
      text = "store %" + as<Store>(s)->grid + " = " + print(as<Store>(s)->value);
      break;
    case StmtKind::Yield:
      text = "yield " + print(as<Yield>(s)->value);
      break;
    case StmtKind::Return:
      text = as<Return>(s)->value ? "return " + print(as<Return>(s)->value) : "return";
      break;
    case StmtKind::Swap:
      text = "swap %" + as<Swap>(s)->a + ", %" + as<Swap>(s)->b;
      break;
    case StmtKind::Exchange:
      text = "exchange %" + as<Exchange>(s)->grid;
      break;
    case StmtKind::SignalDecl:
      text = "signal %" + as<SignalDecl>(s)->name;
      break;
    case StmtKind::PutSignal:
      text = print_put_signal(as<PutSignal>(s)) + print_role(as<PutSignal>(s)->role);
      break;
    case StmtKind::WaitUntil: {
      auto* op = as<WaitUntil>(s);
      text = "wait_until %" + op->signal + " " + to_string(op->cmp) + " " + print(op->value) +
             print_role(op->role);
      break;
    }
    case StmtKind::Quiet:
      text = "quiet";
      break;
    case StmtKind::BarrierAll:
      text = "barrier_all";
      break;
    case StmtKind::HaloSend:
      text = "halo_send %" + as<HaloSend>(s)->grid + print_role(as<HaloSend>(s)->role);
      break;
    case StmtKind::HaloRecv:
      text = "halo_recv %" + as<HaloRecv>(s)->grid + print_role(as<HaloRecv>(s)->role);
      break;
    case StmtKind::AllReduce:
      text = "allreduce %" + as<AllReduce>(s)->var + " " + to_string(as<AllReduce>(s)->op) +
             (as<AllReduce>(s)->last ? " last" : "");
      break;
    case StmtKind::PhaseBarrier:
      text = "phase_barrier" + print_role(as<PhaseBarrier>(s)->role);
      break;
  }
  line(indent, text, s->loc);
  out_ << "\n";
}

std::string print_params(const std::vector<std::string>& params) {
  return "(" + join(params) + ")";
}

// ` halo[1:1, 0:2]` once halos are inferred, then ` corners` when set. A width missing from one
// of the two vectors (ill-formed IR, which the verifier reports) prints as `?`.
std::string print_halo(const Param& p) {
  std::string out;
  if (!p.halo_lo.empty() || !p.halo_hi.empty())
    out = " halo[" + print_widths(p.halo_lo, p.halo_hi) + "]";
  return p.halo_corners ? out + " corners" : out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Expressions

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string print_literal(const Expr& e) {
  if (auto* i = as<IntImm>(e)) {
    switch (i->type) {
      case ScalarType::U64:
        return std::to_string(static_cast<uint64_t>(i->value)) + "u";
      case ScalarType::I64:
        return std::to_string(i->value) + "l";
      default:
        return std::to_string(i->value);
    }
  }
  if (auto* f = as<FloatImm>(e)) return format_float(f->value, f->type);
  if (auto* b = as<BoolImm>(e)) return b->value ? "true" : "false";
  return "";
}

std::string print(const Expr& e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::BoolImm:
      return print_literal(e);
    case ExprKind::Var:
      return "%" + as<Var>(e)->name;
    case ExprKind::GridRead: {
      auto* r = as<GridRead>(e);
      std::vector<std::string> offs;
      for (int o : r->offsets) offs.push_back(std::to_string(o));
      return "%" + r->grid + "[" + join(offs) + "]";
    }
    case ExprKind::GridQuery: {
      auto* q = as<GridQuery>(e);
      std::string pe = q->pe ? print(q->pe) + ", " : "";
      return std::string(to_string(q->op)) + "(%" + q->grid + ", " + pe + std::to_string(q->dim) + ")";
    }
    case ExprKind::Unary: {
      auto* u = as<Unary>(e);
      // `-3` reads back as a literal, so the negation of a literal keeps its parentheses.
      bool paren = expr_precedence(u->a) <= kPrecUnary ||
                   (u->op == UnaryOp::Neg && is_numeric_literal(u->a));
      return to_string(u->op) + print_operand(u->a, paren);
    }
    case ExprKind::Binary: {
      auto* b = as<Binary>(e);
      int p = precedence(b->op);
      return print_operand(b->a, expr_precedence(b->a) < p) + " " + to_string(b->op) + " " +
             print_operand(b->b, expr_precedence(b->b) <= p);
    }
    case ExprKind::Select: {
      auto* s = as<Select>(e);
      return "select(" + print(s->cond) + ", " + print(s->t) + ", " + print(s->f) + ")";
    }
    case ExprKind::Cast:
      return std::string("cast<") + to_string(e->type) + ">(" + print(as<Cast>(e)->a) + ")";
    case ExprKind::Call:
      return print_call(as<Call>(e));
  }
  return "<?>";
}

std::string print(const Range& r) {
  switch (r.kind) {
    case Range::Kind::Interior:
      return "%" + r.grid + ".interior";
    case Range::Kind::Owned:
      return "%" + r.grid + ".owned";
    case Range::Kind::Box:
      return print_bounds("", r.lo, r.hi);
  }
  return "<?>";
}

std::string print_loc(const SourceLoc& l, const std::string& module_source) {
  if (!l.valid()) return "";
  std::string pos = std::to_string(l.line) + ":" + std::to_string(l.col);
  if (l.file.empty() || l.file == module_source) return "loc(" + pos + ")";
  return "loc(" + quote(l.file) + ":" + pos + ")";
}

// ---------------------------------------------------------------------------------------------
// Statements, functions, programs, modules

std::string print(const Stmt& s, int indent, const std::string& module_source) {
  std::ostringstream out;
  StmtPrinter(out, module_source).print_stmt(s, indent);
  return out.str();
}

std::string print(const Param& p) {
  std::string t = to_string(p.type);
  switch (p.kind) {
    case ParamKind::Grid:
    case ParamKind::Block: {
      std::string kind = p.kind == ParamKind::Grid ? "grid" : "block";
      return "%" + p.name + ": " + (p.is_const ? "const " : "") + kind + "<" + t + ", " +
             std::to_string(p.rank) + ">" + print_halo(p);
    }
    case ParamKind::Scalar:
      return "%" + p.name + ": " + t;
    case ParamKind::ScalarRef:
      return "%" + p.name + ": ref " + t;
  }
  return "<?>";
}

std::string print(const Function& f, const std::string& module_source) {
  std::vector<std::string> params;
  for (const auto& [name, type] : f.params) params.push_back("%" + name + ": " + to_string(type));
  std::ostringstream out;
  out << "func @" << f.name << print_params(params) << " -> " << to_string(f.ret);
  std::string loc = print_loc(f.loc, module_source);
  out << (loc.empty() ? "" : " ") << loc << " {\n";
  StmtPrinter(out, module_source).print_body(f.body, 0);
  out << "}\n";
  return out.str();
}

std::string print(const Program& p, const std::string& module_source) {
  std::vector<std::string> params;
  for (const Param& param : p.params) params.push_back(print(param));
  std::ostringstream out;
  out << (p.kind == ProgramKind::Spmd ? "spmd_program @" : "program @") << p.name
      << print_params(params) << (p.decomposed ? " decomposed" : "")
      << (p.persistent ? " persistent" : "");
  std::string loc = print_loc(p.loc, module_source);
  out << (loc.empty() ? "" : " ") << loc << " {\n";
  StmtPrinter(out, module_source).print_body(p.body, 0);
  out << "}\n";
  return out.str();
}

std::string print(const Module& m) {
  std::string out = "module " + quote(m.source) + "\n";
  for (const Function& f : m.functions) out += "\n" + print(f, m.source);
  for (const Program& p : m.programs) out += "\n" + print(p, m.source);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Split foreach parts (declared in IR.h; compared as text, which is exact for the IR)

bool are_split_parts(const ForEach& a, const ForEach& b) {
  bool complementary = (a.part == ForEachPart::Boundary && b.part == ForEachPart::Inner) ||
                       (a.part == ForEachPart::Inner && b.part == ForEachPart::Boundary);
  return complementary && a.width_lo == b.width_lo && a.width_hi == b.width_hi &&
         a.indices == b.indices && print(a.range) == print(b.range) &&
         print(a.body) == print(b.body);
}

}  // namespace stencilc::ir
