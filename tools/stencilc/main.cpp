// stencilc: the compiler driver. A thin layer over the libraries, used like clang or nvcc:
// options, the front end, the pass pipeline, then the generated code written out (--emit, -S) or
// compiled by the host compiler into an executable or, with -c, an object file (HostCompile.h).
//   stencilc [options] <file.cpp> [<file.o|.a|.so>...] [-- <compile arguments>]
#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <memory>

#include "CompileArgs.h"
#include "HostCompile.h"
#include "PassOptions.h"
#include "codegen/CudaAutoSchedule.h"
#include "codegen/CudaEmitter.h"
#include "codegen/HostControlledEmitter.h"
#include "codegen/HostEmitter.h"
#include "frontend/Frontend.h"
#include "ir/IRPrinter.h"
#include "ir/Nesting.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "passes/ScheduleFacts.h"

namespace {

namespace cl = llvm::cl;
using stencilc::driver::Command;

cl::OptionCategory category("stencilc options");
cl::OptionCategory compile_category("Compiling (as clang and nvcc spell them)");

cl::list<std::string> inputs(cl::Positional, cl::desc("<source.cpp> [<file.o|.a|.so>...]"),
                             cl::cat(category));
cl::opt<std::string> output(
    "o",
    cl::desc("Write the output to <file> (default: a.out; -c: <source>.o; -S: "
             "<source>.stencilc.cpp or .cu; --emit: stdout)"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> build_dir(
    "p",
    cl::desc("Read the compile command from <build-dir>/compile_commands.json (its "
             "relative paths are relative to the entry's directory)"),
    cl::value_desc("build-dir"), cl::cat(category));
cl::opt<std::string> emit(
    "emit",
    cl::desc("Stop after a stage and write it (to stdout without -o): ir (the IR; with "
             "--target, after the target's pipeline), cpp (the generated host C++), cuda "
             "(the .cu)"),
    cl::value_desc("stage"), cl::cat(category));
cl::opt<bool> emit_source(
    "S",
    cl::desc("Stop at the generated source and write it to <source>.stencilc.cpp "
             "(--target=cuda: .cu) or -o"),
    cl::cat(category));
cl::opt<bool> object_only(
    "c",
    cl::desc("Compile the generated code into an object file (<source>.o or -o) "
             "to link into an application; no link"),
    cl::cat(category));
cl::opt<bool> syntax_only(
    "fsyntax-only", cl::desc("Check the program (parse and lower it to the IR); write nothing"),
    cl::cat(category));
cl::opt<std::string> target(
    "target",
    cl::desc("Code generation target: host (PEs are threads; the default) or cuda (one "
             "persistent kernel per GPU)"),
    cl::value_desc("target"), cl::cat(category));
cl::opt<std::string> schedule(
    "schedule",
    cl::desc("With --target=cuda: auto (the default: the program holds both schedules where the "
             "host-controlled one can win, and chooses for each run), cpu-free (one persistent "
             "kernel per GPU) or host-controlled (the host launches a kernel per update and GPU: "
             "the baseline)"),
    cl::value_desc("schedule"), cl::init("auto"), cl::cat(category));
cl::opt<std::string> backend(
    "backend",
    cl::desc("With --target=cuda: how the GPUs communicate: p2p (one process drives every "
             "GPU over NVLink; the default) or nvshmem (one process per GPU, mpirun -np N)"),
    cl::value_desc("backend"), cl::init("p2p"), cl::cat(category));
cl::list<std::string> cuda_arch(
    "cuda-arch",
    cl::desc("With --target=cuda: the GPU architectures, repeatable or comma-separated "
             "(default sm_90)"),
    cl::value_desc("sm_XX"), cl::CommaSeparated, cl::cat(category));
cl::opt<std::string> pass_pipeline(
    "pass-pipeline", cl::desc("The passes to run after the front end, comma-separated"),
    cl::value_desc("a,b,c"), cl::init("fold-constants"), cl::cat(category));
cl::opt<bool> verbose("v", cl::desc("Print the commands run (to stderr)"), cl::cat(category));
cl::opt<bool> save_temps("save-temps",
                         cl::desc("Keep the generated source the host compiler was given (its path with -v)"),
                         cl::cat(category));
cl::opt<bool> print_only("###",
                         cl::desc("Print the commands that would run (to stderr) and run none"),
                         cl::cat(category));

cl::list<std::string> defines("D", cl::desc("Define a macro (front end and host compiler)"),
                              cl::value_desc("macro[=value]"), cl::Prefix,
                              cl::cat(compile_category));
cl::list<std::string> undefines("U", cl::desc("Undefine a macro (front end and host compiler)"),
                                cl::value_desc("macro"), cl::Prefix, cl::cat(compile_category));
cl::list<std::string> include_dirs(
    "I", cl::desc("Add an include directory (front end and host compiler)"), cl::value_desc("dir"),
    cl::Prefix, cl::cat(compile_category));
cl::opt<std::string> optimization(
    "O", cl::desc("Optimization level of the host compile (default -O2; cuda: -O3)"),
    cl::value_desc("level"), cl::Prefix, cl::ValueOptional, cl::cat(compile_category));
cl::opt<std::string> standard("std", cl::desc("The C++ standard (default c++17)"),
                              cl::value_desc("c++NN"), cl::cat(compile_category));
cl::opt<bool> debug_info("g", cl::desc("Debug information in the host compile"),
                         cl::cat(compile_category));
cl::list<std::string> libraries("l", cl::desc("Link with a library"), cl::value_desc("name"),
                                cl::Prefix, cl::cat(compile_category));
cl::list<std::string> library_dirs("L", cl::desc("Add a library directory to the link"),
                                   cl::value_desc("dir"), cl::Prefix, cl::cat(compile_category));
cl::list<std::string> xcompiler(
    "Xcompiler",
    cl::desc("Pass arguments (comma-separated) to the host compiler; with --target=cuda, "
             "to nvcc's host compiler"),
    cl::value_desc("args"), cl::CommaSeparated, cl::cat(compile_category));
cl::alias xcompiler_nvcc("compiler-options", cl::desc("Alias for -Xcompiler (nvcc's spelling)"),
                         cl::aliasopt(xcompiler));
cl::list<std::string> xcuda("Xcuda", cl::desc("With --target=cuda: pass an argument to nvcc"),
                            cl::value_desc("arg"), cl::cat(compile_category));
cl::list<std::string> extra_args("extra-arg",
                                 cl::desc("Append an argument to the front end's compile command"),
                                 cl::value_desc("arg"), cl::cat(compile_category));
cl::opt<bool> dep_md("MD",
                     cl::desc("Also write a Makefile-style depfile: the source and every file it "
                              "includes (see -MF)"),
                     cl::cat(compile_category));
cl::opt<bool> dep_mmd("MMD", cl::desc("Like -MD, but leave system headers out"),
                      cl::cat(compile_category));
cl::opt<std::string> dep_file(
    "MF",
    cl::desc("With -MD/-MMD: the depfile to write (default: the output file "
             "with .d for its extension)"),
    cl::value_desc("file"), cl::cat(compile_category));
cl::opt<std::string> dep_target("MT",
                                cl::desc("With -MD/-MMD: the target the depfile names (default: "
                                         "the output file)"),
                                cl::value_desc("target"), cl::cat(compile_category));

int error(const std::string& message) {
  std::cerr << "stencilc: error: " << message << "\n";
  return 1;
}

bool fail(const std::string& message) {
  error(message);
  return false;
}

/// The depfile being written, removed again if stencilc fails: no depfile without its output.
std::string depfile_path;

/// The arguments that make the front end's Clang write the depfile for -MD/-MMD (it reads every
/// included file anyway) for `out` (empty: stdout); nullopt after an error.
std::optional<std::vector<std::string>> depfile_args(const std::string& out) {
  if (!dep_md && !dep_mmd) {
    if (dep_file.getNumOccurrences() || dep_target.getNumOccurrences()) {
      error("-MF and -MT need -MD or -MMD");
      return std::nullopt;
    }
    return std::vector<std::string>{};
  }
  depfile_path = dep_file;
  if (depfile_path.empty() && !out.empty()) {
    llvm::SmallString<128> d(out);
    llvm::sys::path::replace_extension(d, "d");
    depfile_path = d.str().str();
  }
  if (out.empty() && (depfile_path.empty() || dep_target.empty())) {
    error("-MD and -MMD without -o need -MF <file> and -MT <target>");
    return std::nullopt;
  }
  std::vector<std::string> args{dep_mmd ? "-MMD" : "-MD", "-MF", depfile_path};
  if (!dep_target.empty()) {
    args.insert(args.end(), {"-MT", dep_target});
  } else {
    args.insert(args.end(), {"-MQ", out});  // -MQ quotes the name for Make
  }
  return args;
}

/// Writes a stage to `path` (empty: stdout).
bool write_output(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return true;
  }
  std::ofstream out(path);
  out << text;
  if (!out) {
    error("cannot write '" + path + "'");
    return false;
  }
  return true;
}

/// Whether the driver compiles `path` (a C++ source); every other input goes to the link, as
/// clang and nvcc pass on the files they do not compile.
bool is_source(const std::string& path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" || ext == ".C" ||
         ext == ".cu";
}

/// The source file and the link inputs (-l, -L and files, in command-line order); nullopt after
/// an error message.
std::optional<std::pair<std::string, std::vector<std::string>>> classify_inputs() {
  std::vector<std::pair<unsigned, std::string>> link;
  std::vector<std::string> sources;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& path = inputs[i];
    if (llvm::sys::fs::is_directory(path)) {
      error("'" + path + "' is a directory, not a source file");
      return std::nullopt;
    }
    if (!llvm::sys::fs::exists(path)) {
      error("no such file or directory: '" + path + "'");
      return std::nullopt;
    }
    if (is_source(path)) {
      sources.push_back(path);
    } else {
      link.emplace_back(inputs.getPosition(i), path);
    }
  }
  for (size_t i = 0; i < libraries.size(); ++i)
    link.emplace_back(libraries.getPosition(i), "-l" + libraries[i]);
  for (size_t i = 0; i < library_dirs.size(); ++i)
    link.emplace_back(library_dirs.getPosition(i), "-L" + library_dirs[i]);
  if (sources.empty()) {
    error(inputs.empty() ? "no input files"
                         : "no source file among the inputs (a .cpp, .cc, .cxx or .cu)");
    return std::nullopt;
  }
  if (sources.size() > 1) {
    error("one source file at a time: got '" + sources[0] + "' and '" + sources[1] + "'");
    return std::nullopt;
  }
  std::stable_sort(link.begin(), link.end());
  std::vector<std::string> link_inputs;
  for (auto& l : link) link_inputs.push_back(std::move(l.second));
  return std::make_pair(sources.front(), link_inputs);
}

std::string absolute_path(const std::string& path) {
  llvm::SmallString<256> full(path);
  llvm::sys::fs::make_absolute(full);
  return full.str().str();
}

/// -D, -U, -I, -O, -std and -g given before `--`, as compile arguments: the front end's parse
/// sees them as the host compile does. -I paths are made absolute (with -p the front end runs in
/// the database's directory; they are relative to this one).
std::vector<std::string> command_line_compile_args() {
  std::vector<std::pair<unsigned, std::string>> positioned;
  for (size_t i = 0; i < defines.size(); ++i)
    positioned.emplace_back(defines.getPosition(i), "-D" + defines[i]);
  for (size_t i = 0; i < undefines.size(); ++i)
    positioned.emplace_back(undefines.getPosition(i), "-U" + undefines[i]);
  for (size_t i = 0; i < include_dirs.size(); ++i)
    positioned.emplace_back(include_dirs.getPosition(i), "-I" + absolute_path(include_dirs[i]));
  std::stable_sort(positioned.begin(), positioned.end());
  std::vector<std::string> args;
  for (auto& p : positioned) args.push_back(std::move(p.second));
  return args;
}

/// The -O flag of the host compile: the command line's, else the compile command's, else the
/// target's default. A bare -O is -O1, as for GCC and clang.
std::string optimization_flag(const std::string& from_command, bool cuda) {
  if (optimization.getNumOccurrences())
    return "-O" + (optimization.empty() ? std::string("1") : optimization);
  if (!from_command.empty()) return from_command;
  return cuda ? "-O3" : "-O2";
}

/// Runs the pass pipeline with the dump options; nullopt after printing the errors.
std::optional<stencilc::ir::Module> run_pipeline(const stencilc::ir::Module& module,
                                                 const std::string& names) {
  namespace passes = stencilc::passes;
  const passes::PassRegistry& registry = passes::PassRegistry::builtin();
  std::string message;
  if (!stencilc::tools::check_dump_pass_names(registry, &message)) {
    error(message);
    return std::nullopt;
  }
  passes::PassPipeline pipeline(stencilc::tools::pipeline_options_from_command_line());
  if (!pipeline.add_pipeline(names, registry, &message)) {
    error(message);
    return std::nullopt;
  }
  passes::PassResult result = pipeline.run(module);
  if (!result.ok()) {
    for (const std::string& e : result.errors) std::cerr << e << "\n";
    return std::nullopt;
  }
  return result.module;
}

/// --schedule=auto: the front end's programs that get the host-controlled schedule's code besides
/// the cpu-free one (those where passes::cpu_free_only finds nothing in `cpu_free`, the module
/// after the cpu-free pipeline), after the host-controlled pipeline; nullopt after an error.
std::optional<stencilc::ir::Module> host_controlled_module(const stencilc::ir::Module& front,
                                                           const stencilc::ir::Module& cpu_free) {
  stencilc::ir::Module chosen = front;
  chosen.programs.clear();
  for (const stencilc::ir::Program& p : front.programs) {
    const stencilc::ir::Program* done = cpu_free.find_program(p.name);
    if (done && stencilc::passes::cpu_free_only(*done).empty()) chosen.programs.push_back(p);
  }
  if (chosen.programs.empty()) return chosen;
  return run_pipeline(
      chosen, std::string("fold-constants,") + stencilc::passes::host_controlled_pipeline());
}

/// The user's file with each program replaced by its generated code for the target.
/// `generated_name`: the file it is written to (its #line directives name it).
/// `hc`: with --schedule=auto, the programs that also get the host-controlled schedule's code,
/// after its pipeline.
std::optional<std::string> generated_source(const stencilc::frontend::FrontendResult& fe,
                                            const stencilc::ir::Module& m,
                                            const stencilc::ir::Module& hc, bool cuda,
                                            const std::string& generated_name) {
  std::vector<std::string> errors;
  const bool host_controlled = cuda && schedule == "host-controlled";
  const bool auto_schedule = cuda && schedule == "auto";
  const auto cuda_backend = backend == "nvshmem" ? stencilc::codegen::CudaBackend::Nvshmem
                                                 : stencilc::codegen::CudaBackend::P2P;
  auto programs = host_controlled
                      ? stencilc::codegen::emit_cuda_host_controlled(m, &errors, cuda_backend)
                  : auto_schedule ? stencilc::codegen::emit_cuda_auto(m, hc, &errors, cuda_backend)
                  : cuda          ? stencilc::codegen::emit_cuda(m, &errors, cuda_backend)
                                  : stencilc::codegen::emit_host(m, &errors);
  for (const auto& site : fe.sites) {
    if (site.body_end == 0)
      errors.push_back(fe.module.source + ": error: program '" + site.name +
                       "' is defined in an included file; code generation needs it in the "
                       "file given to stencilc");
  }
  if (!errors.empty()) {
    for (const auto& e : errors) std::cerr << e << "\n";
    return std::nullopt;
  }
  std::vector<stencilc::codegen::SpliceSite> sites;
  for (const auto& s : fe.sites) sites.push_back({s.insert_at, s.body_begin, s.body_end});
  // The first line says what the file holds: the target, the schedules, the backend.
  const bool nvshmem = backend == "nvshmem";
  const std::string schedules = host_controlled       ? "host-controlled"
                                : !auto_schedule      ? "cpu-free"
                                : hc.programs.empty() ? "auto: cpu-free"
                                                      : "auto: cpu-free and host-controlled";
  const bool hc_runtime = host_controlled || (auto_schedule && !hc.programs.empty());
  std::string prologue = "// Generated by stencilc " STENCILC_VERSION " from " + fe.module.source;
  if (cuda) {
    prologue += " for the cuda target (" + schedules + ", " +
                (nvshmem ? "nvshmem: one process per GPU, mpirun -np N" : "p2p") + ").\n";
    prologue += nvshmem ? "#include <stencilc/compiled_cuda_nvshmem.hpp>\n"
                        : "#include <stencilc/compiled_cuda.hpp>\n";
    if (hc_runtime && nvshmem) {  // the program unit's (the schedule's only)
      prologue += "#if !defined(" + std::string(stencilc::codegen::kNvshmemDeviceUnit) +
                  ")\n#include <stencilc/runtime/cuda/host_controlled_nvshmem.cuh>\n#endif\n";
    } else if (hc_runtime) {
      prologue += "#include <stencilc/runtime/cuda/host_controlled.cuh>\n";
    }
  } else {
    prologue += " for the host target.\n#include <stencilc/compiled_host.hpp>\n";
  }
  return stencilc::codegen::splice(fe.text, fe.module.source, generated_name, prologue, programs,
                                   sites, nvshmem ? stencilc::codegen::kNvshmemDeviceUnit : "");
}

}  // namespace

