// The host-controlled schedule (see HostControlledEmitter.h). For each decomposed program it
// writes, inside `namespace stencilc_generated::host_controlled::sc_<program>`, the module's
// functions and one kernel per point update (the two parts of a split one share it) and per
// reduction; and in `namespace stencilc_generated::host_controlled` the launcher
// `<program>_launch`, whose body is the program's own
// statements run on the host: each point update a launch on every GPU, each halo_send /
// halo_recv the pushes of a grid's faces and the waits for them, each allreduce the host waiting
// for every GPU. The launches go to each GPU's worker thread, and which GPU waits for which is
// decided by the runtime's hc::Control and hc::HaloCopies (host_controlled.cuh): the emitter only
// says what each statement is.
#include "codegen/HostControlledEmitter.h"

#include <algorithm>
#include <map>
#include <set>

#include "codegen/CppEmitter.h"
#include "codegen/EmitUtil.h"
#include "ir/IRPrinter.h"
#include "passes/LoopForms.h"
#include "passes/StoreFaces.h"

namespace stencilc::codegen {

using namespace ir;

namespace {

const std::string kRt = "::stencilc::rt::cuda::";
const std::string kHc = "::stencilc::rt::cuda::hc::";

std::string dblock_type(const Param& p) {
  return kRt + "DBlock<" + cpp_type(p.type) + ", " + std::to_string(p.rank) + ">";
}

const char* reduce_op_name(ReduceOp op) {
  return op == ReduceOp::Sum   ? "::stencilc::rt::ReduceOp::Sum"
         : op == ReduceOp::Max ? "::stencilc::rt::ReduceOp::Max"
                               : "::stencilc::rt::ReduceOp::Min";
}

/// What a point body takes from outside it: the grids it reads, queries or stores (`cells`: those
/// whose cells it reads or stores), and the scalars (program parameters, locals, loop counters)
/// it reads.
struct PointInputs : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> grids, cells;
  std::map<std::string, ScalarType> scalars;
  std::set<std::string> locals;
  void visit(const Var* v) override { scalars.emplace(v->name, v->type); }
  void visit(const GridRead* r) override {
    grids.insert(r->grid);
    cells.insert(r->grid);
    IRVisitor::visit(r);
  }
  void visit(const GridQuery* q) override {
    grids.insert(q->grid);
    IRVisitor::visit(q);
  }
  void visit(const Store* s) override {
    grids.insert(s->grid);
    cells.insert(s->grid);
    IRVisitor::visit(s);
  }
  void visit(const VarDecl* d) override {
    locals.insert(d->name);
    IRVisitor::visit(d);
  }
};

class HostControlledEmitter : public CppEmitter {
 public:
  HostControlledEmitter(const Module& m, const Program& p) {
    module_ = &m;
    program_ = &p;
    for (const Param& q : p.params) {
      if (q.kind != ParamKind::Grid) continue;
      if (first_grid_.empty()) first_grid_ = q.name;
      const int id = static_cast<int>(grid_ids_.size());
      grid_ids_[q.name] = id;
      grid_types_[q.name] = q.type;
    }
    faces_of_ = passes::exchanged_buffers(p);  // each grid's exchange (swaps trade buffers)
  }

  /// The module's functions, for the kernels (and the host, should a scalar statement call one).
  void functions() {
    in_kernel_ = true;
    for (const Function& f : module_->functions) function(f, "__host__ __device__ inline");
    in_kernel_ = false;
    kernels_ << take();
    out_.str("");
  }

  /// The program's statements as host code, indented for the launcher's body; the kernels they
  /// launch accumulate in kernels().
  std::string host_body() {
    body(program_->body, 1);
    std::string text = take();
    out_.str("");
    return text;
  }

  std::string kernels() const { return kernels_.str(); }

  /// The reduce statements host_body() emitted (hc::Control gives each a result slot per GPU).
  int reductions() const { return reduction_count_; }

 protected:
  bool in_kernel_ = false;  // expressions are being written for device code
  std::string first_grid_;  // every grid's blocks have the same layout: this one's serve
  std::map<std::string, int> grid_ids_;  // grid parameter -> its number (sc_descs)
  std::map<std::string, ScalarType> grid_types_;  // grid parameter -> its element type
  // Grid -> the HaloCopies (sc_halo_<grid>) whose exchange sends its buffers; grids no exchange
  // sends are absent.
  std::map<std::string, std::string> faces_of_;
  // The kernel being written reads and stores these grids' cells through sc_<grid>_at, the cell
  // of the thread's first point (point_views).
  std::set<std::string> views_;
  // The kernel being written loads these reads (grid and offsets, as read_key spells them) of
  // all of a thread's points first, into sc_v<n>[sc_points] (prefetch_reads).
  std::map<std::string, std::string> prefetched_;
  std::ostringstream kernels_;           // functions and kernels so far
  std::map<std::string, std::string> kernel_of_;  // point update (text) -> its kernel
  int kernel_count_ = 0;
  struct Reduced {
    ScalarType type;
    int id;  // its result slot (Control::reduce)
  };
  std::map<std::string, Reduced> reduced_;  // reduction results -> their type and slot
  int reduction_count_ = 0;                  // reduce statements so far: one slot each

