// The stencilc dataflow IR: small immutable nodes built by `make` functions.
//
// A Module holds inline functions and programs. A Program holds its parameters (grids, blocks,
// scalars) and a statement tree: time loops, point updates (ForEach), reductions, swaps,
// exchanges, scalar statements and the SPMD communication operations. Point-update bodies are
// expression trees whose grid reads are constant offsets from the update's index variables.
//
// Nodes are shared and never mutated after construction; passes rebuild what they change
// (see IRMutator.h). The textual form is produced by IRPrinter.h and read back by IRParser.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stencilc::ir {

// ---------------------------------------------------------------------------------------------
// Types

enum class ScalarType { Bool, I32, I64, U64, F32, F64 };

const char* to_string(ScalarType t);
std::optional<ScalarType> scalar_type_from_string(const std::string& s);
bool is_float(ScalarType t);
bool is_integer(ScalarType t);  // i32, i64, u64 (not bool)
int byte_size(ScalarType t);    // of its C++ type (cpp_type): bool 1, i32 and f32 4, others 8

/// A source position kept for diagnostics in later passes. file empty: the module's source.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind { IntImm, FloatImm, BoolImm, Var, GridRead, GridQuery, Unary, Binary, Select, Cast, Call };

struct ExprNode {
  const ExprKind kind;
  const ScalarType type;
  ExprNode(ExprKind k, ScalarType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
};

using Expr = std::shared_ptr<const ExprNode>;

/// Downcast helper: `if (auto* b = as<Binary>(e)) ...`.
template <typename T>
const T* as(const Expr& e) {
  return e && e->kind == T::kKind ? static_cast<const T*>(e.get()) : nullptr;
}

struct IntImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  int64_t value;
  IntImm(ScalarType t, int64_t v) : ExprNode(kKind, t), value(v) {}
};

struct FloatImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  FloatImm(ScalarType t, double v) : ExprNode(kKind, t), value(v) {}
};

struct BoolImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::BoolImm;
  bool value;
  explicit BoolImm(bool v) : ExprNode(kKind, ScalarType::Bool), value(v) {}
};

/// A scalar variable: program parameter, local, loop counter, point index or reduction result.
struct Var : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  std::string name;
  Var(ScalarType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
};

/// `%g[o0, o1]`: the value of grid (or block) `grid` at the enclosing point plus constant offsets.
struct GridRead : ExprNode {
  static constexpr ExprKind kKind = ExprKind::GridRead;
  std::string grid;
  std::vector<int> offsets;
  GridRead(ScalarType t, std::string g, std::vector<int> o)
      : ExprNode(kKind, t), grid(std::move(g)), offsets(std::move(o)) {}
};

/// Shape queries on a grid or block: `extent(%g, 1)`; for blocks also `origin(%b, 0)`,
/// `halo(%b, 0)`, `global_extent(%b, 0)`, and the same symmetric block's layout on another PE:
/// `extent_on(%b, pe, 0)`, `origin_on(%b, pe, 0)` (slabs of uneven sizes differ by PE). For the
/// grids of global programs also the bounds of `%g.interior` in global indices,
/// `interior_lo(%g, 0)` and `interior_hi(%g, 0)` (hi exclusive): fuse-sweeps compares two grids'
/// interiors with them when the ranges it fuses are equal only at run time.
enum class GridQueryOp { Extent, Origin, Halo, GlobalExtent, ExtentOn, OriginOn, InteriorLo, InteriorHi };
/// True for the queries that take a PE (`extent_on`, `origin_on`).
bool takes_pe(GridQueryOp op);
const char* to_string(GridQueryOp op);

struct GridQuery : ExprNode {
  static constexpr ExprKind kKind = ExprKind::GridQuery;
  GridQueryOp op;
  std::string grid;
  int dim;
  Expr pe;  // the PE asked about, for extent_on / origin_on; null otherwise
  GridQuery(GridQueryOp o, std::string g, int d, Expr p = nullptr)
      : ExprNode(kKind, ScalarType::I32), op(o), grid(std::move(g)), dim(d), pe(std::move(p)) {}
};

