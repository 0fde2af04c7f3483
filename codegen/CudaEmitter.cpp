// The CUDA target (see CudaEmitter.h). For each decomposed program it writes, inside
// `namespace stencilc_generated::sc_<program>`: the module's functions as __device__ functions,
// the kernel's arguments, the persistent kernel translated statement by statement from the IR,
// and the host launcher that moves the grids to the GPUs, launches and brings them back. An
// SPMD program gets the same kernel on its blocks (local ranges, the user's put_signal and waits
// through runtime/.../cuda/spmd.cuh) and a launcher that stencilc::spmd dispatches to.
//
// Synchronisation inside a GPU: every thread of the grid runs the scalar statements (their values
// are uniform: reductions are broadcast). In a `persistent` program the blocks synchronise exactly
// where persistent-fusion and specialize-blocks put a phase_barrier (PE-wide: a grid barrier; a
// role's: a barrier among that group's blocks). A program that did not go through those passes
// gets a grid barrier after each point update and each halo receive instead, so a statement never
// reads what another block has not finished writing, and never overwrites what another block may
// still read.
//
// Roles (specialize-blocks): the launcher evaluates the block-role cost model per GPU and passes
// `n_comm`; blocks [0, n_comm) run the role(comm) statements (transfers, boundary parts) and the
// others the role(compute) ones (inner parts); with n_comm == 0 every block runs everything.
//
// Point loops: the group's threads walk the points as one flat 32-bit index, row-major, so
// consecutive threads touch consecutive elements of the last dimension; the index is split into
// coordinates with multiply-high divisions by the box's extents (FastDiv), not divide instructions.
#include "codegen/CudaEmitter.h"

#include <algorithm>
#include <map>
#include <set>

#include "codegen/CppEmitter.h"
#include "codegen/CudaInternal.h"
#include "codegen/EmitUtil.h"
#include "ir/IRPrinter.h"
#include "passes/LoopForms.h"

namespace stencilc::codegen {

using namespace ir;
using cuda::dblock_type;
using cuda::kRt;
using cuda::RoleModelInputs;
using passes::FlowLoop;
using passes::FlowReduction;
using passes::RegsForm;
using passes::flow_reductions;
using passes::marked_flow_loop;
using passes::marked_regs_form;
using passes::stored_grids;

std::string cuda::dblock_type(const Param& p) {
  return std::string(kRt) + "DBlock<" + cpp_type(p.type) + ", " + std::to_string(p.rank) + ">";
}

namespace {

const char* reduce_op_name(ReduceOp op) {
  return op == ReduceOp::Sum ? "::stencilc::rt::ReduceOp::Sum"
         : op == ReduceOp::Max ? "::stencilc::rt::ReduceOp::Max"
                               : "::stencilc::rt::ReduceOp::Min";
}

class CudaKernelEmitter : public CppEmitter {
 public:
  CudaKernelEmitter(const Module& m, const Program& p) {
    module_ = &m;
    program_ = &p;
    for (const Param& q : p.params)
      if (q.kind == ParamKind::Grid && first_grid_.empty()) first_grid_ = q.name;
    spmd_ = p.kind == ProgramKind::Spmd;
  }

  /// The most dimensions of the wide point loops (16-byte items) of the kernel written so far (0:
  /// none): its block size follows (generated.cuh's block_threads_for).
  int wide_rank() const { return wide_rank_; }

  void kernel(const std::set<std::string>& exchanged, bool roles) {
    roles_ = roles;
    exchanged_ = exchanged;
    line(0, "// program @" + program_->name + ": every GPU runs this whole, on its own blocks");
    line(0, "__global__ void __launch_bounds__(kBlockThreads, STENCILC_MIN_BLOCKS_PER_SM)");
    line(0, "kernel(const __grid_constant__ " + std::string(kRt) + "DevicePe pe, const __grid_constant__ KernelArgs args) {");
    line(1, "const " + std::string(kRt) + "Workers sc_all{0, static_cast<int>(gridDim.x)};");
    if (roles_) {
      line(1, "// specialize-blocks' groups: blocks [0, n_comm) communicate and update the boundary parts, the");
      line(1, "// others the inner parts; with n_comm == 0 every block does everything.");
      line(1, "const int sc_n_comm = args.n_comm < static_cast<int>(gridDim.x) ? args.n_comm : 0;  // a compute block remains");
      line(1, "const " + std::string(kRt) + "Workers sc_comm = sc_n_comm > 0 ? " + kRt + "Workers{0, sc_n_comm} : sc_all;");
      line(1, "const " + std::string(kRt) + "Workers sc_compute = sc_n_comm > 0 ? " + kRt +
                  "Workers{sc_n_comm, static_cast<int>(gridDim.x) - sc_n_comm} : sc_all;");
      line(1, "[[maybe_unused]] unsigned long long sc_comm_barriers = 0, sc_compute_barriers = 0;  // group barriers passed");
    }
    if (spmd_) line(1, "[[maybe_unused]] const " + std::string(kRt) + "SpmdContext sc_cx{pe.id, pe.n};  // my_pe(), n_pes()");
    for (const Param& p : program_->params) {
      std::string t = cpp_type(p.type);
      if (p.kind == ParamKind::Grid || p.kind == ParamKind::Block)
        line(1, dblock_type(p) + " " + p.name + " = args." + p.name + ";");
      if (p.kind == ParamKind::Scalar) line(1, "const " + t + " " + p.name + " = args." + p.name + ";");
      if (p.kind == ParamKind::ScalarRef) line(1, t + " " + p.name + " = args." + p.name + ";");
    }
    for (const std::string& g : exchanged) line(1, "std::uint64_t " + g + "_epoch = 0;  // exchanges of %" + g + " so far");
    find_fused_reductions(program_->body);
    flow_loop_ = spmd_ ? FlowLoop{} : marked_flow_loop(*program_);
    flow_reductions_.clear();
    flow_reduction_list_.clear();
    for (const FlowReduction& r : flow_reductions(flow_loop_)) {
      flow_reductions_.emplace(r.reduce, static_cast<int>(flow_reductions_.size()));
      flow_reduction_list_.push_back(r);
    }
    regs_ = marked_regs_form(*program_, flow_loop_);
    body(program_->body, 1);
    if (spmd_) {
      line(1, "pe.barrier_all(\"the end of " + program_->name + "\");  // no PE still puts into a block the host copies back");
    }
    line(1, "// What the host copies back: where each grid ended (after swaps) and the results.");
    line(1, std::string("if (") + kRt + "block_rank() == 0 && " + kRt + "thread_rank() == 0) {");
    for (const Param& p : program_->params) {
      if (p.kind == ParamKind::Grid || p.kind == ParamKind::Block) line(2, "*args." + p.name + "_final = " + p.name + ";");
      if (p.kind == ParamKind::ScalarRef) line(2, "*args." + p.name + "_out = " + p.name + ";");
    }
    line(1, "}");
    line(0, "}");
    line(0, "");
  }

 protected:
  std::string first_grid_;
  bool split_ = false;  // the innermost point update is one part of a split foreach
  bool walk_ = false;   // ... its boundary part, walked as one sequence of points (BoxWalk)
  std::set<const StmtNode*> fused_reduces_, fused_allreduces_;  // find_fused_reductions()
  FlowLoop flow_loop_;    // the loop the IR marks forms(dataflow) (select-loop-forms)
  bool flow_ = false;     // emitting that loop's dataflow form
  std::map<const Reduce*, int> flow_reductions_;  // its flow_reductions, by argument index
  std::vector<FlowReduction> flow_reduction_list_;   // the same, in that order
  bool flow_rows_ = false;  // open_points: walk this block's rows of the range only (a flow reduction)
  int folding_ = -1;        // the flow reduction folded into the update being emitted (fold_into_update), or -1
  bool no_faces_ = false;   // emitting the dataflow walk of a block with no face rows (no face stores)
  RegsForm regs_;           // its register-resident form (regs_.in empty: none)
  bool in_regs_ = false;    // emitting that form's loop
  int regs_mode_ = 0;       // emitting its update (1: reads of %in from the window sc_w, the store into sc_out) or fold (2)
  std::map<const ForEach*, std::string> hoisted_walks_;  // boundary parts set up before their loop (hoist_boundary_walks)
  int loop_depth_ = 0;      // loops open around the statement being emitted
  int walks_hoisted_ = 0;   // hoist_boundary_walks' names so far
  bool batch_walk_ = false; // open_walk: the loop of a batched walk (batched_points)
  std::string batch_group_;  // ... the workers of the batched walk it opened ("": none)
  bool walk_else_ = false;   // close_points: the walk's plain loop is the else of a batched one
  bool roles_ = false;  // the program has role(...) statements: the kernel has groups
  bool spmd_ = false;   // an SC_SPMD_PROGRAM: local ranges on blocks, the user's communication
  bool defer_stores_ = false;        // inside a strip's first loop: stores go to sc_st_<grid>[sc_r]
  std::set<std::string> exchanged_;  // grids with a halo exchange (DHaloExchange args.<grid>_halo)
  std::vector<std::string> indices_;  // the point loop's user index variables
  int transfers_ = 0;   // SPMD: put_signal/wait_until statements emitted so far (which block runs one)
  int signals_ = 0;     // SPMD: signal declarations emitted so far (their slot in args.signals)

  /// Inside a point loop, grid elements are read and written through `__restrict__` pointers
  /// to the blocks' data (distinct grids are distinct allocations, and a point update reads a
  /// grid it writes only at its own point), so the compiler may keep several points' loads in
  /// flight across their stores when it unrolls the loop.
  std::set<std::string> views_;

  std::string grid_read(const GridRead* r) override {
    if (regs_mode_ == 1 && r->grid == regs_.in)  // the register-resident form's window: rows i - 1..i + 1, columns c0 - 1..
      return "sc_w[" + std::to_string(1 + r->offsets[0]) + "][sc_c + " + std::to_string(1 + r->offsets[1]) + "]";
    if (regs_mode_ == 2) return r->grid == regs_.out ? "sc_new" : "sc_old";  // regs_form: %in or %out at the point
    if (wide_r_ >= 0) return wide_read(r);
    if (!views_.count(r->grid)) return CppEmitter::grid_read(r);
    size_t n = r->offsets.size();
    std::string offset;
    for (size_t d = 0; d < n; ++d) {
      std::string coord = shifted(loop_vars_[d], r->offsets[d]);
      if (d + 1 < n) coord += " * sc_" + r->grid + "_s" + std::to_string(d);  // the last dimension is contiguous
      offset += (d ? " + " : "") + coord;
    }
    return "sc_" + r->grid + "_data[" + offset + "]";
  }

  /// A loop coordinate moved by a read's offset: `l`, `(l + 2)`, `(l - 1)`.
  static std::string shifted(const std::string& l, int o) {
    return o == 0 ? l : "(" + l + (o > 0 ? " + " : " - ") + std::to_string(std::abs(o)) + ")";
  }

