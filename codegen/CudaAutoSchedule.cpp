// --schedule=auto (see CudaAutoSchedule.h): the two emitters' code side by side, and per program
// the entry that chooses between them at run time from the facts of its time loop
// (passes::schedule_facts, written as constants), the grids' points and the PE count.
#include "codegen/CudaAutoSchedule.h"

#include "codegen/CppEmitter.h"
#include "codegen/EmitUtil.h"
#include "codegen/HostControlledEmitter.h"
#include "passes/ScheduleFacts.h"

namespace stencilc::codegen {

using namespace ir;

namespace {

const std::string kCompiled = "::stencilc::compiled::";

/// The lines that fill `sc_query` for program `p`: the facts of `facts_from` (the program after
/// the host-controlled pipeline), or, where it is null, why only the cpu-free code is compiled.
std::vector<std::string> schedule_query(const Program& p, const Program* facts_from,
                                        const std::string& why_cpu_free_only, bool nvshmem) {
  std::vector<std::string> l;
  l.push_back("  " + kCompiled + "ScheduleQuery sc_query;");
  l.push_back("  sc_query.program = \"" + p.name + "\";");
  if (!facts_from) {
    l.push_back("  sc_query.cpu_free_only = \"" + why_cpu_free_only +
                "\";  // no host-controlled code compiled");
    return l;
  }
  const passes::ScheduleFacts facts = passes::schedule_facts(*facts_from);
  const Param* first_grid = nullptr;
  for (const Param& q : p.params)
    if (!first_grid && q.kind == ParamKind::Grid) first_grid = &q;
  if (nvshmem) {
    l.push_back("  sc_query.host_controlled = " + kCompiled +
                "nvshmem_one_node();  // its nvshmem form needs every PE mapped");
    l.push_back("  sc_query.cpu_free_only = \"PEs on several nodes (the host-controlled schedule's "
                "nvshmem form runs on one)\";");
  } else {
    l.push_back("  sc_query.host_controlled = true;");
  }
  l.push_back(
      "  // The time loop's step as the host-controlled schedule runs it "
      "(passes::schedule_facts).");
  l.push_back("  sc_query.bytes_per_point = " + std::to_string(facts.bytes_per_point) + ";");
  l.push_back("  sc_query.updates = " + std::to_string(facts.updates) + ";");
  l.push_back("  sc_query.exchanges = " + std::to_string(facts.exchanges) + ";");
  l.push_back("  sc_query.host_reads = " + std::to_string(facts.host_reads) + ";");
  if (first_grid)
    l.push_back("  sc_query.points = " + kCompiled + "grid_points(" + first_grid->name + ");");
  l.push_back(nvshmem ? "  sc_query.gpus = " + kCompiled + "nvshmem_pes(\"" + p.name +
                            "\");  // the MPI world's size"
                      : "  sc_query.gpus = ::stencilc::configured_pes();");
  return l;
}

/// The entry's choice: its query (schedule_query), choose_schedule's answer in sc_schedule, and
/// the line STENCILC_TIMING=1 prints.
std::vector<std::string> choice(const Program& p, const Program* hc, const std::string& why,
                                bool nvshmem) {
  std::vector<std::string> l = schedule_query(p, hc, why, nvshmem);
  l.push_back("  const " + kCompiled + "ScheduleChoice sc_schedule = " + kCompiled +
              "choose_schedule(sc_query);");
  l.push_back(
      "  if (std::getenv(\"STENCILC_TIMING\")) std::fprintf(stderr, \"stencilc: %s: %s\\n\", \"" +
      p.name + "\", sc_schedule.summary().c_str());");
  return l;
}

/// The entry of global-view program `p`: choose, say why with STENCILC_TIMING, run one launcher.
std::string global_entry(const Program& p, const Program* hc, const std::string& why,
                         bool nvshmem) {
  std::vector<std::string> params, args;
  for (const Param& g : p.params) {
    const std::string t = cpp_type(g.type);
    if (g.kind == ParamKind::Grid) {
      params.push_back(std::string(g.is_const ? "const " : "") + "::stencilc::Grid<" + t + ", " +
                       std::to_string(g.rank) + ">& " + g.name);
    } else if (g.kind == ParamKind::Scalar) {
      params.push_back(t + " " + g.name);
    } else if (g.kind == ParamKind::ScalarRef) {
      params.push_back(t + "& " + g.name);
    }
    args.push_back(g.name);
  }
  const std::string call = p.name + "_launch(" + join(args) + ");";
  std::vector<std::string> l;
  l.push_back(
      std::string("// program @") + p.name + ": the schedule of this run " +
      (hc ? "(compiled::choose_schedule, docs/SCHEDULES.md)" : "(the cpu-free one: " + why + ")"));
  l.push_back("inline void " + p.name + "_launch(" + join(params) + ") {");
  for (const std::string& q : choice(p, hc, why, nvshmem)) l.push_back(q);
  if (hc) {
    l.push_back("  if (sc_schedule.host_controlled()) {");
    l.push_back("    ::stencilc_generated::" + std::string(kHostControlledNamespace) + "::" + call);
    l.push_back("  } else {");
    l.push_back("    ::stencilc_generated::" + std::string(kCpuFreeNamespace) + "::" + call);
    l.push_back("  }");
  } else {
    l.push_back("  ::stencilc_generated::" + std::string(kCpuFreeNamespace) + "::" + call);
  }
  l.push_back("}");
  return join(l, "\n") + "\n";
}

/// The entry of SPMD program `p`, which stencilc::spmd finds: the cpu-free launcher (the
/// host-controlled schedule does not take SPMD programs), after saying so with STENCILC_TIMING
/// and refusing STENCILC_SCHEDULE=host-controlled.
std::string spmd_entry(const Program& p, const std::string& why) {
  std::vector<std::string> l;
  l.push_back("// program @" + p.name + ": the schedule of this run (the cpu-free one: " + why +
              ")");
  l.push_back("inline void " + p.name +
              "_spmd_launch(::stencilc::Split sc_split, void* const* sc_args) {");
  for (const std::string& q : choice(p, nullptr, why, false)) l.push_back(q);
  l.push_back("  ::stencilc_generated::" + std::string(kCpuFreeNamespace) + "::" + p.name +
              "_spmd_launch(sc_split, sc_args);");
  l.push_back("}");
  return join(l, "\n") + "\n";
}

}  // namespace

std::vector<GeneratedProgram> emit_cuda_auto(const Module& cpu_free, const Module& host_controlled,
                                             std::vector<std::string>* errors,
                                             CudaBackend backend) {
  std::vector<GeneratedProgram> cf = emit_cuda(cpu_free, errors, backend);
  std::vector<GeneratedProgram> hc;
  if (!host_controlled.programs.empty())
    hc = emit_cuda_host_controlled(host_controlled, errors, backend);
  if (!errors->empty()) return {};
  std::vector<GeneratedProgram> out;
  for (const Program& p : cpu_free.programs) {
    const GeneratedProgram* cf_code = nullptr;
    for (const GeneratedProgram& g : cf)
      if (g.name == p.name) cf_code = &g;
    const GeneratedProgram* hc_code = nullptr;
    for (const GeneratedProgram& g : hc)
      if (g.name == p.name) hc_code = &g;
    const Program* hc_program = hc_code ? host_controlled.find_program(p.name) : nullptr;
    const std::string why = passes::cpu_free_only(p);
    std::string code = cf_code->code;
    if (hc_code) code += "\n" + hc_code->code;
    code += "\n// ---- generated by stencilc from program @" + p.name +
            " (cuda target, --schedule=auto: the entry) ----\n";
    const bool nvshmem = backend == CudaBackend::Nvshmem;  // the entry is the program unit's
    if (nvshmem) code += "#if !defined(" + std::string(kNvshmemDeviceUnit) + ")\n";
    code += "namespace stencilc_generated {\n\n";
    code += p.kind == ProgramKind::Spmd ? spmd_entry(p, why)
                                        : global_entry(p, hc_program, why, nvshmem);
    code += "\n}  // namespace stencilc_generated\n";
    if (nvshmem) code += "#endif  // !" + std::string(kNvshmemDeviceUnit) + "\n";
    code += "// ---- end of generated code ----\n";
    out.push_back(generated_program(p, std::move(code)));
  }
  return out;
}

}  // namespace stencilc::codegen