enum class UnaryOp { Neg, Not };
const char* to_string(UnaryOp op);

struct Unary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Unary;
  UnaryOp op;
  Expr a;
  Unary(UnaryOp o, Expr x, ScalarType t) : ExprNode(kKind, t), op(o), a(std::move(x)) {}
};

enum class BinaryOp { Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
const char* to_string(BinaryOp op);  // the operator's spelling: "+", "<=", "&&", ...
bool is_comparison(BinaryOp op);
bool is_logical(BinaryOp op);
/// C precedence, loosest first: 1 for `||` up to 6 for `*`, `/`, `%`. Printer and parser share it.
int precedence(BinaryOp op);

struct Binary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Binary;
  BinaryOp op;
  Expr a, b;
  Binary(BinaryOp o, Expr x, Expr y, ScalarType t)
      : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
};

/// `cond ? t : f`, with both arms evaluated lazily as in C++.
struct Select : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr cond, t, f;
  Select(Expr c, Expr x, Expr y, ScalarType ty)
      : ExprNode(kKind, ty), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
};

struct Cast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr a;
  Cast(ScalarType to, Expr x) : ExprNode(kKind, to), a(std::move(x)) {}
};

/// A call: a math intrinsic (`sqrt`, `exp`, `sin`, `cos`, `fabs`, `fmin`, `fmax`, `pow`), an SPMD
/// query (`my_pe`, `n_pes`), or a module function when `user` is set (printed `@name(...)`).
struct Call : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  std::string callee;
  std::vector<Expr> args;
  bool user;
  Call(ScalarType t, std::string c, std::vector<Expr> a, bool u)
      : ExprNode(kKind, t), callee(std::move(c)), args(std::move(a)), user(u) {}
};

/// True for the names a non-user Call may carry.
bool is_intrinsic(const std::string& name);
/// The number of arguments intrinsic `name` takes, or -1 when it is not an intrinsic.
int intrinsic_arity(const std::string& name);
/// True for `my_pe` and `n_pes`, which only SPMD programs may call.
bool is_spmd_intrinsic(const std::string& name);

// ---------------------------------------------------------------------------------------------
// Statements

enum class StmtKind {
  Block, VarDecl, Assign, If, For, While, ForEach, Reduce, Store, Yield, Return, Swap, Exchange,
  SignalDecl, PutSignal, WaitUntil, Quiet, BarrierAll,
  // Added by the CPU-free pipeline (passes/): the two halves of a lowered exchange, the
  // cross-PE combination of a reduction, and a PE-wide barrier between dependent phases.
  HaloSend, HaloRecv, AllReduce, PhaseBarrier
};

struct StmtNode {
  const StmtKind kind;
  SourceLoc loc;
  StmtNode(StmtKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
  virtual ~StmtNode() = default;
};

using Stmt = std::shared_ptr<const StmtNode>;

template <typename T>
const T* as(const Stmt& s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

struct Block : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  std::vector<Stmt> stmts;
  Block(std::vector<Stmt> s, SourceLoc l) : StmtNode(kKind, std::move(l)), stmts(std::move(s)) {}
};

/// `var %x: f32 = init` (init may be null: declared, not yet assigned).
struct VarDecl : StmtNode {
  static constexpr StmtKind kKind = StmtKind::VarDecl;
  std::string name;
  ScalarType type;
  Expr init;
  VarDecl(std::string n, ScalarType t, Expr i, SourceLoc l)
      : StmtNode(kKind, std::move(l)), name(std::move(n)), type(t), init(std::move(i)) {}
};

/// `%x = value`: a scalar local or a by-reference scalar parameter.
struct Assign : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Assign;
  std::string name;
  Expr value;
  Assign(std::string n, Expr v, SourceLoc l)
      : StmtNode(kKind, std::move(l)), name(std::move(n)), value(std::move(v)) {}
};