  /// Declares the restrict pointers and strides of the grids `point_body` reads or writes.
  void open_views(const Stmt& point_body, int indent) {
    struct Grids : IRVisitor {
      using IRVisitor::visit;
      std::set<std::string> names;
      void visit(const GridRead* r) override { names.insert(r->grid); }
      void visit(const Store* s) override {
        names.insert(s->grid);
        IRVisitor::visit(s);
      }
    } grids;
    grids.visit(point_body);
    if (folding_ >= 0) grids.visit(flow_reduction_list_[folding_].reduce->body);  // its reads, in the same loop
    for (const std::string& g : grids.names) {
      const Param* q = program_->find_param(g);
      if (!q || (q->kind != ParamKind::Grid && q->kind != ParamKind::Block)) continue;
      const std::string t = cpp_type(q->type);
      line(indent, t + "* __restrict__ const sc_" + g + "_data = " + g + ".data;");
      line(indent, "STENCILC_GLOBAL_VIEW(sc_" + g + "_data);");
      for (int d = 0; d + 1 < q->rank; ++d)
        line(indent, "const long sc_" + g + "_s" + std::to_string(d) + " = " + g + ".stride[" + std::to_string(d) + "];");
      views_.insert(g);
    }
  }

  /// The blocks that run a statement of `role`.
  std::string group(WorkerRole role) const {
    if (!roles_ || role == WorkerRole::All) return "sc_all";
    return role == WorkerRole::Comm ? "sc_comm" : "sc_compute";
  }
  /// Opens `if (group.has_me()) {` for a role's statement; returns the body's indent.
  int open_role(WorkerRole role, int indent) {
    if (group(role) == "sc_all") return indent;
    line(indent, "if (" + group(role) + ".has_me()) {");
    return indent + 1;
  }
  void close_role(WorkerRole role, int indent) {
    if (group(role) != "sc_all") line(indent, "}");
  }
  /// A grid barrier where the program has no phase barriers of its own (not persistent).
  void conservative_barrier(int indent, const std::string& why) {
    if (!program_->persistent) line(indent, "pe.grid_barrier();  // " + why);
  }

  std::string math_function(const std::string& name) override { return name; }  // CUDA's overloads

  std::string grid_query(const GridQuery* q) override {
    if (spmd_) return block_query(q);
    if (q->op == GridQueryOp::Extent) return "args." + q->grid + "_shape.extent[" + std::to_string(q->dim) + "]";
    return "?";
  }

  /// A block's layout in an SPMD program: the handle's own (local extents), or the same symmetric
  /// block's on another PE (from the launcher's table of every PE's layout).
  std::string block_query(const GridQuery* q) {
    std::string d = std::to_string(q->dim);
    switch (q->op) {
      case GridQueryOp::Extent: return q->grid + ".extent[" + d + "]";
      case GridQueryOp::Origin: return q->grid + ".origin[" + d + "]";
      case GridQueryOp::Halo: return q->grid + ".halo_lo[" + d + "]";
      case GridQueryOp::GlobalExtent: return q->grid + ".global_extent[" + d + "]";
      case GridQueryOp::ExtentOn:
      case GridQueryOp::OriginOn:
        return std::string(kRt) + "layout_on(pe, args." + q->grid + "_on, " + expr(q->pe) + ", \"" + program_->name +
               ": block '" + q->grid + "'\")." + (q->op == GridQueryOp::ExtentOn ? "extent[" : "origin[") + d + "]";
    }
    return "?";
  }

  std::string global_range(const Range& r) {
    if (r.kind == Range::Kind::Interior) return "args." + r.grid + "_interior";
    if (r.kind == Range::Kind::Owned) return std::string(kRt) + "owned(" + r.grid + ")";
    std::vector<std::string> lo, hi;
    for (const Expr& e : r.lo) lo.push_back(expr(e));
    for (const Expr& e : r.hi) hi.push_back(expr(e));
    return std::string(kRt) + "SBox<" + std::to_string(r.rank) + ">{{" + join(lo) + "}, {" + join(hi) + "}}";
  }

  /// A loop of `group`'s threads over the GPU's part of `range`; returns the body's indent.
  /// `strip` (a point update of two or more dimensions): only the chunk's extents and views;
  /// strip_points() emits the loops. Otherwise a loop over single points; the caller emits the body.
  int open_points(const Stmt& s, const Range& range, const std::vector<std::string>& indices, const Stmt& point_body,
                  int indent, const std::string& group, const ForEach* part = nullptr, bool strip = false) {
    indices_ = indices;
    line(indent, "{");
    ++indent;
    line(indent, "const auto sc_range = " + global_range(range) + ";");
    ReadExtents reads;
    reads.visit(point_body);
    const std::string where = this->where(s->loc);
    for (const auto& [grid, ext] : reads.grids) {
      bool offsets = std::any_of(ext.first.begin(), ext.first.end(), [](int o) { return o != 0; }) ||
                     std::any_of(ext.second.begin(), ext.second.end(), [](int o) { return o != 0; });
      if (spmd_) {
        // Local indices: every read must stay inside the block and its halos (as the reference checks).
        line(indent, "{");
        line(indent + 1, "const int sc_lo[] = " + int_list(ext.first) + ", sc_hi[] = " + int_list(ext.second) + ";");
        line(indent + 1, std::string(kRt) + "check_local_reads(pe, sc_range, " + grid + ", sc_lo, sc_hi, \"" +
                             program_->name + " at " + where + " reading block '" + grid + "'\");");
        line(indent, "}");
        continue;
      }
      if (!offsets) continue;
      line(indent, "{");
      line(indent + 1, "const int sc_lo[] = " + int_list(ext.first) + ", sc_hi[] = " + int_list(ext.second) + ";");
      line(indent + 1, std::string(kRt) + "check_reads(pe, sc_range, args." + grid + "_shape.extent, args." + grid +
                           "_shape.periodic, sc_lo, sc_hi, \"" + program_->name + " at " + where + " reading '" + grid +
                           "'\");");
      line(indent, "}");
    }
    if (spmd_) {
      // SPMD ranges are local already; every point a store writes must be a cell of the block.
      for (const std::string& b : stored_blocks(point_body)) {
        line(indent, "{");
        line(indent + 1, "const int sc_lo[] = " + int_list(std::vector<int>(indices.size(), 0)) + ", sc_hi[] = " +
                             int_list(std::vector<int>(indices.size(), 0)) + ";");
        line(indent + 1, std::string(kRt) + "check_local_reads(pe, sc_range, " + b + ", sc_lo, sc_hi, \"" +
                             program_->name + " at " + where + " writing block '" + b + "'\");");
        line(indent, "}");
      }
      line(indent, "const auto sc_local = sc_range;");
    } else if (part && part == flow_loop_.update && flow_ && flow_walk_hoisted()) {
      // The dataflow loop: this block's rows of the range, all of them, walked by the block's
      // own threads; the walk was set up before the loop (flow_walk_hoisted).
      split_ = true;
      line(indent, "(void)sc_range;");
      return open_walk(indent, point_body, "sc_mine", where, "sc_flow_walk");
    } else {
      line(indent, "const auto sc_local = " + std::string(kRt) + "clip(sc_range, " + first_grid_ + ");");
    }
    size_t n = indices.size();
    split_ = part && part->part != ForEachPart::All;
    if (split_ && flow_) {
      // The dataflow loop: as above, where the range may change from step to step.
      line(indent, "const auto sc_parts = " + std::string(kRt) + "flow_rows(sc_local, sc_flow);");
      return open_walk(indent, point_body, "sc_mine", where);
    }
    if (split_) {
      if (part->part == ForEachPart::Boundary) {
        const auto hoisted = hoisted_walks_.find(part);
        if (hoisted == hoisted_walks_.end()) {
          split_parts(indent, *part, point_body);
          return open_walk(indent, point_body, group, where);
        }
        // The walk set up before the loop (hoist_boundary_walks) where generated.cuh's
        // STENCILC_HOIST_BOUNDARY_WALK reaches the part's rank, else every step.
        line(0, hoist_condition(part->indices.size()));
        line(indent, "const auto& sc_walk = " + hoisted->second + ";  // set up before the loop");
        line(indent, "(void)sc_local;");
        line(0, "#else");
        split_parts(indent, *part, point_body);
        build_walk(indent, "sc_walk", where);
        line(0, "#endif");
        return open_walk(indent, point_body, group, where, "", true);
      }
      split_parts(indent, *part, point_body);
      line(indent, "for (int sc_b = 0; sc_b < sc_parts.count; ++sc_b) {");
      ++indent;
      line(indent, "const auto& sc_box = sc_parts.box[sc_b];");
    } else {
      line(indent, flow_rows_ ? "const auto sc_box = " + std::string(kRt) + "flow_rows(sc_local, sc_flow).box[0];  // this block's rows"
                              : "const auto& sc_box = sc_local;");
    }
    // Chunks of whole slices along dimension 0 keep the flat index below 2^31 (one chunk unless
    // the block is huge); in a chunk, point p of the group's threads is row-major.
    line(indent, "const int sc_rows = " + std::string(kRt) + "rows_per_chunk(pe, sc_box, \"" + program_->name + " at " +
                     where + "\");");
    line(indent, "for (int sc_c0 = sc_box.lo[0]; sc_c0 < sc_box.hi[0]; sc_c0 += sc_rows) {");
    ++indent;
    std::vector<std::string> extents{"min(sc_rows, sc_box.hi[0] - sc_c0)"};
    line(indent, "const int sc_n0 = " + extents[0] + ";");
    for (size_t d = 1; d < n; ++d) {
      std::string dd = std::to_string(d);
      line(indent, "const int sc_n" + dd + " = sc_box.hi[" + dd + "] - sc_box.lo[" + dd + "];");
      line(indent, "const " + std::string(kRt) + "FastDiv sc_div" + dd + "(sc_n" + dd + ");");
    }
    std::vector<std::string> sizes;
    for (size_t d = 0; d < n; ++d) sizes.push_back("static_cast<unsigned>(sc_n" + std::to_string(d) + ")");
    line(indent, "const unsigned sc_points = " + join(sizes, " * ") + ";");
    open_views(point_body, indent);
    loop_vars_.assign(n, "");
    for (size_t d = 0; d < n; ++d) loop_vars_[d] = "sc_l" + std::to_string(d);
    if (strip) return indent;  // strip_points() emits the loops
    return open_point_loop(indent, group, false);
  }

  /// A split foreach's part of sc_local (split-boundary: the points within the widths of the
  /// block's faces, or the others) as sc_parts, the widths kept only at faces where an exchange
  /// acts. An SPMD part is measured from the block it stores to.
  void split_parts(int indent, const ForEach& part, const Stmt& point_body) {
    ReadExtents reads;
    reads.visit(point_body);
    const std::string faces = spmd_ ? split_reference_block(part) : first_grid_;
    std::set<std::string> touched = stored_blocks(point_body);  // the widths' two reasons: sends and receives
    for (const auto& [grid, ext] : reads.grids) touched.insert(grid);
    std::vector<std::string> sides;
    for (const std::string& g : touched)
      if (!spmd_ && exchanged_.count(g)) sides.push_back("args." + g + "_halo.faces");
    if (sides.empty()) {
      line(indent, "const int sc_wlo[] = " + int_list(part.width_lo) + ", sc_whi[] = " + int_list(part.width_hi) + ";");
    } else {  // faces where no exchange acts need no boundary part
      line(indent, "int sc_wlo[] = " + int_list(part.width_lo) + ", sc_whi[] = " + int_list(part.width_hi) + ";");
      line(indent, std::string(kRt) + "keep_exchanged_faces(sc_wlo, sc_whi, " + std::to_string(part.indices.size()) + ", " +
                       join(sides, " | ") + ");");
    }
    line(indent, "const auto sc_parts = " + std::string(kRt) + "part_boxes(sc_local, " + kRt + "inner_part(sc_local, " +
                     faces + ", sc_wlo, sc_whi), " + (part.part == ForEachPart::Boundary ? "true" : "false") + ");");
  }