  std::string math_function(const std::string& name) override {
    return in_kernel_ ? name : "std::" + name;
  }
  std::string float_division(const ir::Expr& a, const ir::Expr& b) override {
    return kRt + "div_rn(" + expr(a) + ", " + expr(b) + ")";
  }

  /// In a kernel, a read the kernel loaded first (prefetch_reads): its element for the point;
  /// else the cell (cell_read).
  std::string grid_read(const GridRead* r) override {
    if (!in_kernel_ || !views_.count(r->grid)) return CppEmitter::grid_read(r);
    if (auto held = prefetched_.find(read_key(r)); held != prefetched_.end())
      return held->second + "[sc_k]";
    return cell_read(r);
  }

  static std::string read_key(const GridRead* r) { return r->grid + " " + int_list(r->offsets); }

  /// A point's cell at the read's offsets: sc_<grid>_at (the cell of the thread's first point)
  /// plus sc_p (the point's cells from there) plus the offsets times the strides, constants of
  /// the kernel that the compiler folds into the loads' immediate offsets: no address
  /// arithmetic a point.
  std::string cell_read(const GridRead* r) {
    std::string offset = "sc_p";
    const size_t n = r->offsets.size();
    for (size_t d = 0; d < n; ++d) {
      const int o = r->offsets[d];
      if (o == 0) continue;
      offset += o < 0 ? " - " : " + ";
      if (d + 1 == n) {
        offset += std::to_string(std::abs(o));  // the last dimension is contiguous
      } else {
        offset += (std::abs(o) == 1 ? "" : std::to_string(std::abs(o)) + " * ") + "sc_" + r->grid +
                  "_s" + std::to_string(d);
      }
    }
    return "sc_" + r->grid + "_at[" + offset + "]";
  }

  std::string grid_query(const GridQuery* q) override {
    if (!in_kernel_ && (q->op == GridQueryOp::InteriorLo || q->op == GridQueryOp::InteriorHi)) {
      // The host's (scalar statements run there): the same for every PE.
      return "::stencilc::compiled::interior(sc_descs[" + std::to_string(grid_ids_[q->grid]) + "])." +
             (q->op == GridQueryOp::InteriorLo ? "lo[" : "hi[") + std::to_string(q->dim) + "]";
    }
    if (q->op != GridQueryOp::Extent) return "?";
    // Every block knows its grid's global extents; on the host, PE 0's block of the grid.
    return q->grid + (in_kernel_ ? "" : "[0]") + ".global_extent[" + std::to_string(q->dim) + "]";
  }

  /// The kernel of a point update or reduction (made on first use); `args` gets the arguments a
  /// launch passes after the box (and the reduction's slot), and `captures` how the launch's
  /// command takes them from PE `sc_pe`'s state when the host issues it (by value: the command
  /// runs later, on the GPU's worker thread).
  /// `through`: the grids whose stores also write the neighbours' halos (store-faces).
  std::string kernel(const Stmt& s, const std::vector<std::string>& indices, const Stmt& point_body,
                     const Reduce* red, const std::vector<std::string>& through,
                     std::vector<std::string>* args, std::vector<std::string>* captures) {
    PointInputs inputs;
    inputs.visit(point_body);
    const std::set<std::string> stored = passes::stored_grids(point_body);
    std::vector<std::string> params;
    for (const Param& p : program_->params) {
      if (p.kind != ParamKind::Grid || !inputs.grids.count(p.name)) continue;
      params.push_back("const " + dblock_type(p) + " " + p.name);
      args->push_back(p.name);
      captures->push_back(p.name + " = " + p.name + "[sc_pe]");
      if (!inputs.cells.count(p.name)) continue;
      // Its cells also as a restrict parameter (a local restrict pointer tells the compiler
      // nothing): the body stores a grid's cells only at its point and reads no grid it stores
      // off the point (LANGUAGE.md), and no grid comes twice (check_distinct_grids), so no store
      // changes what a read of another pointer sees, and the loads of all of a thread's points
      // can be in flight together (read-only grids through the read-only path).
      params.push_back(std::string(stored.count(p.name) ? "" : "const ") + cpp_type(p.type) +
                       "* __restrict__ const sc_" + p.name + "_data");
      args->push_back(p.name + ".data");
    }
    for (const auto& [name, type] : inputs.scalars) {
      if (inputs.locals.count(name) || std::count(indices.begin(), indices.end(), name)) continue;
      params.push_back("const " + std::string(cpp_type(type)) + " " + name);
      args->push_back(name);
      captures->push_back(name);
    }
    const std::string n = std::to_string(indices.size());
    for (const std::string& g : through) {
      params.push_back("const __grid_constant__ " + kHc + "FaceStores<" + cpp_type(grid_types_[g]) +
                       ", " + kHc + "kMaxFaces<" + n + ">> " + derived("through", g));
      args->push_back(derived("through", g));
      captures->push_back(derived("through", g) + " = " + derived("halo", faces_of_[g]) +
                          ".face_stores(sc_pe, " + g + ")");
    }
    std::string key = std::string(red ? "reduce " : "foreach ") + join(indices) + " through " +
                      join(through) + "\n" + print(point_body);
    if (!red) {
      auto found = kernel_of_.find(key);
      if (found != kernel_of_.end()) return found->second;
    }
    std::string name = std::string(red ? "reduce_" : "foreach_") + std::to_string(kernel_count_++);
    kernel_of_[key] = name;

    std::ostringstream host;
    host.swap(out_);  // the kernel goes to kernels_, the host code resumes after
    in_kernel_ = true;
    comment(0, s);
    line(0,
         "// a box of this GPU's block (a whole range, the inner box, or a slab): each thread "
         "takes hc::kPoints cells of a row, hc::kLanes apart (host_controlled.cuh: the walk)");
    if (red) {
      line(0,
           "// one partial result per thread block, combined by the last block, then on the "
           "host in PE order");
    }
    std::string head = "__global__ void " + name + "(const " + kHc + "LaunchBox<" + n + "> sc_box";
    if (red) head += ", const " + kHc + "ReduceSlot<" + cpp_type(red->type) + "> sc_slot";
    for (const std::string& p : params) head += ", " + p;
    line(0, head + ") {");
    if (red)
      line(1, std::string(cpp_type(red->type)) + " " + red->result + " = " +
                  reduce_identity(red->op, red->type) + ";");
    point_walk(indices, point_body, red, through, inputs.cells);
    if (red) line(1, kHc + "block_partial(" + red->result + ", sc_slot);");
    line(0, "}");
    line(0, "");
    loop_vars_.clear();
    in_kernel_ = false;
    views_.clear();
    prefetched_.clear();
    kernels_ << out_.str();
    out_.swap(host);
    return name;
  }