struct If : StmtNode {
  static constexpr StmtKind kKind = StmtKind::If;
  Expr cond;
  Stmt then_body;  // a Block
  Stmt else_body;  // a Block or null
  /// fuse-sweeps' versions (passes/FuseSweeps.h): the then branch is the fused version, what runs
  /// where the grids' interiors are equal; the else branch the unfused one. Printed
  /// `if %fused_ranges versioned {`.
  bool versioned = false;
  If(Expr c, Stmt t, Stmt e, SourceLoc l)
      : StmtNode(kKind, std::move(l)), cond(std::move(c)), then_body(std::move(t)),
        else_body(std::move(e)) {}
};

/// A counted loop: `for %t: i32 = lo to hi step s { ... }`, hi exclusive, step > 0 constant.
/// The forms a time loop may run in besides the barrier form, which every loop has; the
/// select-loop-forms pass records them (passes/LoopForms.h), printed ` forms(dataflow, regs)`.
enum LoopForm : unsigned {
  kFormDataflow = 1u << 0,  // without barriers: each block waits for its neighbours only
  kFormRegs = 1u << 1,      // the dataflow form with each block's rows in registers
};

struct For : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  std::string var;
  ScalarType type;
  Expr lo, hi;
  int64_t step;
  Stmt body;
  unsigned forms = 0;  // LoopForm bits
  For(std::string v, ScalarType t, Expr lo_, Expr hi_, int64_t s, Stmt b, SourceLoc l)
      : StmtNode(kKind, std::move(l)), var(std::move(v)), type(t), lo(std::move(lo_)),
        hi(std::move(hi_)), step(s), body(std::move(b)) {}
};

struct While : StmtNode {
  static constexpr StmtKind kKind = StmtKind::While;
  Expr cond;
  Stmt body;
  unsigned forms = 0;  // LoopForm bits
  While(Expr c, Stmt b, SourceLoc l) : StmtNode(kKind, std::move(l)), cond(std::move(c)), body(std::move(b)) {}
};

/// An index range: the interior of a grid (`%g.interior`), the owned box of a block
/// (`%b.owned`), or an explicit half-open box `[lo0:hi0, lo1:hi1]`.
struct Range {
  enum class Kind { Interior, Owned, Box };
  Kind kind = Kind::Box;
  std::string grid;         // Interior / Owned
  std::vector<Expr> lo, hi;  // Box
  int rank = 0;
};

/// Which points of its range a ForEach of a decomposed or SPMD program covers (split-boundary).
/// With the range clipped to the PE's block [B_lo, B_hi) (global coordinates; in an SPMD program
/// local ones, and the block the foreach stores to: split_reference_block) and per-dimension
/// widths `width_lo`, `width_hi`, a point p is *inner* when in every dimension d
/// `p[d] - B_lo[d] >= width_lo[d]` and `B_hi[d] - 1 - p[d] >= width_hi[d]`, and a *boundary*
/// point otherwise. Printed `foreach[boundary 1:1, 0:2] ...` (one `lo:hi` pair per dimension).
enum class ForEachPart {
  All,       // every point of the clipped range (the default; printed `foreach`)
  Boundary,  // the points within the widths of the block's faces
  Inner,     // the others
};
const char* to_string(ForEachPart p);  // "all", "boundary", "inner"

/// Which workers of a persistent PE run a statement (specialize-blocks). When the runtime
/// specialises the PE, its workers form a comm group and a compute group; otherwise both names
/// mean all the workers. Printed ` role(comm)` / ` role(compute)`; All is not printed.
enum class WorkerRole { All, Comm, Compute };
const char* to_string(WorkerRole r);  // "all", "comm", "compute"

