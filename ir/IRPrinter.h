// The textual form of the IR (see docs/IR.md). parse_module (IRParser.h) reads it back, and
// print(parse(print(m))) == print(m) for every module: floats are printed with the shortest text
// that reads back to the same value, and parentheses follow C precedence exactly.
#pragma once

#include <string>

#include "ir/IR.h"

namespace stencilc::ir {

/// The whole module: `module "source"`, then its functions and programs, a blank line between.
std::string print(const Module& m);

/// One function or program. A statement loc naming `module_source` is printed without the file.
std::string print(const Function& f, const std::string& module_source = "");
std::string print(const Program& p, const std::string& module_source = "");

/// A statement and its nested bodies, each line indented by two spaces per level from `indent`.
std::string print(const Stmt& s, int indent = 0, const std::string& module_source = "");

/// An expression on one line, with the minimal parentheses (`(%a + %b) * %c`, `%a - (%b - %c)`).
std::string print(const Expr& e);

/// A parameter as it appears in a header: `%a: const grid<f32, 2>`, `%norm: ref f32`,
/// `%u: grid<f64, 2> halo[1:1, 1:1] corners` (halos once inferred).
std::string print(const Param& p);

/// A range: `%g.interior`, `%b.owned` or `[lo0:hi0, lo1:hi1]`.
std::string print(const Range& r);

/// A literal's spelling: `3`, `-3`, `3l`, `3u`, `0.25f`, `1e+30`, `true`.
std::string print_literal(const Expr& e);

/// `loc(L:C)` or `loc("file":L:C)` (empty for an invalid loc).
std::string print_loc(const SourceLoc& l, const std::string& module_source = "");

/// A C-style string literal with `"` and `\` escaped.
std::string quote(const std::string& s);

}  // namespace stencilc::ir