  /// A kernel's walk of its box as hc::launch_shape's threads take it (host_controlled.cuh, "the
  /// walk"): rows along y (and z), grid-stride; the last dimension along x, in chunks of which
  /// each thread takes sc_points cells sc_lanes apart, every read a constant offset from one
  /// address per grid (`cells`: the grids whose cells the body reads or stores). Each point runs
  /// the body (a reduction's: its value combined into `red->result`); then the points that are
  /// face cells of a grid in `through` store their values into the neighbours' halos.
  void point_walk(const std::vector<std::string>& indices, const Stmt& point_body,
                  const Reduce* red, const std::vector<std::string>& through,
                  const std::set<std::string>& cells) {
    int indent = 1;
    const std::set<std::string> stored = passes::stored_grids(point_body);
    const size_t rank = indices.size();
    const std::string n = std::to_string(rank);
    const std::string last = std::to_string(rank - 1);
    point_views(cells, indent);
    line(indent, "constexpr int sc_lanes = " + kHc + "kLanes<" + n + ">, sc_points = " + kHc +
                     "kPoints<" + n + ">;");
    line(indent, "const int sc_lane = (int)::threadIdx.x;");
    line(indent, "const int sc_chunks = " + kHc + "chunks<" + n + ">(sc_box.hi[" + last +
                     "] - sc_box.lo[" + last + "]);");
    const char* axis[] = {"y", "z"};  // dimension rank - 2, rank - 3
    loop_vars_.clear();
    for (size_t d = 0; d + 1 < rank; ++d) {
      std::string dd = std::to_string(d), a = axis[rank - 2 - d];
      loop_vars_.push_back("sc_l" + dd);
      line(indent, "for (int sc_l" + dd + " = sc_box.lo[" + dd + "] + (int)(::blockIdx." + a +
                       " * ::blockDim." + a + " + ::threadIdx." + a + "); sc_l" + dd +
                       " < sc_box.hi[" + dd + "]; sc_l" + dd + " += (int)(::gridDim." + a +
                       " * ::blockDim." + a + ")) {");
      ++indent;
    }
    line(indent,
         "for (int sc_q = (int)::blockIdx.x; sc_q < sc_chunks; sc_q += (int)::gridDim.x) {");
    ++indent;
    line(indent, "const int sc_c" + last + " = sc_box.lo[" + last +
                     "] + sc_q * (sc_lanes * sc_points);  // the chunk's first cell");
    line(indent, "const int sc_n" + last + " = sc_box.hi[" + last + "] - sc_c" + last +
                     ";  // the box's cells from there");
    if (!views_.empty()) {
      line(indent,
           "// each grid's cell of the thread's first point: the other points' cells and "
           "the reads are constants from it");
    }
    for (const std::string& g : views_) {
      std::string row;
      for (size_t d = 0; d + 1 < rank; ++d)
        row += "sc_l" + std::to_string(d) + " * sc_" + g + "_s" + std::to_string(d) + " + ";
      const std::string first = row.empty() ? "sc_c" + last : "(" + row + "sc_c" + last + ")";
      line(indent, std::string(stored.count(g) ? "" : "const ") + cpp_type(grid_types_[g]) +
                       "* const sc_" + g + "_at = sc_" + g + "_data + " + first + " + sc_lane;");
    }
    std::vector<std::string> at{"0", "0", "0"};  // (z, y, x) of store_through: leading ones 0
    for (size_t d = 0; d + 1 < rank; ++d) at[3 - rank + d] = "sc_l" + std::to_string(d);
    for (const std::string& g : through) {
      at[2] = "sc_c" + last;
      line(indent, "const bool sc_inner_" + g + " = " + kHc + "inner_run(" + derived("through", g) +
                       ", " + join(at) +
                       ", sc_lane, sc_lanes, sc_points);  // no point a face of %" + g);
    }
    // Every point in the box (all chunks but a row's last): no test a point.
    line(indent, "const bool sc_full = sc_lane + (sc_points - 1) * sc_lanes < sc_n" + last +
                     ";  // every point in the box");
    const std::string valid = "sc_lane + sc_k * sc_lanes < sc_n" + last;
    const std::vector<const GridRead*> loads = prefetch_reads(point_body, stored, indent);
    if (!loads.empty()) {
      line(indent, "#pragma unroll");
      line(indent, "for (int sc_k = 0; sc_k < sc_points; ++sc_k) {");
      line(indent + 1, "if (!sc_full && !(" + valid + ")) continue;");
      line(indent + 1, "const int sc_p = sc_k * sc_lanes;");
      for (const GridRead* r : loads)
        line(indent + 1, prefetched_[read_key(r)] + "[sc_k] = " + cell_read(r) + ";");
      line(indent, "}");
    }
    point_lambda(indices, point_body, red, indent);
    line(indent, "if (sc_full) {");
    line(indent + 1, "#pragma unroll");
    line(indent + 1, "for (int sc_k = 0; sc_k < sc_points; ++sc_k) sc_point(sc_k);");
    line(indent, "} else {");
    line(indent + 1, "#pragma unroll");
    line(indent + 1, "for (int sc_k = 0; sc_k < sc_points; ++sc_k)");
    line(indent + 2, "if (" + valid + ") sc_point(sc_k);");
    line(indent, "}");
    // The stores through, after every point (a call among them would keep their loads apart):
    // each of the thread's points that is a face cell, its value into the neighbours' halos.
    for (const std::string& g : through) {
      at[2] = "sc_c" + last + " + sc_lane + sc_k * sc_lanes";
      line(indent, "if (!sc_inner_" + g + ") {  // the points that are face cells of %" + g +
                       ": their values into the neighbours' halos too");
      line(indent + 1, "for (int sc_k = 0; sc_k < sc_points && sc_lane + sc_k * sc_lanes < sc_n" +
                           last + "; ++sc_k)");
      line(indent + 2, kHc + "store_through(" + derived("through", g) + ", sc_" + g +
                           "_at[sc_k * sc_lanes], " + join(at) + ");");
      line(indent, "}");
    }
    while (indent > 1) line(--indent, "}");
  }