/// A point update: for every point of `range`, run `body` with the index variables bound.
struct ForEach : StmtNode {
  static constexpr StmtKind kKind = StmtKind::ForEach;
  Range range;
  std::vector<std::string> indices;
  Stmt body;
  /// A part of a split foreach and its widths (one per range dimension; empty for All). The two
  /// parts of one foreach stand in one block with equal range, indices, widths and body.
  ForEachPart part = ForEachPart::All;
  std::vector<int> width_lo, width_hi;
  /// Who runs it in a specialised PE, and (inner parts marked role(compute) only) the cost
  /// model's bytes moved per point, printed ` cost(8 bytes/point)`; 0 when not recorded.
  WorkerRole role = WorkerRole::All;
  int bytes_per_point = 0;
  /// store-faces (passes/StoreFaces.h): the grids whose stores in this foreach also write the
  /// same buffer's cells in the neighbours' halos (by the channels of the grid's halo exchange),
  /// printed ` through(%a_new)`; empty when none.
  std::vector<std::string> through;
  ForEach(Range r, std::vector<std::string> i, Stmt b, SourceLoc l)
      : StmtNode(kKind, std::move(l)), range(std::move(r)), indices(std::move(i)), body(std::move(b)) {}
};

/// True when `a` and `b` are the two parts of one split foreach: one Boundary and one Inner with
/// the same widths, range, indices and body.
bool are_split_parts(const ForEach& a, const ForEach& b);

/// The block whose faces the widths of a split foreach of an SPMD program are measured from: the
/// first block its body stores to, in program text ("" when it stores to none). A decomposed
/// program measures them from the PE's block, which all its grids share.
std::string split_reference_block(const ForEach& f);

enum class ReduceOp { Sum, Max, Min };
const char* to_string(ReduceOp op);

/// `reduce %r: f32 = sum range (%i, %j) { ...; yield e }`: declares scalar %r.
struct Reduce : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Reduce;
  std::string result;
  ScalarType type;
  ReduceOp op;
  Range range;
  std::vector<std::string> indices;
  Stmt body;  // ends in a Yield on every path
  Reduce(std::string res, ScalarType t, ReduceOp o, Range r, std::vector<std::string> i, Stmt b, SourceLoc l)
      : StmtNode(kKind, std::move(l)), result(std::move(res)), type(t), op(o), range(std::move(r)),
        indices(std::move(i)), body(std::move(b)) {}
};

/// `store %g = value`: write the enclosing ForEach's centre point of grid %g.
struct Store : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  std::string grid;
  Expr value;
  Store(std::string g, Expr v, SourceLoc l) : StmtNode(kKind, std::move(l)), grid(std::move(g)), value(std::move(v)) {}
};

/// The value of a reduction body for one point.
struct Yield : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Yield;
  Expr value;
  Yield(Expr v, SourceLoc l) : StmtNode(kKind, std::move(l)), value(std::move(v)) {}
};

/// Return from a module function (value null for void).
struct Return : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Return;
  Expr value;
  Return(Expr v, SourceLoc l) : StmtNode(kKind, std::move(l)), value(std::move(v)) {}
};

struct Swap : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Swap;
  std::string a, b;
  Swap(std::string x, std::string y, SourceLoc l) : StmtNode(kKind, std::move(l)), a(std::move(x)), b(std::move(y)) {}
};

/// The halos of %g must be fresh here (explicit, or inserted by a pass).
struct Exchange : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Exchange;
  std::string grid;
  Exchange(std::string g, SourceLoc l) : StmtNode(kKind, std::move(l)), grid(std::move(g)) {}
};

/// `signal %s`: a symmetric 64-bit counter local to an SPMD program, starting at 0.
struct SignalDecl : StmtNode {
  static constexpr StmtKind kKind = StmtKind::SignalDecl;
  std::string name;
  SignalDecl(std::string n, SourceLoc l) : StmtNode(kKind, std::move(l)), name(std::move(n)) {}
};

/// A region of a block: `%b[lo0:hi0, ...]` in the block's local coordinates.
struct Region {
  std::string block;
  std::vector<Expr> lo, hi;
};

