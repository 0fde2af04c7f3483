// The parser's internals, shared by IRParser.cpp (modules, declarations, statements) and
// IRParseExpr.cpp (expressions and literals). Not part of the IR library's interface.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRLexer.h"

namespace stencilc::ir::detail {

/// Thrown inside the parser at the first error; parse_module turns it into a diagnostic.
struct ParseError {
  int line, col;
  std::string message;
};

class Parser {
 public:
  explicit Parser(const std::string& text) : toks_(lex(text)) {}

  Module parse_module();

  // ---- Expressions (IRParseExpr.cpp)
  Expr parse_expr();

 private:
  // ---- Tokens
  const Token& peek(size_t ahead = 0) const;
  Token take();
  bool accept_punct(const std::string& p);
  void expect_punct(const std::string& p);
  bool accept_ident(const std::string& w);
  void expect_ident(const std::string& w);
  std::string expect_var_name(const char* what);
  int64_t expect_int(const char* what);
  ScalarType expect_scalar_type();
  [[noreturn]] void error(const Token& at, const std::string& message) const;

  // ---- Scopes: innermost last. Program parameters live in the outermost scope.
  struct Scope {
    std::map<std::string, ScalarType> vars;
  };
  void declare(const std::string& name, ScalarType t) { scopes_.back().vars[name] = t; }
  std::optional<ScalarType> lookup(const std::string& name) const;
  const Param* find_grid(const std::string& name) const;

  // ---- Nesting limit, so hostile input cannot overflow the stack.
  void enter(const Token& at);  // one level deeper; an error past the limit
  struct DepthGuard {
    DepthGuard(Parser& parser, const Token& at) : p(parser) { p.enter(at); }
    ~DepthGuard() { --p.depth_; }
    Parser& p;
  };

  // ---- Expressions (IRParseExpr.cpp)
  Expr parse_binary(int min_prec);
  Expr parse_unary();
  Expr parse_primary();
  Expr parse_number(const Token& t, bool negative);
  Expr parse_named_float(const Token& t, bool negative);
  Expr parse_var_or_read(const Token& t);
  Expr parse_keyword_expr(const Token& t);
  Expr parse_user_call(const Token& t);
  std::vector<Expr> parse_args();

  // ---- Declarations and statements (IRParser.cpp)
  SourceLoc parse_opt_loc();
  Param parse_param();
  void parse_halo(Param& p);  // `[lo:hi, ...]` after `halo`
  // `lo:hi, ...` (halo widths, or a split foreach's); `what` names one in messages.
  void parse_widths(std::vector<int>* lo, std::vector<int>* hi, const std::string& what);
  WorkerRole parse_opt_role();  // ` role(comm)`, or All when absent
  void parse_function(Module& m);
  void parse_program(Module& m, ProgramKind kind);
  Stmt parse_block(SourceLoc loc = {});  // `{ stmt* }` in a new scope
  Stmt parse_stmt();
  Stmt parse_simple_stmt(const Token& t);
  Stmt parse_if();
  Stmt parse_for();
  unsigned parse_opt_forms();  // ` forms(dataflow, regs)` after a loop header, or 0
  Stmt parse_for_each();
  Stmt parse_reduce();
  Stmt parse_put_signal();
  Range parse_range();
  Region parse_region();
  std::vector<std::string> parse_indices();
  Stmt parse_body_with(const std::vector<std::string>& names, ScalarType t);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Scope> scopes_;
  std::vector<Param> params_;                  // of the program being parsed
  std::map<std::string, Function> functions_;  // signatures seen so far, for typing calls
};

}  // namespace stencilc::ir::detail
