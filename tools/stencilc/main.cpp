// stencilc: the compiler driver. A thin layer over the libraries: options, the front end, the
// pass pipeline, and output. Usage: stencilc [options] <file.cpp> [-- <compiler args>]
#include "frontend/Frontend.h"
#include "ir/IRPrinter.h"
#include "ir/Nesting.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "codegen/CudaEmitter.h"
#include "codegen/HostControlledEmitter.h"
#include "codegen/HostEmitter.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

namespace {

namespace cl = llvm::cl;

cl::OptionCategory category("stencilc options");

cl::opt<std::string> input(cl::Positional, cl::desc("<source.cpp>"), cl::Required, cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Write the output to <file> (stages: '-' for stdout, the default; "
                                         "executables: a.out by default)"),
                            cl::value_desc("file"), cl::init("-"), cl::cat(category));
cl::opt<std::string> build_dir("p", cl::desc("Read the compile command from <build-dir>/compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(category));
cl::opt<std::string> emit("emit", cl::desc("Stop after a stage and write it: ir (the IR; with --target, after the "
                                           "target's pipeline), cpp (the generated host C++), cuda (the .cu)"),
                          cl::value_desc("stage"), cl::cat(category));
cl::opt<std::string> target("target", cl::desc("Code generation target: host (PEs are threads; the default) or "
                                             "cuda (one persistent kernel per GPU)"),
                            cl::value_desc("target"), cl::cat(category));
cl::opt<std::string> schedule("schedule",
                             cl::desc("With --target=cuda: cpu-free (one persistent kernel per GPU; the default) or "
                                      "host-controlled (the host launches a kernel per update and GPU: the baseline)"),
                             cl::value_desc("schedule"), cl::init("cpu-free"), cl::cat(category));
cl::opt<std::string> backend("backend",
                             cl::desc("With --target=cuda: how the GPUs communicate: p2p (one process drives every "
                                      "GPU over NVLink; the default) or nvshmem (one process per GPU, mpirun -np N)"),
                             cl::value_desc("backend"), cl::init("p2p"), cl::cat(category));
cl::opt<std::string> cuda_arch("cuda-arch", cl::desc("With --target=cuda: the GPU architecture (default sm_90)"),
                               cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(category));
cl::opt<bool> print_after_all("print-ir-after-all", cl::desc("Print the IR after every pass"), cl::cat(category));
cl::list<std::string> print_after("print-ir-after", cl::desc("Print the IR after the named pass"),
                                  cl::value_desc("pass"), cl::cat(category));
cl::list<std::string> print_before("print-ir-before", cl::desc("Print the IR before the named pass"),
                                   cl::value_desc("pass"), cl::cat(category));
cl::opt<bool> print_changed("print-ir-changed-only", cl::desc("With the print options, only print when a pass changed the IR"),
                            cl::cat(category));
cl::opt<bool> time_passes("pass-timing", cl::desc("Report the time each pass took"), cl::cat(category));
cl::opt<std::string> pass_pipeline("pass-pipeline",
                                  cl::desc("The passes to run after the front end, comma-separated"),
                                  cl::value_desc("a,b,c"), cl::init("fold-constants"), cl::cat(category));
cl::list<std::string> extra_args("extra-arg", cl::desc("Additional argument to append to the compile command"),
                                 cl::cat(category));
cl::opt<bool> dep_md("MD",
                     cl::desc("Also write a Makefile-style depfile: the source and every file it "
                              "includes (see -MF)"),
                     cl::cat(category));
cl::opt<bool> dep_mmd("MMD", cl::desc("Like -MD, but leave system headers out"), cl::cat(category));
cl::opt<std::string> dep_file("MF",
                              cl::desc("With -MD/-MMD: the depfile to write (default: the -o file "
                                       "with .d for its extension)"),
                              cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> dep_target("MT",
                                cl::desc("With -MD/-MMD: the target the depfile names (default: "
                                         "the -o file)"),
                                cl::value_desc("target"), cl::cat(category));

void print_version(llvm::raw_ostream& os) {
  os << "stencilc version " << STENCILC_VERSION << " (Clang " << STENCILC_CLANG_VERSION << " front end)\n";
}

std::string runtime_include_dir() {
  // Installed: the runtime headers sit beside the user header; in the build tree: the sources.
  std::string installed = stencilc::frontend::default_include_dir();
  if (llvm::sys::fs::exists(installed + "/stencilc/runtime/host.hpp")) return installed;
  return STENCILC_SOURCE_RUNTIME_INCLUDE_DIR;
}

/// The depfile being written, removed again if stencilc fails: no depfile without its output.
std::string depfile_path;

/// The arguments that make the front end's Clang write the depfile for -MD/-MMD (it reads every
/// included file anyway); nullopt after an error.
std::optional<std::vector<std::string>> depfile_args() {
  if (!dep_md && !dep_mmd) {
    if (dep_file.getNumOccurrences() || dep_target.getNumOccurrences()) {
      std::cerr << "stencilc: error: -MF and -MT need -MD or -MMD\n";
      return std::nullopt;
    }
    return std::vector<std::string>{};
  }
  // Without -o, driver mode writes a.out; a stage goes to stdout and the depfile needs a name.
  std::string out = output != "-" ? output.getValue() : emit.empty() ? "a.out" : "";
  depfile_path = dep_file;
  if (depfile_path.empty() && !out.empty()) {
    llvm::SmallString<128> d(out);
    llvm::sys::path::replace_extension(d, "d");
    depfile_path = d.str().str();
  }
  if (out.empty() && (depfile_path.empty() || dep_target.empty())) {
    std::cerr << "stencilc: error: -MD and -MMD without -o need -MF <file> and -MT <target>\n";
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

bool write_output(const std::string& text) {
  if (output == "-") {
    std::cout << text;
    return true;
  }
  std::ofstream out(output);
  out << text;
  if (!out) {
    std::cerr << "stencilc: error: cannot write '" << output << "'\n";
    return false;
  }
  return true;
}

/// The compile arguments of the user's command that the host compiler needs too (-D, -I, -U,
/// -std, -O, -f, -W, -g), taken from the command the front end used.
std::vector<std::string> forwarded_args(const clang::tooling::CompilationDatabase& db, const std::string& file) {
  std::vector<std::string> out;
  auto commands = db.getCompileCommands(file);
  if (commands.empty()) return out;
  const std::vector<std::string>& cmd = commands.front().CommandLine;
  for (size_t i = 1; i < cmd.size(); ++i) {
    const std::string& a = cmd[i];
    bool takes_value = (a == "-D" || a == "-I" || a == "-U" || a == "-isystem") && i + 1 < cmd.size();
    if (takes_value) {
      out.push_back(a);
      out.push_back(cmd[++i]);
    } else if (a.rfind("-D", 0) == 0 || a.rfind("-I", 0) == 0 || a.rfind("-U", 0) == 0 || a.rfind("-std=", 0) == 0 ||
               a.rfind("-O", 0) == 0 || a.rfind("-f", 0) == 0 || a.rfind("-W", 0) == 0 || a == "-g") {
      out.push_back(a);
    }
  }
  return out;
}

/// Runs `program args...` and returns what it printed on stdout (nullopt if it failed).
std::optional<std::string> capture(const std::string& program, const std::vector<std::string>& args) {
  auto path = llvm::sys::findProgramByName(program);
  if (!path) return std::nullopt;
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("stencilc-capture", "txt", out)) return std::nullopt;
  std::vector<llvm::StringRef> refs{*path};
  refs.insert(refs.end(), args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out), llvm::StringRef("")};
  int rc = llvm::sys::ExecuteAndWait(*path, refs, std::nullopt, redirects);
  std::ifstream in(out.str().str());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  llvm::sys::fs::remove(out);
  if (rc != 0) return std::nullopt;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

/// Where NVSHMEM is: NVSHMEM_HOME, else the nvidia-nvshmem-cu13 wheel of python3 ($STENCILC_PYTHON),
/// else a standard install. The directory must hold include/nvshmem.h, lib/libnvshmem_device.a and
/// lib/libnvshmem_host.so(.3).
struct Nvshmem {
  std::string include, lib, host_library, device_library;
};

std::optional<Nvshmem> nvshmem_at(const std::string& include, const std::string& lib) {
  Nvshmem n{include, lib, "", lib + "/libnvshmem_device.a"};
  if (!llvm::sys::fs::exists(include + "/nvshmem.h") || !llvm::sys::fs::exists(n.device_library)) return std::nullopt;
  for (const char* name : {"libnvshmem_host.so", "libnvshmem_host.so.3"}) {
    if (llvm::sys::fs::exists(lib + "/" + name)) n.host_library = lib + "/" + name;
  }
  if (n.host_library.empty()) return std::nullopt;
  return n;
}

std::optional<Nvshmem> find_nvshmem(std::string* tried) {
  if (const char* home = std::getenv("NVSHMEM_HOME"); home && *home) {
    *tried = std::string("NVSHMEM_HOME=") + home;
    for (const char* lib : {"/lib", "/lib64"}) {
      if (auto n = nvshmem_at(std::string(home) + "/include", home + std::string(lib))) return n;
    }
    return std::nullopt;  // asked for this one: no silent fallback
  }
  const char* python_env = std::getenv("STENCILC_PYTHON");
  std::string python = python_env && *python_env ? python_env : "python3";
  *tried = "the nvidia-nvshmem-cu13 wheel of " + python;
  if (auto dir = capture(python, {"-c", "import nvidia.nvshmem as m; print(list(m.__path__)[0])"})) {
    if (auto n = nvshmem_at(*dir + "/include", *dir + "/lib")) return n;
  }
  *tried += ", /usr/local/nvshmem, /opt/nvidia/nvshmem, /usr/include/nvshmem_13";
  for (const auto& [include, lib] : std::vector<std::pair<std::string, std::string>>{
           {"/usr/local/nvshmem/include", "/usr/local/nvshmem/lib"},
           {"/opt/nvidia/nvshmem/include", "/opt/nvidia/nvshmem/lib"},
           {"/usr/include/nvshmem_13", "/usr/lib/x86_64-linux-gnu/nvshmem/13"}}) {
    if (auto n = nvshmem_at(include, lib)) return n;
  }
  return std::nullopt;
}

/// MPI's compile and link flags, as nvcc options: from `mpicc --showme:compile/link` (Open MPI),
/// `mpicc -compile_info/-link_info` (MPICH), else pkg-config ompi-c or mpich.
std::optional<std::vector<std::string>> mpi_flags() {
  std::vector<std::string> words;
  const char* mpicc_env = std::getenv("MPICC");
  std::string mpicc = mpicc_env && *mpicc_env ? mpicc_env : "mpicc";
  auto compile = capture(mpicc, {"--showme:compile"});
  auto link = capture(mpicc, {"--showme:link"});
  if (compile && link) {
    words = split_words(*compile + " " + *link);
  } else if (auto info = capture(mpicc, {"-compile_info"}); info && capture(mpicc, {"-link_info"})) {
    auto all = split_words(*info + " " + *capture(mpicc, {"-link_info"}));
    words.assign(all.begin() + (all.empty() ? 0 : 1), all.end());  // the first word is the compiler
  } else if (auto pc = capture("pkg-config", {"--cflags", "--libs", "ompi-c"})) {
    words = split_words(*pc);
  } else if (auto pc2 = capture("pkg-config", {"--cflags", "--libs", "mpich"})) {
    words = split_words(*pc2);
  } else {
    return std::nullopt;
  }
  std::vector<std::string> flags;
  for (const std::string& w : words) {
    if (w.rfind("-I", 0) == 0 || w.rfind("-L", 0) == 0 || w.rfind("-l", 0) == 0 || w.rfind("-D", 0) == 0) {
      flags.push_back(w);
    } else if (w.rfind("-Wl,", 0) == 0) {
      flags.push_back("-Xlinker=" + w.substr(4));
    } else {
      flags.push_back("-Xcompiler=" + w);
    }
  }
  return flags;
}

/// The nvcc arguments of the nvshmem backend: relocatable device code (NVSHMEM's device library),
/// NVSHMEM's and MPI's headers and libraries, and an rpath so that the executable finds
/// libnvshmem_host.so.3 and its plugins where they are.
std::optional<std::vector<std::string>> nvshmem_args() {
  std::string tried;
  auto n = find_nvshmem(&tried);
  if (!n) {
    std::cerr << "stencilc: error: --backend=nvshmem needs NVSHMEM (include/nvshmem.h, lib/libnvshmem_device.a, "
                 "lib/libnvshmem_host.so.3); looked at "
              << tried
              << ". Install it with `python3 -m pip install nvidia-nvshmem-cu13==3.4.5` (scripts/install-deps.sh does) "
                 "or set NVSHMEM_HOME\n";
    return std::nullopt;
  }
  auto mpi = mpi_flags();
  if (!mpi) {
    std::cerr << "stencilc: error: --backend=nvshmem needs MPI: no mpicc (set MPICC) and no pkg-config file for "
                 "ompi-c or mpich (Debian: apt-get install libopenmpi-dev)\n";
    return std::nullopt;
  }
  std::vector<std::string> args{"-rdc=true", "-I", n->include};
  args.insert(args.end(), mpi->begin(), mpi->end());
  // -l for the device library (the source is compiled with -x cu, which would apply to a .a too).
  args.insert(args.end(), {"-L" + n->lib, "-lnvshmem_device", "-Xlinker", n->host_library, "-Xlinker", "-rpath," + n->lib});
  return args;
}

/// Compiles the generated code into `exe`: C++ with the host compiler ($CXX, else c++), CUDA
/// with nvcc ($NVCC, else nvcc on the PATH or in /usr/local/cuda/bin).
int compile_generated(bool cuda, const std::string& cpp_file, const std::string& source, const std::string& exe,
                      const std::vector<std::string>& user_args) {
  const char* env = std::getenv(cuda ? "NVCC" : "CXX");
  std::string compiler = env && *env ? env : cuda ? "nvcc" : "c++";
  auto program = llvm::sys::findProgramByName(compiler);
  if (!program && cuda) program = llvm::sys::findProgramByName(compiler, {"/usr/local/cuda/bin"});
  if (!program) {
    std::cerr << "stencilc: error: cannot find the " << (cuda ? "CUDA" : "host C++") << " compiler '" << compiler
              << "' (set " << (cuda ? "NVCC" : "CXX") << ")\n";
    return 1;
  }
  std::vector<std::string> args{*program, "-std=c++17"};
  if (cuda) args.insert(args.end(), {"-O3", "-arch=" + cuda_arch.getValue(), "--expt-relaxed-constexpr", "-x", "cu"});
  else args.push_back("-O2");
  args.insert(args.end(), user_args.begin(), user_args.end());
  // The generated file lives elsewhere: `#include "x.h"` must still find x.h beside the source.
  llvm::SmallString<256> source_dir(source);
  llvm::sys::fs::make_absolute(source_dir);
  llvm::sys::path::remove_filename(source_dir);
  args.push_back(cuda ? "-I" : "-iquote");
  args.push_back(source_dir.str().str());
  for (const std::string& dir : {stencilc::frontend::default_include_dir(), runtime_include_dir()}) {
    args.push_back("-I");
    args.push_back(dir);
  }
  std::vector<std::string> libraries;
  if (cuda && backend == "nvshmem") {
    auto extra = nvshmem_args();
    if (!extra) return 1;
    // -rdc and the include directories before the source, the libraries after it.
    auto first_library = std::find_if(extra->begin(), extra->end(), [](const std::string& a) {
      return a.rfind("-L", 0) == 0 || a.rfind("-l", 0) == 0 || a.rfind("-Xlinker", 0) == 0;
    });
    args.insert(args.end(), extra->begin(), first_library);
    libraries.assign(first_library, extra->end());
  }
  args.insert(args.end(), {cpp_file, "-o", exe});
  args.insert(args.end(), libraries.begin(), libraries.end());
  args.push_back(cuda ? "-Xcompiler=-pthread" : "-pthread");
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, refs, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    std::cerr << "stencilc: error: the " << (cuda ? "CUDA" : "host") << " compiler failed"
              << (message.empty() ? "" : ": " + message) << " (";
    for (const auto& a : args) std::cerr << a << " ";
    std::cerr << ")\n";
    return 1;
  }
  return 0;
}

/// Runs the pass pipeline with the dump options; nullopt after printing the errors.
std::optional<stencilc::ir::Module> run_pipeline(const stencilc::ir::Module& module, const std::string& names) {
  namespace passes = stencilc::passes;
  const passes::PassRegistry& registry = passes::PassRegistry::builtin();
  for (const auto* list : {&print_after, &print_before}) {
    for (const std::string& name : *list) {
      if (!registry.find(name)) {
        std::cerr << "stencilc: error: unknown pass '" << name << "' (see stencilc-opt --list-passes)\n";
        return std::nullopt;
      }
    }
  }
  passes::PipelineOptions popts;
  popts.print_after_all = print_after_all;
  popts.print_after.insert(print_after.begin(), print_after.end());
  popts.print_before.insert(print_before.begin(), print_before.end());
  popts.print_after_change = print_changed;
  popts.timing = time_passes ? &std::cerr : nullptr;
  passes::PassPipeline pipeline(popts);
  std::string error;
  if (!pipeline.add_pipeline(names, registry, &error)) {
    std::cerr << "stencilc: error: " << error << "\n";
    return std::nullopt;
  }
  passes::PassResult result = pipeline.run(module);
  if (!result.ok()) {
    for (const std::string& e : result.errors) std::cerr << e << "\n";
    return std::nullopt;
  }
  return result.module;
}

/// The user's file with each program replaced by its generated code for the target.
std::optional<std::string> generated_source(const stencilc::frontend::FrontendResult& fe, const stencilc::ir::Module& m,
                                            bool cuda) {
  std::vector<std::string> errors;
  const bool host_controlled = cuda && schedule == "host-controlled";
  const auto cuda_backend =
      backend == "nvshmem" ? stencilc::codegen::CudaBackend::Nvshmem : stencilc::codegen::CudaBackend::P2P;
  auto programs = host_controlled ? stencilc::codegen::emit_cuda_host_controlled(m, &errors)
                  : cuda          ? stencilc::codegen::emit_cuda(m, &errors, cuda_backend)
                                  : stencilc::codegen::emit_host(m, &errors);
  for (const auto& site : fe.sites) {
    if (site.body_end == 0) errors.push_back(fe.module.source + ": error: program '" + site.name +
                                             "' is defined in an included file; code generation needs it in the "
                                             "file given to stencilc");
  }
  if (!errors.empty()) {
    for (const auto& e : errors) std::cerr << e << "\n";
    return std::nullopt;
  }
  std::vector<stencilc::codegen::SpliceSite> sites;
  for (const auto& s : fe.sites) sites.push_back({s.insert_at, s.body_begin, s.body_end});
  std::string prologue =
      host_controlled ? "// Generated by stencilc " STENCILC_VERSION " from " + fe.module.source +
                            " for the cuda target (host-controlled, p2p).\n#include <stencilc/compiled_cuda.hpp>\n"
                            "#include <stencilc/runtime/cuda/host_controlled.cuh>\n"
      : cuda && backend == "nvshmem"
          ? "// Generated by stencilc " STENCILC_VERSION " from " + fe.module.source +
                " for the cuda target (cpu-free, nvshmem: one process per GPU, mpirun -np N).\n"
                "#include <stencilc/compiled_cuda_nvshmem.hpp>\n"
      : cuda ? "// Generated by stencilc " STENCILC_VERSION " from " + fe.module.source +
                 " for the cuda target (cpu-free, p2p).\n#include <stencilc/compiled_cuda.hpp>\n"
           : "// Generated by stencilc " STENCILC_VERSION " from " + fe.module.source +
                 " for the host target.\n#include <stencilc/compiled.hpp>\n#include <stencilc/runtime/halo.hpp>\n";
  return stencilc::codegen::splice(fe.text, fe.module.source, prologue, programs, sites);
}

}  // namespace

static int compile(int argc, const char** argv) {
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(print_version);
  // Everything after `--` is the compile command, as for clang-tidy and friends.
  std::string db_error;
  std::unique_ptr<clang::tooling::CompilationDatabase> db =
      clang::tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv, db_error);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "stencilc: compiles annotated C++ stencil programs into CPU-free multi-GPU code\n",
                                   &llvm::errs())) {
    return 1;
  }
  if (!build_dir.empty()) {
    if (db) {
      std::cerr << "stencilc: error: give either -p <build-dir> or '-- <args>', not both\n";
      return 1;
    }
    db = clang::tooling::CompilationDatabase::loadFromDirectory(build_dir, db_error);
    if (!db) {
      std::cerr << "stencilc: error: " << db_error << "\n";
      return 1;
    }
  }
  if (!db) db = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", std::vector<std::string>{});

