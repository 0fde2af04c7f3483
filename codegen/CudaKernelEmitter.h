// The CUDA target's kernel emitter (CudaEmitter.cpp drives it): the persistent kernel of one
// program, statement by statement from the IR. Its definitions are split by idea:
// CudaKernelEmitter.cpp (the kernel, its statements, reductions, stores and SPMD transfers),
// CudaPointLoops.cpp (point loops: strips, wide items, boundary walks, batches, folds) and
// CudaLoopForms.cpp (a time loop's forms: barrier, dataflow, register-resident). Internal to
// codegen/.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/CppEmitter.h"
#include "codegen/CudaInternal.h"
#include "codegen/EmitUtil.h"
#include "ir/IRVisitor.h"
#include "passes/LoopForms.h"

namespace stencilc::codegen::cuda {

using namespace ir;
using passes::flow_reductions;
using passes::FlowLoop;
using passes::FlowWalk;
using passes::FlowReduction;
using passes::marked_flow_loop;
using passes::marked_regs_form;
using passes::RegsForm;
using passes::stored_grids;

/// The runtime's name of a reduction operator.
const char* reduce_op_name(ReduceOp op);

class CudaKernelEmitter : public CppEmitter {
 public:
  CudaKernelEmitter(const Module& m, const Program& p);

  /// The shapes of the kernel's wide point loops (16-byte items) written so far: each loop's rank
  /// and cells a vector, whose item rows (generated.cuh's wide_rows) set the kernel's block size
  /// (block_threads_for). Empty: no wide point loop.
  const std::set<std::pair<int, int>>& wide_items() const { return wide_items_; }

  /// Writes the program's persistent kernel, `kernel(sc_pe, sc_args)`: its prologue (the groups,
  /// the parameters, the exchanges' epochs), the body statement by statement, and where each grid
  /// and result ends up for the host. `exchanged`: the grids with a halo exchange; `roles`: the
  /// program has role(...) statements.
  void kernel(const std::set<std::string>& exchanged, bool roles);

 protected:
  std::string first_grid_;
  bool split_ = false;  // the innermost point update is one part of a split foreach
  bool walk_ = false;   // ... its boundary part, walked as one sequence of points (BoxWalk)
  std::set<const StmtNode*> fused_reduces_, fused_allreduces_;  // find_fused_reductions()
  FlowLoop flow_loop_;  // the loop the IR marks forms(dataflow) (select-loop-forms)
  bool flow_ = false;   // emitting that loop's dataflow form
  std::map<const Reduce*, int> flow_reductions_;    // its flow_reductions, by argument index
  std::vector<FlowReduction> flow_reduction_list_;  // the same, in that order
  bool flow_rows_ =
      false;  // open_points: walk this block's rows of the range only (a flow reduction)
  int folding_ =
      -1;  // the flow reduction folded into the update being emitted (fold_into_update), or -1
  bool no_faces_ =
      false;       // emitting the dataflow walk of a block with no face rows (no face stores)
  RegsForm regs_;  // its register-resident form (regs_.in empty: none)
  bool in_regs_ = false;  // emitting that form's loop
  int regs_mode_ = 0;  // emitting its update (1: reads of %in from the window sc_w, the store into
                       // sc_out) or fold (2)
  std::map<const ForEach*, std::string>
      hoisted_walks_;        // boundary parts set up before their loop (hoist_boundary_walks)
  int loop_depth_ = 0;       // loops open around the statement being emitted
  int walks_hoisted_ = 0;    // hoist_boundary_walks' names so far
  bool batch_walk_ = false;  // open_walk: the loop of a batched walk (batched_points)
  std::string batch_group_;  // ... the workers of the batched walk it opened ("": none)
  bool walk_else_ = false;   // close_points: the walk's plain loop is the else of a batched one
  int batch_plain_ = 0;  // open_point_loop: a batched point loop's points a thread, or 0
  std::map<std::string, std::string>
      prefetched_;  // batched_plain_points: a read (grid_read's text) -> the register holding it
  bool roles_ = false;       // the program has role(...) statements: the kernel has groups
  bool spmd_ = false;        // an SC_SPMD_PROGRAM: local ranges on blocks, the user's communication
  bool defer_stores_ = false;        // inside a strip's first loop: stores go to sc_st_<grid>[sc_r]
  const Reduce* reducing_ = nullptr;  // the reduction a strip or wide loop walks (point())
  std::set<std::string>
      exchanged_;  // grids with a halo exchange (DHaloExchange sc_args.<grid>_halo)
  std::vector<std::string> indices_;  // the point loop's user index variables
  int transfers_ =
      0;             // SPMD: put_signal/wait_until statements emitted so far (which block runs one)
  int signals_ = 0;  // SPMD: signal declarations emitted so far (their slot in sc_args.sc_signals)

