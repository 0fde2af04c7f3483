// The options stencilc and stencilc-opt share; see PassOptions.h.
#include "PassOptions.h"

#include <llvm/Support/raw_ostream.h>

#include <iostream>

namespace stencilc::tools {
namespace {

namespace cl = llvm::cl;

cl::OptionCategory category("Pass instrumentation");

cl::opt<bool> print_before_all("print-ir-before-all",
                               cl::desc("Print the IR before every pass (to stderr)"),
                               cl::cat(category));
cl::opt<bool> print_after_all("print-ir-after-all",
                              cl::desc("Print the IR after every pass (to stderr)"),
                              cl::cat(category));
cl::list<std::string> print_before("print-ir-before",
                                   cl::desc("Print the IR before the named pass"),
                                   cl::value_desc("pass"), cl::CommaSeparated, cl::cat(category));
cl::list<std::string> print_after("print-ir-after", cl::desc("Print the IR after the named pass"),
                                  cl::value_desc("pass"), cl::CommaSeparated, cl::cat(category));
cl::opt<bool> print_changed_only(
    "print-ir-changed-only",
    cl::desc("Print the IR after a pass only when it changed the IR (alone: after "
             "every pass that changed it)"),
    cl::cat(category));
cl::opt<bool> pass_timing("pass-timing", cl::desc("Report the time each pass took (to stderr)"),
                          cl::cat(category));
cl::opt<bool> no_verify_each("no-verify-each",
                             cl::desc("Do not run the IR verifier after each pass"),
                             cl::cat(category));
cl::opt<bool> list_passes("list-passes", cl::desc("List the passes and exit"), cl::cat(category));

const char* version_tool = "stencilc";

}  // namespace

llvm::cl::OptionCategory& pass_options_category() {
  return category;
}

passes::PipelineOptions pipeline_options_from_command_line() {
  passes::PipelineOptions options;
  options.print_before_all = print_before_all;
  options.print_after_all = print_after_all;
  options.print_before.insert(print_before.begin(), print_before.end());
  options.print_after.insert(print_after.begin(), print_after.end());
  options.print_after_change = print_changed_only;
  // --print-ir-changed-only alone means "after every pass that changed something".
  if (print_changed_only && print_after.empty()) options.print_after_all = true;
  options.verify_each = !no_verify_each;
  options.timing = pass_timing ? &std::cerr : nullptr;
  return options;
}

bool check_dump_pass_names(const passes::PassRegistry& registry, std::string* error) {
  for (const auto* names : {&print_before, &print_after}) {
    for (const std::string& name : *names) {
      if (!registry.find(name)) {
        *error = "unknown pass '" + name + "' (see --list-passes)";
        return false;
      }
    }
  }
  return true;
}

bool list_passes_requested() {
  return list_passes;
}

void print_pass_list(const passes::PassRegistry& registry, std::ostream& os) {
  for (const passes::PassInfo& p : registry.passes())
    os << "  " << p.name << "  - " << p.summary << "\n";
}

void set_version_printer(const char* tool) {
  version_tool = tool;
  cl::SetVersionPrinter(print_version);
}

void print_version(llvm::raw_ostream& os) {
  os << version_tool << " version " << STENCILC_VERSION << " (Clang " << STENCILC_CLANG_VERSION
     << " front end)\n";
}

}  // namespace stencilc::tools