  /// The reads of grids the kernel does not store, loaded for all of a thread's points before any
  /// point runs (sc_v<n>[sc_points], one array per grid and offsets): ptxas keeps a point's loads
  /// behind the previous point's work where that has a branch (a division's slow path) or where
  /// it saves registers, a memory round trip a point. Safe: those cells do not change during the
  /// kernel, and every read of a point of the range is inside its grid's block and halos
  /// (check_reads), whether or not the body's control flow reaches it. Only where a point's reads
  /// take at most 64 bytes (64 registers at 4 points), else the reads stay in the body. Returns
  /// the reads, in the body's order; grid_read turns them into the arrays' elements.
  std::vector<const GridRead*> prefetch_reads(const Stmt& point_body,
                                              const std::set<std::string>& stored, int indent) {
    std::vector<const GridRead*> loads;
    int bytes = 0;
    for (const GridRead* r : distinct_reads(point_body)) {
      if (stored.count(r->grid) || !views_.count(r->grid)) continue;
      loads.push_back(r);
      bytes += byte_size(grid_types_[r->grid]);
    }
    if (loads.empty() || bytes > 64) return {};
    line(indent,
         "// the reads of grids this kernel does not store, for all of the thread's points");
    for (const GridRead* r : loads) {
      const std::string name = "sc_v" + std::to_string(prefetched_.size());
      line(indent, std::string(cpp_type(grid_types_[r->grid])) + " " + name + "[sc_points];  // %" +
                       r->grid + " at " + int_list(r->offsets));
      prefetched_[read_key(r)] = name;
    }
    return loads;
  }

  /// `sc_point`, one point of a kernel's walk as a lambda of sc_k (the thread's k-th point; sc_p,
  /// its cells from the thread's first): its indices and the point body, a reduction's value
  /// combined into `red->result`. Written once, run for each of the thread's points.
  void point_lambda(const std::vector<std::string>& indices, const Stmt& point_body,
                    const Reduce* red, int indent) {
    const std::string last = std::to_string(indices.size() - 1);
    line(indent, "const auto sc_point = [&](const int sc_k) {");
    ++indent;
    line(indent, "const int sc_p = sc_k * sc_lanes;  // the point's cells from sc_<grid>_at");
    line(indent, "const int sc_l" + last + " = sc_c" + last + " + sc_lane + sc_p;");
    loop_vars_.push_back("sc_l" + last);
    for (size_t d = 0; d < indices.size(); ++d) {
      std::string dd = std::to_string(d);
      line(indent, "const int " + indices[d] + " = sc_box.origin[" + dd + "] + sc_l" + dd + ";");
      line(indent, "(void)" + indices[d] + ";");
    }
    if (red) {
      std::string t = cpp_type(red->type);
      line(indent, "const " + t + " sc_value = [&]() -> " + t + " {");
      body(point_body, indent + 1);
      line(indent, "}();");
      line(indent, reduce_combine(red->op, red->result, "sc_value"));
    } else {
      body(point_body, indent);
    }
    line(--indent, "};");
  }