  if (!emit.empty() && emit != "ir" && emit != "cpp" && emit != "cuda") {
    std::cerr << "stencilc: error: unknown --emit stage '" << emit << "' (known: ir, cpp, cuda)\n";
    return 1;
  }
  if (!target.empty() && target != "host" && target != "cuda") {
    std::cerr << "stencilc: error: unknown --target '" << target << "' (available: host, cuda)\n";
    return 1;
  }
  const bool cuda = target == "cuda" || (target.empty() && emit == "cuda");
  if (backend != "p2p" && backend != "nvshmem") {
    std::cerr << "stencilc: error: unknown --backend '" << backend << "' (available: p2p, nvshmem)\n";
    return 1;
  }
  if (backend.getNumOccurrences() && !cuda) {
    std::cerr << "stencilc: error: --backend=" << backend << " goes with --target=cuda\n";
    return 1;
  }
  if ((emit == "cpp" && cuda) || (emit == "cuda" && !cuda)) {
    std::cerr << "stencilc: error: --emit=" << emit << " goes with --target=" << (emit == "cpp" ? "host" : "cuda") << "\n";
    return 1;
  }
  if (schedule != "cpu-free" && schedule != "host-controlled") {
    std::cerr << "stencilc: error: unknown --schedule '" << schedule << "' (available: cpu-free, host-controlled)\n";
    return 1;
  }
  if (schedule == "host-controlled" && backend == "nvshmem") {
    std::cerr << "stencilc: error: --schedule=host-controlled runs on the p2p backend only (one process drives every "
                 "GPU); drop --backend=nvshmem\n";
    return 1;
  }
  if (schedule.getNumOccurrences() && !cuda) {
    std::cerr << "stencilc: error: --schedule goes with --target=cuda (the host target has one schedule)\n";
    return 1;
  }
  // --emit=ir alone shows the front end's IR; a target (or driver mode) runs its whole pipeline.
  bool generate = emit != "ir" || !target.empty();
  const char* target_pipeline = schedule == "host-controlled" ? stencilc::passes::host_controlled_pipeline()
                                                              : stencilc::passes::cpu_free_pipeline();
  std::string names = pass_pipeline.getNumOccurrences() ? pass_pipeline.getValue()
                      : generate ? std::string("fold-constants,") + target_pipeline
                                 : pass_pipeline.getValue();

