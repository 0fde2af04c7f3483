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

/// Lowers `source` (compiled with its command from `db`) to an IR module, or returns nullopt
/// after the diagnostics were printed.
std::optional<ir::Module> lower_source(const clang::tooling::CompilationDatabase& db, const std::string& source,
                                       const FrontendOptions& options = {});

/// The same, for a file compiled with just `args` (used by tests and when no database is given).
std::optional<ir::Module> lower_source(const std::string& source, const std::vector<std::string>& args,
                                       const FrontendOptions& options = {});

/// The built-in default include directory and resource directory.
std::string default_include_dir();
std::string default_resource_dir();

}  // namespace stencilc::frontend
