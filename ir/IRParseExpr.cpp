// Expressions of the IR's textual form: C precedence climbing, literals, typed names.
#include <charconv>
#include <cmath>
#include <limits>

#include "ir/IRParserImpl.h"

namespace stencilc::ir::detail {

namespace {

std::optional<BinaryOp> binary_op(const Token& t) {
  if (t.kind != TokKind::Punct) return std::nullopt;
  static const std::pair<const char*, BinaryOp> kOps[] = {
      {"+", BinaryOp::Add}, {"-", BinaryOp::Sub}, {"*", BinaryOp::Mul}, {"/", BinaryOp::Div},
      {"%", BinaryOp::Mod}, {"<", BinaryOp::Lt},  {"<=", BinaryOp::Le}, {">", BinaryOp::Gt},
      {">=", BinaryOp::Ge}, {"==", BinaryOp::Eq}, {"!=", BinaryOp::Ne}, {"&&", BinaryOp::And},
      {"||", BinaryOp::Or}};
  for (const auto& [text, op] : kOps) {
    if (t.text == text) return op;
  }
  return std::nullopt;
}

bool is_named_float(const Token& t) {
  return t.kind == TokKind::Ident &&
         (t.text == "inf" || t.text == "inff" || t.text == "nan" || t.text == "nanf");
}

// A literal that a leading `-` folds into: the printer writes negative literals as `-3`, `-0.0f`.
bool is_signed_literal(const Token& t) {
  return (t.kind == TokKind::Int && t.suffix != "u") || t.kind == TokKind::Float ||
         is_named_float(t);
}

std::optional<GridQueryOp> grid_query_op(const std::string& w) {
  if (w == "extent") return GridQueryOp::Extent;
  if (w == "origin") return GridQueryOp::Origin;
  if (w == "halo") return GridQueryOp::Halo;
  if (w == "global_extent") return GridQueryOp::GlobalExtent;
  if (w == "extent_on") return GridQueryOp::ExtentOn;
  if (w == "origin_on") return GridQueryOp::OriginOn;
  if (w == "interior_lo") return GridQueryOp::InteriorLo;
  if (w == "interior_hi") return GridQueryOp::InteriorHi;
  return std::nullopt;
}

}  // namespace

Expr Parser::parse_expr() {
  DepthGuard guard(*this, peek());
  return parse_binary(1);
}

Expr Parser::parse_binary(int min_prec) {
  Expr lhs = parse_unary();
  int chain = 0;  // each operator of a chain deepens the tree: count it against the depth limit
  for (;;) {
    std::optional<BinaryOp> op = binary_op(peek());
    if (!op || precedence(*op) < min_prec) {
      depth_ -= chain;
      return lhs;
    }
    enter(peek());
    ++chain;
    take();
    // Operators of one level associate to the left: the right operand binds one level tighter.
    Expr rhs = parse_binary(precedence(*op) + 1);
    lhs = make_binary(*op, lhs, rhs);
  }
}

Expr Parser::parse_unary() {
  const Token& t = peek();
  bool neg = t.is_punct("-"), is_not = t.is_punct("!");
  if (!neg && !is_not) return parse_primary();
  Token op = take();
  if (neg && is_signed_literal(peek())) {
    Token lit = take();
    return lit.kind == TokKind::Ident ? parse_named_float(lit, true) : parse_number(lit, true);
  }
  DepthGuard guard(*this, op);
  Expr a = parse_unary();
  return make_unary(neg ? UnaryOp::Neg : UnaryOp::Not, a);
}

Expr Parser::parse_number(const Token& t, bool negative) {
  const char* begin = t.text.data();
  const char* end = begin + t.text.size();
  if (t.kind == TokKind::Float) {
    bool f32 = t.suffix == "f";
    double v = 0;
    std::from_chars_result r;
    if (f32) {
      float fv = 0;
      r = std::from_chars(begin, end, fv);
      v = fv;
    } else {
      r = std::from_chars(begin, end, v);
    }
    if (r.ec != std::errc() || r.ptr != end) {
      error(t, std::string("floating literal out of range for ") + (f32 ? "f32" : "f64"));
    }
    return make_float(negative ? -v : v, f32 ? ScalarType::F32 : ScalarType::F64);
  }
  uint64_t mag = 0;
  std::from_chars_result r = std::from_chars(begin, end, mag);
  ScalarType type = t.suffix == "l"   ? ScalarType::I64
                    : t.suffix == "u" ? ScalarType::U64
                                      : ScalarType::I32;
  uint64_t limit = type == ScalarType::U64   ? std::numeric_limits<uint64_t>::max()
                   : type == ScalarType::I64 ? uint64_t{1} << 63
                                             : uint64_t{1} << 31;
  if (!negative && type != ScalarType::U64) --limit;  // the positive side is one shorter
  if (r.ec != std::errc() || r.ptr != end || mag > limit) {
    error(t, std::string("integer literal out of range for ") + to_string(type));
  }
  // Two's complement: the u64 bit pattern, or the negated magnitude (exact even for INT64_MIN).
  int64_t v = static_cast<int64_t>(negative ? 0 - mag : mag);
  return make_int(v, type);
}

Expr Parser::parse_named_float(const Token& t, bool negative) {
  bool f32 = t.text == "inff" || t.text == "nanf";
  double v = t.text.rfind("inf", 0) == 0 ? std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::quiet_NaN();
  return make_float(negative ? -v : v, f32 ? ScalarType::F32 : ScalarType::F64);
}

Expr Parser::parse_primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokKind::Int:
    case TokKind::Float:
      return parse_number(take(), false);
    case TokKind::VarName:
      return parse_var_or_read(take());
    case TokKind::FuncName:
      return parse_user_call(take());
    case TokKind::Ident:
      return parse_keyword_expr(take());
    case TokKind::Punct:
      if (t.is_punct("(")) {
        take();
        Expr e = parse_expr();
        expect_punct(")");
        return e;
      }
      break;
    default:
      break;
  }
  error(t, "expected an expression");
}

