// The host target: C++ in which the PEs are threads and every communication goes through the
// runtime's host backend (runtime/include/stencilc/runtime/host.hpp), the same device API the
// GPU backends implement. The exact schedule the GPUs will run thus executes, and is verified,
// on the CPU.
#pragma once

#include "ir/IR.h"

#include <string>
#include <vector>

namespace stencilc::codegen {

/// The generated code for one program: a namespace with its per-PE function and a launcher
/// `<name>_launch(...)` taking the program's own parameters.
struct GeneratedProgram {
  std::string name;
  std::string code;         // inserted before the program's declaration
  std::string launch_call;  // the program's new body: `{ stencilc_generated::jacobi_launch(a, ...); }`
  std::string after;        // inserted right after the program (SPMD programs register their launcher)
};

/// The splice of program `p` whose generated `code` defines `<ns>::<p>_launch` (and, for an SPMD
/// program, `<ns>::<p>_spmd_launch`, which stencilc::spmd finds through the registration after
/// the program). `ns`: the host target's code and --schedule=auto's entry are in
/// stencilc_generated, each CUDA schedule's code in its own namespace inside it.
inline GeneratedProgram generated_program(const ir::Program& p, std::string code,
                                          const std::string& ns = "stencilc_generated") {
  std::string args;
  for (const ir::Param& q : p.params) args += (args.empty() ? "" : ", ") + q.name;
  GeneratedProgram g{p.name, std::move(code), "{ " + ns + "::" + p.name + "_launch(" + args + "); }", ""};
  if (p.kind == ir::ProgramKind::Spmd) {
    // The program runs through stencilc::spmd, which finds the launcher registered here.
    g.launch_call = "{ ::stencilc::detail::fatal(\"%s: an SC_SPMD_PROGRAM runs through stencilc::spmd(...)\", \"" +
                    p.name + "\"); }";
    g.after = "\nstatic const bool sc_" + p.name + "_registered [[maybe_unused]] = ::stencilc::detail::register_compiled_spmd(\n"
              "    reinterpret_cast<const void*>(&" + p.name + "), &" + ns + "::" + p.name + "_spmd_launch);";
  }
  return g;
}

/// Emits every program of `module` for the host target. Programs must have gone through the host
/// pipeline (decomposed, exchanges lowered). On failure returns nothing and fills *errors.
std::vector<GeneratedProgram> emit_host(const ir::Module& module, std::vector<std::string>* errors);

/// Where a program stands in the user's source (byte offsets, see frontend::ProgramSite).
struct SpliceSite {
  size_t insert_at = 0, body_begin = 0, body_end = 0;
};

/// The user's source with each program's body replaced by its launch call and its generated code
/// inserted before it; `prologue` goes first. Every stretch of the user's text is preceded by a
/// #line directive naming its line in `source_name`, and every generated stretch by one naming
/// its own line in `generated_name` (the file the result is written to), so a compiler's
/// diagnostic points at the line it is about, in the user's file or in the generated one.
/// `user_guard`, when given, is a macro that leaves out the user's text and the bodies' launch
/// calls (`#if !defined(user_guard)`): the nvshmem backend's -rdc unit (kNvshmemDeviceUnit).
std::string splice(const std::string& source_text, const std::string& source_name,
                   const std::string& generated_name, const std::string& prologue,
                   const std::vector<GeneratedProgram>& programs, const std::vector<SpliceSite>& sites,
                   const std::string& user_guard = "");

}  // namespace stencilc::codegen
