// The IR's invariants, checked after the front end and after every pass (see docs/IR.md,
// "Invariants"): operand types agree, names are declared once and used in scope, stores and
// yields sit in the point bodies they belong to, a point update never reads what it writes at a
// non-zero offset, ranks match, and SPMD-only and global-only constructs stay in their kind of
// program.
#pragma once

#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::ir {

/// One message per problem, empty when `m` is well formed. Each message reads
/// `file:line:col: error: in program @name: what is wrong` (the position when the statement has a
/// valid loc, `in function @f` for functions).
std::vector<std::string> verify(const Module& m);

}  // namespace stencilc::ir
