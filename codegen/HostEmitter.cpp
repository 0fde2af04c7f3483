// The host target (see HostEmitter.h). For each decomposed program it writes, inside
// `namespace stencilc_generated::sc_<program>`: the module's functions, a Context with what every
// PE keeps besides its blocks (halo exchanges and their epochs, the grids' shapes), the per-PE
// function `run_pe` translated statement by statement from the IR, and the launcher.
#include "codegen/HostEmitter.h"

#include "codegen/CppEmitter.h"
#include "codegen/EmitUtil.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace stencilc::codegen {

using namespace ir;

namespace {

/// run_pe: one PE's part of a decomposed global-view program.
class HostProgramEmitter : public CppEmitter {
 public:
  HostProgramEmitter(const Module& m, const Program& p) {
    module_ = &m;
    program_ = &p;
    for (const Param& q : p.params)
      if ((q.kind == ParamKind::Grid || q.kind == ParamKind::Block) && first_grid_.empty()) first_grid_ = q.name;
    spmd_ = p.kind == ProgramKind::Spmd;
  }

  void run_pe() {
    std::vector<std::string> params{"Context& sc_cx"};
    for (const Param& p : program_->params) {
      switch (p.kind) {
        case ParamKind::Grid: params.push_back(block_type(p) + "& " + p.name); break;
        case ParamKind::Scalar: params.push_back(std::string(cpp_type(p.type)) + " " + p.name); break;
        case ParamKind::ScalarRef: params.push_back(std::string(cpp_type(p.type)) + "& " + p.name); break;
        case ParamKind::Block: params.push_back(block_type(p) + "& " + p.name); break;
      }
    }
    line(0, "// program @" + program_->name + ", as every PE runs it on its own blocks");
    line(0, "static void run_pe(" + join(params) + ") {");
    body(program_->body, 1);
    line(0, "}");
  }

 protected:
  std::string first_grid_;
  bool spmd_ = false;                   // an SC_SPMD_PROGRAM: local ranges, explicit communication
  std::string reduce_var_;
  bool split_ = false;  // the innermost point update is one part of a split foreach

  std::string grid_query(const GridQuery* q) override {
    std::string d = std::to_string(q->dim);
    switch (q->op) {
      case GridQueryOp::Extent:
        // A global grid's extent; a block's owned extent.
        return spmd_ ? q->grid + ".extent[" + d + "]" : "sc_cx." + q->grid + "_desc.extent[" + d + "]";
      case GridQueryOp::Origin: return q->grid + ".origin[" + d + "]";
      case GridQueryOp::Halo: return q->grid + ".halo_lo[" + d + "]";
      case GridQueryOp::GlobalExtent: return q->grid + ".global_extent[" + d + "]";
      case GridQueryOp::InteriorLo: return "sc_cx." + q->grid + "_interior.lo[" + d + "]";
      case GridQueryOp::InteriorHi: return "sc_cx." + q->grid + "_interior.hi[" + d + "]";
      case GridQueryOp::ExtentOn:
      case GridQueryOp::OriginOn: {
        const char* fn = q->op == GridQueryOp::ExtentOn ? "extent_on" : "origin_on";
        return std::string("::stencilc::compiled::") + fn + "(sc_cx.grid, " + q->grid + ", " + expr(q->pe) + ", " + d + ")";
      }
    }
    return "?";
  }

  std::string global_range(const Range& r) {
    if (r.kind == Range::Kind::Interior) return "sc_cx." + r.grid + "_interior";
    if (r.kind == Range::Kind::Owned) return "::stencilc::compiled::owned(" + r.grid + ")";
    std::vector<std::string> lo, hi;
    for (const Expr& e : r.lo) lo.push_back(expr(e));
    for (const Expr& e : r.hi) hi.push_back(expr(e));
    return "::stencilc::compiled::Box<" + std::to_string(r.rank) + ">{{" + join(lo) + "}, {" + join(hi) + "}}";
  }