  /// Inside a point loop, grid elements are read and written through `__restrict__` pointers
  /// to the blocks' data (distinct grids are distinct allocations, and a point update reads a
  /// grid it writes only at its own point), so the compiler may keep several points' loads in
  /// flight across their stores when it unrolls the loop.
  std::set<std::string> views_;

  std::string grid_read(const GridRead* r) override;
  /// A read through the loop's views (open_views): sc_<grid>_data[...] at the point's offset.
  std::string view_read(const GridRead* r);

  /// A loop coordinate moved by a read's offset: `l`, `(l + 2)`, `(l - 1)`.
  static std::string shifted(const std::string& l, int o) {
    return o == 0 ? l : "(" + l + (o > 0 ? " + " : " - ") + std::to_string(std::abs(o)) + ")";
  }

  /// Declares the restrict pointers and strides of the grids `point_body` reads or writes.
  void open_views(const Stmt& point_body, int indent);

  /// The blocks that run a statement of `role`.
  std::string group(WorkerRole role) const {
    if (!roles_ || role == WorkerRole::All) return "sc_all";
    return role == WorkerRole::Comm ? "sc_comm" : "sc_compute";
  }
  /// Opens `if (group.has_me()) {` for a role's statement; returns the body's indent.
  int open_role(WorkerRole role, int indent);
  void close_role(WorkerRole role, int indent) {
    if (group(role) != "sc_all") line(indent, "}");
  }
  /// A grid barrier where the program has no phase barriers of its own (not persistent).
  void conservative_barrier(int indent, const std::string& why) {
    if (!program_->persistent) line(indent, "sc_pe.grid_barrier();  // " + why);
  }

  std::string math_function(const std::string& name) override { return name; }  // CUDA's overloads
  std::string float_division(const ir::Expr& a, const ir::Expr& b) override {
    return std::string(kRt) + "div_rn(" + expr(a) + ", " + expr(b) + ")";
  }

  std::string grid_query(const GridQuery* q) override;

  /// A block's layout in an SPMD program: the handle's own (local extents), or the same symmetric
  /// block's on another PE (from the launcher's table of every PE's layout).
  std::string block_query(const GridQuery* q);

  std::string global_range(const Range& r);

  /// A loop of `group`'s threads over the GPU's part of `range`; returns the body's indent.
  /// `strip` (a point update of two or more dimensions): only the chunk's extents and views;
  /// strip_points() emits the loops. Otherwise a loop over single points; the caller emits the
  /// body.
  int open_points(const Stmt& s, const Range& range, const std::vector<std::string>& indices,
                  const Stmt& point_body, int indent, const std::string& group,
                  const ForEach* part = nullptr, bool strip = false);

  /// A split foreach's part of sc_local (split-boundary: the points within the widths of the
  /// block's faces, or the others) as sc_parts, the widths kept only at faces where an exchange
  /// acts. An SPMD part is measured from the block it stores to.
  void split_parts(int indent, const ForEach& part, const Stmt& point_body);

  /// `name`: the BoxWalk of sc_parts, checked (open_points' `where`).
  void build_walk(int indent, const std::string& name, const std::string& where) {
    line(indent, "const " + std::string(kRt) + "BoxWalk<" + std::to_string(indices_.size()) + "> " +
                     name + "(sc_parts);");
    check_walk(indent, name, where);
  }
  /// The run-time check that walk `name` (of the statement at `where`) fits its 32-bit index.
  void check_walk(int indent, const std::string& name, const std::string& where) {
    line(indent, std::string(kRt) + "check_walk(sc_pe, " + name + ", \"" + program_->name + " at " +
                     where + "\");");
  }
  /// A statement's place in the source, for run-time messages: file:line:col.
  std::string where(const SourceLoc& loc) const {
    return module_->source + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  }