  /// `name`: the BoxWalk of sc_parts, checked (open_points' `where`).
  void build_walk(int indent, const std::string& name, const std::string& where) {
    line(indent, "const " + std::string(kRt) + "BoxWalk<" + std::to_string(indices_.size()) + "> " + name + "(sc_parts);");
    check_walk(indent, name, where);
  }
  /// The run-time check that walk `name` (of the statement at `where`) fits its 32-bit index.
  void check_walk(int indent, const std::string& name, const std::string& where) {
    line(indent, std::string(kRt) + "check_walk(pe, " + name + ", \"" + program_->name + " at " + where + "\");");
  }
  /// A statement's place in the source, for run-time messages: file:line:col.
  std::string where(const SourceLoc& loc) const {
    return module_->source + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  }

  /// Before a loop's barrier form (its outermost loop): the walk of each boundary part inside it
  /// whose range is a grid's interior (the same box every step: the buffers the swaps trade have
  /// one shape, the exchanges' faces do not change), set up once where STENCILC_HOIST_BOUNDARY_WALK
  /// (generated.cuh) reaches the loop's rank: by default 1-D and 2-D (docs/BENCHMARKS.md, session
  /// 14: built every step, by every thread of the group, it took 10 us more a step of heat3d 96^3
  /// on 2 GPUs than built once, but heat3d's large sizes ran 10-16% slower hoisted). The walk
  /// lives in the block's shared memory (SharedWalk, generated.cuh), not in each thread's
  /// registers and local memory across the loop. The part's statement then reads it.
  void hoist_boundary_walks(const Stmt& loop, int indent) {
    if (spmd_ || loop_depth_ > 0) return;
    struct Parts : IRVisitor {
      using IRVisitor::visit;
      std::vector<const ForEach*> found;
      void visit(const ForEach* f) override {
        if (f->part == ForEachPart::Boundary && f->range.kind == Range::Kind::Interior) found.push_back(f);
        IRVisitor::visit(f);
      }
    } parts;
    parts.visit(loop);
    const std::string rt = kRt;
    for (const ForEach* f : parts.found) {
      const std::string name = "sc_bwalk" + std::to_string(walks_hoisted_++);
      const std::string at = where(f->loc);
      hoisted_walks_[f] = name;
      line(0, hoist_condition(f->indices.size()));
      const std::string n = std::to_string(f->indices.size());
      line(indent, "__shared__ " + rt + "SharedWalk<" + n + "> " + name + "_mem;  // the boundary part at " + at +
                       ", the same every step");
      line(indent, "const " + rt + "BoxWalk<" + n + ">& " + name + " = " + rt + "build_shared_walk(" + name + "_mem, [&] {");
      line(indent + 1, "const auto sc_local = " + rt + "clip(" + global_range(f->range) + ", " + first_grid_ + ");");
      split_parts(indent + 1, *f, f->body);
      line(indent + 1, "return sc_parts;");
      line(indent, "}());");
      check_walk(indent, name, at);
      line(0, "#endif");
    }
  }

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
  int open_walk(int indent, const Stmt& point_body, const std::string& group, const std::string& where,
                const std::string& built = "", bool declared = false) {
    const size_t n = indices_.size();
    walk_ = true;
    if (!built.empty()) {
      line(indent, "const auto& sc_walk = " + built + ";");
    } else if (!declared) {
      build_walk(indent, "sc_walk", where);
    }
    open_views(point_body, indent);
    loop_vars_.assign(n, "");
    for (size_t d = 0; d < n; ++d) loop_vars_[d] = "sc_l" + std::to_string(d);
    if (batch_walk_) {
      // batched_points() emits the body: kPointUnroll points a thread at a time, located first
      // (past the walk's end: its last point again, whose loads are safe; it is not stored);
      // where a thread has one point, or many (batch_walk()), the plain loop below instead.
      const std::string nn = std::to_string(n), r = std::string(kRt);
      batch_group_ = group;
      line(indent, "if (" + r + "batch_walk(sc_walk.total, " + group + ".threads())) {");
      ++indent;
      line(indent, "for (unsigned sc_q = " + group + ".thread(); sc_q < sc_walk.total; sc_q += " + r + "kPointUnroll * " + group +
                       ".threads()) {");
      ++indent;
      line(indent, "int sc_lk[" + r + "kPointUnroll][" + nn + "];  // the batch's points");
      line(indent, "#pragma unroll");
      line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
      line(indent + 1, "sc_walk.locate(min(sc_q + sc_r * " + group + ".threads(), sc_walk.total - 1u), sc_lk[sc_r]);");
      line(indent, "}");
      return indent;
    }
    return plain_walk_loop(indent, group);
  }

  /// A walk's loop of one point a thread at a time (open_walk's names); returns the body's indent.
  int plain_walk_loop(int indent, const std::string& group) {
    const size_t n = indices_.size();
    line(indent, std::string("#pragma unroll ") + kRt + "kPointUnroll");
    line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_walk.total; sc_p += " + group + ".threads()) {");
    ++indent;
    line(indent, "int sc_l[" + std::to_string(n) + "];");
    line(indent, "sc_walk.locate(sc_p, sc_l);");
    for (size_t d = 0; d < n; ++d) line(indent, "const int sc_l" + std::to_string(d) + " = sc_l[" + std::to_string(d) + "];");
    for (size_t d = 0; d < n; ++d) index_var(d, indent);
    return indent;
  }

  /// The grid-stride loop of `group`'s threads over a chunk's points (open_points' names), and
  /// the coordinates of its item: a point, or with `strip` the strip of rows [sc_s0, sc_e0) along
  /// dimension 0 at the item's coordinates in the others. Returns the body's indent.
  int open_point_loop(int indent, const std::string& group, bool strip) {
    const size_t n = indices_.size();
    if (strip) {
      line(indent, std::string("const unsigned sc_items = static_cast<unsigned>((sc_n0 + ") + kRt + strip_rows() + " - 1) / " +
                       kRt + strip_rows() + ") * (sc_points / static_cast<unsigned>(sc_n0));");
      line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_items; sc_p += " + group + ".threads()) {");
    } else {
      line(indent, std::string("#pragma unroll ") + kRt + "kPointUnroll");
      line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_points; sc_p += " + group + ".threads()) {");
    }
    ++indent;
    const std::string rest = split_dims("sc_p", n, indent);
    if (strip) {
      line(indent, "const int sc_s0 = sc_c0 + static_cast<int>(" + rest + ") * " + kRt + strip_rows() + ";");
      line(indent, std::string("const int sc_e0 = min(sc_s0 + ") + kRt + strip_rows() + ", sc_c0 + sc_n0);");
    } else {
      line(indent, "const int sc_l0 = sc_c0 + static_cast<int>(" + rest + ");");
    }
    for (size_t d = strip ? 1 : 0; d < n; ++d) index_var(d, indent);
    return indent;
  }

  /// The loop coordinates sc_l<d> of dimensions end - 1 down to 1 from the flat index `rest`
  /// (row-major over the chunk: open_points' sc_n<d> and sc_div<d>). Returns the quotient left,
  /// the index along dimension 0.
  std::string split_dims(std::string rest, size_t end, int indent) {
    for (size_t k = end; k-- > 1;) {
      const std::string d = std::to_string(k);
      line(indent, "const unsigned sc_q" + d + " = sc_div" + d + ".div(" + rest + ");");
      line(indent, "const int sc_l" + d + " = sc_box.lo[" + d + "] + static_cast<int>(" + rest + " - sc_q" + d + " * sc_n" + d + ");");
      rest = "sc_q" + d;
    }
    return rest;
  }

  /// A point update of two or more dimensions (open_points with `strip`): chunks at least a strip
  /// thick walk strips (strip_body), thinner ones (the one- or two-row slabs of a boundary part)
  /// walk single points, unrolled, so a thread still has several points' loads in flight.
  void strip_points(const Stmt& point_body, int indent, const std::string& group) {
    line(indent, std::string("if (sc_n0 >= ") + kRt + strip_rows() + ") {");
    int at = indent + 1;
    const int v = wide_cells(point_body);
    if (v > 1) {
      const std::string last = std::to_string(indices_.size() - 1);
      line(at, "// wide strips: columns [sc_w0, sc_w1) of the last dimension, " + std::to_string(v) + " cells at a time");
      line(at, "const int sc_w0 = " + std::string(kRt) + "round_up(sc_box.lo[" + last + "], " + std::to_string(v) + "), sc_w1 = " +
                   kRt + "round_down(sc_box.hi[" + last + "], " + std::to_string(v) + ");");
      std::vector<std::string> ok{"sc_w1 - sc_w0 >= " + std::to_string(v)};
      for (const std::string& g : views_) {
        const Param* q = program_->find_param(g);
        ok.push_back(std::string(kRt) + "wide_ok<" + std::to_string(v) + ">(sc_" + g + "_data, sc_" + g + "_s" +
                     std::to_string(q->rank - 2) + ")");
      }
      line(at, "if (" + join(ok, " && ") + ") {");
      wide_points(point_body, at + 1, group, v);
      line(at, "} else {  // unaligned or narrow: scalar strips");
      ++at;
    }
    int inner = open_point_loop(at, group, true);
    strip_body(point_body, inner);
    line(inner - 1, "}");
    if (v > 1) line(at - 1, "}");
    line(indent, "} else {  // thinner than a strip: point by point");
    inner = open_point_loop(indent + 1, group, false);
    body(point_body, inner);
    line(inner - 1, "}");
    line(indent, "}");
  }

  /// The user's index variable of dimension d at the point loop's sc_l<d>.
  void index_var(size_t d, int indent) {
    std::string dd = std::to_string(d);
    if (spmd_) {
      line(indent, "const int " + indices_[d] + " = sc_l" + dd + ";");
    } else {
      line(indent, "const int " + indices_[d] + " = " + first_grid_ + ".origin[" + dd + "] + sc_l" + dd + ";");
    }
    line(indent, "(void)" + indices_[d] + ";");
  }