  /// For each grid whose cells the point body reads or stores (its sc_<grid>_data parameter): that
  /// the pointer is to global memory (global loads and stores, not generic ones), and its
  /// strides but the last (1).
  void point_views(const std::set<std::string>& grids, int indent) {
    for (const Param& p : program_->params) {
      if (p.kind != ParamKind::Grid || !grids.count(p.name)) continue;
      const std::string& g = p.name;
      line(indent, "STENCILC_GLOBAL_VIEW(sc_" + g + "_data);");
      for (int d = 0; d + 1 < p.rank; ++d)
        line(indent, "const long sc_" + g + "_s" + std::to_string(d) + " = " + g + ".stride[" +
                         std::to_string(d) + "];");
      views_.insert(g);
    }
  }

  /// `sc_range`, the update's range in global indices, and the checks of its reads past the
  /// edges of non-periodic grids (the reference build stops there too).
  void range_and_checks(const Stmt& s, const Range& r, const Stmt& point_body, int indent) {
    std::string n = std::to_string(r.rank);
    if (r.kind == Range::Kind::Interior) {
      line(indent, "const auto sc_range = ::stencilc::compiled::interior(sc_descs[" +
                       std::to_string(grid_ids_[r.grid]) + "]);");
    } else {
      std::vector<std::string> lo, hi;
      for (const Expr& e : r.lo) lo.push_back(expr(e));
      for (const Expr& e : r.hi) hi.push_back(expr(e));
      line(indent, "const ::stencilc::compiled::Box<" + n + "> sc_range{{" + join(lo) + "}, {" +
                       join(hi) + "}};");
    }
    ReadExtents reads;
    reads.visit(point_body);
    std::string where =
        module_->source + ":" + std::to_string(s->loc.line) + ":" + std::to_string(s->loc.col);
    if (r.kind != Range::Kind::Interior) {
      // The range holds grid points only, as the reference build's index checks require.
      std::vector<std::string> descs;
      for (const std::string& g : indexed_grids(point_body))
        descs.push_back("&sc_descs[" + std::to_string(grid_ids_[g]) + "]");
      line(indent, "::stencilc::compiled::check_range(\"" + program_->name + "\", sc_descs[0], sc_range, {" +
                       join(descs) + "}, \"" + where + "\");");
    }
    for (const auto& [grid, ext] : reads.grids) {
      bool offsets =
          std::any_of(ext.first.begin(), ext.first.end(), [](int o) { return o != 0; }) ||
          std::any_of(ext.second.begin(), ext.second.end(), [](int o) { return o != 0; });
      if (!offsets) continue;
      line(indent, "::stencilc::compiled::check_reads<" + n + ">(\"" + program_->name +
                       "\", sc_descs[" + std::to_string(grid_ids_[grid]) + "], sc_range, " +
                       int_list(ext.first) + ", " + int_list(ext.second) + ", \"" + where + "\");");
    }
  }

  /// The blocks whose halos a point body reads (its off-centre reads), on PE `sc_pe`: a push into
  /// them waits for the launch (write after read; hc::Control::halo_free).
  static std::string halo_reads(const Stmt& point_body) {
    ReadExtents reads;
    reads.visit(point_body);
    std::vector<std::string> blocks;
    for (const auto& [grid, ext] : reads.grids) {
      auto nonzero = [](int o) { return o != 0; };
      if (std::any_of(ext.first.begin(), ext.first.end(), nonzero) ||
          std::any_of(ext.second.begin(), ext.second.end(), nonzero))
        blocks.push_back(grid + "[sc_pe].data");
    }
    return "{" + join(blocks) + "}";
  }

  /// After a statement whose point body stores grids other than `through` that an exchange
  /// sends: their next sends push every face (hc::HaloCopies::written).
  void stale_faces(const Stmt& point_body, const std::vector<std::string>& through, int indent) {
    for (const std::string& g : passes::stored_grids(point_body)) {
      if (!faces_of_.count(g) || std::count(through.begin(), through.end(), g)) continue;
      line(indent, derived("halo", faces_of_[g]) + ".written(" + g + ");  // %" + g +
                       " written, not through: its next send pushes every face");
    }
  }

