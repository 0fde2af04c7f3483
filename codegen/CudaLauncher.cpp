// The CUDA target's host launcher (CudaInternal.h): for a global-view program, plan the
// decomposition, make the team, move the grids into the GPUs' symmetric memory, choose the time
// loop's form for the run among those the IR records (compiled::choose_form), launch the
// persistent kernel and bring the results back; for an SPMD program, the launcher stencilc::spmd
// dispatches to. p2p: one process does it for every GPU; nvshmem: every process for its own PE.
// The launch itself is a call of compiled::launch (include/stencilc/compiled_launch.hpp) with the
// program's data: its role table, its exchanges and the binding of its KernelArgs.
#include <algorithm>
#include <map>
#include <set>

#include "codegen/CudaInternal.h"
#include "codegen/EmitUtil.h"
#include "passes/LoopForms.h"

namespace stencilc::codegen::cuda {

using namespace ir;
using passes::flow_reductions;
using passes::FlowLoop;
using passes::marked_flow_loop;
using passes::marked_regs_form;
using passes::RegsForm;

namespace {

/// specialize-blocks' cost model inputs (RoleModelInputs) as the launcher's constant table, which
/// compiled::launch evaluates on every PE (compiled::role_work).
std::vector<std::string> role_table(const RoleModelInputs& model, int rank) {
  std::vector<std::string> parts;
  for (const auto& part : model.inner_parts)
    parts.push_back("{" + int_list(part.width_lo) + ", " + int_list(part.width_hi) + ", " +
                    std::to_string(part.bytes_per_point) + "}");
  return {"  const ::stencilc::compiled::RoleModel<" + std::to_string(rank) +
              "> sc_roles{  // specialize-blocks' cost model (docs/PASSES.md)",
          "      {" + join(parts) + "},  // inner parts: widths lo, widths hi, bytes a point",
          std::string("      ") + (model.spmd_transfers ? "true" : "false") +
              ",  // the comm group's put_signal/signal_wait_until (SPMD)",
          "      " + std::to_string(model.pe_barriers) + ", " +
              std::to_string(model.group_barriers) + "};  // PE and group barriers a step"};
}

/// The comm group's exchanges on PE sc_pe as the cost model counts them, in `comm_grids`' order.
std::string exchange_loads(const Program& p, const RoleModelInputs& model) {
  std::vector<std::string> loads;
  for (const std::string& g : model.comm_grids)
    loads.push_back("::stencilc::compiled::exchange_load(" + derived("halo", g) +
                    ", sc_pe, sizeof(" + cpp_type(p.find_param(g)->type) + "))");
  return "  sc_launch.exchanges = [&](int sc_pe) {  // the comm group's exchanges on PE sc_pe\n"
         "    return std::vector<::stencilc::compiled::ExchangeLoad>{" +
         join(loads) + "};\n  };";
}

/// What both launchers (global-view and SPMD programs) do once the plan is made and `heap` (the
/// symmetric bytes it needs, an expression) is known: make the team; run `setup` (the grids'
/// uploads and the other allocations); then compiled::launch with the program's role table and
/// its KernelArgs binding (`args`: assignments to sc_args). Global-view programs pass their form
/// (sc_form) for the launch's grid and the STENCILC_TIMING line.
std::vector<std::string> team_and_launch(const Program& p, const RoleModelInputs& model, int rank,
                                         bool nvshmem, const std::string& heap,
                                         const std::string& heap_holds,
                                         const std::vector<std::string>& setup,
                                         std::vector<std::string> args) {
  const std::string r = std::to_string(rank);
  std::vector<std::string> out;
  if (nvshmem) {
    out.push_back(
        "  // MPI and NVSHMEM on the first run, its symmetric heap sized for this program's " +
        heap_holds + ".");
    out.push_back("  " + std::string(kRt) + "NvshmemTeam& sc_team = " + kRt + "NvshmemTeam::get(" +
                  heap + ");");
    out.push_back(
        "  " + std::string(kRt) +
        "NvshmemTeam::Scope sc_scope(sc_team);  // frees this run's symmetric memory at the end");
  } else {
    out.push_back("  " + std::string(kRt) + "P2PTeam sc_team(sc_plan.pes, " + heap +
                  ");  // one GPU per PE, peer access between all");
  }
  out.insert(out.end(), setup.begin(), setup.end());
  const std::string form = p.kind == ProgramKind::Global ? "&sc_form" : "nullptr";
  out.push_back("  ::stencilc::compiled::LaunchSpec<" + r + "> sc_launch{\"" + p.name + "\", sc_" +
                p.name + "::kBlockThreads, &sc_plan, " + form + "};");
  if (model.roles) {
    for (const auto& line : role_table(model, rank)) out.push_back(line);
    out.push_back("  sc_launch.roles = &sc_roles;");
    if (!model.comm_grids.empty()) out.push_back(exchange_loads(p, model));
  }
  if (!nvshmem) {
    out.push_back("  ::stencilc::compiled::launch(sc_team, sc_" + p.name +
                  "::kernel, sc_launch, [&](int sc_pe) {");
  } else {
    out.push_back("  const auto sc_bind = [&](int sc_pe) {");
  }
  out.push_back("    sc_" + p.name + "::KernelArgs sc_args{};");
  for (const auto& a : args) out.push_back("    " + a);
  out.push_back("    return sc_args;");
  out.push_back(nvshmem ? "  };" : "  });");
  if (nvshmem) {
    out.push_back("  if (sc_team.all_direct()) {  // every peer mapped: this unit's kernel, no NVSHMEM call");
    out.push_back("    ::stencilc::compiled::launch(sc_team, sc_" + p.name + "::kernel, sc_launch, sc_bind);");
    out.push_back("  } else {  // some peer behind NVSHMEM's proxy: the -rdc unit's kernel");
    out.push_back("    sc_" + p.name + "::launch_proxied(sc_team, sc_launch, sc_bind);");
    out.push_back("  }");
  }
  return out;
}

/// The rank of a launch's LaunchSpec: its last grid's (block's, SPMD).
int launch_rank(const Program& p) {
  int rank = 0;
  for (const Param& g : p.params)
    if (g.kind == ParamKind::Grid || g.kind == ParamKind::Block) rank = g.rank;
  return rank;
}

/// A scalar result parameter `g` (a reference the program assigns): its word on every GPU (into
/// `setup`), its kernel arguments, and after the launch PE 0's value back into the caller's
/// variable (`whose`: the comment on that line).
void scalar_result(const Param& g, bool nvshmem, const std::string& whose,
                   std::vector<std::string>* setup, std::vector<std::string>* args,
                   std::vector<std::string>* after) {
  setup->push_back("  auto " + derived("out", g.name) + " = sc_team.alloc<" + cpp_type(g.type) +
                   ">(1);");
  args->push_back("sc_args." + g.name + " = " + g.name + ";");
  args->push_back("sc_args." + derived("out", g.name) + " = " + derived("out", g.name) +
                  ".on(sc_pe);");
  if (nvshmem) {
    after->push_back("  ::stencilc::compiled::broadcast_result(sc_team, " + derived("out", g.name) +
                     ", " + g.name + ");  // " + whose);
  } else {
    after->push_back("  sc_team.download(0, &" + g.name + ", " + derived("out", g.name) +
                     ".on(0), 1);  // " + whose);
  }
}

/// After the launch, the lines that bring grid or block `g` back from the blocks it ended with
/// (swaps included) on `process_grid`: on nvshmem every PE's block into every process's grid, on
/// p2p every GPU's block into the one process's grid.
void copy_back(const Param& g, const std::string& process_grid, bool nvshmem,
               std::vector<std::string>* after) {
  if (nvshmem) {
    after->push_back(
        "  // %" + g.name +
        ": every PE's block it ended with (swaps included), into every process's grid");
    after->push_back("  ::stencilc::compiled::allgather_grid(sc_team, " + process_grid + ", " +
                     derived("final", g.name) + ", " + g.name + ", \"" + g.name + "\");");
    return;
  }
  after->push_back("  ::stencilc::compiled::download_final(sc_team, " + derived("final", g.name) +
                   ", " + g.name + ");  // %" + g.name +
                   ": the blocks it ended with (swaps included)");
}

/// Where `loop` is in the user's source, "file.cpp:line" (the file's name without its folders:
/// `source`, the module's, unless the loop came from another file), or "" where not known.
std::string loop_location(const StmtNode& loop, const std::string& source) {
  if (!loop.loc.valid()) return "";
  const std::string& file = loop.loc.file.empty() ? source : loop.loc.file;
  return file.substr(file.find_last_of('/') + 1) + ":" + std::to_string(loop.loc.line);
}

/// The launcher's lines that choose the time loop's form for the run among those the IR records
/// on it (compiled::choose_form, docs/SCHEDULES.md), from the run's process grid and sizes, into
/// `sc_form`. The loop: the one select-loop-forms marked, else the program's first at its top.
std::vector<std::string> form_choice(const Program& p, const std::string& source,
                                     const std::vector<std::string>& grid_names, int rank,
                                     bool nvshmem) {
  const std::string c = "::stencilc::compiled::";
  auto index_of = [&](const std::string& grid) {
    return std::to_string(std::find(grid_names.begin(), grid_names.end(), grid) -
                          grid_names.begin());
  };
  const FlowLoop flow = marked_flow_loop(p);
  const StmtNode* loop = flow.loop;
  if (const Block* body = as<Block>(p.body); body && !loop) {
    for (const Stmt& s : body->stmts)
      if (!loop && (s->kind == StmtKind::For || s->kind == StmtKind::While)) loop = s.get();
  }
  const RegsForm regs = flow.loop ? marked_regs_form(p, flow) : RegsForm{};
  std::vector<std::string> l;
  l.push_back(!flow.loop
                  ? "  // The time loop's form for this run: the IR records no other than the "
                    "barrier form."
                  : std::string("  // The time loop's form for this run, among those the "
                                "IR records on it: forms(dataflow") +
                        (regs.in.empty() ? "" : ", regs") + ").");
  l.push_back("  " + c + "FormQuery sc_query;");
  l.push_back("  sc_query.program = \"" + p.name + "\";");
  if (loop) l.push_back("  sc_query.loop = \"" + loop_location(*loop, source) + "\";");
  if (!flow.loop) {
    l.push_back("  const " + c + "FormChoice sc_form = " + c + "choose_form(sc_query);");
    return l;
  }
  l.push_back("  sc_query.dataflow = true;");
  if (!regs.in.empty()) l.push_back("  sc_query.regs = true;");
  if (nvshmem)
    l.push_back("  sc_query.direct = sc_team.all_direct();  // every peer mapped by NVSHMEM (one node)");
  l.push_back("  sc_query.grid = sc_plan.grid;");
  // The chain of flags wraps around where a grid the step exchanges is periodic along dimension 0.
  std::string periodic0;
  for (const std::string& g : flow.exchanged)
    periodic0 += (periodic0.empty() ? "" : " || ") + c + "periodic_dims(sc_descs[" + index_of(g) + "])[0]";
  l.push_back("  sc_query.periodic0 = " + (periodic0.empty() ? std::string("false") : periodic0) + ";");
  if (!regs.in.empty()) {
    l.push_back("  sc_query.periodic1 = " + c + "periodic_dims(sc_descs[" + index_of(regs.in) +
                "])[1];");
    l.push_back("  sc_query.cols = sc_plan.extent[1];");
  }
  l.push_back("  sc_query.size = " + c + "flow_size<" + std::to_string(rank) + ">(sc_plan, " +
              std::to_string(flow.radius) + ", sc_" + p.name + "::kBlockThreads, " +
              std::to_string(flow.walks.size()) + ");  // a step of " +
              std::to_string(flow.walks.size()) + (flow.walks.size() == 1 ? " walk" : " walks"));
  l.push_back("  const " + c + "FormChoice sc_form = " + c + "choose_form(sc_query" +
              (regs.in.empty() ? std::string()
                               : ", " + c + "regs_device<" + cpp_type(regs.type) + ">(sc_" +
                                     p.name + "::kernel, sc_team)") +
              ");");
  return l;
}

}  // namespace

/// The kernel's argument struct: per grid (global view) its block, shape, interior and exchange;
/// per block (SPMD) the block and every PE's layout of it; the scalars; then the shared tail.
std::string kernel_args(const Program& p, const std::set<std::string>& exchanged, bool roles) {
  std::vector<std::string> l{"struct KernelArgs {"};
  for (const Param& g : p.params) {
    std::string t = cpp_type(g.type), n = std::to_string(g.rank);
    if (g.kind == ParamKind::Grid || g.kind == ParamKind::Block) {
      l.push_back("  " + dblock_type(g) + " " + g.name + ";  // this GPU's block of %" + g.name);
      l.push_back("  " + dblock_type(g) + "* " + derived("final", g.name) + ";  // where %" +
                  g.name + " ends up");
    }
    if (g.kind == ParamKind::Grid) {
      l.push_back("  ::stencilc::compiled::DeviceShape<" + n + "> " + derived("shape", g.name) +
                  ";");
      l.push_back("  " + std::string(kRt) + "SBox<" + n + "> " + derived("interior", g.name) + ";");
      if (exchanged.count(g.name))
        l.push_back("  " + std::string(kRt) + "DHaloExchange<" + t + ", " + n + "> " +
                    derived("halo", g.name) + ";");
    } else if (g.kind == ParamKind::Block) {
      l.push_back("  const " + dblock_type(g) + "* " + derived("on", g.name) +
                  ";  // every PE's layout of it (extent_on, puts)");
    } else if (g.kind == ParamKind::Scalar) {
      l.push_back("  " + t + " " + g.name + ";");
    } else if (g.kind == ParamKind::ScalarRef) {
      l.push_back("  " + t + " " + g.name + ";  // in");
      l.push_back("  " + t + "* " + derived("out", g.name) + ";  // out");
    }
  }
  if (p.kind == ProgramKind::Spmd)
    l.push_back(
        "  std::uint64_t* sc_signals;  // the program's signals, symmetric, zero at launch");
  l.push_back("  std::uint64_t* sc_scratch;  // reductions: one word per block, and the result");
  if (const FlowLoop flow = marked_flow_loop(p); flow.loop) {
    l.push_back("  " + std::string(kRt) +
                "FlowSignals sc_flow;  // the dataflow loop's flags (flow.cuh)");
    l.push_back(
        "  int sc_flow_on, sc_flow_up, sc_flow_down;  // compiled::choose_form: on, the PEs before "
        "and after along dimension 0");
    if (const RegsForm regs = marked_regs_form(p, flow); !regs.in.empty())
      l.push_back("  " + std::string(kRt) + "RegsArgs<" + cpp_type(regs.type) +
                  "> sc_regs;  // compiled::choose_form: the loop's register-resident form (blocks "
                  "0: not chosen)");
    const size_t reductions = flow_reductions(flow).size();
    for (size_t k = 0; k < reductions; ++k)
      l.push_back("  std::uint64_t* sc_flow_red" + std::to_string(k) + ";  // its reduction " +
                  std::to_string(k) + "'s words (DFlowReduce)");
  }
  if (roles) {
    l.push_back(
        "  int sc_n_comm;  // blocks in the comm group (0: not specialised), from the cost model");
    l.push_back("  std::uint64_t* sc_sync;  // the comm and compute groups' barrier counters");
  }
  l.push_back("};");
  return join(l, "\n") + "\n";
}

/// The host side of one program: plan the decomposition, make the team, move the grids into the
/// GPUs' symmetric memory, launch the persistent kernel, bring the results back. p2p: one process
/// does it for every GPU. nvshmem: every process (mpirun) does it for its own PE, collectively,
/// and every process ends with the whole result.
/// The launcher's allocations for a time loop's dataflow and register-resident forms (flags,
/// reduction words, inboxes) into `l`, and their kernel arguments into `args`. Returns the heap
/// they take: a C++ expression added to symmetric_bytes' ("" without a dataflow loop).
std::string form_allocations(const Program& p, const std::vector<std::string>& grid_names,
                             std::vector<std::string>& l, std::vector<std::string>& args) {
  std::string flow_reductions_bytes;  // the heap the dataflow loop's reductions take
  std::string regs_bytes;             // and its register-resident form's inboxes
  if (const FlowLoop flow = marked_flow_loop(p); flow.loop) {
    const RegsForm regs = marked_regs_form(p, flow);
    if (!regs.in.empty()) {
      const std::string rt = kRt, t = cpp_type(regs.type);
      const std::string kin = std::to_string(
          std::find(grid_names.begin(), grid_names.end(), regs.in) - grid_names.begin());
      const std::string kout = std::to_string(
          std::find(grid_names.begin(), grid_names.end(), regs.out) - grid_names.begin());
      l.push_back("  auto sc_regs_inbox = sc_team.alloc<" + t + ">(sc_form.regs_on() ? " + rt +
                  "regs_inbox_elements(sc_form.blocks, " + rt + "regs_pitch(sc_plan.extent[1], " +
                  rt + "kRegsVec, sizeof(" + t +
                  "))) : 1);  // the register-resident form's inboxes");
      l.push_back("  auto sc_regs_flags = sc_team.alloc<std::uint64_t>(sc_form.regs_on() ? " + rt +
                  "regs_flag_words(sc_form.blocks) : 1);  // and flags");
      l.push_back("  const auto sc_regs_box = ::stencilc::compiled::interior(sc_descs[" + kout +
                  "]);  // the cells its update writes");
      args.push_back(
          "if (sc_form.regs_on()) sc_args.sc_regs = " + rt + "regs_args<" + rt +
          "kRegsVec>(sc_regs_inbox.on(sc_pe), sc_regs_flags.on(sc_pe), sc_pe, sc_team.n(), "
          "sc_form.blocks, " +
          derived("blocks", regs.in) + "[sc_pe], ::stencilc::compiled::periodic_dims(sc_descs[" +
          kin +
          "])[0], sc_regs_box.lo[0], sc_regs_box.hi[0], sc_regs_box.lo[1], sc_regs_box.hi[1]);");
      regs_bytes = " + ::stencilc::compiled::regs_heap_bytes(sc_plan.extent[1], sizeof(" + t + "))";
    }
    l.push_back("  const " + std::string(kRt) + "FlowAlloc sc_flow_alloc(sc_team);  // its flags");
    args.push_back("sc_args.sc_flow = sc_flow_alloc.on(sc_pe);");
    args.push_back("sc_args.sc_flow_on = sc_form.flow_on();");
    args.push_back("sc_args.sc_flow_up = sc_form.up(sc_pe);");
    args.push_back("sc_args.sc_flow_down = sc_form.down(sc_pe);");
    if (const size_t reductions = flow_reductions(flow).size(); reductions > 0) {
      flow_reductions_bytes =
          " + " + std::string(kRt) + "FlowReduceAlloc::bytes(" + std::to_string(reductions) + ", sc_plan.pes)";
      l.push_back("  const " + std::string(kRt) + "FlowReduceAlloc sc_flow_red_alloc(sc_team, " +
                  std::to_string(reductions) + ");  // its reductions' words");
      for (size_t k = 0; k < reductions; ++k)
        args.push_back("sc_args.sc_flow_red" + std::to_string(k) +
                       " = sc_flow_red_alloc.on(sc_pe, " + std::to_string(k) + ");");
    }
  }
  return flow_reductions_bytes + regs_bytes;
}

std::string launcher(const Program& p, const std::string& source,
                     const std::set<std::string>& exchanged,
                     const std::vector<std::array<int, 2>>& swaps, const RoleModelInputs& model,
                     CudaBackend backend) {
  const bool nvshmem = backend == CudaBackend::Nvshmem;
  std::vector<std::string> params, descs, l, args, after, element_bytes, exchanged_flags;
  const int rank = launch_rank(p);
  int k = 0;
  for (const Param& g : p.params) {
    std::string t = cpp_type(g.type);
    if (g.kind == ParamKind::Grid) {
      std::string n = std::to_string(g.rank), desc = "sc_descs[" + std::to_string(k++) + "]";
      params.push_back(std::string(g.is_const ? "const " : "") + "::stencilc::Grid<" + t + ", " +
                       n + ">& " + g.name);
      descs.push_back("::stencilc::compiled::describe(\"" + g.name + "\", " + g.name + ", " +
                      int_list(g.halo_lo) + ", " + int_list(g.halo_hi) + ")");
      element_bytes.push_back("sizeof(" + t + ")");
      exchanged_flags.push_back(exchanged.count(g.name) ? "true" : "false");
      l.push_back("  auto " + derived("blocks", g.name) + " = ::stencilc::compiled::upload_grid<" +
                  t + ", " + n + ">(sc_team, sc_plan.grid, " + g.name + ", " + int_list(g.halo_lo) +
                  ", " + int_list(g.halo_hi) + ");");
      l.push_back("  auto " + derived("final", g.name) + " = sc_team.alloc<" + dblock_type(g) +
                  ">(1);");
      if (exchanged.count(g.name)) {
        l.push_back("  " + std::string(kRt) + "HaloExchange<" + t + ", " + n + "> " +
                    derived("halo", g.name) + "(sc_team, sc_plan.grid, " +
                    derived("blocks", g.name) + ", ::stencilc::compiled::periodic_dims(" + desc +
                    "), " + (g.halo_corners ? "true" : "false") + ", \"" + g.name + "\");");
        args.push_back("sc_args." + derived("halo", g.name) + " = " + derived("halo", g.name) +
                       ".device(sc_pe);");
      }
      args.push_back("sc_args." + g.name + " = " + derived("blocks", g.name) + "[sc_pe];");
      args.push_back("sc_args." + derived("final", g.name) + " = " + derived("final", g.name) +
                     ".on(sc_pe);");
      args.push_back("sc_args." + derived("shape", g.name) +
                     " = ::stencilc::compiled::device_shape(" + desc + ");");
      args.push_back("sc_args." + derived("interior", g.name) +
                     " = ::stencilc::compiled::sbox(::stencilc::compiled::interior(" + desc +
                     "));");
      if (!g.is_const) copy_back(g, "sc_plan.grid", nvshmem, &after);
    } else if (g.kind == ParamKind::Scalar) {
      params.push_back(t + " " + g.name);
      args.push_back("sc_args." + g.name + " = " + g.name + ";");
    } else if (g.kind == ParamKind::ScalarRef) {
      params.push_back(t + "& " + g.name);
      scalar_result(g, nvshmem, "PE 0's (all agree)", &l, &args, &after);
    }
  }
  std::vector<std::string> swap_list, grid_names;
  for (const Param& g : p.params) {
    if (g.kind == ParamKind::Grid) grid_names.push_back(g.name);
  }
  for (const auto& line : form_choice(p, source, grid_names, rank, nvshmem)) l.push_back(line);
  const std::string form_bytes = form_allocations(p, grid_names, l, args);
  for (const auto& s : swaps) {
    swap_list.push_back("{" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + "}");
    const std::string& a = grid_names[s[0]];
    const std::string& b = grid_names[s[1]];
    l.push_back("  ::stencilc::compiled::check_swap_layouts(" + derived("blocks", a) + ", " +
                derived("blocks", b) + ", \"" + p.name + "\", \"" + a + "\", \"" + b +
                "\");  // the kernel swaps only their buffers");
  }
  std::string r = std::to_string(rank);
  std::vector<std::string> out;
  out.push_back("inline void " + p.name + "_launch(" + join(params) + ") {");
  if (const std::string check = distinct_grids_check(p); !check.empty()) out.push_back(check);
  if (nvshmem) {
    out.push_back(
        "  // Every process (mpirun -np N, one per GPU) runs this with the whole grids and does "
        "its own PE's part.");
    out.push_back("  const int sc_pes = ::stencilc::compiled::nvshmem_pes(\"" + p.name +
                  "\");  // the MPI world's size");
  }
  out.push_back("  const std::vector<::stencilc::compiled::GridDesc<" + r + ">> sc_descs{" +
                join(descs) + "};");
  std::string plan = "::stencilc::compiled::plan<" + r + ">(\"" + p.name + "\", sc_descs, {" +
                     join(swap_list) + "}" + (nvshmem ? ", sc_pes" : "") + ")";
  if (const FlowLoop flow = marked_flow_loop(p); flow.loop) {
    // The dataflow form needs a process grid that cuts dimension 0 only (compiled::flow_grid).
    plan = "::stencilc::compiled::flow_grid<" + r + ">(" + plan + ", " +
           std::to_string(flow.radius) + ", sc_" + p.name + "::kBlockThreads, " +
           std::to_string(flow.walks.size()) + ");  // the dataflow form's grid where it would run";
  } else {
    plan += ";";
  }
  out.push_back("  const auto sc_plan = " + plan);
  const std::string heap = "::stencilc::compiled::symmetric_bytes<" + r + ">(sc_plan, sc_descs, {" +
                           join(element_bytes) + "}, {" + join(exchanged_flags) + "})" +
                           form_bytes;
  for (const auto& line :
       team_and_launch(p, model, rank, nvshmem, heap, "blocks and exchanges", l, args))
    out.push_back(line);
  out.insert(out.end(), after.begin(), after.end());
  out.push_back("}");
  return join(out, "\n") + "\n";
}

/// The host side of an SPMD program, which stencilc::spmd(program, split, args...) finds and calls
/// with the arguments type-erased (as the host target's): split the grids into slabs, move them
/// into the GPUs' symmetric memory (halo cells with no source 0, as in the reference build),
/// launch the persistent kernel, bring back the blocks each parameter ended with and PE 0's
/// results. p2p: one process does it for every GPU; nvshmem: every process for its own PE.
std::string spmd_launcher(const Program& p, const RoleModelInputs& model, CudaBackend backend) {
  const bool nvshmem = backend == CudaBackend::Nvshmem;
  std::vector<std::string> l, descs, blocks, args, after, element_bytes, unexchanged;
  l.push_back("inline void " + p.name +
              "_spmd_launch(::stencilc::Split sc_split, void* const* sc_args) {");
  const int rank = launch_rank(p);
  for (size_t k = 0; k < p.params.size(); ++k) {
    const Param& g = p.params[k];
    std::string t = cpp_type(g.type);
    l.push_back(spmd_argument(g, k, &descs));
    if (g.kind == ParamKind::Block) {
      std::string n = std::to_string(g.rank);
      element_bytes.push_back("sizeof(" + t + ")");
      unexchanged.push_back("false");
      blocks.push_back("  auto " + derived("blocks", g.name) +
                       " = ::stencilc::compiled::upload_grid<" + t + ", " + n +
                       ">(sc_team, sc_grid, " + g.name + ", sc_halo, sc_halo, " + t + "(0));");
      blocks.push_back("  auto " + derived("final", g.name) + " = sc_team.alloc<" + dblock_type(g) +
                       ">(1);");
      blocks.push_back("  auto " + derived("on", g.name) +
                       " = ::stencilc::compiled::upload_layouts(sc_team, " +
                       derived("blocks", g.name) + ");");
      args.push_back("sc_args." + g.name + " = " + derived("blocks", g.name) + "[sc_pe];");
      args.push_back("sc_args." + derived("final", g.name) + " = " + derived("final", g.name) +
                     ".on(sc_pe);");
      args.push_back("sc_args." + derived("on", g.name) + " = " + derived("on", g.name) +
                     ".on(sc_pe);");
      if (!g.is_const) copy_back(g, "sc_grid", nvshmem, &after);
    } else if (g.kind == ParamKind::Scalar) {
      args.push_back("sc_args." + g.name + " = " + g.name + ";");
    } else {
      scalar_result(g, nvshmem, "PE 0's, as in the reference", &blocks, &args, &after);
    }
  }
  std::string r = std::to_string(rank);
  if (nvshmem) {
    l.push_back(
        "  // Every process (mpirun -np N, one per GPU) runs this with the whole grids and does "
        "its own PE's part.");
    l.push_back("  const int sc_pes = ::stencilc::compiled::nvshmem_pes(\"" + p.name +
                "\");  // the MPI world's size");
  }
  l.push_back("  const auto sc_halo = ::stencilc::compiled::split_halo<" + r + ">(sc_split);");
  l.push_back("  const std::vector<::stencilc::compiled::GridDesc<" + r + ">> sc_descs{" +
              join(descs) + "};");
  l.push_back("  const ::stencilc::rt::ProcessGrid sc_grid = ::stencilc::compiled::spmd_grid<" + r +
              ">(\"" + p.name + "\", sc_split, sc_descs" + (nvshmem ? ", sc_pes" : "") + ");");
  l.push_back("  const ::stencilc::compiled::Plan<" + r +
              "> sc_plan{sc_grid.size(), sc_grid, sc_descs.front().extent};");
  const std::string heap = "::stencilc::compiled::symmetric_bytes<" + r + ">(sc_plan, sc_descs, {" +
                           join(element_bytes) + "}, {" + join(unexchanged) + "})";
  std::vector<std::string> setup(blocks);
  setup.push_back("  auto sc_signals = sc_team.alloc<std::uint64_t>(" +
                  std::to_string(std::max(model.signals, 1)) +
                  ");  // the program's signals, zeroed");
  std::vector<std::string> launch_args(args);
  launch_args.push_back("sc_args.sc_signals = sc_signals.on(sc_pe);");
  for (const auto& line :
       team_and_launch(p, model, rank, nvshmem, heap, "blocks", setup, launch_args))
    l.push_back(line);
  l.insert(l.end(), after.begin(), after.end());
  l.push_back("}");
  return join(l, "\n") + "\n";
}

std::string proxied_launch(const Program& p) {
  const std::string r = std::to_string(launch_rank(p));
  std::vector<std::string> l;
  l.push_back("namespace sc_" + p.name + " {");
  l.push_back("// Where some peer is reached only through NVSHMEM's proxy: `kernel` of the unit built with");
  l.push_back("// -rdc and " + std::string(kNvshmemDeviceUnit) + ", which takes NvshmemDevicePe.");
  l.push_back("void launch_proxied(" + std::string(kRt) + "NvshmemTeam& sc_team, const ::stencilc::compiled::LaunchSpec<" +
              r + ">& sc_launch,");
  l.push_back("                    const std::function<KernelArgs(int)>& sc_bind)");
  l.push_back("#if defined(" + std::string(kNvshmemDeviceUnit) + ")");
  l.push_back("{");
  l.push_back("  ::stencilc::compiled::launch(sc_team, kernel, sc_launch, sc_bind);");
  l.push_back("}");
  l.push_back("#else");
  l.push_back(";");
  l.push_back("#endif");
  l.push_back("}  // namespace sc_" + p.name);
  return join(l, "\n") + "\n";
}

}  // namespace stencilc::codegen::cuda