  /// Before a loop's barrier form (its outermost loop): the walk of each boundary part inside it
  /// whose range is a grid's interior (the same box every step: the buffers the swaps trade have
  /// one shape, the exchanges' faces do not change), set up once where STENCILC_HOIST_BOUNDARY_WALK
  /// (generated.cuh) reaches the loop's rank: by default 1-D and 2-D (built every step, by every
  /// thread of the group, it took 10 us more a step of heat3d 96^3 on 2 GPUs than built once, but
  /// heat3d's large sizes ran 10-16% slower hoisted). The walk lives in the block's shared memory
  /// (SharedWalk, generated.cuh), not in each thread's registers and local memory across the loop.
  /// The part's statement then reads it.
  void hoist_boundary_walks(const Stmt& loop, int indent);

  /// The preprocessor test that picks a boundary walk of `rank` dimensions set up before its loop
  /// (STENCILC_HOIST_BOUNDARY_WALK, generated.cuh: the highest rank whose walks are).
  static std::string hoist_condition(size_t rank) {
    return "#if STENCILC_HOIST_BOUNDARY_WALK >= " + std::to_string(rank);
  }

  /// A boundary part (open_points' sc_parts): its slabs' points as one sequence (BoxWalk), one
  /// grid-stride loop of `group`'s threads, unrolled, so a thread's points of different slabs
  /// are in flight together (slab after slab, the thin slabs waited a load round trip each).
  /// Returns the body's indent.
  /// `built`: the name of a walk set up (and checked) before, else one of sc_parts here;
  /// `declared`: sc_walk is declared already.
  int open_walk(int indent, const Stmt& point_body, const std::string& group,
                const std::string& where, const std::string& built = "", bool declared = false);

  /// A walk's loop of one point a thread at a time (open_walk's names); returns the body's indent.
  int plain_walk_loop(int indent, const std::string& group);

  /// The run-time checks before a point loop over `range` (open_points): each grid the body reads
  /// at an offset stays within its extents or halos (an SPMD block: within the block and its
  /// halos, also where it stores), and a range of the user's bounds holds grid points only.
  void point_checks(const Range& range, const std::vector<std::string>& indices,
                    const Stmt& point_body, const std::string& where, int indent);

  /// The device-side check that a range of the user's bounds holds grid points only
  /// (rt::cuda::check_range, the host target's messages), naming the grids the update indexes.
  void range_check(const Stmt& point_body, const std::string& where, int indent);

  /// The grid-stride loop of `group`'s threads over a chunk's points (open_points' names), and
  /// the coordinates of its item: a point, or with `strip` the strip of rows [sc_s0, sc_e0) along
  /// dimension 0 at the item's coordinates in the others. Returns the body's indent.
  int open_point_loop(int indent, const std::string& group, bool strip);

  /// The loop coordinates sc_l<d> of dimensions end - 1 down to 1 from the flat index `rest`
  /// (row-major over the chunk: open_points' sc_n<d> and sc_div<d>). Returns the quotient left,
  /// the index along dimension 0.
  std::string split_dims(std::string rest, size_t end, int indent);

  /// A point update of two or more dimensions (open_points with `strip`): chunks at least a strip
  /// thick walk strips (strip_body), thinner ones (the one- or two-row slabs of a boundary part)
  /// walk single points, unrolled, so a thread still has several points' loads in flight.
  void strip_points(const Stmt& point_body, int indent, const std::string& group);

  /// The user's index variable of dimension d at the point loop's sc_l<d>.
  void index_var(size_t d, int indent);

  /// The points of one strip of a point update (open_points with `strip`): rows [sc_s0, sc_e0) of
  /// dimension 0 at the item's coordinates in the others. A whole strip runs unrolled: its rows'
  /// loads share the neighbours along dimension 0 and are all in flight at once. When the body
  /// only stores at the end (deferrable_stores), the whole strip's values are computed first and
  /// stored after, so no store stands between two loads (the compiler would not move a load of
  /// one row above a store of the previous one). A partial strip (the box's last) runs row by row.
  void strip_body(const Stmt& point_body, int indent);

