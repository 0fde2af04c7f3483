// The stencilc front end: parses a C++ file with Clang and lowers every SC_PROGRAM and
// SC_SPMD_PROGRAM function in it to the IR. Errors are reported through Clang's diagnostics
// (file:line:col, the source line and a caret) on stderr.
#pragma once

#include "ir/IR.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
}

namespace stencilc::frontend {

struct FrontendOptions {
  /// Extra arguments appended to the compile command (e.g. -D, -I).
  std::vector<std::string> extra_args;
  /// Directory holding `stencilc/stencilc.hpp`; empty: the one stencilc was built or installed with.
  std::string include_dir;
  /// Clang's resource directory (builtin headers); empty: the one stencilc was built with.
  std::string resource_dir;
};

/// Where a program stands in the main file, so that code generation can replace its body by a
/// call to the generated code (byte offsets into FrontendResult::text).
struct ProgramSite {
  std::string name;
  size_t insert_at = 0;   // start of the line where the program's declaration begins
  size_t body_begin = 0;  // the body's `{`
  size_t body_end = 0;    // one past the body's `}`
};

struct FrontendResult {
  ir::Module module;
  std::string text;                // the main file as Clang read it
  std::vector<ProgramSite> sites;  // one per program, in module order
};

/// Lowers `source` (compiled with its command from `db`) to an IR module, or returns nullopt
/// after the diagnostics were printed.
std::optional<FrontendResult> lower_source(const clang::tooling::CompilationDatabase& db, const std::string& source,
                                           const FrontendOptions& options = {});

/// The same, for a file compiled with just `args` (used by tests and when no database is given).
std::optional<FrontendResult> lower_source(const std::string& source, const std::vector<std::string>& args,
                                           const FrontendOptions& options = {});

/// The built-in default include directory and resource directory.
std::string default_include_dir();
std::string default_resource_dir();

}  // namespace stencilc::frontend
