// The driver's last step: the command that compiles stencilc's generated code with the host
// compiler (host target) or nvcc (cuda target) into an executable or an object file, and running
// or printing it (-v, -###).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace stencilc::driver {

/// A program and its arguments (args[0] is the program).
struct Command {
  std::vector<std::string> args;
  bool beside_next = false;  // runs at the same time as the next command (neither reads the
                             // other's output)
};

struct HostCompileRequest {
  bool cuda = false;
  bool nvshmem = false;                   // with cuda: the nvshmem backend (-rdc, NVSHMEM, MPI)
  bool object_only = false;               // -c: an object file, no link
  std::vector<std::string> cuda_archs;    // sm_XX, at least one with cuda
  std::string generated_file;             // the generated .cpp/.cu
  std::string source;                     // the user's file (its directory serves `#include "..."`)
  std::string output;                     // the executable or object
  std::string optimization = "-O2";       // the -O flag (the user's, else the target's default)
  std::string standard = "-std=c++17";    // the -std flag
  std::vector<std::string> compile_args;  // -D, -I, -g, -W, -f ...: for the compiler (cuda: nvcc)
  std::vector<std::string> host_args;     // -Xcompiler: for the host compiler (under nvcc too)
  std::vector<std::string> cuda_args;     // -Xcuda: for nvcc only
  std::vector<std::string> link_inputs;   // -l, -L, .o, .a ...: in command-line order
};

/// The host compiler for `cuda` ($NVCC or nvcc; $CXX or c++), found on the PATH; nullopt after
/// an error message.
std::optional<std::string> find_compiler(bool cuda);

/// The compile commands, run in order: one, or on the nvshmem backend three (the generated
/// file's unit built with -rdc and STENCILC_NVSHMEM_DEVICE_UNIT into `device_object(request)`
/// beside its program unit, without -rdc, into `program_object(request)`, then the link of
/// both); nullopt after an error message (nvshmem without NVSHMEM or MPI, or with -c).
std::optional<std::vector<Command>> host_compile_commands(const std::string& compiler,
                                                          const HostCompileRequest& request);

/// The nvshmem backend's objects of the unit built with -rdc and of the program's unit (beside
/// the generated file).
std::string device_object(const HostCompileRequest& request);
std::string program_object(const HostCompileRequest& request);

/// The command as clang's -### and -v print it: each argument quoted, on one line.
std::string format_command(const Command& command);

/// Runs the commands in order, each marked `beside_next` at the same time as the next; prints an
/// error naming the program of each that fails. Returns 0, or 1 after a failure (the commands
/// after it do not run).
int run_commands(const std::vector<Command>& commands);

/// Whether the host compiler `compiler` accepts `flag` (asked once per flag: it compiles an empty
/// file with it), so that clang-only -f flags of a compile command do not reach g++.
bool host_compiler_accepts(const std::string& compiler, const std::string& flag);

}  // namespace stencilc::driver