  void for_each(const Stmt& self, int indent) override {
    auto* s = as<ForEach>(self);
    std::vector<std::string> through;  // store-faces' grids that an exchange sends
    for (const std::string& g : s->through) {
      if (faces_of_.count(g)) through.push_back(g);
    }
    std::vector<std::string> args, captures;
    std::string k = kernel(self, s->indices, s->body, nullptr, through, &args, &captures);
    const bool split = s->part != ForEachPart::All, boundary = s->part == ForEachPart::Boundary;
    comment(indent, self);
    for (const std::string& g : through) {
      line(indent, derived("halo", faces_of_[g]) + ".storing(" + g +
                       ");  // the launches store faces of %" + g +
                       " into the neighbours' halos once they have read them");
    }
    line(indent, "{");
    int in = indent + 1;
    range_and_checks(self, s->range, s->body, in);
    line(in, "for (int sc_pe = 0; sc_pe < sc_hc.n(); ++sc_pe) {");
    ++in;
    line(in, "const auto sc_local = " + kRt + "clip(::stencilc::compiled::sbox(sc_range), " +
                 first_grid_ + "[sc_pe]);");
    std::string box = "sc_local";
    if (split) {
      // A split foreach (split-boundary; the schedule's pipeline does not split, other IR may):
      // its part's boxes, one launch each on the GPU's one stream, in program order.
      line(in, "const int sc_wlo[] = " + int_list(s->width_lo) +
                   ", sc_whi[] = " + int_list(s->width_hi) + ";");
      line(in, "const auto sc_parts = " + kRt + "part_boxes(sc_local, " + kRt +
                   "inner_part(sc_local, " + first_grid_ + "[sc_pe], sc_wlo, sc_whi), " +
                   (boundary ? "true" : "false") + ");");
      line(in, "for (int sc_b = 0; sc_b < sc_parts.count; ++sc_b) {");
      ++in;
      box = "sc_parts.box[sc_b]";
    }
    line(in, "sc_hc.launch(sc_pe, " + box + ", " + first_grid_ + "[sc_pe], " +
                 halo_reads(s->body) + ",");
    line(in + 2, "[" + join(captures) +
                     "](dim3 sc_grid, dim3 sc_block, cudaStream_t sc_stream, const auto& sc_box) {");
    line(in + 3, "sc_" + program_->name + "::" + k +
                     "<<<sc_grid, sc_block, 0, sc_stream>>>(sc_box" +
                     (args.empty() ? "" : ", " + join(args)) + ");");
    line(in + 2, "});");
    if (split) line(--in, "}");
    line(--in, "}");
    line(indent, "}");
    for (const std::string& g : through) {
      line(indent, derived("halo", faces_of_[g]) + ".stored(" + g +
                       ");  // the mark the next receive of this buffer waits for");
    }
    stale_faces(s->body, through, indent);
  }

  void reduce(const Stmt& self, int indent) override {
    auto* s = as<Reduce>(self);
    std::vector<std::string> args, captures;
    std::string k = kernel(self, s->indices, s->body, s, {}, &args, &captures);
    std::string t = cpp_type(s->type), identity = reduce_identity(s->op, s->type);
    const int id = reduction_count_++;
    reduced_[s->result] = {s->type, id};
    comment(indent, self);
    // Unused where the allreduce comes after the loop (defer-host-reads): it declares its own.
    line(indent, "[[maybe_unused]] " + t + " " + s->result + " = " + identity +
                     ";  // this GPU's part, until the allreduce combines them");
    line(indent, "{");
    int in = indent + 1;
    range_and_checks(self, s->range, s->body, in);
    line(in, "for (int sc_pe = 0; sc_pe < sc_hc.n(); ++sc_pe) {");
    line(in + 1, "const auto sc_local = " + kRt + "clip(::stencilc::compiled::sbox(sc_range), " +
                     first_grid_ + "[sc_pe]);");
    line(in + 1, "sc_hc.reduce<" + t + ">(sc_pe, " + std::to_string(id) + ", sc_local, " +
                     first_grid_ + "[sc_pe], " + reduce_op_name(s->op) + ", " + identity + ", " +
                     halo_reads(s->body) + ",");
    line(in + 3, "[" + join(captures) +
                     "](dim3 sc_grid, dim3 sc_block, cudaStream_t sc_stream, const auto& sc_box, "
                     "const auto& sc_slot) {");
    std::string rest = args.empty() ? "" : ", " + join(args);
    line(in + 4, "sc_" + program_->name + "::" + k +
                     "<<<sc_grid, sc_block, 0, sc_stream>>>(sc_box, sc_slot" + rest + ");");
    line(in + 3, "});");
    line(in, "}");
    line(indent, "}");
    stale_faces(s->body, {}, indent);
  }