  /// Opens the loops of a point update over the PE's part of `range`; returns the new indent.
  int open_point_loops(const Stmt& s, const Range& range, const std::vector<std::string>& indices,
                       const Stmt& point_body, int indent, const ForEach* part = nullptr) {
    line(indent, "{");
    ++indent;
    line(indent, "const auto sc_range = " + global_range(range) + ";");
    ReadExtents reads;
    reads.visit(point_body);
    std::string where = module_->source + ":" + std::to_string(s->loc.line) + ":" + std::to_string(s->loc.col);
    for (const auto& [grid, ext] : reads.grids) {
      bool offsets = std::any_of(ext.first.begin(), ext.first.end(), [](int o) { return o != 0; }) ||
                     std::any_of(ext.second.begin(), ext.second.end(), [](int o) { return o != 0; });
      if (spmd_) {
        // Local indices: every read must stay inside the block and its halos.
        line(indent, "::stencilc::compiled::check_local_reads(\"" + program_->name + "\", \"" + grid + "\", " + grid +
                         ", sc_range, " + int_list(ext.first) + ", " + int_list(ext.second) + ", \"" + where + "\");");
      } else if (offsets) {
        line(indent, "::stencilc::compiled::check_reads(\"" + program_->name + "\", sc_cx." + grid +
                         "_desc, sc_range, " + int_list(ext.first) + ", " + int_list(ext.second) + ", \"" + where + "\");");
      }
    }
    if (!spmd_) {
      // The range must hold grid points only, as the reference build's index checks require.
      std::vector<std::string> descs;
      for (const std::string& g : indexed_grids(point_body)) descs.push_back("&sc_cx." + g + "_desc");
      line(indent, "::stencilc::compiled::check_range(\"" + program_->name + "\", sc_cx." + first_grid_ +
                       "_desc, sc_range, {" + join(descs) + "}, \"" + where + "\");");
    }
    // Global-view programs loop over their part of a global range; SPMD ranges are local already.
    line(indent, spmd_ ? "const auto sc_local = sc_range;"
                       : "const auto sc_local = ::stencilc::compiled::clip(sc_range, " + first_grid_ + ");");
    split_ = part && part->part != ForEachPart::All;
    if (split_) {
      // split-boundary: the points within the widths of the block's faces, or the others. Every
      // grid of a decomposed program has the PE's block; an SPMD part is measured from the
      // block it stores to.
      std::string faces = spmd_ ? split_reference_block(*part) : first_grid_;
      std::string inner = "::stencilc::compiled::inner_part(sc_local, " + faces + ", " + int_list(part->width_lo) +
                          ", " + int_list(part->width_hi) + ")";
      std::string boxes = part->part == ForEachPart::Inner
                              ? "std::array<::stencilc::compiled::Box<" + std::to_string(indices.size()) + ">, 1>{" + inner + "}"
                              : "::stencilc::compiled::boundary_part(sc_local, " + inner + ")";
      line(indent, "for (const auto& sc_box : " + boxes + ") {");
      ++indent;
    } else {
      line(indent, "const auto& sc_box = sc_local;");
    }
    loop_vars_.clear();
    for (size_t d = 0; d < indices.size(); ++d) {
      std::string l = "sc_l" + std::to_string(d);
      loop_vars_.push_back(l);
      std::string dd = std::to_string(d);
      line(indent, "for (int " + l + " = sc_box.lo[" + dd + "]; " + l + " < sc_box.hi[" + dd + "]; ++" + l + ") {");
      ++indent;
      line(indent, "const int " + indices[d] + " = " + (spmd_ ? l : first_grid_ + ".origin[" + dd + "] + " + l) + ";");
      line(indent, "(void)" + indices[d] + ";");
    }
    return indent;
  }

  void close_point_loops(int indent, int rank) {
    for (int d = 0; d < rank; ++d) line(--indent, "}");
    if (split_) line(--indent, "}");
    split_ = false;
    line(--indent, "}");
    loop_vars_.clear();
  }

  void for_each(const Stmt& self, int indent) override {
    auto* s = as<ForEach>(self);
    comment(indent, self);
    int inner = open_point_loops(self, s->range, s->indices, s->body, indent, s);
    body(s->body, inner);
    close_point_loops(inner, (int)s->indices.size());
  }

  void reduce(const Stmt& self, int indent) override {
    auto* s = as<Reduce>(self);
    comment(indent, self);
    std::string t = cpp_type(s->type);
    line(indent, t + " " + s->result + " = " + reduce_identity(s->op, s->type) + ";");
    int inner = open_point_loops(self, s->range, s->indices, s->body, indent);
    // A lambda gives `yield` the meaning of `return`, early exits included.
    line(inner, "const " + t + " sc_value = [&]() -> " + t + " {");
    body(s->body, inner + 1);
    line(inner, "}();");
    line(inner, reduce_combine(s->op, s->result, "sc_value"));
    close_point_loops(inner, (int)s->indices.size());
  }

