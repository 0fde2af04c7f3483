// The options stencilc and stencilc-opt share (llvm::cl): the IR dumps between passes, pass
// timing, --list-passes and --version, so both tools spell them the same way.
#pragma once
#include <llvm/Support/CommandLine.h>

#include <iosfwd>
#include <string>

#include "passes/PassManager.h"

namespace stencilc::tools {

/// The category the shared options are listed under in --help.
llvm::cl::OptionCategory& pass_options_category();

/// The pipeline options the command line asked for (dumps go to stderr, timing too).
passes::PipelineOptions pipeline_options_from_command_line();

/// Whether every pass named by --print-ir-before/--print-ir-after exists; *error names the first
/// one that does not.
bool check_dump_pass_names(const passes::PassRegistry& registry, std::string* error);

/// --list-passes was given.
bool list_passes_requested();

/// One line per pass: its name and summary.
void print_pass_list(const passes::PassRegistry& registry, std::ostream& os);

/// `<tool> version X.Y.Z` and what it was built with; installed with cl::SetVersionPrinter.
void set_version_printer(const char* tool);

/// The same line, for -v and -###.
void print_version(llvm::raw_ostream& os);

}  // namespace stencilc::tools