  /// The points of one strip of a point update (open_points with `strip`): rows [sc_s0, sc_e0) of
  /// dimension 0 at the item's coordinates in the others. A whole strip runs unrolled: its rows'
  /// loads share the neighbours along dimension 0 and are all in flight at once. When the body
  /// only stores at the end (deferrable_stores), the whole strip's values are computed first and
  /// stored after, so no store stands between two loads (the compiler would not move a load of
  /// one row above a store of the previous one). A partial strip (the box's last) runs row by row.
  void strip_body(const Stmt& point_body, int indent) {
    const bool defer = deferrable_stores(point_body);
    line(indent, std::string("if (sc_e0 - sc_s0 == ") + kRt + strip_rows() + ") {");
    std::vector<std::string> stored;
    if (defer) {
      for (const std::string& g : stored_blocks(point_body)) {
        const Param* q = program_->find_param(g);
        line(indent + 1, std::string(cpp_type(q->type)) + " sc_st_" + g + "[" + kRt + strip_rows() + "];  // the strip's values");
        stored.push_back(g);
      }
    }
    line(indent + 1, "#pragma unroll");
    line(indent + 1, std::string("for (int sc_r = 0; sc_r < ") + kRt + strip_rows() + "; ++sc_r) {");
    line(indent + 2, "const int sc_l0 = sc_s0 + sc_r;");
    index_var(0, indent + 2);
    defer_stores_ = defer;
    body(point_body, indent + 2);
    defer_stores_ = false;
    line(indent + 1, "}");
    if (defer) {
      line(indent + 1, "#pragma unroll");
      line(indent + 1, std::string("for (int sc_r = 0; sc_r < ") + kRt + strip_rows() + "; ++sc_r) {");
      line(indent + 2, "const int sc_l0 = sc_s0 + sc_r;");
      for (const std::string& g : stored) {
        GridRead centre(ScalarType::F32, g, std::vector<int>(loop_vars_.size(), 0));
        line(indent + 2, grid_read(&centre) + " = sc_st_" + g + "[sc_r];");
      }
      line(indent + 1, "}");
    }
    line(indent, "} else {");
    line(indent + 1, "for (int sc_l0 = sc_s0; sc_l0 < sc_e0; ++sc_l0) {");
    index_var(0, indent + 2);
    body(point_body, indent + 2);
    line(indent + 1, "}");
    line(indent, "}");
  }

  /// The strip length of the current point loop (its rank's: generated.cuh).
  std::string strip_rows() const { return "kStripRows<" + std::to_string(indices_.size()) + ">"; }

  /// The rows of the current point loop's wide items (its rank's: generated.cuh's kWideRowsOf).
  std::string wide_rows() const { return std::string(kRt) + "kWideRowsOf<" + std::to_string(indices_.size()) + ">"; }

  /// The most rows of a wide strip the emitter writes out (kWideRowsOf picks up to this many).
  static constexpr int kMaxWideRows = 4;

  /// Cells per vector for a point body's wide strips (16 bytes of its widest grid type), or 1
  /// where the body must take scalar strips: a body whose stores cannot wait until the strip's
  /// end, or that reads or writes a grid of another rank than the loop's.
  int wide_cells(const Stmt& point_body) const {
    const size_t n = indices_.size();
    if (n < 2 || !deferrable_stores(point_body)) return 1;
    int bytes = 0;
    for (const std::string& g : views_) {
      const Param* q = program_->find_param(g);
      if (q->rank != static_cast<int>(n)) return 1;
      bytes = std::max(bytes, byte_size(q->type));
    }
    return bytes >= 4 && 16 % bytes == 0 ? 16 / bytes : 1;  // narrower cells: too many copies of the body
  }

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
  int wide_rank_ = 0;  // the most dimensions of the kernel's wide point loops so far (kBlockThreads)
  int wide_r_ = -1, wide_v_ = -1, wide_cells_ = 1;  // the copy of the body being written

  WideRow* find_wide_row(const std::string& grid, int d0, const std::vector<int>& mids) {
    for (WideRow& w : wide_rows_)
      if (w.grid == grid && w.d0 == d0 && w.mids == mids) return &w;
    return nullptr;
  }

  /// A read in a wide strip's copy of the body: the register that holds it.
  std::string wide_read(const GridRead* r) {
    const size_t n = r->offsets.size();
    std::vector<int> mids(r->offsets.begin() + 1, r->offsets.end() - 1);
    const WideRow* w = find_wide_row(r->grid, r->offsets[0] + wide_r_, mids);
    const int pos = wide_v_ + r->offsets[n - 1];
    if (pos >= 0 && pos < wide_cells_) return w->name + ".v[" + std::to_string(pos) + "]";
    return w->name + (pos < 0 ? "_m" + std::to_string(-pos) : "_p" + std::to_string(pos));
  }

  /// The address of cell `col` (an expression) of a row of grid `g`: strip row `row` (an
  /// expression), the leading dimensions at the loop's indices plus `mids`.
  std::string wide_address(const std::string& g, const std::string& row, const std::vector<int>& mids,
                           const std::string& col) {
    std::string a = "sc_" + g + "_data + " + row + " * sc_" + g + "_s0";
    for (size_t k = 0; k < mids.size(); ++k) {
      const std::string d = std::to_string(k + 1);
      a += " + " + shifted("sc_l" + d, mids[k]) + " * sc_" + g + "_s" + d;
    }
    return a + " + " + col;
  }

  /// Wide strips (the chunk's columns [sc_w0, sc_w1) of the last dimension, open_points' names):
  /// an item is kWideRows rows x v columns; the loads of its rows are issued first, v cells at a
  /// time (a 16-byte load per row and grid; the side neighbours one by one), the body is written
  /// out for every point of the item on those registers, and the values are stored v at a time.
  /// The strip's last, partial item runs row by row, and the columns outside [sc_w0, sc_w1)
  /// (fewer than v at each end) run point by point, in a pass after the wide items.
  void wide_points(const Stmt& point_body, int indent, const std::string& group, int v) {
    const std::string L = std::to_string(indices_.size() - 1), V = std::to_string(v), R = wide_rows();
    wide_rank_ = std::max(wide_rank_, static_cast<int>(indices_.size()));
    collect_wide_rows(point_body);
    line(indent, "const unsigned sc_nv = static_cast<unsigned>((sc_w1 - sc_w0) / " + V + ");");
    line(indent, "const " + std::string(kRt) + "FastDiv sc_divv(sc_nv);");
    line(indent, "const unsigned sc_items = static_cast<unsigned>((sc_n0 + " + R + " - 1) / " + R +
                     ") * (sc_points / static_cast<unsigned>(sc_n0) / static_cast<unsigned>(sc_n" + L + ")) * sc_nv;");
    side_setup(indent);
    line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_items; sc_p += " + group + ".threads()) {");
    const int in = indent + 1;
    line(in, "const unsigned sc_qv = sc_divv.div(sc_p);");
    line(in, "const int sc_wl = sc_w0 + static_cast<int>(sc_p - sc_qv * sc_nv) * " + V + ";");
    const std::string rest = split_dims("sc_qv", indices_.size() - 1, in);
    for (size_t d = 1; d + 1 < indices_.size(); ++d) index_var(d, in);
    line(in, "const int sc_s0 = sc_c0 + static_cast<int>(" + rest + ") * " + R + ";");
    line(in, "const int sc_e0 = min(sc_s0 + " + R + ", sc_c0 + sc_n0);");
    line(in, "if (sc_e0 - sc_s0 == " + R + ") {");
    wide_loads(in + 1, v);
    wide_item(point_body, in + 1, v);
    line(in, "} else {  // the strip's last, partial item: row by row");
    line(in + 1, "for (int sc_l0 = sc_s0; sc_l0 < sc_e0; ++sc_l0) {");
    index_var(0, in + 2);
    for (int c = 0; c < v; ++c) {
      line(in + 2, "{");
      line(in + 3, "const int sc_l" + L + " = sc_wl + " + std::to_string(c) + ";");
      index_var(indices_.size() - 1, in + 3);
      body(point_body, in + 3);
      line(in + 2, "}");
    }
    line(in + 1, "}");
    line(in, "}");
    line(indent, "}");
    line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_side_points; sc_p += " + group + ".threads()) {  // the side points");
    side_point(point_body, indent + 1, "sc_p");
    line(indent, "}");
  }

  /// The rows a wide item's copies of the body read (wide_rows_), for up to kMaxWideRows rows.
  void collect_wide_rows(const Stmt& point_body, int rows = kMaxWideRows) {
    struct Reads : IRVisitor {
      using IRVisitor::visit;
      std::vector<const GridRead*> reads;
      void visit(const GridRead* r) override { reads.push_back(r); }
    } reads;
    reads.visit(point_body);
    wide_rows_.clear();
    for (int r = 0; r < rows; ++r) {
      for (const GridRead* g : reads.reads) {
        std::vector<int> mids(g->offsets.begin() + 1, g->offsets.end() - 1);
        WideRow* w = find_wide_row(g->grid, g->offsets[0] + r, mids);
        if (!w) {
          wide_rows_.push_back(WideRow{g->grid, g->offsets[0] + r, mids, {}, r,
                                       "sc_v" + std::to_string(wide_rows_.size())});
          w = &wide_rows_.back();
        }
        w->last.insert(g->offsets.back());
      }
    }
  }

  /// A wide item's loads: per row, its v cells as one vector and the side cells its reads reach
  /// one by one; a row that only copies past kWideRows read is not loaded.
  void wide_loads(int indent, int v) {
    const std::string V = std::to_string(v), R = wide_rows();
    for (const WideRow& w : wide_rows_) {
      const std::string t = cpp_type(program_->find_param(w.grid)->type);
      const std::string at = wide_address(w.grid, "(sc_s0 + " + std::to_string(w.d0) + ")", w.mids, "sc_wl");
      const std::string when = R + " > " + std::to_string(w.first_r);
      line(indent, "const " + std::string(kRt) + "Vec<" + t + ", " + V + "> " + w.name + " = " + when + " ? " + kRt +
                       "load_vec<" + V + ">(" + at + ") : " + kRt + "Vec<" + t + ", " + V + ">{};");
      for (const auto& [pos, name] : wide_sides(w, v))
        line(indent, "const " + t + " " + name + " = " + when + " ? (" + at + ")[" + std::to_string(pos) + "] : " + t + "{};");
    }
  }

  /// The cells of a wide row its reads reach outside its v-cell vector, one by one: each one's
  /// position (relative to the vector's first cell) and register (wide_read's names).
  static std::vector<std::pair<int, std::string>> wide_sides(const WideRow& w, int v) {
    std::set<int> sides;
    for (int o : w.last)
      for (int c = 0; c < v; ++c)
        if (c + o < 0 || c + o >= v) sides.insert(c + o);
    std::vector<std::pair<int, std::string>> out;
    for (int pos : sides) out.emplace_back(pos, w.name + (pos < 0 ? "_m" + std::to_string(-pos) : "_p" + std::to_string(pos)));
    return out;
  }