  void target_stmt(const Stmt& s, int indent) override {
    switch (s->kind) {
      case StmtKind::HaloSend: {
        const std::string& g = as<HaloSend>(s)->grid;
        comment(indent, s);
        line(indent, "sc_cx." + g + "_halo.send(sc_cx.pe, " + g + ", ++sc_cx." + g + "_epoch);");
        return;
      }
      case StmtKind::HaloRecv: {
        const std::string& g = as<HaloRecv>(s)->grid;
        comment(indent, s);
        line(indent, "sc_cx." + g + "_halo.recv(sc_cx.pe, " + g + ", sc_cx." + g + "_epoch);");
        return;
      }
      case StmtKind::AllReduce: {
        auto* a = as<AllReduce>(s);
        if (a->last)
          return error(s, "internal: 'allreduce ... last' is the host-controlled schedule's "
                          "(defer-host-reads)");
        const char* op = a->op == ReduceOp::Sum ? "Sum" : a->op == ReduceOp::Max ? "Max" : "Min";
        comment(indent, s);
        line(indent, a->var + " = sc_cx.pe.allreduce(" + a->var + ", ::stencilc::rt::ReduceOp::" + op + ");");
        return;
      }
      case StmtKind::PhaseBarrier:
        line(indent, "// phase_barrier: one thread per PE on this target, nothing to wait for");
        return;
      case StmtKind::Exchange:
        return error(s, "internal: 'exchange' reached code generation unlowered (run lower-exchanges)");
      case StmtKind::SignalDecl:
        comment(indent, s);
        line(indent, "std::uint64_t* const " + as<SignalDecl>(s)->name +
                         " = sc_cx.pe.sym_alloc_array<std::uint64_t>(1);  // collective, zeroed");
        return;
      case StmtKind::PutSignal:
        return put_signal(s, indent);
      case StmtKind::WaitUntil: {
        auto* w = as<WaitUntil>(s);
        comment(indent, s);
        line(indent, "sc_cx.pe.wait_until(" + w->signal + ", ::stencilc::rt::Cmp::" + cmp_name(w->cmp) + ", " +
                         expr(w->value) + ", \"signal %" + w->signal + " at " + where(s) + "\");");
        return;
      }
      case StmtKind::Quiet:
        comment(indent, s);
        line(indent, "sc_cx.pe.quiet();");
        return;
      case StmtKind::BarrierAll:
        comment(indent, s);
        line(indent, "sc_cx.pe.barrier_all(\"barrier_all at " + where(s) + "\");");
        return;
      default:
        return error(s, "the host target does not support '" + print(s).substr(0, print(s).find(' ')) + "'");
    }
  }

  std::string where(const Stmt& s) {
    return module_->source + ":" + std::to_string(s->loc.line) + ":" + std::to_string(s->loc.col);
  }

  std::string box_list(const std::vector<Expr>& v) {
    std::vector<std::string> parts;
    for (const Expr& e : v) parts.push_back(expr(e));
    return "{" + join(parts) + "}";
  }

