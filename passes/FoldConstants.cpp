// Constant folding: a mutator that replaces operations on literals by their value.
#include "passes/FoldConstants.h"

#include <cmath>
#include <limits>
#include <optional>

#include "ir/IRMutator.h"

namespace stencilc::passes {

namespace {

using namespace ir;

template <typename T>
std::optional<Expr> compare(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::Lt:
      return make_bool(a < b);
    case BinaryOp::Le:
      return make_bool(a <= b);
    case BinaryOp::Gt:
      return make_bool(a > b);
    case BinaryOp::Ge:
      return make_bool(a >= b);
    case BinaryOp::Eq:
      return make_bool(a == b);
    case BinaryOp::Ne:
      return make_bool(a != b);
    default:
      return std::nullopt;
  }
}

// Signed arithmetic in T (int32_t or int64_t); signed overflow is undefined in C, so not folded.
template <typename T>
std::optional<Expr> fold_signed(BinaryOp op, T a, T b, ScalarType t) {
  T r;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return make_int(r, t);
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return make_int(r, t);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return make_int(r, t);
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (b == 0 || (a == std::numeric_limits<T>::min() && b == -1)) return std::nullopt;
      return make_int(op == BinaryOp::Div ? a / b : a % b, t);  // C truncates toward zero
    default:
      return compare(op, a, b);
  }
}

// Unsigned arithmetic wraps modulo 2^64, as in C.
std::optional<Expr> fold_unsigned(BinaryOp op, uint64_t a, uint64_t b) {
  auto u64 = [](uint64_t v) { return make_int(static_cast<int64_t>(v), ScalarType::U64); };
  switch (op) {
    case BinaryOp::Add:
      return u64(a + b);
    case BinaryOp::Sub:
      return u64(a - b);
    case BinaryOp::Mul:
      return u64(a * b);
    case BinaryOp::Div:
      return b == 0 ? std::nullopt : std::optional<Expr>(u64(a / b));
    case BinaryOp::Mod:
      return b == 0 ? std::nullopt : std::optional<Expr>(u64(a % b));
    default:
      return compare(op, a, b);
  }
}

// Floating arithmetic in F, so that f32 rounds like the generated code's float arithmetic.
template <typename F>
std::optional<Expr> fold_float(BinaryOp op, F a, F b, ScalarType t) {
  auto lit = [t](F v) { return make_float(static_cast<double>(v), t); };
  switch (op) {
    case BinaryOp::Add:
      return lit(a + b);
    case BinaryOp::Sub:
      return lit(a - b);
    case BinaryOp::Mul:
      return lit(a * b);
    case BinaryOp::Div:
      return b == 0 ? std::nullopt : std::optional<Expr>(lit(a / b));
    case BinaryOp::Mod:
      return std::nullopt;
    default:
      return compare(op, a, b);
  }
}

std::optional<Expr> fold_logical(BinaryOp op, const Expr& a, const Expr& b) {
  auto* ca = as<BoolImm>(a);
  auto* cb = as<BoolImm>(b);
  bool is_and = op == BinaryOp::And;
  // `x && true` is x and `x && false` is false (dually for ||): operands have no side effects.
  if (ca) return ca->value == is_and ? b : a;
  if (cb) return cb->value == is_and ? a : b;
  return std::nullopt;
}

std::optional<Expr> fold_binary(const Binary* op) {
  const Expr& a = op->a;
  const Expr& b = op->b;
  if (!a || !b || a->type != b->type) return std::nullopt;  // ill-formed: the verifier's business
  if (is_logical(op->op)) {
    return a->type == ScalarType::Bool ? fold_logical(op->op, a, b) : std::nullopt;
  }
  if (auto* x = as<BoolImm>(a), *y = as<BoolImm>(b); x && y) {
    if (op->op == BinaryOp::Eq || op->op == BinaryOp::Ne)
      return compare(op->op, x->value, y->value);
    return std::nullopt;
  }
  if (auto* x = as<FloatImm>(a), *y = as<FloatImm>(b); x && y) {
    if (a->type == ScalarType::F32) {
      return fold_float<float>(op->op, static_cast<float>(x->value), static_cast<float>(y->value),
                               a->type);
    }
    return fold_float<double>(op->op, x->value, y->value, a->type);
  }
  auto *x = as<IntImm>(a), *y = as<IntImm>(b);
  if (!x || !y) return std::nullopt;
  switch (a->type) {
    case ScalarType::I32: {
      auto fits = [](int64_t v) { return v == static_cast<int32_t>(v); };
      if (!fits(x->value) || !fits(y->value)) return std::nullopt;
      return fold_signed<int32_t>(op->op, static_cast<int32_t>(x->value),
                                  static_cast<int32_t>(y->value), a->type);
    }
    case ScalarType::I64:
      return fold_signed<int64_t>(op->op, x->value, y->value, a->type);
    case ScalarType::U64:
      return fold_unsigned(op->op, static_cast<uint64_t>(x->value),
                           static_cast<uint64_t>(y->value));
    default:
      return std::nullopt;
  }
}

