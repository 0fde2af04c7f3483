// Reads the textual form that IRPrinter.h writes (grammar in docs/IR.md).
//
// The parser computes every expression's type from the declarations in scope, so a parsed
// module is fully typed; whether the types agree is the verifier's business (Verifier.h), which
// lets tests write ill-typed IR on purpose. Names the parser cannot type (an undeclared `%x` in
// an expression, an unknown `@f`) are parse errors.
#pragma once

#include <optional>
#include <string>

#include "ir/IR.h"

namespace stencilc::ir {

/// Parses a module. On failure returns nullopt and sets *error (when non-null) to
/// `filename:line:col: error: message`, the offending line and a caret. Never throws.
std::optional<Module> parse_module(const std::string& text, const std::string& filename,
                                   std::string* error);

}  // namespace stencilc::ir