/// `put_signal %dst[..] <- %src[..], signal %s = value, pe = e`.
struct PutSignal : StmtNode {
  static constexpr StmtKind kKind = StmtKind::PutSignal;
  Region dst, src;
  std::string signal;
  Expr value, pe;
  WorkerRole role = WorkerRole::All;  // Comm: the comm group does it (specialize-blocks)
  PutSignal(Region d, Region s, std::string sig, Expr v, Expr p, SourceLoc l,
            WorkerRole r = WorkerRole::All)
      : StmtNode(kKind, std::move(l)), dst(std::move(d)), src(std::move(s)), signal(std::move(sig)),
        value(std::move(v)), pe(std::move(p)), role(r) {}
};

enum class CmpOp { EQ, NE, GT, GE, LT, LE };
const char* to_string(CmpOp op);  // "eq", "ne", ...

/// `wait_until %s ge value`.
struct WaitUntil : StmtNode {
  static constexpr StmtKind kKind = StmtKind::WaitUntil;
  std::string signal;
  CmpOp cmp;
  Expr value;
  WorkerRole role = WorkerRole::All;  // Comm: the comm group does it (specialize-blocks)
  WaitUntil(std::string s, CmpOp c, Expr v, SourceLoc l, WorkerRole r = WorkerRole::All)
      : StmtNode(kKind, std::move(l)), signal(std::move(s)), cmp(c), value(std::move(v)), role(r) {}
};

struct Quiet : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Quiet;
  explicit Quiet(SourceLoc l) : StmtNode(kKind, std::move(l)) {}
};

struct BarrierAll : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BarrierAll;
  explicit BarrierAll(SourceLoc l) : StmtNode(kKind, std::move(l)) {}
};

/// `halo_send %a`: pack the boundary layers of %a that the neighbours' halos need and put them,
/// each followed by a signal whose value is %a's exchange epoch, into the neighbours' halo slots.
/// The runtime finds the neighbours from the decomposition (none past a fixed boundary, the
/// wrap-around PE for a periodic one). Inserted by lower-exchanges.
struct HaloSend : StmtNode {
  static constexpr StmtKind kKind = StmtKind::HaloSend;
  std::string grid;
  WorkerRole role = WorkerRole::All;  // Comm: the comm group does it (specialize-blocks)
  HaloSend(std::string g, SourceLoc l, WorkerRole r = WorkerRole::All)
      : StmtNode(kKind, std::move(l)), grid(std::move(g)), role(r) {}
};

/// `halo_recv %a`: wait (bounded) for every neighbour's halo of %a at this epoch, unpack the
/// slots into %a's halo cells, and acknowledge, so that a neighbour one epoch ahead writes the
/// other slot and never one still being read. Inserted by lower-exchanges.
struct HaloRecv : StmtNode {
  static constexpr StmtKind kKind = StmtKind::HaloRecv;
  std::string grid;
  WorkerRole role = WorkerRole::All;  // Comm: the comm group does it (specialize-blocks)
  HaloRecv(std::string g, SourceLoc l, WorkerRole r = WorkerRole::All)
      : StmtNode(kKind, std::move(l)), grid(std::move(g)), role(r) {}
};

/// `allreduce %r sum`: combine the scalar %r over all PEs; every PE gets the result.
/// Inserted by decompose after each reduction of a global-view program.
/// `allreduce %r sum last` (defer-host-reads, after the loop that runs `reduce %r`): into the
/// local %r, the combination of what each PE's last run of `reduce %r` gave (the host-controlled
/// schedule keeps each GPU's last result; the other targets reject it).
struct AllReduce : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AllReduce;
  std::string var;
  ReduceOp op;
  bool last = false;
  AllReduce(std::string v, ReduceOp o, SourceLoc l, bool last_run = false)
      : StmtNode(kKind, std::move(l)), var(std::move(v)), op(o), last(last_run) {}
};