  void put_signal(const Stmt& s, int indent) {
    auto* p = as<PutSignal>(s);
    comment(indent, s);
    line(indent, "::stencilc::compiled::put_region(sc_cx.pe, sc_cx.grid, " + p->dst.block + ", " + box_list(p->dst.lo) +
                     ", " + box_list(p->dst.hi) + ", " + p->src.block + ", " + box_list(p->src.lo) + ", " +
                     box_list(p->src.hi) + ", " + p->signal + ", " + expr(p->value) + ", " + expr(p->pe) + ", \"" +
                     where(s) + "\");");
  }
};

std::string context_struct(const Program& p, const std::set<std::string>& exchanged) {
  std::vector<std::string> lines{"struct Context {", "  ::stencilc::rt::Pe& pe;"};
  for (const Param& g : p.params) {
    if (g.kind != ParamKind::Grid) continue;
    std::string n = std::to_string(g.rank);
    lines.push_back("  ::stencilc::compiled::GridDesc<" + n + "> " + g.name + "_desc;");
    lines.push_back("  ::stencilc::compiled::Box<" + n + "> " + g.name + "_interior;");
    if (exchanged.count(g.name)) {
      lines.push_back("  ::stencilc::rt::HaloExchange<" + std::string(cpp_type(g.type)) + ", " + n + "> " + g.name +
                      "_halo;");
      lines.push_back("  std::uint64_t " + g.name + "_epoch = 0;  // exchanges of %" + g.name + " so far");
    }
  }
  lines.push_back("  int my_pe() const { return pe.id(); }");
  lines.push_back("  int n_pes() const { return pe.n(); }");
  lines.push_back("};");
  return join(lines, "\n") + "\n";
}

// A parameter's blocks, values and results in the launchers go by derived() names (sc_blocks_a,
// sc_value_x, sc_result_x), so a grid named pe or plan does not meet sc_pe or sc_plan.
std::string launcher(const Program& p, const std::set<std::string>& exchanged,
                     const std::vector<std::array<int, 2>>& swaps) {
  std::vector<std::string> params, descs, blocks, gathers, cx_init, run_args, ref_in, ref_out;
  int rank = 0;
  for (const Param& g : p.params) {
    std::string t = cpp_type(g.type);
    if (g.kind == ParamKind::Grid) {
      rank = g.rank;
      std::string n = std::to_string(g.rank);
      params.push_back(std::string(g.is_const ? "const " : "") + "::stencilc::Grid<" + t + ", " + n + ">& " + g.name);
      descs.push_back("::stencilc::compiled::describe(\"" + g.name + "\", " + g.name + ", " + int_list(g.halo_lo) +
                      ", " + int_list(g.halo_hi) + ")");
      blocks.push_back("auto " + derived("blocks", g.name) + " = ::stencilc::compiled::scatter<" +
                       t + ", " + n + ">(sc_pe, sc_plan.grid, " + g.name + ", " +
                       int_list(g.halo_lo) + ", " + int_list(g.halo_hi) +
                       ", ::stencilc::compiled::poison<" + t + ">());");
      std::string desc = "sc_descs[" + std::to_string(descs.size() - 1) + "]";
      cx_init.push_back(desc);
      cx_init.push_back("::stencilc::compiled::interior(" + desc + ")");
      if (exchanged.count(g.name)) {
        cx_init.push_back("{sc_pe, sc_plan.grid, " + derived("blocks", g.name) +
                          ", ::stencilc::compiled::periodic_dims(" + desc + "), " +
                          (g.halo_corners ? "true" : "false") + ", \"" + g.name + "\"}");
        cx_init.push_back("0");
      }
      run_args.push_back(derived("blocks", g.name));
      if (!g.is_const)
        gathers.push_back("::stencilc::compiled::gather(" + derived("blocks", g.name) + ", " +
                          g.name + ");");
    } else if (g.kind == ParamKind::Scalar) {
      params.push_back(t + " " + g.name);
      run_args.push_back(g.name);
    } else if (g.kind == ParamKind::ScalarRef) {
      params.push_back(t + "& " + g.name);
      ref_in.push_back(t + " " + derived("value", g.name) + " = " + g.name + ";");
      run_args.push_back(derived("value", g.name));
      ref_out.push_back(derived("result", g.name) + " = " + derived("value", g.name) + ";");
    }
  }
  std::vector<std::string> swap_list;
  for (const auto& s : swaps) swap_list.push_back("{" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + "}");
  std::string r = std::to_string(rank);
  std::vector<std::string> l;
  l.push_back("inline void " + p.name + "_launch(" + join(params) + ") {");
  if (const std::string check = distinct_grids_check(p); !check.empty()) l.push_back(check);
  l.push_back("  const std::vector<::stencilc::compiled::GridDesc<" + r + ">> sc_descs{" + join(descs) + "};");
  l.push_back("  const auto sc_plan = ::stencilc::compiled::plan<" + r + ">(\"" + p.name + "\", sc_descs, {" +
              join(swap_list) + "});");
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      l.push_back("  " + std::string(cpp_type(g.type)) + " " + derived("result", g.name) + " = " +
                  g.name + ";");
  l.push_back("  ::stencilc::rt::run_team(sc_plan.pes, [&](::stencilc::rt::Pe& sc_pe) {");
  for (const auto& b : blocks) l.push_back("    " + b);
  l.push_back("    sc_" + p.name + "::Context sc_cx{sc_pe, " + join(cx_init) + "};");
  for (const auto& x : ref_in) l.push_back("    " + x);
  l.push_back("    sc_" + p.name + "::run_pe(sc_cx, " + join(run_args) + ");");
  for (const auto& g : gathers) l.push_back("    " + g);
  if (!ref_out.empty()) {
    l.push_back("    if (sc_pe.id() == 0) {  // by-reference results: every PE computed the same values");
    for (const auto& x : ref_out) l.push_back("      " + x);
    l.push_back("    }");
  }
  l.push_back("  });");
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      l.push_back("  " + g.name + " = " + derived("result", g.name) + ";");
  l.push_back("}");
  return join(l, "\n") + "\n";
}

/// SPMD programs: what every PE keeps besides its blocks (the process grid, for extent_on).
std::string spmd_context_struct() {
  return "struct Context {\n"
         "  ::stencilc::rt::Pe& pe;\n"
         "  ::stencilc::rt::ProcessGrid grid;\n"
         "  int my_pe() const { return pe.id(); }\n"
         "  int n_pes() const { return pe.n(); }\n"
         "};\n";
}

/// stencilc::spmd(program, split, args...) finds this launcher (registered after the program)
/// and hands it the arguments type-erased (see include/stencilc/detail/launch.hpp).
std::string spmd_launcher(const Program& p) {
  std::vector<std::string> l, descs, blocks, run_args, gathers;
  l.push_back("inline void " + p.name + "_spmd_launch(::stencilc::Split sc_split, void* const* sc_args) {");
  int rank = 0;
  for (size_t k = 0; k < p.params.size(); ++k) {
    const Param& g = p.params[k];
    std::string t = cpp_type(g.type);
    l.push_back(spmd_argument(g, k, &descs));
    if (g.kind == ParamKind::Block) {
      rank = g.rank;
      std::string n = std::to_string(g.rank);
      blocks.push_back("auto " + derived("blocks", g.name) + " = ::stencilc::compiled::scatter<" +
                       t + ", " + n + ">(sc_pe, sc_grid, " + g.name + ", sc_halo, sc_halo, " + t +
                       "(0));");
      run_args.push_back(derived("blocks", g.name));
      if (!g.is_const)
        gathers.push_back("::stencilc::compiled::gather(" + derived("blocks", g.name) + ", " +
                          g.name + ");");
    } else if (g.kind == ParamKind::Scalar) {
      run_args.push_back(g.name);
    } else {
      run_args.push_back(derived("value", g.name));
    }
  }
  std::string r = std::to_string(rank);
  l.push_back("  const auto sc_halo = ::stencilc::compiled::split_halo<" + r + ">(sc_split);");
  l.push_back("  const std::vector<::stencilc::compiled::GridDesc<" + r + ">> sc_descs{" + join(descs) + "};");
  l.push_back("  const ::stencilc::rt::ProcessGrid sc_grid = ::stencilc::compiled::spmd_grid<" + r + ">(\"" + p.name +
              "\", sc_split, sc_descs);");
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      l.push_back("  " + std::string(cpp_type(g.type)) + " " + derived("result", g.name) + " = " +
                  g.name + ";");
  l.push_back("  ::stencilc::rt::run_team(sc_grid.size(), [&](::stencilc::rt::Pe& sc_pe) {");
  for (const auto& b : blocks) l.push_back("    " + b);
  l.push_back("    sc_" + p.name + "::Context sc_cx{sc_pe, sc_grid};");
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      l.push_back("    " + std::string(cpp_type(g.type)) + " " + derived("value", g.name) + " = " +
                  g.name + ";");
  l.push_back("    sc_" + p.name + "::run_pe(sc_cx, " + join(run_args) + ");");
  l.push_back("    sc_pe.barrier_all(\"the end of " + p.name + "\");  // no PE still puts into a block being gathered");
  for (const auto& g : gathers) l.push_back("    " + g);
  std::vector<std::string> results;
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      results.push_back(derived("result", g.name) + " = " + derived("value", g.name) + ";");
  if (!results.empty()) {
    l.push_back("    if (sc_pe.id() == 0) {  // T& parameters hand back PE 0's value, as in the reference");
    for (const auto& x : results) l.push_back("      " + x);
    l.push_back("    }");
  }
  l.push_back("  });");
  for (const Param& g : p.params)
    if (g.kind == ParamKind::ScalarRef)
      l.push_back("  " + g.name + " = " + derived("result", g.name) + ";");
  l.push_back("}");
  return join(l, "\n") + "\n";
}

}  // namespace

