// The part of code generation every C++-like target shares: IR expressions and statements as
// C++ source, with each statement commented by the IR op it came from. Targets (HostEmitter,
// later the CUDA emitter) derive and say how grids are read and written, how point updates are
// looped, and what the communication statements become.
#pragma once

#include "ir/IR.h"

#include <sstream>
#include <string>
#include <vector>

namespace stencilc::codegen {

/// The C++ spelling of an IR scalar type (`float`, `std::int64_t`, ...).
const char* cpp_type(ir::ScalarType t);

/// A literal as C++ (`0.25f`, `1.0`, `3ll`, `7ull`), exact: floats keep every bit.
std::string cpp_literal(const ir::Expr& literal);

/// A line of generated code that splice() replaces by `#line <the next line> "<generated file>"`:
/// an emitter writes it after a `#line` that maps a line to the user's file, so that the lines
/// after it count in the generated file again. Left unreplaced it does not compile.
inline constexpr const char* kResumeGeneratedLines = "#line __stencilc_generated_lines__";

/// `#line <line> "<file>"`, the file name escaped as a string literal.
std::string cpp_line_directive(long line, const std::string& file);

class CppEmitter {
 public:
  virtual ~CppEmitter() = default;

  /// An expression as C++, with the parentheses C precedence needs.
  std::string expr(const ir::Expr& e);
  /// Statements, indented by `indent` levels, appended to the output. One the user wrote (it has
  /// a location) that becomes one line of C++ is put on the user's line by #line directives.
  void stmt(const ir::Stmt& s, int indent);
  /// A module function, with the target's qualifiers (`static inline`, `__device__ ...`).
  void function(const ir::Function& f, const std::string& qualifiers);

  std::string take() { return out_.str(); }
  bool ok() const { return errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }

 protected:
  std::ostringstream out_;
  std::vector<std::string> errors_;
  const ir::Module* module_ = nullptr;
  const ir::Program* program_ = nullptr;

  void line(int indent, const std::string& text);
  void comment(int indent, const ir::Stmt& s);
  void error(const ir::Stmt& s, const std::string& message);
  void body(const ir::Stmt& block, int indent);

  /// Local loop indices of the innermost point update, per dimension (both targets index their
  /// blocks as `g(l0 + o0, l1 + o1)` in local indices).
  std::vector<std::string> loop_vars_;

  /// A grid element at the point's offsets: `grid(l0 + o0, ...)` through the block's accessor.
  virtual std::string grid_read(const ir::GridRead* r);
  virtual std::string grid_query(const ir::GridQuery* q) = 0;
  virtual std::string user_call(const std::string& name) { return name; }
  /// A division of two floats whose divisor is not a power of two (that one stays `/`, an exact
  /// product): `a / b` as written; the CUDA targets call the runtime's div_rn (correctly rounded
  /// the same, without a slow-path call).
  virtual std::string float_division(const ir::Expr& a, const ir::Expr& b);
  /// A math intrinsic's spelling (`std::sqrt` on the host).
  virtual std::string math_function(const std::string& name) { return "std::" + name; }

  /// A For or While loop: its header, then `prologue` (lines of the target's own at the top of
  /// every iteration), then its body.
  void loop(const ir::Stmt& s, int indent, const std::vector<std::string>& prologue);
  virtual void loop(const ir::Stmt& s, int indent) { loop(s, indent, {}); }

  // Statements whose form depends on the target.
  virtual void for_each(const ir::Stmt& s, int indent) = 0;  // a ForEach
  virtual void reduce(const ir::Stmt& s, int indent) = 0;    // a Reduce
  virtual void store(const ir::Store* s, int indent);
  void yield(const ir::Yield* s, int indent);
  virtual void swap(const ir::Swap* s, int indent);  // by ADL: the runtime's block swap
  virtual void target_stmt(const ir::Stmt& s, int indent);  // communication, barriers: error by default

 private:
  /// stmt() without the #line directives.
  void statement(const ir::Stmt& s, int indent);
  std::string operand(const ir::Expr& e, int parent_precedence, bool right);
  std::string call(const ir::Call* c);
};

/// The identity of a reduction's combination in type t: 0, the lowest or the largest value.
std::string reduce_identity(ir::ReduceOp op, ir::ScalarType t);
/// `acc = acc + v`, `acc = std::max(acc, v)`, ... as C++.
std::string reduce_combine(ir::ReduceOp op, const std::string& acc, const std::string& v);

}  // namespace stencilc::codegen