/// `phase_barrier`: all the workers of one PE (e.g. the thread blocks of its persistent kernel)
/// finish what comes before before any starts what comes after. Inserted by persistent-fusion
/// where a dependence between point updates needs it. `phase_barrier role(comm)` (or compute)
/// synchronises only the workers of that group when the PE is specialised, and all of them
/// otherwise (specialize-blocks).
struct PhaseBarrier : StmtNode {
  static constexpr StmtKind kKind = StmtKind::PhaseBarrier;
  WorkerRole role = WorkerRole::All;
  explicit PhaseBarrier(SourceLoc l, WorkerRole r = WorkerRole::All)
      : StmtNode(kKind, std::move(l)), role(r) {}
};

// ---------------------------------------------------------------------------------------------
// Programs and modules

enum class ParamKind {
  Grid,       // global grid (global-view programs)
  Block,      // a PE's local block (SPMD programs)
  Scalar,     // scalar by value
  ScalarRef,  // scalar by reference: hands a result back
};

struct Param {
  std::string name;
  ParamKind kind = ParamKind::Scalar;
  ScalarType type = ScalarType::F32;  // element type for grids and blocks
  int rank = 0;                       // grids and blocks
  bool is_const = false;              // grids and blocks passed by const reference
  /// Halo widths per dimension below and above the block (grids, from infer-halos; blocks of a
  /// global-view program after decompose). Empty: not inferred. Printed `halo[1:1, 2:0]`.
  std::vector<int> halo_lo, halo_hi;
  /// Some read has non-zero offsets in two or more dimensions, so diagonal neighbours' halos
  /// (the corners) are needed too. Printed ` corners` after the halo.
  bool halo_corners = false;
};

enum class ProgramKind { Global, Spmd };

struct Program {
  std::string name;
  ProgramKind kind = ProgramKind::Global;
  /// A global-view program after decompose: it runs on every PE over its part of each grid
  /// (ranges are global and clipped to the PE's part), reductions are followed by allreduce.
  /// Printed `decomposed` after the parameter list.
  bool decomposed = false;
  /// A decomposed or SPMD program after persistent-fusion: each PE runs the whole program as one
  /// persistent kernel whose workers synchronise only at `phase_barrier` (and inside
  /// `allreduce`). Printed `persistent` after `decomposed`.
  bool persistent = false;
  std::vector<Param> params;
  Stmt body;  // a Block
  SourceLoc loc;

  const Param* find_param(const std::string& n) const;
};

/// An inline function of the user's file that a point body calls.
struct Function {
  std::string name;
  ScalarType ret = ScalarType::F32;
  std::vector<std::pair<std::string, ScalarType>> params;
  Stmt body;  // a Block ending in Return on every path
  SourceLoc loc;
};

struct Module {
  std::string source;  // the C++ file the module came from
  std::vector<Function> functions;
  std::vector<Program> programs;

  const Function* find_function(const std::string& n) const;
  const Program* find_program(const std::string& n) const;
};

// ---------------------------------------------------------------------------------------------
// Builders. They compute result types; callers supply operands of matching types (the front end
// inserts casts exactly where C++ converts).

Expr make_int(int64_t v, ScalarType t = ScalarType::I32);
Expr make_float(double v, ScalarType t);
Expr make_bool(bool v);
Expr make_var(const std::string& name, ScalarType t);
Expr make_grid_read(const std::string& grid, std::vector<int> offsets, ScalarType t);
Expr make_grid_query(GridQueryOp op, const std::string& grid, int dim, Expr pe = nullptr);
Expr make_unary(UnaryOp op, Expr a);  // Not: bool; Neg: a's type
Expr make_binary(BinaryOp op, Expr a, Expr b);  // comparisons and logicals: bool
Expr make_select(Expr c, Expr t, Expr f);
Expr make_cast(ScalarType to, Expr a);
Expr make_call(const std::string& callee, std::vector<Expr> args, ScalarType t, bool user);