std::vector<GeneratedProgram> emit_host(const Module& module, std::vector<std::string>* errors) {
  std::vector<GeneratedProgram> out;
  for (const Program& p : module.programs) {
    bool spmd = p.kind == ProgramKind::Spmd;
    if (!spmd && !p.decomposed) {
      errors->push_back(module.source + ": error: program '" + p.name + "' reached the host emitter undecomposed");
      continue;
    }
    ExchangedGrids ex;
    ex.program = &p;
    ex.visit(p.body);
    HostProgramEmitter emitter(module, p);
    for (const Function& f : module.functions) emitter.function(f, "static inline");
    emitter.run_pe();
    if (!emitter.ok()) {
      errors->insert(errors->end(), emitter.errors().begin(), emitter.errors().end());
      continue;
    }
    std::string code;
    code += "// ---- generated by stencilc from program @" + p.name + " (host target: PEs are threads) ----\n";
    code += "namespace stencilc_generated {\nnamespace sc_" + p.name + " {\n\n";
    code += (spmd ? spmd_context_struct() : context_struct(p, ex.grids)) + "\n";
    code += emitter.take();
    code += "\n}  // namespace sc_" + p.name + "\n\n";
    code += spmd ? spmd_launcher(p) : launcher(p, ex.grids, ex.swaps);
    code += "}  // namespace stencilc_generated\n// ---- end of generated code ----\n";
    out.push_back(generated_program(p, std::move(code)));
  }
  if (!errors->empty()) return {};
  return out;
}

