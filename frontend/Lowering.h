// Internal to frontend/: the state shared while lowering one Clang AST into the stencilc IR.
//
// ProgramLowering walks a program's statements (LowerStmt.cpp); it asks ExprLowering for the
// expressions (LowerExpr.cpp). Both report every construct outside the language through Clang's
// DiagnosticsEngine, so users get Clang's formatting: file:line:col, the source line, a caret.
#pragma once

#include "ir/IR.h"
#include "ir/Nesting.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stencilc::frontend {

/// What a parameter or expression of class type is, as far as the language is concerned.
struct GridTypeInfo {
  bool is_block = false;  // stencilc::Block (SPMD) rather than stencilc::Grid
  ir::ScalarType elem = ir::ScalarType::F32;
  int rank = 0;
  bool is_const = false;
};

/// The prefix of the names the generated code declares beside the user's (`sc_`): a name a stencil
/// program declares (a parameter, a local, a point index, a function a point update calls) must
/// not begin with it, or a generated name could hide it or clash with it.
inline bool reserved_name(const std::string& name) { return name.rfind("sc_", 0) == 0; }

/// The error for a reserved name.
inline std::string reserved_name_message(const std::string& name) {
  return "'" + name +
         "': names beginning with 'sc_' are reserved for the code stencilc generates; rename it";
}

/// Module-wide state: the AST, diagnostics and the module being built.
class LoweringContext {
 public:
  LoweringContext(clang::ASTContext& ast, ir::Module& module) : ast_(ast), module_(module) {}

  clang::ASTContext& ast() { return ast_; }
  ir::Module& module() { return module_; }

  /// Reports an error at `loc`; lowering goes on to find more errors, but no IR is emitted.
  void error(clang::SourceLocation loc, const std::string& message, clang::SourceRange range = {});
  void note(clang::SourceLocation loc, const std::string& message);
  /// Reports at `at`, once for the module, that `d`'s name is reserved (reserved_name); false
  /// where it is not.
  bool check_reserved(const clang::NamedDecl* d, clang::SourceLocation at);
  bool failed() const { return errors_ > 0; }

  ir::SourceLoc loc(clang::SourceLocation l) const;

  /// The IR type of a C++ scalar type, or nullopt (no diagnostic) for anything else.
  std::optional<ir::ScalarType> scalar_type(clang::QualType t) const;
  /// Grid/Block info for `stencilc::Grid<T, N>` / `stencilc::Block<T, N>` (references looked
  /// through), or nullopt.
  std::optional<GridTypeInfo> grid_type(clang::QualType t) const;
  /// True for the class `stencilc::<name>` (references and cv looked through).
  bool is_stencilc_class(clang::QualType t, const char* name) const;

  /// Lowers a user function called from a point body into the module (once) and returns its
  /// IR name, or nullopt after reporting why it cannot be.
  std::optional<std::string> lower_function(const clang::FunctionDecl* fd, clang::SourceLocation use);
  /// Keeps `name` for a program: functions lowered before or after it are named otherwise.
  void reserve_program_name(const std::string& name) { program_names_.insert(name); }

 private:
  clang::ASTContext& ast_;
  ir::Module& module_;
  int errors_ = 0;
  std::map<const clang::FunctionDecl*, std::string> functions_;
  std::set<const clang::FunctionDecl*> in_progress_;
  std::set<std::string> program_names_;
  std::set<const clang::NamedDecl*> reserved_reported_;  // check_reserved's, once each
};

/// Where a statement or expression stands, which decides what it may contain.
enum class Where {
  Program,   // program level: scalars, loops, for_each, reduce, swaps, SPMD intrinsics
  Point,     // a for_each body
  Reduction, // a reduce body (returns its value)
  Function,  // a user function called from a point body
};

/// One program's (or function's) lowering: names, scopes, and the statement being built.
class ProgramLowering {
 public:
  ProgramLowering(LoweringContext& cx, ir::ProgramKind kind) : cx_(cx), kind_(kind) {}

  /// Lowers the program `fd`; returns nullopt if any error was reported.
  std::optional<ir::Program> lower_program(const clang::FunctionDecl* fd);
  /// Lowers the body of a user function (called by LoweringContext::lower_function).
  std::optional<ir::Function> lower_function(const clang::FunctionDecl* fd, const std::string& name);

  // ---- used by ExprLowering ----
  LoweringContext& cx() { return cx_; }
  ir::ProgramKind kind() const { return kind_; }
  /// The IR name of a declaration visible here, or empty.
  std::string name_of(const clang::ValueDecl* d) const;
  /// The grid or block parameter a declaration names, or null.
  const ir::Param* grid_param(const clang::ValueDecl* d) const;
  /// Index variables of the innermost point update (empty at program level).
  const std::vector<const clang::ParmVarDecl*>& point_indices() const { return point_indices_; }
  Where where() const { return where_; }
  /// Declares a fresh IR name for `d` in the current scope (renaming if it would shadow).
  std::string declare(const clang::ValueDecl* d, const std::string& preferred);
  std::string fresh_name(const std::string& base);
  /// Statements to run before the statement being lowered (hoisted reductions).
  void emit_before(ir::Stmt s) { hoisted_.push_back(std::move(s)); }
  /// Lowers a `stencilc::reduce` call into a Reduce statement, returning its result variable.
  ir::Expr lower_reduce(const clang::CallExpr* call);
  /// One level deeper into statements or expressions: false (after reporting it, once) past
  /// ir::kMaxSourceNestingDepth, the most that prints and parses back as IR. Pair with leave().
  bool enter(clang::SourceLocation at);
  void leave() { --nesting_; }