std::optional<Expr> fold_negate(const Expr& a) {
  if (auto* f = as<FloatImm>(a)) return make_float(-f->value, f->type);
  auto* i = as<IntImm>(a);
  if (!i) return std::nullopt;
  switch (i->type) {
    case ScalarType::I32:
      if (i->value <= std::numeric_limits<int32_t>::min()) return std::nullopt;  // overflow
      return make_int(-i->value, i->type);
    case ScalarType::I64:
      if (i->value == std::numeric_limits<int64_t>::min()) return std::nullopt;
      return make_int(-i->value, i->type);
    case ScalarType::U64:
      return make_int(static_cast<int64_t>(0 - static_cast<uint64_t>(i->value)), i->type);
    default:
      return std::nullopt;
  }
}

// Float to integer: C leaves NaN and values whose truncation does not fit undefined.
std::optional<Expr> fold_float_to_int(ScalarType to, double v) {
  double t = std::trunc(v);
  if (std::isnan(t)) return std::nullopt;
  switch (to) {
    case ScalarType::I32:
      if (t < -2147483648.0 || t > 2147483647.0) return std::nullopt;
      return make_int(static_cast<int64_t>(t), to);
    case ScalarType::I64:
      if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
      return make_int(static_cast<int64_t>(t), to);
    case ScalarType::U64:
      if (t < 0 || t >= 18446744073709551616.0) return std::nullopt;
      return make_int(static_cast<int64_t>(static_cast<uint64_t>(t)), to);
    default:
      return std::nullopt;
  }
}

// Converts straight from the source type, never through double, so that i64 -> f32 rounds once.
template <typename F>
F int_to_float(const IntImm* i) {
  if (i->type == ScalarType::U64) return static_cast<F>(static_cast<uint64_t>(i->value));
  return static_cast<F>(i->value);
}

std::optional<Expr> fold_cast(ScalarType to, const Expr& a) {
  auto* i = as<IntImm>(a);
  auto* f = as<FloatImm>(a);
  auto* b = as<BoolImm>(a);
  if (!i && !f && !b) return std::nullopt;
  if (to == ScalarType::Bool) return make_bool(i ? i->value != 0 : f ? f->value != 0 : b->value);
  if (b) return is_float(to) ? make_float(b->value, to) : make_int(b->value, to);
  if (to == ScalarType::F32)
    return make_float(f ? static_cast<float>(f->value) : int_to_float<float>(i), to);
  if (to == ScalarType::F64) return make_float(f ? f->value : int_to_float<double>(i), to);
  if (f) return fold_float_to_int(to, f->value);
  // Integer to integer keeps the low bits (two's complement), as every C compiler we target does.
  if (to == ScalarType::I32) {
    return make_int(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(i->value))),
                    to);
  }
  return make_int(i->value, to);
}

class FoldConstants : public IRMutator {
 protected:
  using IRMutator::visit;

  Expr visit(const Ref<Unary>& op) override {
    Expr e = IRMutator::visit(op);
    auto* u = as<Unary>(e);
    if (u->op == UnaryOp::Not) {
      auto* b = as<BoolImm>(u->a);
      return b ? make_bool(!b->value) : e;
    }
    return fold_negate(u->a).value_or(e);
  }

  Expr visit(const Ref<Binary>& op) override {
    Expr e = IRMutator::visit(op);
    return fold_binary(as<Binary>(e)).value_or(e);
  }

  Expr visit(const Ref<Select>& op) override {
    Expr e = IRMutator::visit(op);
    auto* s = as<Select>(e);
    auto* c = as<BoolImm>(s->cond);
    if (!c) return e;
    return c->value ? s->t : s->f;
  }

  Expr visit(const Ref<Cast>& op) override {
    Expr e = IRMutator::visit(op);
    return fold_cast(e->type, as<Cast>(e)->a).value_or(e);
  }
};

}  // namespace

ir::Module fold_constants(const ir::Module& m) {
  return FoldConstants().mutate(m);
}

}  // namespace stencilc::passes
