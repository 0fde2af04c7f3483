// Constant folding.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// Folds operations whose operands are literals, computing exactly what the generated code would:
/// f32 arithmetic in float, f64 in double, integers with C semantics (u64 wraps). Operations
/// whose result C leaves undefined are kept as written: division or remainder by zero, signed
/// overflow, float-to-integer casts out of range. Also folds `select` with a literal condition,
/// `!`/`-` of literals, and `&&`/`||` with a literal operand (expressions have no side effects).
/// Math intrinsics are not folded: the device's libm may round differently from the host's.
ir::Module fold_constants(const ir::Module& m);

}  // namespace stencilc::passes