  /// A whole wide item after its loads: the body per point on the registers (wide_read), then
  /// each row's values stored v cells at a time.
  void wide_item(const Stmt& point_body, int indent, int v) {
    const size_t n = indices_.size(), last = n - 1;
    const std::string L = std::to_string(last), V = std::to_string(v), R = wide_rows();
    const std::set<std::string> stored = stored_blocks(point_body);
    for (const std::string& g : stored) {
      line(indent, std::string(cpp_type(program_->find_param(g)->type)) + " sc_st_" + g + "[" +
                       std::to_string(kMaxWideRows) + "][" + V + "];  // the item's values");
    }
    wide_cells_ = v;
    for (int r = 0; r < kMaxWideRows; ++r) {
      line(indent, "if constexpr (" + R + " > " + std::to_string(r) + ") {");
      for (int c = 0; c < v; ++c) {
        line(indent + 1, "{");
        line(indent + 2, "const int sc_l0 = sc_s0 + " + std::to_string(r) + ";");
        index_var(0, indent + 2);
        line(indent + 2, "const int sc_l" + L + " = sc_wl + " + std::to_string(c) + ";");
        index_var(last, indent + 2);
        wide_r_ = r;
        wide_v_ = c;
        body(point_body, indent + 2);
        wide_r_ = wide_v_ = -1;
        line(indent + 1, "}");
      }
      for (const std::string& g : stored) {
        std::vector<std::string> cells;
        for (int c = 0; c < v; ++c) cells.push_back("sc_st_" + g + "[" + std::to_string(r) + "][" + std::to_string(c) + "]");
        const std::string row = "(sc_s0 + " + std::to_string(r) + ")";
        const std::string value = std::string(kRt) + "Vec<" + cpp_type(program_->find_param(g)->type) + ", " + V + ">{{" +
                                  join(cells) + "}}";
        line(indent + 1, std::string(kRt) + "store_vec<" + V + ">(" + wide_address(g, row, std::vector<int>(n - 2, 0), "sc_wl") +
                             ", " + value + ");");
      }
      line(indent, "}");
    }
    wide_cells_ = 1;
  }

  /// The points of the chunk's columns outside the wide part [sc_w0, sc_w1) (fewer than v at each
  /// end of every row, walked point by point): how many, and their divisor.
  void side_setup(int indent) {
    const size_t n = indices_.size();
    const std::string L = std::to_string(n - 1);
    line(indent, "const int sc_side_lo = sc_w0 - sc_box.lo[" + L + "], sc_sides = sc_side_lo + (sc_box.hi[" + L + "] - sc_w1);");
    line(indent, "const " + std::string(kRt) + "FastDiv sc_divs(static_cast<unsigned>(sc_sides > 0 ? sc_sides : 1));");
    line(indent, "const unsigned sc_side_points = sc_sides > 0 ? sc_points / static_cast<unsigned>(sc_n" + L +
                     ") * static_cast<unsigned>(sc_sides) : 0u;");
  }

  /// Side point number `index` (side_setup's names): its coordinates, then the body.
  void side_point(const Stmt& point_body, int indent, const std::string& index) {
    const size_t n = indices_.size();
    const std::string L = std::to_string(n - 1);
    line(indent, "const unsigned sc_ps = " + index + ";");
    line(indent, "const unsigned sc_qs = sc_divs.div(sc_ps);");
    line(indent, "const int sc_side = static_cast<int>(sc_ps - sc_qs * static_cast<unsigned>(sc_sides));");
    line(indent, "const int sc_l" + L + " = sc_side < sc_side_lo ? sc_box.lo[" + L + "] + sc_side : sc_w1 + (sc_side - sc_side_lo);");
    const std::string rest = split_dims("sc_qs", n - 1, indent);
    line(indent, "const int sc_l0 = sc_c0 + static_cast<int>(" + rest + ");");
    for (size_t d = 0; d < n; ++d) index_var(d, indent);
    body(point_body, indent);
  }

  /// Whether a point body's stores can wait until the end of its strip: each store is a
  /// statement of the body itself (none under a condition or in a loop), no grid is stored
  /// twice, and the body reads no grid it stores (a read of the point just stored would see the
  /// old value).
  static bool deferrable_stores(const Stmt& point_body) {
    auto* block = point_body->kind == StmtKind::Block ? as<Block>(point_body) : nullptr;
    std::set<std::string> top;
    if (block) {
      for (const Stmt& st : block->stmts) {
        if (st->kind == StmtKind::Store && !top.insert(as<Store>(st)->grid).second) return false;
      }
    } else if (point_body->kind == StmtKind::Store) {
      top.insert(as<Store>(point_body)->grid);
    }
    struct Uses : IRVisitor {
      using IRVisitor::visit;
      std::set<std::string> read;
      int stores = 0;
      void visit(const GridRead* r) override { read.insert(r->grid); }
      void visit(const Store* s) override {
        ++stores;
        IRVisitor::visit(s);
      }
    } uses;
    uses.visit(point_body);
    if (uses.stores != static_cast<int>(top.size())) return false;  // a store under a condition or loop
    for (const std::string& g : top)
      if (uses.read.count(g)) return false;
    return true;
  }

  using CppEmitter::loop;
  /// The dataflow loop twice: the form of flow.cuh where the launcher turned it on (each block
  /// walks its own rows, waits for its neighbours' previous step, publishes its own, no barrier),
  /// else the loop as the passes left it (barrier_all after each update).
  void loop(const Stmt& s, int indent) override {
    if (s.get() != flow_loop_.loop) return barrier_loop(s, indent);
    const std::string rt = kRt;
    line(indent, "{  // the dataflow schedule where the launcher turned it on (flow.cuh), else barrier_all each step");
    line(indent + 1, "const " + rt + "DFlow<" + rt + "DevicePe> sc_flow(pe, args.sc_flow, " + first_grid_ + ".extent[0], " +
                         std::to_string(flow_loop_.radius) + ", args.sc_flow_up, args.sc_flow_down);");
    line(indent + 1, "if (args.sc_flow_on) {");
    if (const std::string& x = flow_loop_.exchanged; !x.empty()) {
      // The halos of the first step; after it each step's face stores bring the next step's.
      line(indent + 2, "pe.grid_barrier();  // %" + x + "'s cells are written before they are sent");
      line(indent + 2, "++" + x + "_epoch;");
      line(indent + 2, "args." + x + "_halo.send(pe, " + x + ", " + x + "_epoch);");
      line(indent + 2, "args." + x + "_halo.recv(pe, " + x + ", " + x + "_epoch);");
      line(indent + 2, "pe.barrier_all(\"the dataflow loop's first halos\");  // and no PE puts into a halo its recv still unpacks");
    }
    line(indent + 2, "const " + rt + "Workers sc_mine{static_cast<int>(blockIdx.x), 1};  // a block walks its own rows");
    line(indent + 2, "const unsigned sc_faces = args." + flow_loop_.put_handle +
                         "_halo.channels_of_rows(sc_flow.row_begin(), sc_flow.row_end());  // the channels its rows feed (none: no face rows)");
    if (!flow_loop_.put_grid.empty()) {
      // Those channels staged in shared memory once (FaceWriter, halo.cuh): the walk's face
      // stores read no plan from global memory.
      stage_face_writer(indent + 2, "sc_face_writer", "sc_face_channels", flow_loop_.put_handle, flow_loop_.put_grid,
                        "sc_faces", "sc_faces' channels, staged");
    }
    if (flow_strips_possible() && flow_walk_hoisted()) flow_strips_choice(indent + 2);  // the same every step
    if (flow_walk_hoisted()) {
      const ForEach* u = flow_loop_.update;
      line(indent + 2, "const " + rt + "BoxWalk<" + std::to_string(u->indices.size()) + "> sc_flow_walk(" + rt + "flow_rows(" + rt +
                           "clip(" + global_range(u->range) + ", " + first_grid_ + "), sc_flow));  // its rows of the update, the same every step");
      check_walk(indent + 2, "sc_flow_walk", where(u->loc));
    }
    if (!flow_reductions_.empty()) {
      // The reductions of the step, with no barrier (DFlowReduce): each PE's block count first.
      for (size_t k = 0; k < flow_reductions_.size(); ++k) {
        const std::string r = "sc_red" + std::to_string(k);
        line(indent + 2, rt + "DFlowReduce<" + rt + "DevicePe> " + r + "(pe, args.sc_flow_red" + std::to_string(k) + ");");
        line(indent + 2, r + ".setup();");
      }
      line(indent + 2, "pe.barrier_all(\"the dataflow loop's reductions\");  // every PE's block count is in place");
    }
    line(indent + 2, "std::uint64_t sc_step = 0;  // steps done");
    const bool regs = !regs_.in.empty();
    int at = indent + 2;
    if (regs) {
      regs_loop(s, at);
      line(at, "if (!sc_regs_done) {  // the loop from global memory");
      ++at;
    }
    const std::vector<std::string> prologue{"if (sc_step > 0) sc_flow.wait(sc_step);  // the neighbours' rows of the step before",
                                            "++sc_step;"};
    flow_ = true;
    ++loop_depth_;
    CppEmitter::loop(s, at, prologue);
    --loop_depth_;
    flow_ = false;
    if (regs) line(indent + 2, "}");
    for (size_t k = 0; k < flow_reduction_list_.size(); ++k) {
      // A deferred reduction's last execution, and the assignments after it on its value.
      const FlowReduction& d = flow_reduction_list_[k];
      if (!d.deferred) continue;
      const std::string r = "sc_red" + std::to_string(k), t = cpp_type(d.reduce->type);
      line(indent + 2, "if (" + r + ".pending()) {  // the last execution of %" + d.reduce->result + ", and what follows it in the loop");
      line(indent + 3, t + " " + d.reduce->result + " = " + r + ".complete<" + t + ">(" + reduce_op_name(d.reduce->op) + ");");
      for (const Stmt& a : d.tail) body(a, indent + 3);
      line(indent + 2, "}");
    }
    line(indent + 2, "sc_flow.finish(sc_step);  // barrier_all: every block of every PE is done");
    for (size_t k = 0; k < flow_reductions_.size(); ++k) line(indent + 2, "sc_red" + std::to_string(k) + ".finish();");
    line(indent + 1, "} else {");
    barrier_loop(s, indent + 2);
    line(indent + 1, "}");
    line(indent, "}");
  }