 private:
  friend class StmtLowering;
  LoweringContext& cx_;
  ir::ProgramKind kind_;
  Where where_ = Where::Program;
  std::vector<ir::Param> params_;
  std::map<const clang::ValueDecl*, std::string> grid_params_;
  struct Scope {
    std::map<const clang::ValueDecl*, std::string> decls;
    std::set<std::string> names;
  };
  std::vector<Scope> scopes_;
  size_t point_scope_base_ = 0;  // scopes_ index where the innermost point body starts
  std::set<const clang::ValueDecl*> signals_;
  ir::ScalarType reduce_type_ = ir::ScalarType::F32;  // of the innermost reduce body
  std::string reduce_result_name_;  // preferred name for the next lowered reduce
  std::set<std::string> used_names_;
  std::map<const clang::VarDecl*, ir::Range> box_vars_;
  std::vector<const clang::ParmVarDecl*> point_indices_;
  std::vector<ir::Stmt> hoisted_;
  int reduce_counter_ = 0;
  int nesting_ = 0;
  bool nesting_reported_ = false;
  const clang::FunctionDecl* current_function_ = nullptr;

  // LowerStmt.cpp
  std::optional<ir::Param> lower_param(const clang::ParmVarDecl* p);
  ir::Stmt lower_block(const clang::Stmt* s);
  void lower_stmt_into(const clang::Stmt* s, std::vector<ir::Stmt>& out);
  void lower_stmt_level(const clang::Stmt* s, std::vector<ir::Stmt>& out);  // lower_stmt_into's work
  void lower_program_stmt(const clang::Stmt* s, std::vector<ir::Stmt>& out);
  void lower_point_stmt(const clang::Stmt* s, std::vector<ir::Stmt>& out);
  void lower_decl_stmt(const clang::DeclStmt* ds, std::vector<ir::Stmt>& out);
  void lower_call_stmt(const clang::CallExpr* call, std::vector<ir::Stmt>& out);
  void lower_assignment(const clang::Expr* e, std::vector<ir::Stmt>& out);
  ir::Stmt lower_for(const clang::ForStmt* f);
  ir::Stmt lower_if(const clang::IfStmt* s);
  ir::Stmt lower_for_each(const clang::CallExpr* call);
  std::optional<ir::Range> lower_range(const clang::Expr* e);
  /// A global-view box's constant bounds below 0 (reports them; false if any).
  bool check_box_bounds(const std::vector<const clang::Expr*>& leaves, int rank);
  const clang::LambdaExpr* point_lambda(const clang::Expr* e, int rank, const char* what);
  ir::Stmt lower_point_body(const clang::LambdaExpr* lambda, Where where, std::vector<std::string>& indices);
  void check_no_gauss_seidel(const clang::LambdaExpr* lambda, const ir::Stmt& body);
  // SPMD intrinsics
  std::optional<ir::Region> lower_region(const clang::Expr* e);
  std::string signal_name(const clang::Expr* e);

  bool visible(const std::string& name) const;
  /// Scope index of the declaration of `d`, or -1.
  int scope_of(const clang::ValueDecl* d) const;
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }

  // Expression entry points (LowerExpr.cpp).
 public:
  ir::Expr lower_expr(const clang::Expr* e);
  /// Lowers `e` and converts it to `t` the way C++ would (used for conditions, inits).
  ir::Expr lower_expr_as(const clang::Expr* e, ir::ScalarType t);
  /// The constant offsets of `g(i + c0, ...)` from the point indices (reports errors).
  std::optional<std::vector<int>> grid_offsets(const clang::CXXOperatorCallExpr* op, const ir::Param& grid);
  /// An integer constant expression's value, or nullopt.
  std::optional<int64_t> constant_int(const clang::Expr* e) const;
};

/// Reports the calls of `programs` in the main file that pass one grid for two grid parameters
/// (ProgramCalls.cpp).
void check_program_calls(LoweringContext& cx, const std::vector<const clang::FunctionDecl*>& programs);

/// Strips the implicit nodes Clang wraps around temporaries and references.
const clang::Expr* strip(const clang::Expr* e);
/// The callee of a call, or null.
const clang::FunctionDecl* callee_of(const clang::CallExpr* call);
/// True if `fd` is `stencilc::<name>`.
bool is_stencilc_function(const clang::FunctionDecl* fd, const char* name);

/// What a diagnostic calls a statement or expression that the language leaves out, in the user's
/// words ("default arguments", "character literals"), never Clang's class name (NodeNames.cpp).
std::string construct_name(const clang::Stmt* s);
/// The same for a conversion Clang inserted or the user wrote ("user-defined conversions").
std::string conversion_name(clang::CastKind kind);

}  // namespace stencilc::frontend