  /// The strip length of the current point loop (its rank's: generated.cuh).
  std::string strip_rows() const { return "kStripRows<" + std::to_string(indices_.size()) + ">"; }

  /// The rows of the current point loop's wide items of `cells` cells a vector (generated.cuh's
  /// wide_rows of its rank and cells).
  std::string wide_rows(int cells) const {
    return std::string(kRt) + "wide_rows(" + std::to_string(indices_.size()) + ", " +
           std::to_string(cells) + ")";
  }

  /// The most rows of a wide strip the emitter writes out (wide_rows picks up to this many).
  static constexpr int kMaxWideRows = 4;

  /// Cells per vector for a point body's wide strips (16 bytes of its widest grid type), or 1
  /// where the body must take scalar strips: a body whose stores cannot wait until the strip's
  /// end, or that reads or writes a grid of another rank than the loop's.
  int wide_cells(const Stmt& point_body) const;

  /// One row a wide strip loads: grid `grid` at strip row `d0` (relative to the strip's first),
  /// the other leading dimensions at `mids`, and the last dimension's offsets its reads use.
  /// Cells [0, v) of the item's columns come as one vector (`name`), the others one by one.
  struct WideRow {
    std::string grid;
    int d0 = 0;
    std::vector<int> mids;
    std::set<int> last;
    int first_r = 0;  // the first strip row that reads it: loaded only when kWideRows > first_r
    std::string name;
  };
  std::vector<WideRow> wide_rows_;
  std::set<std::pair<int, int>> wide_items_;  // (rank, cells) of its wide point loops (kBlockThreads)
  int wide_r_ = -1, wide_v_ = -1, wide_cells_ = 1;  // the copy of the body being written

  WideRow* find_wide_row(const std::string& grid, int d0, const std::vector<int>& mids);

  /// A read in a wide strip's copy of the body: the register that holds it.
  std::string wide_read(const GridRead* r);

  /// The address of cell `col` (an expression) of a row of grid `g`: strip row `row` (an
  /// expression), the leading dimensions at the loop's indices plus `mids`.
  std::string wide_address(const std::string& g, const std::string& row,
                           const std::vector<int>& mids, const std::string& col);

  /// Wide strips (the chunk's columns [sc_w0, sc_w1) of the last dimension, open_points' names):
  /// an item is kWideRows rows x v columns; the loads of its rows are issued first, v cells at a
  /// time (a 16-byte load per row and grid; the side neighbours one by one), the body is written
  /// out for every point of the item on those registers, and the values are stored v at a time.
  /// The strip's last, partial item runs row by row, and the columns outside [sc_w0, sc_w1)
  /// (fewer than v at each end) run point by point, in a pass after the wide items.
  void wide_points(const Stmt& point_body, int indent, const std::string& group, int v);

  /// The rows a wide item's copies of the body read (wide_rows_), for up to kMaxWideRows rows.
  void collect_wide_rows(const Stmt& point_body, int rows = kMaxWideRows);

  /// A wide item's loads: per row, its v cells as one vector and the side cells its reads reach
  /// one by one; a row that only copies past kWideRows read is not loaded.
  void wide_loads(int indent, int v);

  /// The cells of a wide row its reads reach outside its v-cell vector, one by one: each one's
  /// position (relative to the vector's first cell) and register (wide_read's names).
  static std::vector<std::pair<int, std::string>> wide_sides(const WideRow& w, int v);

  /// A whole wide item after its loads: the body per point on the registers (wide_read), then
  /// each row's values stored v cells at a time.
  void wide_item(const Stmt& point_body, int indent, int v);

  /// The points of the chunk's columns outside the wide part [sc_w0, sc_w1) (fewer than v at each
  /// end of every row, walked point by point): how many, and their divisor.
  void side_setup(int indent);

  /// Side point number `index` (side_setup's names): its coordinates, then the body.
  void side_point(const Stmt& point_body, int indent, const std::string& index);