  /// The dataflow loop's register-resident form (regs.cuh) where the launcher planned it
  /// (args.sc_regs: compiled::regs_plan) and its contract holds on every block of every PE (a
  /// grid_reduce): each block's band of %in in registers (RegsBand), a step of it where the loop's
  /// update was (regs_step), the rest of the step as the dataflow form has it, the band into the
  /// grid the last step wrote after the loop. sc_regs_done: it ran the loop.
  void regs_loop(const Stmt& s, int indent) {
    const std::string rt = kRt, t = cpp_type(regs_.type);
    const auto* f = as<For>(s);  // regs_form: a for
    line(indent, "bool sc_regs_done = false;  // the register-resident form ran the loop");
    line(indent, "if (args.sc_regs.blocks > 0) {  // the register-resident form (regs.cuh), where the launcher planned it");
    line(indent + 1, "extern __shared__ __align__(16) unsigned char sc_regs_smem[];  // its side columns and fixed rows (compiled::regs_plan sized it)");
    line(indent + 1, rt + "RegsBand<" + rt + "kRegsVec, " + rt + "kRegsRows, " + t + ", " + rt + "DevicePe> sc_band(pe, args.sc_regs, " +
                         regs_.in + ", " + regs_.out + ", sc_regs_smem, \"" + program_->name + " at " + where(s) + "\");  // this block's rows of %" +
                         regs_.in + " in registers");
    line(indent + 1, "// The form's contract on every block of every PE (the cells the update does not write the same in both grids), else the loop from global memory.");
    line(indent + 1, "if (" + rt + "grid_reduce(pe, sc_band.contract_holds() ? 0 : 1, ::stencilc::rt::ReduceOp::Max, args.scratch, true) == 0) {");
    line(indent + 2, "const int sc_o0 = " + regs_.in + ".origin[0], sc_o1 = " + regs_.in + ".origin[1];  // local (0, 0)'s global index (both grids')");
    line(indent + 2, "[[maybe_unused]] int sc_regs_no_fold = 0;  // the accumulator of a step with no folded reduction");
    const std::vector<std::string> prologue{"++sc_step;", "const bool sc_regs_last = " + f->var + " + " + std::to_string(f->step) + " >= sc_end_" +
                                                              f->var + ";  // the loop's last step: the band's values before it go to the grid it reads"};
    in_regs_ = true;
    flow_ = true;
    ++loop_depth_;
    CppEmitter::loop(s, indent + 2, prologue);
    --loop_depth_;
    flow_ = false;
    in_regs_ = false;
    line(indent + 2, "sc_band.finish(" + regs_.in + ");  // the last step's values: each step's swap made %" + regs_.in + " the grid it wrote");
    line(indent + 2, "sc_regs_done = true;");
    line(indent + 1, "} else if (pe.id == 0 && blockIdx.x == 0 && threadIdx.x == 0) {");
    line(indent + 2, "printf(\"stencilc: " + program_->name + ": the register-resident form's contract does not hold (cells the update does not "
                         "write differ between %%" + regs_.in + " and %%" + regs_.out + "): the loop runs from global memory\\n\");");
    line(indent + 1, "}");
    line(indent, "}");
  }

  /// The register-resident form's step, where the loop's update is: RegsBand::step with the update
  /// as a function of the window of %in around a thread's cell (sc_w) and, where a reduction is
  /// folded into the update, its value at a cell from the cell's values after and before the step.
  void regs_step(const ForEach& u, int indent) {
    const std::string rt = kRt, t = cpp_type(regs_.type);
    const std::string i = u.indices[0], j = u.indices[1];
    line(indent, "sc_band.step(  // the band's edge rows to its neighbours, theirs in, the update in registers");
    line(indent + 1, "[&](const " + t + " (&sc_w)[3][" + rt + "kRegsVec + 2], int sc_c, int sc_li, int sc_lj) -> " + t + " {");
    line(indent + 2, "const int " + i + " = sc_o0 + sc_li, " + j + " = sc_o1 + sc_lj;");
    line(indent + 2, "(void)" + i + ", (void)" + j + ", (void)sc_c;");
    line(indent + 2, t + " sc_out{};  // what the update stores at the point");
    regs_mode_ = 1;
    body(u.body, indent + 2);
    regs_mode_ = 0;
    line(indent + 2, "return sc_out;");
    line(indent + 1, "},");
    if (folding_ < 0) {
      line(indent + 1, rt + "RegsNoFold{}, sc_regs_no_fold, false, " + regs_.in + ", sc_regs_last);");
      return;
    }
    const Reduce* r = flow_reduction_list_[folding_].reduce;
    const std::string k = std::to_string(folding_);
    line(indent + 1, std::string("[&](") + cpp_type(r->type) + "& sc_acc, " + t + " sc_new, " + t + " sc_old, int sc_li, int sc_lj) {  // %" + r->result +
                         " at the point");
    line(indent + 2, "const int " + r->indices[0] + " = sc_o0 + sc_li, " + r->indices[1] + " = sc_o1 + sc_lj;");
    line(indent + 2, "(void)" + r->indices[0] + ", (void)" + r->indices[1] + ";");
    regs_mode_ = 2;
    reduce_point(r, "sc_acc", indent + 2);
    regs_mode_ = 0;
    line(indent + 1, "},");
    line(indent + 1, "sc_fold" + k + ", sc_fold" + k + "_on, " + regs_.in + ", sc_regs_last);");
  }

  /// A loop as the passes left it (its barriers), its boundary walks set up before it where
  /// they may be (hoist_boundary_walks).
  void barrier_loop(const Stmt& s, int indent) {
    hoist_boundary_walks(s, indent);
    ++loop_depth_;
    CppEmitter::loop(s, indent, {});
    --loop_depth_;
  }

  /// Whether the dataflow form sets up its walk of the update once, before the loop: where the
  /// update's range is a grid's interior (its box cannot change from step to step; the buffers
  /// the swaps trade have one shape).
  bool flow_walk_hoisted() const {
    return flow_loop_.update && flow_loop_.update->range.kind == Range::Kind::Interior;
  }

  /// Whether the dataflow loop's update may walk in strips (flow_strips): a 2-D one (3-D strips
  /// spill and measured slower, docs/BENCHMARKS.md sessions 16 and 21).
  bool flow_strips_possible() const { return flow_loop_.update && flow_loop_.update->indices.size() == 2; }

  /// flow_strips' box and choice: the block's rows of the update (sc_flow_rows; the face copy's
  /// box too) and whether they are walked in strips (sc_flow_strips: at least
  /// STENCILC_FLOW_STRIP_MIN_POINTS points a thread, flow_strips_pay).
  void flow_strips_choice(int indent) {
    const std::string rt = kRt;
    line(indent, "const auto sc_flow_rows = " + rt + "flow_rows(" + rt + "clip(" + global_range(flow_loop_.update->range) + ", " +
                     first_grid_ + "), sc_flow).box[0];  // the block's rows of the update");
    line(indent, "const bool sc_flow_strips = " + rt + "flow_strips_pay(sc_flow_rows);  // its rows in strips");
  }

  /// A barrier in the dataflow loop's step: none (DFlow's wait and publish take their place).
  void flow_barrier(const Stmt& s, int indent) {
    comment(indent, s);
    line(indent, "// (the dataflow loop: no barrier; the neighbours' flags instead)");
  }

  void store(const Store* s, int indent) override {
    if (regs_mode_ == 1) {  // the register-resident form's update: its value, which the band keeps
      line(indent, "sc_out = " + expr(s->value) + ";");
      return;
    }
    if (defer_stores_) {  // a strip's or a batch's values (their own stores come after)
      line(indent, "sc_st_" + s->grid + "[sc_r] = " + expr(s->value) + ";");
      return;
    }
    if (flow_ && walk_ && s->grid == flow_loop_.put_grid && !no_faces_) {
      // The dataflow loop: also into the neighbours' halos that hold the cell, only where the
      // block's rows feed a channel (sc_faces); publish() releases them.
      return store_forwarded(s, indent, put_forwards(s->grid));
    }
    if (wide_r_ >= 0) {
      line(indent, "sc_st_" + s->grid + "[" + std::to_string(wide_r_) + "][" + std::to_string(wide_v_) + "] = " + expr(s->value) + ";");
      return;
    }
    CppEmitter::store(s, indent);
  }

  /// A FaceWriter `writer` of the channels `mask` of grid `handle`'s exchange, for stores into
  /// `block`, staged in the shared array `channels` (every thread: a __syncthreads inside).
  void stage_face_writer(int indent, const std::string& writer, const std::string& channels, const std::string& handle,
                         const std::string& block, const std::string& mask, const std::string& comment) {
    const std::string rt = kRt;
    line(indent, "__shared__ " + rt + "FaceChannel " + channels + "[" + rt + "kMaxFaceChannels];");
    line(indent, "const auto " + writer + " = " + rt + "face_writer(pe, args." + handle + "_halo, " + block + ", " + mask + ", " +
                     channels + ");  // " + comment);
  }

  /// A store of a boundary walk's point (sc_l) whose value also goes elsewhere: the value, into
  /// the cell, then `forward` (a statement that reads it as sc_through).
  void store_forwarded(const Store* s, int indent, const std::vector<std::string>& forward) {
    forward_value(s->grid, expr(s->value), indent, forward);
  }
  /// The same for a value already computed (`value`, C++), into `grid`'s cell at the point;
  /// `before`: a line to emit first in the block (batched_points: the point's sc_l).
  void forward_value(const std::string& grid, const std::string& value, int indent, const std::vector<std::string>& forward,
                     const std::string& before = "") {
    GridRead centre(ScalarType::F32, grid, std::vector<int>(loop_vars_.size(), 0));
    line(indent, "{");
    if (!before.empty()) line(indent + 1, before);
    line(indent + 1, "const auto sc_through = " + value + ";");
    line(indent + 1, grid_read(&centre) + " = sc_through;");
    for (const std::string& f : forward) line(indent + 1, f);
    line(indent, "}");
  }
  /// Where the dataflow loop's update also stores the written grid's point (sc_through): the
  /// face stores of a block whose rows feed a channel.
  std::vector<std::string> put_forwards(const std::string& grid) {
    std::vector<std::string> out;
    if (!no_faces_) out.push_back(face_stores(grid));
    return out;
  }
  /// The dataflow loop's face stores of the point's value (sc_through), as store() forwards
  /// them: through the block's FaceWriter (the channels its rows feed, staged before the loop).
  std::string face_stores(const std::string& grid) const {
    return "sc_face_writer.store(" + grid + ", sc_l, sc_through);  // into the neighbours' halos of this buffer (the staged channels)";
  }

  void close_points(int indent, bool strip = false) {
    if (!strip) line(--indent, "}");  // points (strip_points closes its own)
    if (walk_else_) line(--indent, "}");  // a batched walk's plain loop's else
    walk_else_ = false;
    if (!walk_) {
      line(--indent, "}");  // chunks
      if (split_) line(--indent, "}");
    }
    split_ = walk_ = false;
    line(--indent, "}");
    loop_vars_.clear();
    views_.clear();
  }