namespace {

/// The output of splice(), which knows the line it is on.
class SplicedText {
 public:
  SplicedText(const std::string& source_name, const std::string& generated_name)
      : source_name_(source_name), generated_name_(generated_name) {}

  /// Text as it is (the prologue: its lines are the file's own).
  void raw(const std::string& text) {
    out_ += text;
    lines_ += std::count(text.begin(), text.end(), '\n');
  }
  /// The user's text, starting at the beginning of its line `line`.
  void user(long line, const std::string& text) {
    if (text.empty()) return;
    raw(cpp_line_directive(line, source_name_) + "\n");
    raw(text);
  }
  /// Generated text, whole lines; its kResumeGeneratedLines lines become #line directives.
  void generated(const std::string& text) {
    end_line();
    raw(directive_here() + "\n");
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      std::string one = text.substr(at, end - at);
      if (one == std::string(kResumeGeneratedLines) + "\n")  // none where another #line follows
        one = text.compare(end, 6, "#line ") == 0 ? "" : directive_here() + "\n";
      raw(one);
      at = end;
    }
  }
  /// Ends the line the text stopped in, if any.
  void end_line() {
    if (!out_.empty() && out_.back() != '\n') raw("\n");
  }
  std::string take() { return std::move(out_); }

 private:
  /// The #line that numbers the lines after it as the generated file's own.
  std::string directive_here() const { return cpp_line_directive(lines_ + 2, generated_name_); }

  std::string out_;
  long lines_ = 0;  // newlines written so far: the current line is lines_ + 1
  const std::string& source_name_;
  const std::string& generated_name_;
};

}  // namespace

std::string splice(const std::string& text, const std::string& source_name,
                   const std::string& generated_name, const std::string& prologue,
                   const std::vector<GeneratedProgram>& programs, const std::vector<SpliceSite>& sites,
                   const std::string& user_guard) {
  SplicedText out(source_name, generated_name);
  out.raw(prologue);
  size_t at = 0;
  auto line_of = [&](size_t offset) { return 1 + std::count(text.begin(), text.begin() + offset, '\n'); };
  // The user's lines (and the bodies' launch calls) inside #if !defined(user_guard), if given.
  auto guard = [&](bool open) {
    if (user_guard.empty()) return;
    out.generated(open ? "#if !defined(" + user_guard + ")\n" : "#endif  // !" + user_guard + "\n");
  };
  for (size_t i = 0; i < programs.size() && i < sites.size(); ++i) {
    const SpliceSite& s = sites[i];
    guard(true);
    out.user(line_of(at), text.substr(at, s.insert_at - at));  // insert_at starts a line
    guard(false);
    out.generated(programs[i].code);
    // The program's declaration up to its body, then the body's replacement on lines of its own.
    guard(true);
    out.user(line_of(s.insert_at), text.substr(s.insert_at, s.body_begin - s.insert_at));
    out.end_line();
    out.generated(programs[i].launch_call + programs[i].after + "\n");
    guard(false);
    at = s.body_end;  // the rest of the body's last line on
  }
  guard(true);
  out.user(line_of(at), text.substr(at));
  guard(false);
  return out.take();
}

}  // namespace stencilc::codegen
