// The persistent kernel of one program (CudaKernelEmitter.h): its prologue, statements,
// reductions, stores and SPMD transfers.
#include "codegen/CudaKernelEmitter.h"

#include <algorithm>

#include "ir/IRPrinter.h"

namespace stencilc::codegen::cuda {

CudaKernelEmitter::CudaKernelEmitter(const Module& m, const Program& p) {
  module_ = &m;
  program_ = &p;
  for (const Param& q : p.params)
    if (q.kind == ParamKind::Grid && first_grid_.empty()) first_grid_ = q.name;
  spmd_ = p.kind == ProgramKind::Spmd;
}

void CudaKernelEmitter::kernel(const std::set<std::string>& exchanged, bool roles) {
  roles_ = roles;
  exchanged_ = exchanged;
  line(0, "// program @" + program_->name + ": every GPU runs this whole, on its own blocks");
  line(0, "__global__ void __launch_bounds__(kBlockThreads, STENCILC_MIN_BLOCKS_PER_SM)");
  line(0, "kernel(const __grid_constant__ " + std::string(kRt) +
              "DevicePe sc_pe, const __grid_constant__ KernelArgs sc_args) {");
  line(1, "const " + std::string(kRt) + "Workers sc_all{0, static_cast<int>(::gridDim.x)};");
  if (roles_) {
    line(1,
         "// specialize-blocks' groups: blocks [0, n_comm) communicate and update the boundary "
         "parts, the");
    line(1, "// others the inner parts; with n_comm == 0 every block does everything.");
    line(1,
         "const int sc_n_comm = sc_args.sc_n_comm < static_cast<int>(::gridDim.x) ? "
         "sc_args.sc_n_comm : 0;  // a "
         "compute block remains");
    line(1, "const " + std::string(kRt) + "Workers sc_comm = sc_n_comm > 0 ? " + kRt +
                "Workers{0, sc_n_comm} : sc_all;");
    line(1, "const " + std::string(kRt) + "Workers sc_compute = sc_n_comm > 0 ? " + kRt +
                "Workers{sc_n_comm, static_cast<int>(::gridDim.x) - sc_n_comm} : sc_all;");
    line(1,
         "[[maybe_unused]] unsigned long long sc_comm_barriers = 0, sc_compute_barriers = 0;  // "
         "group barriers passed");
  }
  if (spmd_)
    line(1, "[[maybe_unused]] const " + std::string(kRt) +
                "SpmdContext sc_cx{sc_pe.id, sc_pe.n};  // my_pe(), n_pes()");
  for (const Param& p : program_->params) {
    std::string t = cpp_type(p.type);
    if (p.kind == ParamKind::Grid || p.kind == ParamKind::Block)
      line(1, dblock_type(p) + " " + p.name + " = sc_args." + p.name + ";");
    if (p.kind == ParamKind::Scalar)
      line(1, "const " + t + " " + p.name + " = sc_args." + p.name + ";");
    if (p.kind == ParamKind::ScalarRef) line(1, t + " " + p.name + " = sc_args." + p.name + ";");
  }
  for (const std::string& g : exchanged)
    line(1, "std::uint64_t " + derived("epoch", g) + " = 0;  // exchanges of %" + g + " so far");
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
    line(1, "sc_pe.barrier_all(\"the end of " + program_->name +
                "\");  // no PE still puts into a block the host copies back");
  }
  line(1, "// What the host copies back: where each grid ended (after swaps) and the results.");
  line(1, std::string("if (") + kRt + "block_rank() == 0 && " + kRt + "thread_rank() == 0) {");
  for (const Param& p : program_->params) {
    if (p.kind == ParamKind::Grid || p.kind == ParamKind::Block)
      line(2, "*sc_args." + derived("final", p.name) + " = " + p.name + ";");
    if (p.kind == ParamKind::ScalarRef)
      line(2, "*sc_args." + derived("out", p.name) + " = " + p.name + ";");
  }
  line(1, "}");
  line(0, "}");
  line(0, "");
}