  /// Whether a point body's stores can wait until the end of its strip: each store is a
  /// statement of the body itself (none under a condition or in a loop), no grid is stored
  /// twice, and a grid the body stores is read only at the point itself (all offsets 0) and only
  /// up to its own store (`x(i) = x(i) + a * p(i)`): a read after the store would see the old
  /// value, a read of another point a value the item has not stored yet.
  static bool deferrable_stores(const Stmt& point_body);

  using CppEmitter::loop;
  /// The dataflow loop twice: the form of flow.cuh where the launcher turned it on (each block
  /// walks its own rows, waits for its neighbours' previous step, publishes its own, no barrier),
  /// else the loop as the passes left it (barrier_all after each update).
  void loop(const Stmt& s, int indent) override;

  /// The dataflow loop's set-up of its halos and face stores, before the loop: one exchange of
  /// every grid the step exchanges, the block's workers (sc_mine), and the face channels its rows
  /// feed staged in shared memory (a step of one update: sc_faces and sc_face_writer; of several
  /// walks: one of each for every exchange that carries faces, flow_handles).
  void flow_halos_and_faces(int indent);

  /// The dataflow loop's register-resident form (regs.cuh) where the launcher planned it
  /// (sc_args.sc_regs: compiled::choose_form) and its contract holds on every block of every PE (a
  /// grid_reduce): each block's band of %in in registers (RegsBand), a step of it where the loop's
  /// update was (regs_step), the rest of the step as the dataflow form has it, the band into the
  /// grid the last step wrote after the loop. sc_regs_done: it ran the loop.
  void regs_loop(const Stmt& s, int indent);

  /// The register-resident form's step, where the loop's update is: RegsBand::step with the update
  /// as a function of the window of %in around a thread's cell (sc_w) and, where a reduction is
  /// folded into the update, its value at a cell from the cell's values after and before the step.
  void regs_step(const ForEach& u, int indent);

  /// A loop as the passes left it (its barriers), its boundary walks set up before it where
  /// they may be (hoist_boundary_walks).
  void barrier_loop(const Stmt& s, int indent);

  /// Whether the dataflow form sets up its walk of the update once, before the loop: where the
  /// update's range is a grid's interior (its box cannot change from step to step; the buffers
  /// the swaps trade have one shape).
  bool flow_walk_hoisted() const {
    return flow_loop_.update && flow_loop_.update->range.kind == Range::Kind::Interior;
  }

  /// Whether the dataflow loop's update may walk in strips (flow_strips): a 2-D one (3-D strips
  /// spill and measured slower).
  bool flow_strips_possible() const {
    return flow_loop_.update && flow_loop_.update->indices.size() == 2;
  }

  /// flow_strips' box and choice: the block's rows of the update (sc_flow_rows; the face copy's
  /// box too) and whether they are walked in strips (sc_flow_strips: at least
  /// STENCILC_FLOW_STRIP_MIN_POINTS points a thread, flow_strips_pay).
  void flow_strips_choice(int indent);

  /// The dataflow loop of a step of several walks (FlowLoop::update unset: fdtd2d, cg2d, jacobi1d's
  /// two updates): each walk waits for the neighbours to have finished the walk before, walks
  /// the block's rows, copies their face cells into the neighbours' halos (FaceWriter::copy,
  /// one writer for each exchange that carries faces: flow_handles) and publishes.
  bool flow_walks() const { return flow_ && !flow_loop_.update; }
  /// The exchanges whose channels carry some walk's face cells, each once.
  std::vector<std::string> flow_handles() const;
  /// The FlowWalk of statement `s` (a walk of the loop; anything else is an internal error).
  const FlowWalk& flow_walk_of(const Stmt& s);
  /// A point update of a step of several walks (flow_walks), as a walk of the block's rows.
  void flow_walk(const Stmt& self, int indent);
  /// Before a walk (and before a reduction: its reads may reach the neighbours' rows): the
  /// neighbours have finished the walk `back` walks before (FlowWalk::wait_back; 0: no wait).
  void flow_wait(int indent, int back = 1);
  /// After walk `w` over `range`: its face cells into the neighbours' halos, then publish.
  void flow_walk_done(const FlowWalk& w, const Range& range, int indent);

