// The verifier's internals, shared by Verifier.cpp (modules, programs, statements) and
// VerifyExprs.cpp (expressions, ranges, regions). Not part of the IR library's interface.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::ir::detail {

class Verifier {
 public:
  explicit Verifier(const Module& m) : m_(m) {}
  std::vector<std::string> run();

 private:
  // What a scalar name denotes; it decides where the name may be assigned.
  enum class VarKind { Param, RefParam, Local, LoopVar, Index, ReduceResult, Signal };
  struct VarInfo {
    ScalarType type;
    VarKind kind;
    bool in_point_body;  // declared inside the current foreach/reduce body
  };
  // Where a statement sits: it decides which statements are allowed.
  enum class Context { Function, Program, ForEachBody, ReduceBody };

  // ---- Diagnostics
  void error(const std::string& message);
  void error_at(const SourceLoc& loc, const std::string& message);

  // ---- Scopes
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  void declare(const std::string& name, ScalarType t, VarKind kind);
  const VarInfo* lookup(const std::string& name) const;
  const Param* find_grid(const std::string& name) const;  // a grid or block parameter
  bool in_point_body() const {
    return context_ == Context::ForEachBody || context_ == Context::ReduceBody;
  }
  bool spmd() const { return program_ && program_->kind == ProgramKind::Spmd; }

  // ---- Modules, functions, programs (Verifier.cpp)
  void check_names();
  void check_function(const Function& f);
  void check_program(const Program& p);
  void check_params(const Program& p);
  void check_halo(const Param& p);

  // ---- Statements (Verifier.cpp)
  void check_body(const Stmt& body, bool new_scope = true);  // a Block's statements
  void check_stmt(const Stmt& s);
  void check_placement(const Stmt& s);
  void check_var_decl(const VarDecl* op);
  void check_assign(const Assign* op);
  void check_for(const For* op);
  void check_forms(const Stmt& s);                  // select-loop-forms' record on a loop
  int loops_ = 0;                                   // loops around the statement checked
  void check_point_loop(const Stmt& s, const Range& r, const std::vector<std::string>& indices,
                        const Stmt& body);
  void check_store(const Store* op);
  void check_swap(const Swap* op);
  void check_put_signal(const PutSignal* op);
  void check_signal_use(const std::string& name);
  void check_decomposed_stmt(const Stmt& s);  // halo_send, halo_recv, allreduce
  void check_all_reduce(const AllReduce* op);
  void check_reads_of_written(const char* what, const Stmt& body);  // a point body: Jacobi, not Gauss-Seidel
  void check_for_each(const Stmt& s);               // a foreach: its loop, parts, marks, role
  void check_reduce(const Stmt& s);                 // a reduce: its loop, yield, result
  void check_return(const Return* op);
  void check_for_each_part(const ForEach* op);      // split-boundary's widths
  void check_through(const ForEach* op);            // store-faces' grids
  void check_role(const Stmt& s, WorkerRole role);  // specialize-blocks' roles
  void check_split_pairs(const Block* b);           // every part has its partner

  // ---- Expressions (VerifyExprs.cpp)
  /// Checks `e` and its operands; check_typed also checks that `e` has type `expected`
  /// (`what` names the operand in the message).
  void check_expr(const Expr& e);
  void check_typed(const Expr& e, ScalarType expected, const std::string& what);
  void check_var(const Var* op);
  void check_grid_read(const GridRead* op);
  void check_grid_query(const GridQuery* op);
  void check_unary(const Unary* op);
  void check_binary(const Binary* op);
  void check_call(const Call* op);
  void check_range(const Range& r);
  void check_region(const Region& r, const std::string& what);

  const Module& m_;
  std::vector<std::string> errors_;
  const Program* program_ = nullptr;    // the program being checked, or
  const Function* function_ = nullptr;  // the function being checked
  std::vector<std::map<std::string, VarInfo>> scopes_;
  Context context_ = Context::Program;
  ScalarType reduce_type_ = ScalarType::F32;  // of the enclosing reduce
  SourceLoc loc_;                             // of the statement being checked
};

}  // namespace stencilc::ir::detail