std::string CudaKernelEmitter::grid_read(const GridRead* r) {
  if (regs_mode_ == 1 &&
      r->grid ==
          regs_.in)  // the register-resident form's window: rows i - 1..i + 1, columns c0 - 1..
    return "sc_w[" + std::to_string(1 + r->offsets[0]) + "][sc_c + " +
           std::to_string(1 + r->offsets[1]) + "]";
  if (regs_mode_ == 2)
    return r->grid == regs_.out ? "sc_new" : "sc_old";  // regs_form: %in or %out at the point
  if (wide_r_ >= 0) return wide_read(r);
  if (!views_.count(r->grid)) return CppEmitter::grid_read(r);
  const std::string text = view_read(r);
  const auto held = prefetched_.find(text);  // batched_plain_points: the batch's reads
  return held == prefetched_.end() ? text : held->second;
}

std::string CudaKernelEmitter::view_read(const GridRead* r) {
  size_t n = r->offsets.size();
  std::string offset;
  for (size_t d = 0; d < n; ++d) {
    std::string coord = shifted(loop_vars_[d], r->offsets[d]);
    if (d + 1 < n)
      coord += " * sc_" + r->grid + "_s" + std::to_string(d);  // the last dimension is contiguous
    offset += (d ? " + " : "") + coord;
  }
  return "sc_" + r->grid + "_data[" + offset + "]";
}

void CudaKernelEmitter::open_views(const Stmt& point_body, int indent) {
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
  if (folding_ >= 0)
    grids.visit(flow_reduction_list_[folding_].reduce->body);  // its reads, in the same loop
  for (const std::string& g : grids.names) {
    const Param* q = program_->find_param(g);
    if (!q || (q->kind != ParamKind::Grid && q->kind != ParamKind::Block)) continue;
    const std::string t = cpp_type(q->type);
    line(indent, t + "* __restrict__ const sc_" + g + "_data = " + g + ".data;");
    line(indent, "STENCILC_GLOBAL_VIEW(sc_" + g + "_data);");
    for (int d = 0; d + 1 < q->rank; ++d)
      line(indent, "const long sc_" + g + "_s" + std::to_string(d) + " = " + g + ".stride[" +
                       std::to_string(d) + "];");
    views_.insert(g);
  }
}

int CudaKernelEmitter::open_role(WorkerRole role, int indent) {
  if (group(role) == "sc_all") return indent;
  line(indent, "if (" + group(role) + ".has_me()) {");
  return indent + 1;
}

std::string CudaKernelEmitter::grid_query(const GridQuery* q) {
  if (spmd_) return block_query(q);
  const std::string d = std::to_string(q->dim);
  if (q->op == GridQueryOp::Extent)
    return "sc_args." + derived("shape", q->grid) + ".extent[" + d + "]";
  if (q->op == GridQueryOp::InteriorLo)
    return "sc_args." + derived("interior", q->grid) + ".lo[" + d + "]";
  if (q->op == GridQueryOp::InteriorHi)
    return "sc_args." + derived("interior", q->grid) + ".hi[" + d + "]";
  return "?";
}

std::string CudaKernelEmitter::block_query(const GridQuery* q) {
  std::string d = std::to_string(q->dim);
  switch (q->op) {
    case GridQueryOp::Extent:
      return q->grid + ".extent[" + d + "]";
    case GridQueryOp::Origin:
      return q->grid + ".origin[" + d + "]";
    case GridQueryOp::Halo:
      return q->grid + ".halo_lo[" + d + "]";
    case GridQueryOp::GlobalExtent:
      return q->grid + ".global_extent[" + d + "]";
    case GridQueryOp::ExtentOn:
    case GridQueryOp::OriginOn:
      return std::string(kRt) + "layout_on(sc_pe, sc_args." + derived("on", q->grid) + ", " +
             expr(q->pe) + ", \"" + program_->name + ": block '" + q->grid + "'\")." +
             (q->op == GridQueryOp::ExtentOn ? "extent[" : "origin[") + d + "]";
    case GridQueryOp::InteriorLo:
    case GridQueryOp::InteriorHi:
      return "?";  // grids only (the verifier)
  }
  return "?";
}

std::string CudaKernelEmitter::global_range(const Range& r) {
  if (r.kind == Range::Kind::Interior) return "sc_args." + derived("interior", r.grid);
  if (r.kind == Range::Kind::Owned) return std::string(kRt) + "owned(" + r.grid + ")";
  std::vector<std::string> lo, hi;
  for (const Expr& e : r.lo) lo.push_back(expr(e));
  for (const Expr& e : r.hi) hi.push_back(expr(e));
  return std::string(kRt) + "SBox<" + std::to_string(r.rank) + ">{{" + join(lo) + "}, {" +
         join(hi) + "}}";
}