Expr Parser::parse_var_or_read(const Token& t) {
  if (peek().is_punct("[")) {
    const Param* g = find_grid(t.text);
    if (!g) error(t, "%" + t.text + " is not a grid or block");
    take();
    std::vector<int> offsets;
    while (!peek().is_punct("]")) {
      if (!offsets.empty()) expect_punct(",");
      bool negative = accept_punct("-");
      int64_t mag = expect_int("a constant offset");
      if (mag > std::numeric_limits<int>::max()) error(peek(), "offset out of range");
      offsets.push_back(static_cast<int>(negative ? -mag : mag));
    }
    take();
    return make_grid_read(t.text, std::move(offsets), g->type);
  }
  if (std::optional<ScalarType> type = lookup(t.text)) return make_var(t.text, *type);
  if (find_grid(t.text)) error(t, "%" + t.text + " is a grid: read it as %" + t.text + "[0, ...]");
  error(t, "use of undeclared %" + t.text);
}

Expr Parser::parse_keyword_expr(const Token& t) {
  if (t.is_ident("true") || t.is_ident("false")) return make_bool(t.text == "true");
  if (is_named_float(t)) return parse_named_float(t, false);
  if (t.is_ident("select")) {
    expect_punct("(");
    Expr c = parse_expr();
    expect_punct(",");
    Expr a = parse_expr();
    expect_punct(",");
    Expr b = parse_expr();
    expect_punct(")");
    return make_select(c, a, b);
  }
  if (t.is_ident("cast")) {
    expect_punct("<");
    ScalarType to = expect_scalar_type();
    expect_punct(">");
    expect_punct("(");
    Expr a = parse_expr();
    expect_punct(")");
    return make_cast(to, a);
  }
  if (std::optional<GridQueryOp> op = grid_query_op(t.text)) {
    expect_punct("(");
    std::string grid = expect_var_name("a grid or block");
    expect_punct(",");
    Expr pe;
    if (takes_pe(*op)) {
      pe = parse_expr();
      expect_punct(",");
    }
    int64_t dim = expect_int("a dimension");
    expect_punct(")");
    if (dim > 8) error(t, "dimension out of range");
    return make_grid_query(*op, grid, static_cast<int>(dim), pe);
  }
  if (is_intrinsic(t.text)) {
    std::vector<Expr> args = parse_args();
    // Math intrinsics compute in their argument's type; the verifier checks arity.
    ScalarType type = is_spmd_intrinsic(t.text) ? ScalarType::I32
                      : args.empty()            ? ScalarType::F64
                                                : args[0]->type;
    return make_call(t.text, std::move(args), type, false);
  }
  if (peek().is_punct("(")) {
    error(t, "unknown intrinsic '" + t.text + "' (module functions are called as @" + t.text + ")");
  }
  error(t, "expected an expression");
}

Expr Parser::parse_user_call(const Token& t) {
  auto it = functions_.find(t.text);
  if (it == functions_.end()) error(t, "call to undeclared function @" + t.text);
  std::vector<Expr> args = parse_args();
  return make_call(t.text, std::move(args), it->second.ret, true);
}

std::vector<Expr> Parser::parse_args() {
  expect_punct("(");
  std::vector<Expr> args;
  while (!peek().is_punct(")")) {
    if (!args.empty()) expect_punct(",");
    args.push_back(parse_expr());
  }
  take();
  return args;
}

}  // namespace stencilc::ir::detail
