// How deep programs may nest, and the stack that walking them needs.
//
// Expressions are trees, and every walk over them (the front end, the printer, the parser, the
// verifier, the passes, the emitters) recurses once per level. A sum of 20,000 grid reads is
// 20,000 levels deep: more than a default 8 MiB stack holds. So the limit is explicit and the
// tools run their work on a thread whose stack fits that limit:
//   - the parser rejects input nested deeper than kMaxNestingDepth ("nesting too deep");
//   - the front end rejects, at the source location, a program nested deeper than
//     kMaxSourceNestingDepth, so that whatever it produces prints and parses back;
//   - stencilc and stencilc-opt run on run_with_deep_stack, sized for kMaxNestingDepth.
#pragma once

#include <functional>

namespace stencilc::ir {

/// Levels of C++ statements and expressions the front end accepts in a program.
constexpr int kMaxSourceNestingDepth = 50000;

/// Levels of nesting (statements, expressions, parentheses) the IR's textual form may have:
/// twice the front end's, since the printer writes a right operand that is itself an operator
/// in parentheses, which the parser counts as a second level, and room for the statements and
/// declarations around.
constexpr int kMaxNestingDepth = 2 * kMaxSourceNestingDepth + 1000;

/// Stack bytes for the deep-stack thread: every recursive walk over the deepest program the
/// front end accepts, Clang's included, fits with room to spare. (The deepest of
/// tests/frontend/deep_sum.test, 50,000 levels of parentheses, peaks at about 0.7 GB of memory
/// in all, most of it Clang's parser; a sum of as many terms at about 0.2 GB.)
constexpr size_t kDeepStackBytes = size_t{1} << 30;

/// Runs `work` on a thread with a kDeepStackBytes stack and returns its result; runs it on the
/// calling thread if no such thread can be made. Pages are only committed where touched.
int run_with_deep_stack(const std::function<int()>& work);

}  // namespace stencilc::ir