  /// A barrier in the dataflow loop's step: none (DFlow's wait and publish take their place).
  void flow_barrier(const Stmt& s, int indent) {
    comment(indent, s);
    line(indent, "// (the dataflow loop: no barrier; the neighbours' flags instead)");
  }

  void store(const Store* s, int indent) override;

  /// A FaceWriter `writer` of the channels `mask` of grid `handle`'s exchange, for stores into
  /// `block`, staged in the shared array `channels` (every thread: a __syncthreads inside).
  void stage_face_writer(int indent, const std::string& writer, const std::string& channels,
                         const std::string& handle, const std::string& block,
                         const std::string& mask, const std::string& comment);

  /// A store of a boundary walk's point (sc_l) whose value also goes elsewhere: the value, into
  /// the cell, then `forward` (a statement that reads it as sc_through).
  void store_forwarded(const Store* s, int indent, const std::vector<std::string>& forward) {
    forward_value(s->grid, expr(s->value), indent, forward);
  }
  /// The same for a value already computed (`value`, C++), into `grid`'s cell at the point;
  /// `before`: a line to emit first in the block (batched_points: the point's sc_l).
  void forward_value(const std::string& grid, const std::string& value, int indent,
                     const std::vector<std::string>& forward, const std::string& before = "");
  /// Where the dataflow loop's update also stores the written grid's point (sc_through): the
  /// face stores of a block whose rows feed a channel.
  std::vector<std::string> put_forwards(const std::string& grid);
  /// The dataflow loop's face stores of the point's value (sc_through), as store() forwards
  /// them: through the block's FaceWriter (the channels its rows feed, staged before the loop).
  std::string face_stores(const std::string& grid) const {
    return "sc_face_writer.store(" + grid +
           ", sc_l, sc_through);  // into the neighbours' halos of this buffer (the staged "
           "channels)";
  }

  void close_points(int indent, bool strip = false);

  /// The body of a batched walk (open_walk with batch_walk_): the values of the batch's points
  /// first (every load of kPointUnroll points in flight together: no store stands between them,
  /// and no exit of an unrolled loop), then their stores, the face stores and the folded
  /// reduction, for the points before the walk's end. One point at a time, a thread waited a
  /// load round trip per point (the face stores go through a pointer that may alias the grids, and
  /// each unrolled iteration may leave the loop). Then the plain loop, for the walks batch_walk()
  /// leaves to it. Needs deferrable_stores. Returns the plain loop body's indent (close_points).
  int batched_points(const ForEach& u, int indent);

  /// The body of a batched point loop (open_point_loop with batch_plain_, the barrier form's
  /// loops of one point a thread: 1-D updates, thin boxes), in three unrolled phases over the
  /// batch's points: every distinct grid read of every point into registers, then
  /// the values, then the stores of the points before the chunk's end (`points` a thread:
  /// batch_points). The loads of the whole
  /// batch are in flight together even where computing a value branches (a double division's
  /// slow path), which would keep the next point's loads behind it; with a point at a time, a
  /// thread at the persistent kernel's occupancy waited a load round trip per point. Needs
  /// batch_points() > 0 (every read of the batch sees the values before its stores; the
  /// registers it takes). Returns `indent` (close_points closes the loop).
  int batched_plain_points(const ForEach& u, int indent, const std::string& group, int points);

  /// The points a thread of a batched point loop (batched_plain_points) takes at once: kBatchBytes
  /// of its widest read in flight, 2 to kMaxBatchPoints, fewer where its distinct reads would
  /// take more than kMaxPrefetched registers' worth of values; 0: the body is not batched (its
  /// stores cannot wait: deferrable_stores, or too many distinct reads).
  int batch_points(const Stmt& point_body) const;
  static constexpr int kBatchBytes = 64;
  static constexpr int kMaxBatchPoints = 16;
  static constexpr int kMaxPrefetched = 48;

  /// A reduction's value at the point (its body), combined into `acc`.
  void reduce_point(const Reduce* r, const std::string& acc, int indent);

  /// One point of the strip and wide loops: the update's body, or, walking a reduction
  /// (reducing_), its value combined into the thread's partial.
  void point(const Stmt& point_body, int indent);