  /// The body of a batched walk (open_walk with batch_walk_): the values of the batch's points
  /// first (every load of kPointUnroll points in flight together: no store stands between them,
  /// and no exit of an unrolled loop), then their stores, the face stores and the folded
  /// reduction, for the points before the walk's end. One point at a time, a thread waited a
  /// load round trip per point (the face stores go through a pointer that may alias the grids, and
  /// each unrolled iteration may leave the loop). Then the plain loop, for the walks batch_walk()
  /// leaves to it. Needs deferrable_stores. Returns the plain loop body's indent (close_points).
  int batched_points(const ForEach& u, int indent) {
    const std::string group = std::move(batch_group_);
    batch_group_.clear();
    const size_t n = indices_.size();
    const std::string r = std::string(kRt);
    std::vector<std::string> stored;
    for (const std::string& g : stored_blocks(u.body)) {
      const Param* q = program_->find_param(g);
      line(indent, std::string(cpp_type(q->type)) + " sc_st_" + g + "[" + r + "kPointUnroll];  // the batch's values");
      stored.push_back(g);
    }
    auto point = [&](int at) {
      for (size_t d = 0; d < n; ++d) line(at, "const int sc_l" + std::to_string(d) + " = sc_lk[sc_r][" + std::to_string(d) + "];");
      for (size_t d = 0; d < n; ++d) index_var(d, at);
    };
    line(indent, "#pragma unroll");
    line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
    point(indent + 1);
    defer_stores_ = true;
    body(u.body, indent + 1);
    defer_stores_ = false;
    line(indent, "}");
    line(indent, "#pragma unroll");
    line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
    line(indent + 1, "if (sc_q + sc_r * " + group + ".threads() >= sc_walk.total) break;");
    point(indent + 1);
    for (const std::string& g : stored) {
      if (g == flow_loop_.put_grid && !no_faces_) {
        std::vector<std::string> l;
        for (size_t d = 0; d < n; ++d) l.push_back("sc_l" + std::to_string(d));
        forward_value(g, "sc_st_" + g + "[sc_r]", indent + 1, put_forwards(g),
                      no_faces_ ? "" : "const int sc_l[] = {" + join(l) + "};");
      } else {
        GridRead centre(ScalarType::F32, g, std::vector<int>(n, 0));
        line(indent + 1, grid_read(&centre) + " = sc_st_" + g + "[sc_r];");
      }
    }
    if (folding_ >= 0) fold_point(u, indent + 1);
    line(indent, "}");
    line(indent - 1, "}");  // the batches
    line(indent - 2, "} else {  // one point a thread, or many: one at a time");
    const int inner = plain_walk_loop(indent - 1, group);
    body(u.body, inner);
    if (folding_ >= 0) fold_point(u, inner);
    walk_else_ = true;  // close_points closes the else too
    return inner;
  }

  /// A reduction's value at the point (its body), combined into `acc`.
  void reduce_point(const Reduce* r, const std::string& acc, int indent) {
    const std::string t = cpp_type(r->type);
    line(indent, "const " + t + " sc_value = [&]() -> " + t + " {");
    body(r->body, indent + 1);
    line(indent, "}();");
    line(indent, reduce_combine(r->op, acc, "sc_value"));
  }

  /// A flow reduction folded into the update (fold_into_update), before the update's walk: each
  /// thread's partial value, and whether this step computes it.
  void open_fold(int indent) {
    const FlowReduction& f = flow_reduction_list_[folding_];
    const std::string k = std::to_string(folding_), t = cpp_type(f.reduce->type);
    line(indent, t + " sc_fold" + k + " = " + reduce_identity(f.reduce->op, f.reduce->type) + ";  // %" + f.reduce->result +
                     ", folded into the update's walk: this thread's points");
    line(indent, "const bool sc_fold" + k + "_on = " + (f.when ? expr(f.when) : std::string("true")) + ";  // this step computes it");
  }

  /// In the update's point loop, after the point's store: the folded reduction's value of the
  /// point, added to the thread's partial (its indices named as the reduction names them).
  void fold_point(const ForEach& u, int indent) {
    const FlowReduction& f = flow_reduction_list_[folding_];
    const Reduce* r = f.reduce;
    const std::string k = std::to_string(folding_);
    line(indent, "if (sc_fold" + k + "_on) {  // %" + r->result + " at this point");
    for (size_t d = 0; d < r->indices.size(); ++d)
      if (r->indices[d] != u.indices[d]) line(indent + 1, "const int " + r->indices[d] + " = " + u.indices[d] + ";");
    reduce_point(r, "sc_fold" + k, indent + 1);
    line(indent, "}");
  }

  void for_each(const Stmt& self, int indent) override {
    auto* s = as<ForEach>(self);
    comment(indent, self);
    if (flow_ && s->part == ForEachPart::Inner) {
      line(indent, "// (the dataflow loop: the boundary part below walks all of the block's rows)");
      return;
    }
    int in_role = flow_ ? indent : open_role(s->role, indent);  // the dataflow loop has no groups
    const bool strip = s->indices.size() >= 2 && s->part != ForEachPart::Boundary;  // boundaries: one walk
    folding_ = -1;
    for (size_t k = 0; flow_ && s == flow_loop_.update && k < flow_reduction_list_.size(); ++k)
      if (flow_reduction_list_[k].folded) folding_ = static_cast<int>(k);
    if (folding_ >= 0) open_fold(in_role);
    if (in_regs_ && s == flow_loop_.update) {  // the register-resident form: the step on the band
      regs_step(*s, in_role);
      folding_ = -1;
      return;
    }
    // The dataflow loop's walk in batches of points (batched_points) where its stores allow.
    const bool batched = flow_ && !strip && deferrable_stores(s->body);
    auto points = [&](int at) {
      batch_walk_ = batched;
      int inner = open_points(self, s->range, s->indices, s->body, at, group(s->role), s, strip);
      batch_walk_ = false;
      if (strip) {
        strip_points(s->body, inner, group(s->role));
      } else if (!batch_group_.empty()) {  // open_walk opened a batched walk
        inner = batched_points(*s, inner);
      } else {
        body(s->body, inner);
        if (folding_ >= 0) fold_point(*s, inner);
      }
      close_points(inner, strip);
    };
    if (flow_ && !strip) {
      // The dataflow loop's walk, twice: its face stores (FaceWriter) go through a pointer that may
      // alias the grids, so where they are emitted the compiler keeps each point's loads behind
      // the point before's stores (one round trip a point). Most blocks have no face rows.
      line(in_role, "if (sc_faces == 0) {  // no face rows: no face stores, so a point's loads may pass the stores before");
      no_faces_ = true;
      if (s == flow_loop_.update && flow_strips_possible()) {
        flow_strips(self, in_role + 1, points);
      } else {
        points(in_role + 1);
      }
      no_faces_ = false;
      line(in_role, "} else {");
      if (s == flow_loop_.update && flow_strips_possible() && !flow_loop_.put_grid.empty() &&
          stored_grids(self).count(flow_loop_.put_grid)) {
        flow_strips(self, in_role + 1, points, /*faces=*/true);
      } else {
        points(in_role + 1);
      }
      line(in_role, "}");
    } else {
      points(in_role);
    }
    folding_ = -1;
    if (flow_) {
      // The dataflow loop: the block's rows, and its face cells in the neighbours' halos (store()),
      // are written.
      line(indent, "sc_flow.publish(sc_step);  // in place of the barriers: this block's rows are done");
    }
    if (!flow_) close_role(s->role, indent);
    if (!flow_) conservative_barrier(indent, "the update is complete before anything reads or overwrites it");
  }

  /// The dataflow walk of a block that holds enough points a thread (flow_strips_pay): the block's rows of the update as the barrier form's inner part walks its box, in strips
  /// (wide, 16-byte ones where the layout allows) over the block's own threads, instead of point
  /// by point through the BoxWalk. A face block (`faces`: its rows feed a channel) stores no face
  /// cell in the strips; after them (a __syncthreads) the FaceWriter copies its rows' face cells
  /// into the neighbours' halos (halo.cuh, copy()). A step that computes a reduction folded into
  /// the update takes the walk, which adds up the fold (the strips do not). Else `walk` (the
  /// points lambda).
  template <class Walk>
  void flow_strips(const Stmt& self, int indent, const Walk& walk, bool faces = false) {
    auto* s = as<ForEach>(self);
    if (!flow_walk_hoisted()) flow_strips_choice(indent);  // the update's range may change from step to step
    const int fold = folding_;
    const std::string what = faces ? "wide strips of the block's rows, then its face cells" : "wide strips of the block's rows";
    line(indent, fold >= 0 ? "if (sc_flow_strips && !sc_fold" + std::to_string(fold) + "_on) {  // " + what + " (no fold this step)"
                           : "if (sc_flow_strips) {  // " + what);
    folding_ = -1;
    flow_rows_ = true;
    const bool no_faces = no_faces_;
    no_faces_ = true;  // no face store in the strips
    const int inner = open_points(self, s->range, s->indices, s->body, indent + 1, "sc_mine", nullptr, true);
    flow_rows_ = false;
    strip_points(s->body, inner, "sc_mine");
    close_points(inner, true);
    no_faces_ = no_faces;
    if (faces) {
      line(indent + 1, "__syncthreads();  // the block's rows are written before its face cells are read");
      line(indent + 1, "sc_face_writer.copy(" + flow_loop_.put_grid +
                           ", sc_flow_rows.lo, sc_flow_rows.hi);  // their face cells into the neighbours' halos");
    }
    folding_ = fold;
    line(indent, "} else");  // if (strips) { strips } else { walk }
    walk(indent);
  }

  /// The reductions directly followed by an allreduce of their result (the global-view lowering
  /// puts one after each): both become one grid_reduce(..., across_pes) (two grid barriers, not
  /// four). Filled before the kernel body is emitted.
  void find_fused_reductions(const Stmt& root) {
    struct Pairs : IRVisitor {
      using IRVisitor::visit;
      std::set<const StmtNode*> reduces, allreduces;
      void visit(const Block* b) override {
        for (size_t i = 0; i + 1 < b->stmts.size(); ++i) {
          if (b->stmts[i]->kind != StmtKind::Reduce || b->stmts[i + 1]->kind != StmtKind::AllReduce) continue;
          auto* r = as<Reduce>(b->stmts[i]);
          auto* a = as<AllReduce>(b->stmts[i + 1]);
          if (a->var != r->result || a->op != r->op) continue;
          reduces.insert(r);
          allreduces.insert(a);
        }
        IRVisitor::visit(b);
      }
    } pairs;
    pairs.visit(root);
    fused_reduces_ = std::move(pairs.reduces);
    fused_allreduces_ = std::move(pairs.allreduces);
  }

  void reduce(const Stmt& self, int indent) override {
    auto* s = as<Reduce>(self);
    comment(indent, self);
    std::string t = cpp_type(s->type);
    // The dataflow loop's barrier-free reductions (flow_reductions): this block's rows (its
    // update's stores are in place: publish() synchronised the block), then every block's value
    // on every PE. Any other in that loop: every block's rows of this step written first. A grid
    // barrier is enough even where the reduction reads halos. The written grid's: reading them
    // would need an exchange of it in the step, which a dataflow loop does not have. The read
    // grid's came from the
    // neighbour PEs' previous step, which this PE's face blocks waited for before they reached the
    // barrier. Nor can a neighbour overwrite them before the reads end: its next step waits for
    // this reduction's allreduce (every reduction of a global-view program has one).
    const auto flow_reduction = flow_ ? flow_reductions_.find(s) : flow_reductions_.end();
    const bool barrier_free = flow_reduction != flow_reductions_.end();
    if (flow_ && !barrier_free) line(indent, "pe.grid_barrier();  // the dataflow loop: every block's rows of this step are written");
    if (barrier_free && flow_reduction_list_[flow_reduction->second].folded) {
      line(indent, t + " " + s->result + " = sc_fold" + std::to_string(flow_reduction->second) +
                       ";  // this thread's points, added up in the update's walk");
    } else {
      line(indent, t + " " + s->result + " = " + reduce_identity(s->op, s->type) + ";");
      flow_rows_ = barrier_free;
      int inner = open_points(self, s->range, s->indices, s->body, indent, barrier_free ? "sc_mine" : "sc_all");
      flow_rows_ = false;
      reduce_point(s, s->result, inner);
      close_points(inner);
    }
    if (barrier_free) {
      const std::string r = "sc_red" + std::to_string(flow_reduction->second);
      if (flow_reduction_list_[flow_reduction->second].deferred) {
        line(indent, s->result + " = " + r + ".post(" + s->result + ", " + reduce_op_name(s->op) +
                         ");  // this execution's value posted (deferred: not read in the loop; complete() after it)");
      } else {
        line(indent, s->result + " = " + r + ".reduce(" + s->result + ", " + reduce_op_name(s->op) +
                         ");  // every block of every PE, in one order, with no barrier (the allreduce below)");
      }
      return;
    }
    if (fused_reduces_.count(s)) {
      line(indent, s->result + " = " + kRt + "grid_reduce(pe, " + s->result + ", " + reduce_op_name(s->op) +
                       ", args.scratch, true);  // over this GPU, then across the GPUs in PE order (the allreduce below)");
      return;
    }
    line(indent, s->result + " = " + kRt + "grid_reduce(pe, " + s->result + ", " + reduce_op_name(s->op) +
                     ", args.scratch);  // over this GPU");
  }