  stencilc::frontend::FrontendOptions options;
  options.extra_args.assign(extra_args.begin(), extra_args.end());
  auto dep_args = depfile_args();
  if (!dep_args) return 1;
  options.extra_args.insert(options.extra_args.end(), dep_args->begin(), dep_args->end());
  auto fe = stencilc::frontend::lower_source(*db, input, options);
  if (!fe) return 1;
  auto problems = stencilc::ir::verify(fe->module);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "stencilc: internal error: front end produced invalid IR: " << p << "\n";
    return 2;
  }
  auto module = run_pipeline(fe->module, names);
  if (!module) return 1;
  if (emit == "ir") return write_output(stencilc::ir::print(*module)) ? 0 : 1;

  auto source = generated_source(*fe, *module, cuda);
  if (!source) return 1;
  if (emit == "cpp" || emit == "cuda") return write_output(*source) ? 0 : 1;

  // Driver mode: build the executable, like clang or nvcc would.
  llvm::SmallString<128> tmp;
  if (auto ec = llvm::sys::fs::createTemporaryFile("stencilc", cuda ? "cu" : "cpp", tmp)) {
    std::cerr << "stencilc: error: cannot create a temporary file: " << ec.message() << "\n";
    return 1;
  }
  {
    std::ofstream out(tmp.str().str());
    out << *source;
  }
  std::vector<std::string> user_args = forwarded_args(*db, input);
  user_args.insert(user_args.end(), extra_args.begin(), extra_args.end());
  int rc = compile_generated(cuda, tmp.str().str(), input, output == "-" ? "a.out" : output.getValue(), user_args);
  if (rc == 0 || !std::getenv("STENCILC_KEEP_TEMPS")) llvm::sys::fs::remove(tmp);
  return rc;
}

int main(int argc, const char** argv) {
  // Programs may nest as deep as the IR allows (ir/Nesting.h): every walk over them recurses.
  int rc = stencilc::ir::run_with_deep_stack([&] { return compile(argc, argv); });
  if (rc != 0 && !depfile_path.empty()) llvm::sys::fs::remove(depfile_path);
  return rc;
}