void CudaKernelEmitter::store(const Store* s, int indent) {
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
    line(indent, "sc_st_" + s->grid + "[" + std::to_string(wide_r_) + "][" +
                     std::to_string(wide_v_) + "] = " + expr(s->value) + ";");
    return;
  }
  CppEmitter::store(s, indent);
}

void CudaKernelEmitter::stage_face_writer(int indent, const std::string& writer,
                                          const std::string& channels, const std::string& handle,
                                          const std::string& block, const std::string& mask,
                                          const std::string& comment) {
  const std::string rt = kRt;
  line(indent, "__shared__ " + rt + "FaceChannel " + channels + "[" + rt + "kMaxFaceChannels];");
  line(indent, "const auto " + writer + " = " + rt + "face_writer(sc_pe, sc_args." +
                   derived("halo", handle) + ", " + block + ", " + mask + ", " + channels +
                   ");  // " + comment);
}

void CudaKernelEmitter::forward_value(const std::string& grid, const std::string& value, int indent,
                                      const std::vector<std::string>& forward,
                                      const std::string& before) {
  GridRead centre(ScalarType::F32, grid, std::vector<int>(loop_vars_.size(), 0));
  line(indent, "{");
  if (!before.empty()) line(indent + 1, before);
  line(indent + 1, "const auto sc_through = " + value + ";");
  line(indent + 1, grid_read(&centre) + " = sc_through;");
  for (const std::string& f : forward) line(indent + 1, f);
  line(indent, "}");
}

std::vector<std::string> CudaKernelEmitter::put_forwards(const std::string& grid) {
  std::vector<std::string> out;
  if (!no_faces_) out.push_back(face_stores(grid));
  return out;
}

void CudaKernelEmitter::reduce_point(const Reduce* r, const std::string& acc, int indent) {
  const std::string t = cpp_type(r->type);
  line(indent, "const " + t + " sc_value = [&]() -> " + t + " {");
  body(r->body, indent + 1);
  line(indent, "}();");
  line(indent, reduce_combine(r->op, acc, "sc_value"));
}

void CudaKernelEmitter::find_fused_reductions(const Stmt& root) {
  struct Pairs : IRVisitor {
    using IRVisitor::visit;
    std::set<const StmtNode*> reduces, allreduces;
    void visit(const Block* b) override {
      for (size_t i = 0; i < b->stmts.size(); ++i) {
        const size_t at = passes::allreduce_after(*b, i);
        if (at == b->stmts.size()) continue;
        reduces.insert(b->stmts[i].get());
        allreduces.insert(b->stmts[at].get());
      }
      IRVisitor::visit(b);
    }
  } pairs;
  pairs.visit(root);
  fused_reduces_ = std::move(pairs.reduces);
  fused_allreduces_ = std::move(pairs.allreduces);
}

