// The forms of a time loop in the CUDA kernel (CudaKernelEmitter.h): the barrier form, the
// dataflow form and the register-resident form, as the IR records them (select-loop-forms).
#include <algorithm>

#include "codegen/CudaKernelEmitter.h"
#include "ir/IRPrinter.h"

namespace stencilc::codegen::cuda {

void CudaKernelEmitter::hoist_boundary_walks(const Stmt& loop, int indent) {
  if (spmd_ || loop_depth_ > 0) return;
  struct Parts : IRVisitor {
    using IRVisitor::visit;
    std::vector<const ForEach*> found;
    void visit(const ForEach* f) override {
      if (f->part == ForEachPart::Boundary && f->range.kind == Range::Kind::Interior)
        found.push_back(f);
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
    line(indent, "__shared__ " + rt + "SharedWalk<" + n + "> " + name +
                     "_mem;  // the boundary part at " + at + ", the same every step");
    line(indent, "const " + rt + "BoxWalk<" + n + ">& " + name + " = " + rt + "build_shared_walk(" +
                     name + "_mem, [&] {");
    line(indent + 1, "const auto sc_local = " + rt + "clip(" + global_range(f->range) + ", " +
                         first_grid_ + ");");
    split_parts(indent + 1, *f, f->body);
    line(indent + 1, "return sc_parts;");
    line(indent, "}());");
    check_walk(indent, name, at);
    line(0, "#endif");
  }
}

void CudaKernelEmitter::flow_halos_and_faces(int indent) {
  const std::string rt = kRt;
  if (const std::vector<std::string>& xs = flow_loop_.exchanged; !xs.empty()) {
    // The halos of the first walks; after them the walks' face stores bring the next ones.
    line(indent, "sc_pe.grid_barrier();  // the grids' cells are written before they are sent");
    for (const std::string& x : xs) {
      line(indent, "++" + derived("epoch", x) + ";");
      line(indent, "sc_args." + derived("halo", x) + ".send(sc_pe, " + x + ", " +
                       derived("epoch", x) + ");");
    }
    for (const std::string& x : xs)
      line(indent, "sc_args." + derived("halo", x) + ".recv(sc_pe, " + x + ", " +
                       derived("epoch", x) + ");");
    line(indent,
         "sc_pe.barrier_all(\"the dataflow loop's first halos\");  // and no PE puts into a halo "
         "its "
         "recv still unpacks");
  }
  line(indent,
       "const " + rt +
           "Workers sc_mine{static_cast<int>(::blockIdx.x), 1};  // a block walks its own rows");
  if (!flow_loop_.update) {
    // Several walks: a FaceWriter for each exchange that carries faces, staged once.
    for (const std::string& h : flow_handles()) {
      line(indent, "const unsigned sc_faces_" + h + " = sc_args." + derived("halo", h) +
                       ".channels_of_rows(sc_flow.row_begin(), sc_flow.row_end());  // "
                       "the channels of %" +
                       h + " its rows feed");
      stage_face_writer(indent, "sc_face_writer_" + h, "sc_face_channels_" + h, h, h,
                        "sc_faces_" + h, "those channels, staged");
    }
  } else {
    line(indent, "const unsigned sc_faces = sc_args." + derived("halo", flow_loop_.put_handle) +
                     ".channels_of_rows(sc_flow.row_begin(), sc_flow.row_end());  // the "
                     "channels its rows feed (none: no face rows)");
  }
  if (flow_loop_.update && !flow_loop_.put_grid.empty()) {
    // Those channels staged in shared memory once (FaceWriter, halo.cuh): the walk's face
    // stores read no plan from global memory.
    stage_face_writer(indent, "sc_face_writer", "sc_face_channels", flow_loop_.put_handle,
                      flow_loop_.put_grid, "sc_faces", "sc_faces' channels, staged");
  }
}

void CudaKernelEmitter::loop(const Stmt& s, int indent) {
  if (s.get() != flow_loop_.loop) return barrier_loop(s, indent);
  const std::string rt = kRt;
  line(indent,
       "{  // the dataflow schedule where the launcher turned it on (flow.cuh), else barrier_all "
       "each step");
  line(indent + 1, "const " + rt + "DFlow<" + rt + "DevicePe> sc_flow(sc_pe, sc_args.sc_flow, " +
                       first_grid_ + ".extent[0], " + std::to_string(flow_loop_.radius) +
                       ", sc_args.sc_flow_up, sc_args.sc_flow_down);");
  line(indent + 1, "if (sc_args.sc_flow_on) {");
  flow_halos_and_faces(indent + 2);
  if (flow_strips_possible() && flow_walk_hoisted())
    flow_strips_choice(indent + 2);  // the same every step
  if (flow_walk_hoisted()) {
    const ForEach* u = flow_loop_.update;
    line(indent + 2, "const " + rt + "BoxWalk<" + std::to_string(u->indices.size()) +
                         "> sc_flow_walk(" + rt + "flow_rows(" + rt + "clip(" +
                         global_range(u->range) + ", " + first_grid_ +
                         "), sc_flow));  // its rows of the update, the same every step");
    check_walk(indent + 2, "sc_flow_walk", where(u->loc));
  }
  if (!flow_reductions_.empty()) {
    // The reductions of the step, with no barrier (DFlowReduce): each PE's block count first.
    for (size_t k = 0; k < flow_reductions_.size(); ++k) {
      const std::string r = "sc_red" + std::to_string(k);
      line(indent + 2, rt + "DFlowReduce<" + rt + "DevicePe> " + r + "(sc_pe, sc_args.sc_flow_red" +
                           std::to_string(k) + ");");
      line(indent + 2, r + ".setup();");
    }
    line(indent + 2,
         "sc_pe.barrier_all(\"the dataflow loop's reductions\");  // every PE's block count is in "
         "place");
  }
  line(indent + 2, "std::uint64_t sc_step = 0;  // steps done");
  const bool regs = !regs_.in.empty();
  int at = indent + 2;
  if (regs) {
    regs_loop(s, at);
    line(at, "if (!sc_regs_done) {  // the loop from global memory");
    ++at;
  }
  // A step of one update waits once, at its top; a step of several walks before each walk.
  std::vector<std::string> prologue;
  if (flow_loop_.update)
    prologue = {"if (sc_step > 0) sc_flow.wait(sc_step);  // the neighbours' rows of the step before",
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
    line(indent + 2, "if (" + r + ".pending()) {  // the last execution of %" + d.reduce->result +
                         ", and what follows it in the loop");
    line(indent + 3, t + " " + d.reduce->result + " = " + r + ".complete<" + t + ">(" +
                         reduce_op_name(d.reduce->op) + ");");
    for (const Stmt& a : d.tail) body(a, indent + 3);
    line(indent + 2, "}");
  }
  line(indent + 2, "sc_flow.finish(sc_step);  // barrier_all: every block of every PE is done");
  for (size_t k = 0; k < flow_reductions_.size(); ++k)
    line(indent + 2, "sc_red" + std::to_string(k) + ".finish();");
  line(indent + 1, "} else {");
  barrier_loop(s, indent + 2);
  line(indent + 1, "}");
  line(indent, "}");
}

std::vector<std::string> CudaKernelEmitter::flow_handles() const {
  std::vector<std::string> out;
  for (const FlowWalk& w : flow_loop_.walks)
    for (const auto& [grid, handle] : w.faces)
      if (std::find(out.begin(), out.end(), handle) == out.end()) out.push_back(handle);
  return out;
}

const FlowWalk& CudaKernelEmitter::flow_walk_of(const Stmt& s) {
  for (const FlowWalk& w : flow_loop_.walks)
    if (w.stmt == s.get()) return w;
  error(s, "internal: a walk of the dataflow loop that select-loop-forms did not find");
  static const FlowWalk none;
  return none;
}

void CudaKernelEmitter::flow_wait(int indent, int back) {
  if (back == 0) {
    line(indent, "// no wait: the walk reads none of the neighbours' rows that a walk writes, and "
                 "writes none that a walk reads");
  } else if (back == 1) {
    line(indent, "if (sc_step > 0) sc_flow.wait(sc_step);  // the neighbours' rows of the walk before");
  } else {
    const std::string b = std::to_string(back);
    line(indent, "if (sc_step >= " + b + ") sc_flow.wait(sc_step - " + std::to_string(back - 1) +
                     ");  // the neighbours have done the walk " + b + " walks before");
  }
}

void CudaKernelEmitter::flow_walk(const Stmt& self, int indent) {
  auto* s = as<ForEach>(self);
  const std::string rt = kRt;
  flow_wait(indent, flow_walk_of(self).wait_back);
  line(indent, "++sc_step;");
  no_faces_ = true;  // the face cells are copied after the walk
  // The block's rows of the range in strips (wide where the layout allows), as the barrier form
  // walks a box: an update that is not split always, a split 2-D update's boundary part where
  // the block holds enough points a thread (flow_strips_pay), else one sequence of points.
  auto strips = [&](int at) {
    flow_rows_ = true;
    const int inner = open_points(self, s->range, s->indices, s->body, at, "sc_mine", nullptr, true);
    flow_rows_ = false;
    strip_points(s->body, inner, "sc_mine");
    close_points(inner, true);
  };
  if (s->part != ForEachPart::Boundary && s->indices.size() >= 2) {
    strips(indent);
  } else {
    const bool choose = s->part == ForEachPart::Boundary && s->indices.size() == 2;
    int at = indent;
    if (choose) {
      line(indent, "if (" + rt + "flow_strips_pay(" + rt + "flow_rows(" + rt + "clip(" +
                       global_range(s->range) + ", " + first_grid_ +
                       "), sc_flow).box[0])) {  // the block's rows in strips");
      strips(indent + 1);
      line(indent, "} else {  // its points as one sequence");
      ++at;
    }
    // A boundary part's walk (open_points: the block's rows of the whole range) in batches where
    // its stores can wait; a 1-D update's points in batches too.
    flow_rows_ = s->part != ForEachPart::Boundary;
    batch_walk_ = deferrable_stores(s->body);
    int inner = open_points(self, s->range, s->indices, s->body, at, "sc_mine", s, false);
    batch_walk_ = false;
    flow_rows_ = false;
    if (!batch_group_.empty()) {
      inner = batched_points(*s, inner);
    } else {
      body(s->body, inner);
    }
    close_points(inner, false);
    if (choose) line(indent, "}");
  }
  no_faces_ = false;
  flow_walk_done(flow_walk_of(self), s->range, indent);
}

void CudaKernelEmitter::flow_walk_done(const FlowWalk& w, const Range& range, int indent) {
  const std::string rt = kRt;
  for (const auto& [grid, handle] : w.faces) {
    line(indent, "if (sc_faces_" + handle + " != 0) {  // the block's face cells of %" + grid +
                     " into the neighbours' halos");
    line(indent + 1,
         "__syncthreads();  // the block's rows are written before its face cells are read");
    line(indent + 1, "const auto sc_fr = " + rt + "flow_rows(" + rt + "clip(" +
                         global_range(range) + ", " + first_grid_ + "), sc_flow).box[0];");
    line(indent + 1, "sc_face_writer_" + handle + ".copy(" + grid + ", sc_fr.lo, sc_fr.hi);");
    line(indent, "}");
  }
  line(indent,
       "sc_flow.publish(sc_step);  // in place of the barriers: this block's rows of the walk are done");
}

void CudaKernelEmitter::regs_loop(const Stmt& s, int indent) {
  const std::string rt = kRt, t = cpp_type(regs_.type);
  const auto* f = as<For>(s);  // regs_form: a for
  line(indent, "bool sc_regs_done = false;  // the register-resident form ran the loop");
  line(indent,
       "if (sc_args.sc_regs.blocks > 0) {  // the register-resident form (regs.cuh), where the "
       "launcher planned it");
  line(indent + 1,
       "extern __shared__ __align__(16) unsigned char sc_regs_smem[];  // its side columns and "
       "fixed rows (compiled::choose_form sized it)");
  line(indent + 1, rt + "RegsBand<" + rt + "kRegsVec, " + rt + "kRegsRows, " + t + ", " + rt +
                       "DevicePe> sc_band(sc_pe, sc_args.sc_regs, " + regs_.in + ", " + regs_.out +
                       ", sc_regs_smem, \"" + program_->name + " at " + where(s) +
                       "\");  // this block's rows of %" + regs_.in + " in registers");
  line(indent + 1,
       "// The form's contract on every block of every PE (the cells the update does not write the "
       "same in both grids), else the loop from global memory.");
  line(indent + 1, "if (" + rt +
                       "grid_reduce(sc_pe, sc_band.contract_holds() ? 0 : 1, "
                       "::stencilc::rt::ReduceOp::Max, sc_args.sc_scratch, true) == 0) {");
  line(indent + 2, "const int sc_o0 = " + regs_.in + ".origin[0], sc_o1 = " + regs_.in +
                       ".origin[1];  // local (0, 0)'s global index (both grids')");
  line(indent + 2,
       "[[maybe_unused]] int sc_regs_no_fold = 0;  // the accumulator of a step with no folded "
       "reduction");
  const std::vector<std::string> prologue{
      "++sc_step;",
      "const bool sc_regs_last = " + f->var + " + " + std::to_string(f->step) + " >= sc_end_" +
          f->var +
          ";  // the loop's last step: the band's values before it go to the grid it reads"};
  in_regs_ = true;
  flow_ = true;
  ++loop_depth_;
  CppEmitter::loop(s, indent + 2, prologue);
  --loop_depth_;
  flow_ = false;
  in_regs_ = false;
  line(indent + 2, "sc_band.finish(" + regs_.in +
                       ");  // the last step's values: each step's swap made %" + regs_.in +
                       " the grid it wrote");
  line(indent + 2, "sc_regs_done = true;");
  line(indent + 1, "} else if (sc_pe.id == 0 && ::blockIdx.x == 0 && ::threadIdx.x == 0) {");
  line(indent + 2,
       "printf(\"stencilc: " + program_->name +
           ": the register-resident form's contract does not hold (cells the update does not "
           "write differ between %%" +
           regs_.in + " and %%" + regs_.out + "): the loop runs from global memory\\n\");");
  line(indent + 1, "}");
  line(indent, "}");
}

void CudaKernelEmitter::regs_step(const ForEach& u, int indent) {
  const std::string rt = kRt, t = cpp_type(regs_.type);
  const std::string i = u.indices[0], j = u.indices[1];
  line(indent,
       "sc_band.step(  // the band's edge rows to its neighbours, theirs in, the update in "
       "registers");
  line(indent + 1, "[&](const " + t + " (&sc_w)[3][" + rt +
                       "kRegsVec + 2], int sc_c, int sc_li, int sc_lj) -> " + t + " {");
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
  line(indent + 1, std::string("[&](") + cpp_type(r->type) + "& sc_acc, " + t + " sc_new, " + t +
                       " sc_old, int sc_li, int sc_lj) {  // %" + r->result + " at the point");
  line(indent + 2,
       "const int " + r->indices[0] + " = sc_o0 + sc_li, " + r->indices[1] + " = sc_o1 + sc_lj;");
  line(indent + 2, "(void)" + r->indices[0] + ", (void)" + r->indices[1] + ";");
  regs_mode_ = 2;
  reduce_point(r, "sc_acc", indent + 2);
  regs_mode_ = 0;
  line(indent + 1, "},");
  line(indent + 1, "sc_fold" + k + ", sc_fold" + k + "_on, " + regs_.in + ", sc_regs_last);");
}

void CudaKernelEmitter::barrier_loop(const Stmt& s, int indent) {
  hoist_boundary_walks(s, indent);
  ++loop_depth_;
  CppEmitter::loop(s, indent, {});
  --loop_depth_;
}

void CudaKernelEmitter::flow_strips_choice(int indent) {
  const std::string rt = kRt;
  line(indent, "const auto sc_flow_rows = " + rt + "flow_rows(" + rt + "clip(" +
                   global_range(flow_loop_.update->range) + ", " + first_grid_ +
                   "), sc_flow).box[0];  // the block's rows of the update");
  line(indent, "const bool sc_flow_strips = " + rt +
                   "flow_strips_pay(sc_flow_rows);  // its rows in strips");
}

}  // namespace stencilc::codegen::cuda