  void target_stmt(const Stmt& s, int indent) override {
    switch (s->kind) {
      case StmtKind::HaloSend: {
        const std::string& g = as<HaloSend>(s)->grid;
        comment(indent, s);
        line(indent,
             derived("halo", g) + ".send(" + g + ");  // every GPU pushes its faces of %" + g +
                 " into its neighbours' halos (none where its updates stored them through)");
        return;
      }
      case StmtKind::HaloRecv: {
        const std::string& g = as<HaloRecv>(s)->grid;
        comment(indent, s);
        line(indent, derived("halo", g) +
                         ".recv();  // every GPU's stream waits for its neighbours' pushes");
        return;
      }
      case StmtKind::AllReduce: {
        auto* a = as<AllReduce>(s);
        auto type = reduced_.find(a->var);
        if (type == reduced_.end())
          return error(s, "the host-controlled schedule combines only reduction results");
        comment(indent, s);
        // `last` (after the loop, defer-host-reads): each GPU's slot holds its last run's result.
        line(indent, a->var + " = sc_hc.allreduce<" + cpp_type(type->second.type) + ">(" +
                         reduce_op_name(a->op) + ", " + std::to_string(type->second.id) +
                         ");  // the host waits for every GPU, combines in PE order" +
                         (a->last ? " (their last run's results)" : ""));
        return;
      }
      default:
        return error(s, "the host-controlled schedule does not support '" +
                            print(s).substr(0, print(s).find(' ')) +
                            "' (run it after host_controlled_pipeline())");
    }
  }
};

/// The launcher's team, plan and Control: p2p, one process for every GPU; nvshmem, this
/// process's PE of the MPI world.
std::vector<std::string> team_lines(const Program& p, const std::string& r,
                                    const std::vector<std::string>& swap_list,
                                    const std::vector<std::string>& heap, int reductions,
                                    bool nvshmem) {
  std::vector<std::string> out;
  if (nvshmem) {
    out.push_back("  const int sc_pes = ::stencilc::compiled::nvshmem_pes(\"" + p.name +
                  "\");  // the MPI world's size");
  }
  out.push_back("  const auto sc_plan = ::stencilc::compiled::plan<" + r + ">(\"" + p.name +
                "\", sc_descs, {" + join(swap_list) + "}" + (nvshmem ? ", sc_pes" : "") + ");");
  const std::string heap_bytes = kHc + "heap_bytes_for<" + r +
                                 ">(sc_plan.grid, sc_plan.extent, {" + join(heap) + "})";
  if (nvshmem) {
    out.push_back("  ::stencilc::rt::cuda::NvshmemTeam& sc_team = "
                  "::stencilc::rt::cuda::NvshmemTeam::get(" +
                  heap_bytes + ");  // this process's PE and GPU");
    out.push_back("  ::stencilc::rt::cuda::NvshmemTeam::Scope sc_scope(sc_team);  // frees this "
                  "run's symmetric memory at the end");
  } else {
    out.push_back("  ::stencilc::rt::cuda::P2PTeam sc_team(sc_plan.pes, " + heap_bytes +
                  ");  // one GPU per PE, peer access between all");
  }
  out.push_back("  " + kHc + "Control sc_hc(sc_team, " + std::to_string(reductions) + ");  // " +
                (nvshmem ? "a stream and a worker thread for this process's GPU; marks as signals"
                         : "a stream and a worker thread per GPU"));
  return out;
}

/// The launcher's STENCILC_TIMING line.
std::string timing_line(const Program& p, bool nvshmem) {
  if (nvshmem) {
    return "    std::fprintf(stderr, \"stencilc: %s on PE %d of %d (host-controlled, nvshmem: "
           "kernels launched per step, a process per GPU): %.3f ms\\n\", \"" +
           p.name + "\", sc_team.my_pe(), sc_hc.n(), sc_ms);";
  }
  return "    std::fprintf(stderr, \"stencilc: %s on %d GPUs (host-controlled: kernels launched "
         "per step, a host thread per GPU): %.3f ms\\n\", \"" +
         p.name + "\", sc_hc.n(), sc_ms);";
}

std::string launcher(const Program& p, const std::string& host_body, int reductions,
                     const std::set<std::string>& exchanged,
                     const std::vector<std::array<int, 2>>& swaps, bool nvshmem) {
  std::vector<std::string> params, descs, heap, blocks, halos, downloads;
  int rank = 0, k = 0;
  for (const Param& g : p.params) {
    std::string t = cpp_type(g.type);
    if (g.kind == ParamKind::Grid) {
      rank = g.rank;
      std::string n = std::to_string(g.rank), user = derived("grid", g.name),
                  desc = "sc_descs[" + std::to_string(k) + "]";
      params.push_back(std::string(g.is_const ? "const " : "") + "::stencilc::Grid<" + t + ", " +
                       n + ">& " + user);
      descs.push_back("::stencilc::compiled::describe(\"" + g.name + "\", " + user + ", " +
                      int_list(g.halo_lo) + ", " + int_list(g.halo_hi) + ")");
      heap.push_back("{sizeof(" + t + "), " + int_list(g.halo_lo) + ", " + int_list(g.halo_hi) +
                     "}");
      const std::string upload = "::stencilc::compiled::upload_grid<" + t + ", " + n +
                                 ">(sc_team, sc_plan.grid, " + user + ", " + int_list(g.halo_lo) +
                                 ", " + int_list(g.halo_hi) + ")";
      blocks.push_back("  auto " + g.name + " = " +
                       (nvshmem ? kHc + "peer_blocks(sc_team, " + upload +
                                      ");  // %" + g.name +
                                      ": one block per PE, each as this GPU reaches it"
                                : upload + ";  // %" + g.name + ": one block per GPU"));
      if (exchanged.count(g.name)) {
        halos.push_back("  " + kHc + "HaloCopies<" + t + ", " + n + "> " + derived("halo", g.name) +
                        "(sc_hc, sc_plan.grid, " + g.name +
                        ", ::stencilc::compiled::periodic_dims(" + desc + "), " +
                        (g.halo_corners ? "true" : "false") + ", \"" + g.name + "\");");
      }
      if (!g.is_const && nvshmem) {
        downloads.push_back("  ::stencilc::compiled::allgather_grid(sc_team, sc_plan.grid, " +
                            g.name + ", " + user + ", \"" + g.name +
                            "\");  // every PE's block %" + g.name +
                            " names after the swaps, into every process");
      } else if (!g.is_const) {
        downloads.push_back("  ::stencilc::compiled::download_grid(sc_team, " + g.name + ", " +
                            user + ");  // the buffers %" + g.name + " names after the swaps");
      }
      ++k;
    } else if (g.kind == ParamKind::Scalar) {
      params.push_back(t + " " + g.name);
    } else if (g.kind == ParamKind::ScalarRef) {
      params.push_back(t + "& " + g.name);
    }
  }
  std::vector<std::string> swap_list;
  for (const auto& s : swaps)
    swap_list.push_back("{" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + "}");
  std::string r = std::to_string(rank);
  std::vector<std::string> out;
  out.push_back("// program @" + p.name +
                " on the host: its statements in order, each point update a kernel launch per GPU");
  out.push_back("inline void " + p.name + "_launch(" + join(params) + ") {");
  if (const std::string check = distinct_grids_check(p, "sc_grid_"); !check.empty())
    out.push_back(check);
  out.push_back("  const std::vector<::stencilc::compiled::GridDesc<" + r + ">> sc_descs{" +
                join(descs) + "};");
  for (std::string& l : team_lines(p, r, swap_list, heap, reductions, nvshmem))
    out.push_back(std::move(l));
  out.insert(out.end(), blocks.begin(), blocks.end());
  out.insert(out.end(), halos.begin(), halos.end());
  out.push_back("  sc_hc.start();");
  out.push_back(host_body.substr(0, host_body.empty() ? 0 : host_body.size() - 1));
  out.push_back("  const double sc_ms = sc_hc.finish();  // every GPU done");
  out.push_back(
      "  if (std::getenv(\"STENCILC_TIMING\")) {  // wall time of the whole run, first launch to "
      "the last GPU done");
  out.push_back(timing_line(p, nvshmem));
  out.push_back("  }");
  out.insert(out.end(), downloads.begin(), downloads.end());
  out.push_back("}");
  return join(out, "\n") + "\n";
}

}  // namespace