  void target_stmt(const Stmt& s, int indent) override {
    switch (s->kind) {
      case StmtKind::HaloSend: {
        auto* h = as<HaloSend>(s);
        const std::string& g = h->grid;
        comment(indent, s);
        if (flow_) {
          line(indent, "// (the dataflow loop: the step before put these halos, or the exchange before the loop)");
          return;
        }
        line(indent, "++" + g + "_epoch;");
        transfer(h->role, "args." + g + "_halo.send(pe, " + g + ", " + g + "_epoch", "designated blocks put over NVLink", indent);
        return;
      }
      case StmtKind::HaloRecv: {
        auto* h = as<HaloRecv>(s);
        const std::string& g = h->grid;
        comment(indent, s);
        if (flow_) return;
        transfer(h->role, "args." + g + "_halo.recv(pe, " + g + ", " + g + "_epoch", "wait, unpack, acknowledge", indent);
        conservative_barrier(indent, "the halos are in place before any block reads them");
        return;
      }
      case StmtKind::AllReduce: {
        auto* a = as<AllReduce>(s);
        comment(indent, s);
        if (fused_allreduces_.count(a)) {
          const bool flow_reduction = flow_ && std::any_of(flow_reductions_.begin(), flow_reductions_.end(), [&](const auto& r) {
                                        return r.first->result == a->var;
                                      });
          line(indent, flow_reduction ? "// (done by the reduction above)" : "// (done by the grid_reduce above)");
          return;
        }
        line(indent, a->var + " = " + kRt + "team_allreduce(pe, " + a->var + ", " + reduce_op_name(a->op) +
                         ", args.scratch);  // across the GPUs, in PE order");
        return;
      }
      case StmtKind::PhaseBarrier: {
        WorkerRole role = as<PhaseBarrier>(s)->role;
        if (flow_) {
          flow_barrier(s, indent);
          return;
        }
        if (group(role) == "sc_all") {
          line(indent, "pe.grid_barrier();  // phase_barrier");
          return;
        }
        const bool comm = role == WorkerRole::Comm;
        std::string g = group(role), counter = comm ? "args.sync + 0" : "args.sync + 1";
        line(indent, std::string("// phase_barrier role(") + (comm ? "comm" : "compute") + "): among the group's blocks");
        line(indent, "if (sc_n_comm == 0) {");
        line(indent + 1, "pe.grid_barrier();");
        line(indent, "} else if (" + g + ".has_me()) {");
        line(indent + 1, std::string(kRt) + "group_barrier(pe, " + g + ", " + counter + ", " + g + "_barriers, \"the " +
                             (comm ? "comm" : "compute") + " group\");");
        line(indent, "}");
        return;
      }
      case StmtKind::SignalDecl: {
        // The signals live in symmetric memory the launcher zeroed; declaring one is collective
        // (a barrier over every PE, as the reference's Signal constructor).
        auto* d = as<SignalDecl>(s);
        comment(indent, s);
        line(indent, "std::uint64_t* const " + d->name + " = args.signals + " + std::to_string(signals_++) +
                         ";  // symmetric, zero at launch");
        line(indent, "pe.barrier_all(\"the declaration of signal %" + d->name + " at " + where(s) + "\");");
        return;
      }
      case StmtKind::PutSignal:
        return put_signal(s, indent);
      case StmtKind::WaitUntil: {
        auto* w = as<WaitUntil>(s);
        static const char* const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
        comment(indent, s);
        line(indent, std::string(kRt) + "wait_until_on(pe, " + group(w->role) + ", " + std::to_string(transfers_++) + ", " +
                         w->signal + ", ::stencilc::rt::Cmp::" + names[(int)w->cmp] + ", " + expr(w->value) +
                         ", \"signal %" + w->signal + " at " + where(s) + "\");  // one block of the group waits");
        return;
      }
      case StmtKind::Quiet:
        comment(indent, s);
        line(indent, std::string(kRt) + "quiet_all(pe);  // every block: this PE's puts are complete");
        return;
      case StmtKind::BarrierAll:
        if (flow_) {
          flow_barrier(s, indent);
          return;
        }
        comment(indent, s);
        line(indent, "pe.barrier_all(\"barrier_all at " + where(s) + "\");");
        return;
      default:
        return error(s, "the cuda target does not support '" + print(s).substr(0, print(s).find(' ')) + "'");
    }
  }

  /// Global view: the pair shares its layout (the launcher checks it), so only the buffers trade
  /// places (swap_buffers: the blocks' other fields stay loop-invariant). SPMD: the user's blocks
  /// must share a layout (checked on the device), then the handles trade buffers. Every PE swaps
  /// alike.
  void swap(const Swap* s, int indent) override {
    if (!spmd_) {
      line(indent, std::string(kRt) + "swap_buffers(" + s->a + ", " + s->b + ");  // swap %" + s->a + ", %" + s->b +
                       ": the buffers trade places");
      return;
    }
    line(indent, std::string(kRt) + "check_swap(pe, " + s->a + ", " + s->b + ", \"" + program_->name + ": swap of %" +
                     s->a + " and %" + s->b + "\");");
    CppEmitter::swap(s, indent);
  }

 private:
  std::string where(const Stmt& s) const { return where(s->loc); }

  std::string box_list(const std::vector<Expr>& v) {
    std::vector<std::string> parts;
    for (const Expr& e : v) parts.push_back(expr(e));
    return "{" + join(parts) + "}";
  }

  /// The blocks a point body stores to.
  static std::set<std::string> stored_blocks(const Stmt& point_body) {
    struct Stores : IRVisitor {
      using IRVisitor::visit;
      std::set<std::string> names;
      void visit(const Store* s) override {
        names.insert(s->grid);
        IRVisitor::visit(s);
      }
    } stores;
    stores.visit(point_body);
    return stores.names;
  }

  /// put_signal: one block of the statement's group copies the region and then sets the signal
  /// (spmd.cuh, put_signal_region: a single block, so the signal follows all of the data).
  void put_signal(const Stmt& s, int indent) {
    auto* p = as<PutSignal>(s);
    comment(indent, s);
    line(indent, "{");
    line(indent + 1, "const int sc_dlo[] = " + box_list(p->dst.lo) + ", sc_dhi[] = " + box_list(p->dst.hi) + ";");
    line(indent + 1, "const int sc_slo[] = " + box_list(p->src.lo) + ", sc_shi[] = " + box_list(p->src.hi) + ";");
    line(indent + 1, std::string(kRt) + "put_signal_region(pe, " + group(p->role) + ", " + std::to_string(transfers_++) + ", " +
                         p->dst.block + ", args." + p->dst.block + "_on, sc_dlo, sc_dhi, " + p->src.block +
                         ", sc_slo, sc_shi, " + p->signal + ", " + expr(p->value) + ", " + expr(p->pe) + ", \"" +
                         program_->name + ": put_signal at " + where(s) + "\");");
    line(indent, "}");
  }

  /// A halo_send/halo_recv call (`call` without its closing parenthesis) on the blocks of `role`.
  void transfer(WorkerRole role, const std::string& call, const std::string& why, int indent) {
    if (group(role) == "sc_all") {
      line(indent, call + ");  // " + why);
      return;
    }
    std::string g = group(role);
    line(indent, "if (" + g + ".has_me()) " + call + ", " + g + ".first, " + g + ".count);  // " + why);
  }
};

}  // namespace

std::vector<GeneratedProgram> emit_cuda(const Module& module, std::vector<std::string>* errors, CudaBackend backend) {
  std::vector<GeneratedProgram> out;
  for (const Program& p : module.programs) {
    const bool spmd = p.kind == ProgramKind::Spmd;
    if (!spmd && !p.decomposed) {
      errors->push_back(module.source + ": error: program '" + p.name + "' reached the CUDA emitter undecomposed");
      continue;
    }
    std::string marked;  // a loop marked with a form it does not have (hand-written IR)
    passes::marked_regs_form(p, marked_flow_loop(p, &marked), &marked);
    if (!marked.empty()) {
      errors->push_back(module.source + ": error: program '" + p.name + "': " + marked);
      continue;
    }
    ExchangedGrids ex;
    ex.program = &p;
    ex.visit(p.body);
    RoleModelInputs model;
    model.visit(p.body);
    CudaKernelEmitter emitter(module, p);
    for (const Function& f : module.functions) emitter.function(f, "__device__ __forceinline__");
    emitter.kernel(ex.grids, model.roles);
    if (!emitter.ok()) {
      errors->insert(errors->end(), emitter.errors().begin(), emitter.errors().end());
      continue;
    }
    std::string code;
    code += "// ---- generated by stencilc from program @" + p.name + " (cuda target, cpu-free: one persistent kernel per GPU, " +
            (backend == CudaBackend::Nvshmem ? "nvshmem" : "p2p") + " backend" + (spmd ? "; SPMD program" : "") + ") ----\n";
    code += "namespace stencilc_generated {\nnamespace sc_" + p.name + " {\n\n";
    code += cuda::kernel_args(p, ex.grids, model.roles) + "\n";
    code += "// The kernel's block size (generated.cuh, block_threads_for): " +
            (emitter.wide_rank() ? "its widest wide point loop has " + std::to_string(emitter.wide_rank()) + " dimensions"
                                 : std::string("it has no wide point loop")) + ".\n";
    code += "constexpr int kBlockThreads = ::stencilc::rt::cuda::block_threads_for(" + std::to_string(emitter.wide_rank()) + ");\n\n";
    code += emitter.take();
    code += "\n}  // namespace sc_" + p.name + "\n\n";
    code += spmd ? cuda::spmd_launcher(p, model, backend) : cuda::launcher(p, ex.grids, ex.swaps, model, backend);
    code += "}  // namespace stencilc_generated\n// ---- end of generated code ----\n";
    out.push_back(generated_program(p, std::move(code)));
  }
  if (!errors->empty()) return {};
  return out;
}

}  // namespace stencilc::codegen