/// The option checks that need no input; an error message and false on a bad combination.
static bool check_options(bool cuda) {
  int stops = (emit.getNumOccurrences() > 0) + emit_source + object_only + syntax_only;
  if (stops > 1)
    return fail("give one of --emit, -S, -c and -fsyntax-only (each says where to stop)");
  if (!emit.empty() && emit != "ir" && emit != "cpp" && emit != "cuda")
    return fail("unknown --emit stage '" + emit + "' (known: ir, cpp, cuda)");
  if (!target.empty() && target != "host" && target != "cuda")
    return fail("unknown --target '" + target + "' (available: host, cuda)");
  if (backend != "p2p" && backend != "nvshmem")
    return fail("unknown --backend '" + backend + "' (available: p2p, nvshmem)");
  if (backend.getNumOccurrences() && !cuda)
    return fail("--backend=" + backend + " goes with --target=cuda");
  if ((emit == "cpp" && cuda) || (emit == "cuda" && !cuda))
    return fail("--emit=" + emit + " goes with --target=" + (emit == "cpp" ? "host" : "cuda"));
  if (schedule != "auto" && schedule != "cpu-free" && schedule != "host-controlled")
    return fail("unknown --schedule '" + schedule +
                "' (available: auto, cpu-free, host-controlled)");
  if (schedule.getNumOccurrences() && !cuda)
    return fail("--schedule goes with --target=cuda (the host target has one schedule)");
  for (const std::string& arch : cuda_arch) {
    if (arch.size() < 4 || arch.rfind("sm_", 0) != 0 ||
        !std::all_of(arch.begin() + 3, arch.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
      return fail("--cuda-arch=" + arch + ": expected sm_XX (e.g. sm_90)");
  }
  if (cuda_arch.getNumOccurrences() && !cuda) return fail("--cuda-arch goes with --target=cuda");
  if (xcuda.getNumOccurrences() && !cuda) return fail("-Xcuda goes with --target=cuda");
  return true;
}

/// The name -S gives the generated source of `source`: <stem>.stencilc.cpp (cuda: .cu).
static std::string generated_file_name(const std::string& source, bool cuda) {
  return llvm::sys::path::stem(source).str() + (cuda ? ".stencilc.cu" : ".stencilc.cpp");
}

/// Where the result goes: -o, else the default of the mode (empty: stdout).
static std::string output_path(const std::string& source, bool cuda) {
  if (output.getNumOccurrences()) return output == "-" ? "" : output.getValue();
  if (!emit.empty() || syntax_only) return "";
  if (!emit_source && !object_only) return "a.out";
  // clang -c and -S write beside the working directory, named after the source.
  return object_only ? llvm::sys::path::stem(source).str() + ".o" : generated_file_name(source, cuda);
}

/// Compiles the generated code `source`, written to `generated_file` (a temporary file, kept with
/// -save-temps), like clang or nvcc would: into the executable or, with -c, the object file
/// `out`. `compile_args` are the command line's -D, -U, -I, -O, -std and -g.
static int build(const std::string& input, const std::vector<std::string>& link_inputs,
                 const std::string& out, bool cuda, const clang::tooling::CompilationDatabase& db,
                 const std::vector<std::string>& compile_args, const std::string& source,
                 const std::string& generated_file) {
  auto compiler = stencilc::driver::find_compiler(cuda);
  if (!compiler) return 1;
  stencilc::driver::HostCompileRequest request;
  request.cuda = cuda;
  request.nvshmem = cuda && backend == "nvshmem";
  request.object_only = object_only;
  request.cuda_archs.assign(cuda_arch.begin(), cuda_arch.end());
  if (request.cuda_archs.empty()) request.cuda_archs.push_back("sm_90");
  request.source = input;
  request.output = out;
  request.link_inputs = link_inputs;
  request.host_args.assign(xcompiler.begin(), xcompiler.end());
  request.cuda_args.assign(xcuda.begin(), xcuda.end());
  // The compile command's arguments (after `--`, or the database's), then the command line's.
  stencilc::driver::ForwardedArgs forwarded;
  if (auto commands = db.getCompileCommands(input); !commands.empty())
    forwarded = stencilc::driver::forwarded_args(commands.front());
  request.optimization = optimization_flag(forwarded.optimization, cuda);
  request.standard = standard.getNumOccurrences() ? "-std=" + standard
                     : forwarded.standard.empty() ? "-std=c++17"
                                                  : forwarded.standard;
  // A compile command written for clang may hold -f flags the host compiler (g++) rejects.
  std::optional<std::string> host_compiler =
      cuda ? stencilc::driver::find_compiler(false) : compiler;
  for (const std::string& a : forwarded.args) {
    if (a.rfind("-f", 0) == 0 &&
        !(host_compiler && stencilc::driver::host_compiler_accepts(*host_compiler, a))) {
      if (verbose || print_only)
        std::cerr << "stencilc: note: not passing " << a << " on: the host compiler rejects it\n";
      continue;
    }
    request.compile_args.push_back(a);
  }
  request.compile_args.insert(request.compile_args.end(), compile_args.begin(), compile_args.end());
  // -O and -std are the request's own; -g stays in compile_args.
  request.compile_args.erase(
      std::remove_if(
          request.compile_args.begin(), request.compile_args.end(),
          [](const std::string& a) { return a.rfind("-O", 0) == 0 || a.rfind("-std=", 0) == 0; }),
      request.compile_args.end());
  request.compile_args.insert(request.compile_args.end(), extra_args.begin(), extra_args.end());

  request.generated_file = generated_file;
  auto commands = stencilc::driver::host_compile_commands(*compiler, request);
  if (!commands) return 1;
  if (verbose || print_only) {
    stencilc::tools::print_version(llvm::errs());
    llvm::errs().flush();
    for (const auto& command : *commands)
      std::cerr << stencilc::driver::format_command(command) << "\n";
  }
  if (print_only) return 0;
  {
    std::ofstream file(request.generated_file);
    file << source;
  }
  // The nvshmem backend's objects of its two units go with the generated file (-save-temps).
  const bool two_units = commands->size() > 1;
  llvm::FileRemover remove_device_object(stencilc::driver::device_object(request),
                                         two_units && !save_temps);
  llvm::FileRemover remove_program_object(stencilc::driver::program_object(request),
                                          two_units && !save_temps);
  const int rc = stencilc::driver::run_commands(*commands);
  if (save_temps && !verbose) std::cerr << "stencilc: kept " << request.generated_file << "\n";
  return rc;
}

static int compile(int argc, const char** argv) {
  cl::HideUnrelatedOptions(
      {&category, &compile_category, &stencilc::tools::pass_options_category()});
  stencilc::tools::set_version_printer("stencilc");
  // Everything after `--` is the compile command, as for clang-tidy and friends.
  std::string db_error;
  std::unique_ptr<clang::tooling::CompilationDatabase> db =
      clang::tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv, db_error);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "stencilc: compiles annotated C++ stencil programs into CPU-free multi-GPU code\n",
          &llvm::errs())) {
    return 1;
  }
  if (stencilc::tools::list_passes_requested()) {
    stencilc::tools::print_pass_list(stencilc::passes::PassRegistry::builtin(), std::cout);
    return 0;
  }
  const bool cuda = target == "cuda" || (target.empty() && emit == "cuda");
  if (!check_options(cuda)) return 1;
  auto classified = classify_inputs();
  if (!classified) return 1;
  const auto& [input, link_inputs] = *classified;
  const bool link = emit.empty() && !emit_source && !object_only && !syntax_only;
  if (!link && !link_inputs.empty()) {
    std::cerr << "stencilc: warning: " << link_inputs.front()
              << ": linker input unused (nothing is linked)\n";
  }
  if (!build_dir.empty()) {
    if (db) return error("give either -p <build-dir> or '-- <args>', not both");
    db = clang::tooling::CompilationDatabase::loadFromDirectory(build_dir, db_error);
    if (!db) return error(db_error);
  }
  if (!db)
    db =
        std::make_unique<clang::tooling::FixedCompilationDatabase>(".", std::vector<std::string>{});

  // --emit=ir alone shows the front end's IR; a target (or driver mode) runs its whole pipeline.
  bool generate = emit != "ir" || !target.empty();
  const char* target_pipeline = schedule == "host-controlled"
                                    ? stencilc::passes::host_controlled_pipeline()
                                    : stencilc::passes::cpu_free_pipeline();
  std::string names = pass_pipeline.getNumOccurrences() ? pass_pipeline.getValue()
                      : generate ? std::string("fold-constants,") + target_pipeline
                                 : pass_pipeline.getValue();

  const std::string out = output_path(input, cuda);
  std::vector<std::string> compile_args = command_line_compile_args();
  if (optimization.getNumOccurrences()) compile_args.push_back(optimization_flag("", cuda));
  if (standard.getNumOccurrences()) compile_args.push_back("-std=" + standard);
  if (debug_info) compile_args.push_back("-g");
  stencilc::frontend::FrontendOptions options;
  options.extra_args = compile_args;
  options.extra_args.insert(options.extra_args.end(), extra_args.begin(), extra_args.end());
  auto dep_args = depfile_args(out);
  if (!dep_args) return 1;
  options.extra_args.insert(options.extra_args.end(), dep_args->begin(), dep_args->end());
  auto fe = stencilc::frontend::lower_source(*db, input, options);
  if (!fe) return 1;
  auto problems = stencilc::ir::verify(fe->module);
  if (!problems.empty()) {
    for (const auto& p : problems)
      std::cerr << "stencilc: internal error: front end produced invalid IR: " << p << "\n";
    return 2;
  }
  if (syntax_only) return 0;
  auto module = run_pipeline(fe->module, names);
  if (!module) return 1;
  if (emit == "ir") return write_output(out, stencilc::ir::print(*module)) ? 0 : 1;
  // --schedule=auto: the programs the host-controlled schedule can win get its code too.
  std::optional<stencilc::ir::Module> hc = stencilc::ir::Module{};
  if (cuda && schedule == "auto") {
    hc = host_controlled_module(fe->module, *module);
    if (!hc) return 1;
  }

  // The generated code's #line directives name the file it is written to: the output, the name
  // -S would give it where that is stdout, or the temporary file the host compiler compiles.
  const bool stage = !emit.empty() || emit_source;
  llvm::SmallString<128> tmp;
  if (stage) {
    tmp = out.empty() ? generated_file_name(input, cuda) : out;
  } else if (print_only) {
    llvm::sys::fs::getPotentiallyUniqueTempFileName("stencilc", cuda ? "cu" : "cpp", tmp);
  } else if (auto ec = llvm::sys::fs::createTemporaryFile("stencilc", cuda ? "cu" : "cpp", tmp)) {
    return error("cannot create a temporary file: " + ec.message());
  }
  // The temporary file goes when this returns, unless -save-temps keeps it.
  llvm::FileRemover remove_tmp(tmp, !stage && !print_only && !save_temps);
  auto source = generated_source(*fe, *module, *hc, cuda, tmp.str().str());
  if (!source) return 1;
  if (stage) return write_output(out, *source) ? 0 : 1;

  return build(input, link_inputs, out, cuda, *db, compile_args, *source, tmp.str().str());
}

int main(int argc, const char** argv) {
  // Programs may nest as deep as the IR allows (ir/Nesting.h): every walk over them recurses.
  int rc = stencilc::ir::run_with_deep_stack([&] { return compile(argc, argv); });
  if (rc != 0 && !depfile_path.empty()) llvm::sys::fs::remove(depfile_path);
  return rc;
}