std::vector<GeneratedProgram> emit_cuda_host_controlled(const Module& module,
                                                        std::vector<std::string>* errors,
                                                        CudaBackend backend) {
  const bool nvshmem = backend == CudaBackend::Nvshmem;
  std::vector<GeneratedProgram> out;
  for (const Program& p : module.programs) {
    if (p.kind == ProgramKind::Spmd) {
      errors->push_back(module.source + ": error: program '" + p.name +
                        "': the host-controlled schedule does not compile SC_SPMD_PROGRAM "
                        "functions (use --target=host)");
      continue;
    }
    if (!p.decomposed) {
      errors->push_back(module.source + ": error: program '" + p.name +
                        "' reached the host-controlled emitter undecomposed");
      continue;
    }
    ExchangedGrids ex;
    ex.program = &p;
    ex.visit(p.body);
    HostControlledEmitter emitter(module, p);
    emitter.functions();
    std::string host_body = emitter.host_body();
    if (!emitter.ok()) {
      errors->insert(errors->end(), emitter.errors().begin(), emitter.errors().end());
      continue;
    }
    std::string code;
    code += "// ---- generated by stencilc from program @" + p.name +
            " (cuda target, host-controlled: the host launches a kernel per update and GPU, " +
            (nvshmem ? "nvshmem backend: a process per GPU" : "p2p backend") + ") ----\n";
    // nvshmem: all of it in the program unit (no kernel here calls NVSHMEM on the device).
    if (nvshmem) code += "#if !defined(" + std::string(kNvshmemDeviceUnit) + ")\n";
    const std::string ns = kHostControlledNamespace;
    code += "namespace stencilc_generated {\nnamespace " + ns + " {\nnamespace sc_" + p.name +
            " {\n\n";
    code += emitter.kernels();
    code += "}  // namespace sc_" + p.name + "\n\n";
    code += launcher(p, host_body, emitter.reductions(), ex.grids, ex.swaps, nvshmem);
    code += "}  // namespace " + ns + "\n}  // namespace stencilc_generated\n";
    if (nvshmem) code += "#endif  // !" + std::string(kNvshmemDeviceUnit) + "\n";
    code += "// ---- end of generated code ----\n";
    out.push_back(generated_program(p, std::move(code), "stencilc_generated::" + ns));
  }
  if (!errors->empty()) return {};
  return out;
}

}  // namespace stencilc::codegen