Stmt make_block(std::vector<Stmt> stmts, SourceLoc l = {});
Stmt make_var_decl(const std::string& name, ScalarType t, Expr init, SourceLoc l = {});
Stmt make_assign(const std::string& name, Expr v, SourceLoc l = {});
Stmt make_if(Expr c, Stmt t, Stmt e, SourceLoc l = {});
/// An If like `old` (its loc and marks) with another condition and branches.
Stmt rebuild_if(const If& old, Expr c, Stmt t, Stmt e);
/// An If marked as fuse-sweeps' versions (If::versioned).
Stmt make_versions(Expr c, Stmt fused, Stmt unfused, SourceLoc l = {});
Stmt make_for(const std::string& var, ScalarType t, Expr lo, Expr hi, int64_t step, Stmt body, SourceLoc l = {});
Stmt make_while(Expr c, Stmt body, SourceLoc l = {});
Stmt make_for_each(Range r, std::vector<std::string> indices, Stmt body, SourceLoc l = {});
/// One part of a split foreach (`part` Boundary or Inner), with its widths.
Stmt make_for_each_part(ForEachPart part, std::vector<int> width_lo, std::vector<int> width_hi,
                        Range r, std::vector<std::string> indices, Stmt body, SourceLoc l = {});
/// `s` (a ForEach, HaloSend, HaloRecv, PutSignal, WaitUntil or PhaseBarrier) with another role;
/// for a ForEach also another bytes_per_point. Other statements come back unchanged.
Stmt with_role(const Stmt& s, WorkerRole role, int bytes_per_point = 0);
/// A ForEach `s` whose stores to `grids` write through to the neighbours' halos (empty: none);
/// any other statement unchanged.
Stmt with_through(const Stmt& s, std::vector<std::string> grids);
/// `s` (a foreach part) with other widths; any other statement unchanged.
Stmt with_widths(const Stmt& s, std::vector<int> width_lo, std::vector<int> width_hi);
/// A For or While `s` with its LoopForm bits `forms`.
Stmt with_forms(const Stmt& s, unsigned forms);
/// A loop's LoopForm bits (0 for any other statement).
unsigned loop_forms(const Stmt& s);
Stmt make_reduce(const std::string& result, ScalarType t, ReduceOp op, Range r,
                 std::vector<std::string> indices, Stmt body, SourceLoc l = {});
Stmt make_store(const std::string& grid, Expr v, SourceLoc l = {});
Stmt make_yield(Expr v, SourceLoc l = {});
Stmt make_return(Expr v, SourceLoc l = {});
Stmt make_swap(const std::string& a, const std::string& b, SourceLoc l = {});
Stmt make_exchange(const std::string& grid, SourceLoc l = {});
Stmt make_signal_decl(const std::string& name, SourceLoc l = {});
Stmt make_put_signal(Region dst, Region src, const std::string& signal, Expr value, Expr pe,
                     SourceLoc l = {}, WorkerRole role = WorkerRole::All);
Stmt make_wait_until(const std::string& signal, CmpOp cmp, Expr value, SourceLoc l = {},
                     WorkerRole role = WorkerRole::All);
Stmt make_quiet(SourceLoc l = {});
Stmt make_barrier_all(SourceLoc l = {});
Stmt make_halo_send(const std::string& grid, SourceLoc l = {},
                    WorkerRole role = WorkerRole::All);
Stmt make_halo_recv(const std::string& grid, SourceLoc l = {},
                    WorkerRole role = WorkerRole::All);
Stmt make_all_reduce(const std::string& var, ReduceOp op, SourceLoc l = {}, bool last = false);
Stmt make_phase_barrier(SourceLoc l = {}, WorkerRole role = WorkerRole::All);

Range make_interior(const std::string& grid, int rank);
Range make_owned(const std::string& block, int rank);
Range make_box(std::vector<Expr> lo, std::vector<Expr> hi);

}  // namespace stencilc::ir