void CudaKernelEmitter::reduce(const Stmt& self, int indent) {
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
  // A step of several walks: a reduction may read the neighbours' rows of the walk before; a
  // fused sweep (it stores) is a walk itself.
  const bool walk = flow_walks() && !stored_grids(self).empty();
  if (flow_walks()) flow_wait(indent, walk ? flow_walk_of(self).wait_back : 1);
  if (walk) line(indent, "++sc_step;");
  if (flow_ && !barrier_free)
    line(
        indent,
        "sc_pe.grid_barrier();  // the dataflow loop: every block's rows of this step are written");
  if (barrier_free && flow_reduction_list_[flow_reduction->second].folded) {
    line(indent, t + " " + s->result + " = sc_fold" + std::to_string(flow_reduction->second) +
                     ";  // this thread's points, added up in the update's walk");
  } else {
    line(indent, t + " " + s->result + " = " + reduce_identity(s->op, s->type) + ";");
    // A reduction of two or more dimensions walks its range as an update does: strips, and wide
    // items (16-byte loads of the last dimension) where the layout allows, each thread combining
    // its points' values; in the dataflow loop, the block's rows of it (in a step of one update,
    // point by point: a few points a thread).
    const bool strip = (!flow_ || flow_walks()) && s->indices.size() >= 2;
    const std::string workers = barrier_free ? "sc_mine" : "sc_all";
    flow_rows_ = barrier_free;
    int inner = open_points(self, s->range, s->indices, s->body, indent, workers, nullptr, strip);
    flow_rows_ = false;
    if (strip) {
      reducing_ = s;
      strip_points(s->body, inner, workers);
      reducing_ = nullptr;
    } else {
      reduce_point(s, s->result, inner);
    }
    close_points(inner, strip);
  }
  if (walk) flow_walk_done(flow_walk_of(self), s->range, indent);
  if (barrier_free) {
    const std::string r = "sc_red" + std::to_string(flow_reduction->second);
    if (flow_reduction_list_[flow_reduction->second].deferred) {
      line(indent, s->result + " = " + r + ".post(" + s->result + ", " + reduce_op_name(s->op) +
                       ");  // this execution's value posted (deferred: not read in the loop; "
                       "complete() after it)");
    } else {
      line(indent, s->result + " = " + r + ".reduce(" + s->result + ", " + reduce_op_name(s->op) +
                       ");  // every block of every PE, in one order, with no barrier (the "
                       "allreduce below)");
    }
    return;
  }
  if (fused_reduces_.count(s)) {
    line(indent,
         s->result + " = " + kRt + "grid_reduce(sc_pe, " + s->result + ", " +
             reduce_op_name(s->op) +
             ", sc_args.sc_scratch, true);  // over this GPU, then across the GPUs in PE order "
             "(the allreduce below)");
    return;
  }
  line(indent, s->result + " = " + kRt + "grid_reduce(sc_pe, " + s->result + ", " +
                   reduce_op_name(s->op) + ", sc_args.sc_scratch);  // over this GPU");
}

void CudaKernelEmitter::phase_barrier(const Stmt& s, int indent) {
  WorkerRole role = as<PhaseBarrier>(s)->role;
  if (flow_) return flow_barrier(s, indent);
  if (group(role) == "sc_all") {
    line(indent, "sc_pe.grid_barrier();  // phase_barrier");
    return;
  }
  const bool comm = role == WorkerRole::Comm;
  std::string g = group(role), counter = comm ? "sc_args.sc_sync + 0" : "sc_args.sc_sync + 1";
  line(indent, std::string("// phase_barrier role(") + (comm ? "comm" : "compute") +
                   "): among the group's blocks");
  line(indent, "if (sc_n_comm == 0) {");
  line(indent + 1, "sc_pe.grid_barrier();");
  line(indent, "} else if (" + g + ".has_me()) {");
  line(indent + 1, std::string(kRt) + "group_barrier(sc_pe, " + g + ", " + counter + ", " + g +
                       "_barriers, \"the " + (comm ? "comm" : "compute") + " group\");");
  line(indent, "}");
}