  /// A flow reduction folded into the update (fold_into_update), before the update's walk: each
  /// thread's partial value, and whether this step computes it.
  void open_fold(int indent);

  /// In the update's point loop, after the point's store: the folded reduction's value of the
  /// point, added to the thread's partial (its indices named as the reduction names them).
  void fold_point(const ForEach& u, int indent);

  void for_each(const Stmt& self, int indent) override;

  /// The dataflow walk of a block that holds enough points a thread (flow_strips_pay): the block's
  /// rows of the update as the barrier form's inner part walks its box, in strips (wide, 16-byte
  /// ones where the layout allows) over the block's own threads, instead of point by point through
  /// the BoxWalk. A face block (`faces`: its rows feed a channel) stores no face cell in the
  /// strips; after them (a __syncthreads) the FaceWriter copies its rows' face cells into the
  /// neighbours' halos (halo.cuh, copy()). A step that computes a reduction folded into the update
  /// takes the walk, which adds up the fold (the strips do not). Else `walk` (the points lambda).
  template <class Walk>
  void flow_strips(const Stmt& self, int indent, const Walk& walk, bool faces = false) {
    auto* s = as<ForEach>(self);
    if (!flow_walk_hoisted())
      flow_strips_choice(indent);  // the update's range may change from step to step
    const int fold = folding_;
    const std::string what = faces ? "wide strips of the block's rows, then its face cells"
                                   : "wide strips of the block's rows";
    line(indent, fold >= 0 ? "if (sc_flow_strips && !sc_fold" + std::to_string(fold) +
                                 "_on) {  // " + what + " (no fold this step)"
                           : "if (sc_flow_strips) {  // " + what);
    folding_ = -1;
    flow_rows_ = true;
    const bool no_faces = no_faces_;
    no_faces_ = true;  // no face store in the strips
    const int inner =
        open_points(self, s->range, s->indices, s->body, indent + 1, "sc_mine", nullptr, true);
    flow_rows_ = false;
    strip_points(s->body, inner, "sc_mine");
    close_points(inner, true);
    no_faces_ = no_faces;
    if (faces) {
      line(indent + 1,
           "__syncthreads();  // the block's rows are written before its face cells are read");
      line(indent + 1, "sc_face_writer.copy(" + flow_loop_.put_grid +
                           ", sc_flow_rows.lo, sc_flow_rows.hi);  // their face cells into the "
                           "neighbours' halos");
    }
    folding_ = fold;
    line(indent, "} else");  // if (strips) { strips } else { walk }
    walk(indent);
  }

  /// The reductions followed by an allreduce of their result (the global-view lowering puts one
  /// after each; only phase barriers and exchanges between: passes::allreduce_after): both become
  /// one grid_reduce(..., across_pes) (two grid barriers, not four). Filled before the kernel
  /// body is emitted.
  void find_fused_reductions(const Stmt& root);

  void reduce(const Stmt& self, int indent) override;

  /// A phase barrier: a grid barrier, or a role group's barrier (the group's blocks only); none in
  /// the dataflow loop (flow_barrier).
  void phase_barrier(const Stmt& s, int indent);

  void target_stmt(const Stmt& s, int indent) override;

  /// Global view: the pair shares its layout (the launcher checks it), so only the buffers trade
  /// places (swap_buffers: the blocks' other fields stay loop-invariant). SPMD: the user's blocks
  /// must share a layout (checked on the device), then the handles trade buffers. Every PE swaps
  /// alike.
  void swap(const Swap* s, int indent) override;

 private:
  std::string where(const Stmt& s) const { return where(s->loc); }

  /// `{e0, e1, ...}` of the expressions `v`.
  std::string box_list(const std::vector<Expr>& v);

  /// put_signal: one block of the statement's group copies the region and then sets the signal
  /// (spmd.cuh, put_signal_region: a single block, so the signal follows all of the data).
  void put_signal(const Stmt& s, int indent);

  /// A halo_send/halo_recv call (`call` without its closing parenthesis) on the blocks of `role`.
  void transfer(WorkerRole role, const std::string& call, const std::string& why, int indent);
};

}  // namespace stencilc::codegen::cuda
