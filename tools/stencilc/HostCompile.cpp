// The compile command of the generated code; see HostCompile.h. NVSHMEM and MPI are found here
// for the cuda target's nvshmem backend.
#include "HostCompile.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "codegen/CudaEmitter.h"  // kNvshmemDeviceUnit
#include "frontend/Frontend.h"

namespace stencilc::driver {
namespace {

/// Runs `program args...` and returns what it printed on stdout (nullopt if it failed).
std::optional<std::string> capture(const std::string& program,
                                   const std::vector<std::string>& args) {
  auto path = llvm::sys::findProgramByName(program);
  if (!path) return std::nullopt;
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("stencilc-capture", "txt", out)) return std::nullopt;
  std::vector<llvm::StringRef> refs{*path};
  refs.insert(refs.end(), args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out),
                                                llvm::StringRef("")};
  int rc = llvm::sys::ExecuteAndWait(*path, refs, std::nullopt, redirects);
  std::ifstream in(out.str().str());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  llvm::sys::fs::remove(out);
  if (rc != 0) return std::nullopt;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

/// Where NVSHMEM is: NVSHMEM_HOME, else the nvidia-nvshmem-cu13 wheel of python3, else a
/// standard install. The directory must hold include/nvshmem.h,
/// lib/libnvshmem_device.a and lib/libnvshmem_host.so(.3).
struct Nvshmem {
  std::string include, lib, host_library, device_library;
};

std::optional<Nvshmem> nvshmem_at(const std::string& include, const std::string& lib) {
  Nvshmem n{include, lib, "", lib + "/libnvshmem_device.a"};
  if (!llvm::sys::fs::exists(include + "/nvshmem.h") || !llvm::sys::fs::exists(n.device_library))
    return std::nullopt;
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
  const std::string python = "python3";
  *tried = "the nvidia-nvshmem-cu13 wheel of " + python;
  if (auto dir =
          capture(python, {"-c", "import nvidia.nvshmem as m; print(list(m.__path__)[0])"})) {
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
  } else if (auto info = capture(mpicc, {"-compile_info"});
             info && capture(mpicc, {"-link_info"})) {
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
    if (w.rfind("-I", 0) == 0 || w.rfind("-L", 0) == 0 || w.rfind("-l", 0) == 0 ||
        w.rfind("-D", 0) == 0) {
      flags.push_back(w);
    } else if (w.rfind("-Wl,", 0) == 0) {
      flags.push_back("-Xlinker=" + w.substr(4));
    } else {
      flags.push_back("-Xcompiler=" + w);
    }
  }
  return flags;
}

/// The nvcc arguments of the nvshmem backend: NVSHMEM's and MPI's headers and libraries (its
/// device library, which the unit built with -rdc needs), and an rpath so that the executable
/// finds libnvshmem_host.so.3 and its plugins where they are.
std::optional<std::vector<std::string>> nvshmem_args() {
  std::string tried;
  auto n = find_nvshmem(&tried);
  if (!n) {
    std::cerr << "stencilc: error: --backend=nvshmem needs NVSHMEM (include/nvshmem.h, "
                 "lib/libnvshmem_device.a, "
                 "lib/libnvshmem_host.so.3); looked at "
              << tried
              << ". Install it with `python3 -m pip install nvidia-nvshmem-cu13==3.4.5` "
                 "(scripts/install-deps.sh does) "
                 "or set NVSHMEM_HOME\n";
    return std::nullopt;
  }
  auto mpi = mpi_flags();
  if (!mpi) {
    std::cerr << "stencilc: error: --backend=nvshmem needs MPI: no mpicc (set MPICC) and no "
                 "pkg-config file for "
                 "ompi-c or mpich (Debian: apt-get install libopenmpi-dev)\n";
    return std::nullopt;
  }
  std::vector<std::string> args{"-I", n->include};
  args.insert(args.end(), mpi->begin(), mpi->end());
  // -l for the device library (the source is compiled with -x cu, which would apply to a .a too).
  args.insert(args.end(), {"-L" + n->lib, "-lnvshmem_device", "-Xlinker", n->host_library,
                           "-Xlinker", "-rpath," + n->lib});
  return args;
}

std::string runtime_include_dir() {
  // Installed: the runtime headers sit beside the user header; in the build tree: the sources.
  std::string installed = stencilc::frontend::default_include_dir();
  if (llvm::sys::fs::exists(installed + "/stencilc/runtime/host.hpp")) return installed;
  return STENCILC_SOURCE_RUNTIME_INCLUDE_DIR;
}

/// nvcc takes host compiler flags through -Xcompiler; -D, -I, -U, -O, -g, -std and -include it
/// knows itself.
bool nvcc_knows(const std::string& arg) {
  for (const char* prefix : {"-D", "-I", "-U", "-O", "-g", "-std=", "-include", "-isystem"}) {
    if (arg.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> find_compiler(bool cuda) {
  const char* env = std::getenv(cuda ? "NVCC" : "CXX");
  std::string compiler = env && *env ? env : cuda ? "nvcc" : "c++";
  auto program = llvm::sys::findProgramByName(compiler);
  if (!program && cuda) program = llvm::sys::findProgramByName(compiler, {"/usr/local/cuda/bin"});
  if (!program) {
    std::cerr << "stencilc: error: cannot find the " << (cuda ? "CUDA" : "host C++")
              << " compiler '" << compiler << "' (set " << (cuda ? "NVCC" : "CXX") << ")\n";
    return std::nullopt;
  }
  return *program;
}

std::string device_object(const HostCompileRequest& r) { return r.generated_file + ".device.o"; }
std::string program_object(const HostCompileRequest& r) { return r.generated_file + ".program.o"; }

std::optional<std::vector<Command>> host_compile_commands(const std::string& compiler,
                                                          const HostCompileRequest& r) {
  if (r.nvshmem && r.object_only) {
    std::cerr << "stencilc: error: -c with --backend=nvshmem: the program is two units, one built "
                 "with -rdc (docs/RUNTIME-CUDA.md, \"Two units\"); build the executable, or take "
                 "--emit=cuda's file and compile it twice\n";
    return std::nullopt;
  }
  std::vector<std::string> args{compiler, r.standard, r.optimization};
  if (r.cuda) {
    if (r.cuda_archs.size() == 1) {
      args.push_back("-arch=" + r.cuda_archs.front());
    } else {
      for (const std::string& arch : r.cuda_archs) {  // sm_90 -> compute_90 for the PTX
        std::string number = arch.rfind("sm_", 0) == 0 ? arch.substr(3) : arch;
        args.push_back("-gencode=arch=compute_" + number + ",code=sm_" + number);
      }
    }
    args.push_back("--expt-relaxed-constexpr");
  }
  for (const std::string& a : r.compile_args)
    args.push_back(r.cuda && !nvcc_knows(a) ? "-Xcompiler=" + a : a);
  for (const std::string& a : r.host_args) args.push_back(r.cuda ? "-Xcompiler=" + a : a);
  if (r.cuda) args.insert(args.end(), r.cuda_args.begin(), r.cuda_args.end());
  // The generated file lives elsewhere: `#include "x.h"` must still find x.h beside the source.
  llvm::SmallString<256> source_dir(r.source);
  llvm::sys::fs::make_absolute(source_dir);
  llvm::sys::path::remove_filename(source_dir);
  args.push_back(r.cuda ? "-I" : "-iquote");
  args.push_back(source_dir.str().str());
  for (const std::string& dir :
       {stencilc::frontend::default_include_dir(), runtime_include_dir()}) {
    args.push_back("-I");
    args.push_back(dir);
  }
  std::vector<std::string> libraries;
  std::vector<Command> commands;
  if (r.cuda && r.nvshmem) {
    auto extra = nvshmem_args();
    if (!extra) return std::nullopt;
    // The include directories before the source, the libraries after it.
    auto first_library = std::find_if(extra->begin(), extra->end(), [](const std::string& a) {
      return a.rfind("-L", 0) == 0 || a.rfind("-l", 0) == 0 || a.rfind("-Xlinker", 0) == 0;
    });
    args.insert(args.end(), extra->begin(), first_library);
    libraries.assign(first_library, extra->end());
    // The unit with NVSHMEM's device calls (-rdc: its kernels for peers behind the proxy) and the
    // program's unit at the same time, then the link (nvcc device-links the -rdc object with
    // NVSHMEM's device library).
    Command device{args, /*beside_next=*/true};
    device.args.insert(device.args.end(), {"-rdc=true", std::string("-D") + stencilc::codegen::kNvshmemDeviceUnit, "-c",
                                           r.generated_file, "-o", device_object(r),
                                           "-Xcompiler=-pthread"});
    commands.push_back(std::move(device));
    Command program{args};
    program.args.insert(program.args.end(),
                        {"-c", r.generated_file, "-o", program_object(r), "-Xcompiler=-pthread"});
    commands.push_back(std::move(program));
    Command link{args};
    link.args.insert(link.args.end(), {program_object(r), device_object(r), "-o", r.output});
    link.args.insert(link.args.end(), r.link_inputs.begin(), r.link_inputs.end());
    link.args.insert(link.args.end(), libraries.begin(), libraries.end());
    link.args.push_back("-Xcompiler=-pthread");
    commands.push_back(std::move(link));
    return commands;
  }
  if (r.object_only) args.push_back("-c");
  args.insert(args.end(), {r.generated_file, "-o", r.output});
  if (!r.object_only) args.insert(args.end(), r.link_inputs.begin(), r.link_inputs.end());
  args.push_back(r.cuda ? "-Xcompiler=-pthread" : "-pthread");
  commands.push_back(Command{args});
  return commands;
}

std::string format_command(const Command& command) {
  std::string line;
  for (const std::string& a : command.args) {
    line += " \"";
    for (char c : a) {
      if (c == '"' || c == '\\' || c == '$') line += '\\';
      line += c;
    }
    line += '"';
  }
  return line;
}

namespace {

// The error line of a command that failed: exit status `rc` or the launcher's `message`.
void report_failure(const Command& command, int rc, const std::string& message) {
  std::cerr << "stencilc: error: " << llvm::sys::path::filename(command.args.front()).str()
            << " failed "
            << (message.empty() ? "with exit code " + std::to_string(rc) : "(" + message + ")")
            << " (use -v to see the command)\n";
}

}  // namespace

int run_commands(const std::vector<Command>& commands) {
  std::optional<std::pair<const Command*, llvm::sys::ProcessInfo>> beside;  // started, not waited for
  // Waits for the command started beside another; false if it failed.
  auto finish_beside = [&beside]() {
    if (!beside) return true;
    std::string message;
    const llvm::sys::ProcessInfo done = llvm::sys::Wait(beside->second, std::nullopt, &message);
    const bool ok = done.ReturnCode == 0;
    if (!ok) report_failure(*beside->first, done.ReturnCode, message);
    beside.reset();
    return ok;
  };
  for (const Command& command : commands) {
    std::vector<llvm::StringRef> refs(command.args.begin(), command.args.end());
    std::string message;
    if (command.beside_next && !beside) {
      bool start_failed = false;
      llvm::sys::ProcessInfo started = llvm::sys::ExecuteNoWait(
          command.args.front(), refs, std::nullopt, {}, 0, &message, &start_failed);
      if (start_failed) {
        report_failure(command, -1, message);
        return 1;
      }
      beside.emplace(&command, started);
      continue;
    }
    const int rc = llvm::sys::ExecuteAndWait(command.args.front(), refs, std::nullopt, {}, 0, 0, &message);
    if (rc != 0) report_failure(command, rc, message);
    const bool beside_ok = finish_beside();  // the command started beside this one
    if (rc != 0 || !beside_ok) return 1;
  }
  return finish_beside() ? 0 : 1;  // a last command marked beside_next has no partner
}

bool host_compiler_accepts(const std::string& compiler, const std::string& flag) {
  static std::map<std::pair<std::string, std::string>, bool> known;
  auto [it, fresh] = known.emplace(std::make_pair(compiler, flag), false);
  if (!fresh) return it->second;
  std::vector<llvm::StringRef> refs{compiler, "-fsyntax-only", "-x", "c++", flag, "/dev/null"};
  std::optional<llvm::StringRef> quiet[] = {llvm::StringRef(""), llvm::StringRef(""),
                                            llvm::StringRef("")};
  it->second = llvm::sys::ExecuteAndWait(compiler, refs, std::nullopt, quiet) == 0;
  return it->second;
}

}  // namespace stencilc::driver