void CudaKernelEmitter::target_stmt(const Stmt& s, int indent) {
  switch (s->kind) {
    case StmtKind::HaloSend: {
      auto* h = as<HaloSend>(s);
      const std::string& g = h->grid;
      comment(indent, s);
      if (flow_) {
        line(indent,
             "// (the dataflow loop: the step before put these halos, or the exchange before the "
             "loop)");
        return;
      }
      line(indent, "++" + derived("epoch", g) + ";");
      transfer(h->role,
               "sc_args." + derived("halo", g) + ".send(sc_pe, " + g + ", " + derived("epoch", g),
               "designated blocks put over NVLink", indent);
      return;
    }
    case StmtKind::HaloRecv: {
      auto* h = as<HaloRecv>(s);
      const std::string& g = h->grid;
      comment(indent, s);
      if (flow_) return;
      transfer(h->role,
               "sc_args." + derived("halo", g) + ".recv(sc_pe, " + g + ", " + derived("epoch", g),
               "wait, unpack, acknowledge", indent);
      conservative_barrier(indent, "the halos are in place before any block reads them");
      return;
    }
    case StmtKind::AllReduce: {
      auto* a = as<AllReduce>(s);
      if (a->last)
        return error(s, "internal: 'allreduce ... last' is the host-controlled schedule's "
                        "(defer-host-reads)");
      comment(indent, s);
      if (fused_allreduces_.count(a)) {
        const bool flow_reduction =
            flow_ && std::any_of(flow_reductions_.begin(), flow_reductions_.end(),
                                 [&](const auto& r) { return r.first->result == a->var; });
        line(indent, flow_reduction ? "// (done by the reduction above)"
                                    : "// (done by the grid_reduce above)");
        return;
      }
      line(indent, a->var + " = " + kRt + "team_allreduce(sc_pe, " + a->var + ", " +
                       reduce_op_name(a->op) +
                       ", sc_args.sc_scratch);  // across the GPUs, in PE order");
      return;
    }
    case StmtKind::PhaseBarrier:
      return phase_barrier(s, indent);
    case StmtKind::SignalDecl: {
      // The signals live in symmetric memory the launcher zeroed; declaring one is collective
      // (a barrier over every PE, as the reference's Signal constructor).
      auto* d = as<SignalDecl>(s);
      comment(indent, s);
      line(indent, "std::uint64_t* const " + d->name + " = sc_args.sc_signals + " +
                       std::to_string(signals_++) + ";  // symmetric, zero at launch");
      line(indent, "sc_pe.barrier_all(\"the declaration of signal %" + d->name + " at " + where(s) +
                       "\");");
      return;
    }
    case StmtKind::PutSignal:
      return put_signal(s, indent);
    case StmtKind::WaitUntil: {
      auto* w = as<WaitUntil>(s);
      comment(indent, s);
      line(indent, std::string(kRt) + "wait_until_on(sc_pe, " + group(w->role) + ", " +
                       std::to_string(transfers_++) + ", " + w->signal + ", ::stencilc::rt::Cmp::" +
                       cmp_name(w->cmp) + ", " + expr(w->value) + ", \"signal %" + w->signal +
                       " at " + where(s) + "\");  // one block of the group waits");
      return;
    }
    case StmtKind::Quiet:
      comment(indent, s);
      line(indent,
           std::string(kRt) + "quiet_all(sc_pe);  // every block: this PE's puts are complete");
      return;
    case StmtKind::BarrierAll:
      if (flow_) {
        flow_barrier(s, indent);
        return;
      }
      comment(indent, s);
      line(indent, "sc_pe.barrier_all(\"barrier_all at " + where(s) + "\");");
      return;
    default:
      return error(
          s, "the cuda target does not support '" + print(s).substr(0, print(s).find(' ')) + "'");
  }
}

void CudaKernelEmitter::swap(const Swap* s, int indent) {
  if (!spmd_) {
    line(indent, std::string(kRt) + "swap_buffers(" + s->a + ", " + s->b + ");  // swap %" + s->a +
                     ", %" + s->b + ": the buffers trade places");
    return;
  }
  line(indent, std::string(kRt) + "check_swap(sc_pe, " + s->a + ", " + s->b + ", \"" +
                   program_->name + ": swap of %" + s->a + " and %" + s->b + "\");");
  CppEmitter::swap(s, indent);
}

std::string CudaKernelEmitter::box_list(const std::vector<Expr>& v) {
  std::vector<std::string> parts;
  for (const Expr& e : v) parts.push_back(expr(e));
  return "{" + join(parts) + "}";
}

void CudaKernelEmitter::put_signal(const Stmt& s, int indent) {
  auto* p = as<PutSignal>(s);
  comment(indent, s);
  line(indent, "{");
  line(indent + 1,
       "const int sc_dlo[] = " + box_list(p->dst.lo) + ", sc_dhi[] = " + box_list(p->dst.hi) + ";");
  line(indent + 1,
       "const int sc_slo[] = " + box_list(p->src.lo) + ", sc_shi[] = " + box_list(p->src.hi) + ";");
  line(indent + 1, std::string(kRt) + "put_signal_region(sc_pe, " + group(p->role) + ", " +
                       std::to_string(transfers_++) + ", " + p->dst.block + ", sc_args." +
                       derived("on", p->dst.block) + ", sc_dlo, sc_dhi, " + p->src.block +
                       ", sc_slo, sc_shi, " + p->signal + ", " + expr(p->value) + ", " +
                       expr(p->pe) + ", \"" + program_->name + ": put_signal at " + where(s) +
                       "\");");
  line(indent, "}");
}

void CudaKernelEmitter::transfer(WorkerRole role, const std::string& call, const std::string& why,
                                 int indent) {
  if (group(role) == "sc_all") {
    line(indent, call + ");  // " + why);
    return;
  }
  std::string g = group(role);
  line(indent,
       "if (" + g + ".has_me()) " + call + ", " + g + ".first, " + g + ".count);  // " + why);
}

}  // namespace stencilc::codegen::cuda
