// stencilc: the compiler driver. A thin layer over the libraries: options, the front end, the
// pass pipeline, and output. Usage: stencilc [options] <file.cpp> [-- <compiler args>]
#include "frontend/Frontend.h"
#include "ir/IRPrinter.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

#include <fstream>
#include <iostream>
#include <memory>

namespace {

namespace cl = llvm::cl;

cl::OptionCategory category("stencilc options");

cl::opt<std::string> input(cl::Positional, cl::desc("<source.cpp>"), cl::Required, cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Write the output to <file> ('-' for stdout)"), cl::value_desc("file"),
                            cl::init("-"), cl::cat(category));
cl::opt<std::string> build_dir("p", cl::desc("Read the compile command from <build-dir>/compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(category));
cl::opt<std::string> emit("emit", cl::desc("Stop after a stage and write it: ir (the IR after the pipeline)"),
                          cl::value_desc("stage"), cl::cat(category));
cl::opt<std::string> target("target", cl::desc("Code generation target: host or cuda"), cl::value_desc("target"),
                            cl::cat(category));
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

void print_version(llvm::raw_ostream& os) {
  os << "stencilc version " << STENCILC_VERSION << " (Clang " << STENCILC_CLANG_VERSION << " front end)\n";
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

}  // namespace

int main(int argc, const char** argv) {
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

  if (emit.empty() || emit != "ir") {
    if (!emit.empty()) {
      std::cerr << "stencilc: error: unknown --emit stage '" << emit << "' (known: ir)\n";
    } else {
      std::cerr << "stencilc: error: code generation" << (target.empty() ? "" : " for --target=" + target)
                << " is not available in this version; use --emit=ir\n";
    }
    return 1;
  }

  stencilc::frontend::FrontendOptions options;
  options.extra_args.assign(extra_args.begin(), extra_args.end());
  auto module = stencilc::frontend::lower_source(*db, input, options);
  if (!module) return 1;

  auto problems = stencilc::ir::verify(*module);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "stencilc: internal error: front end produced invalid IR: " << p << "\n";
    return 2;
  }

  namespace passes = stencilc::passes;
  const passes::PassRegistry& registry = passes::PassRegistry::builtin();
  for (const auto* names : {&print_after, &print_before}) {
    for (const std::string& name : *names) {
      if (!registry.find(name)) {
        std::cerr << "stencilc: error: unknown pass '" << name << "' (see stencilc-opt --list-passes)\n";
        return 1;
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
  std::string pipeline_error;
  if (!pipeline.add_pipeline(pass_pipeline, registry, &pipeline_error)) {
    std::cerr << "stencilc: error: " << pipeline_error << "\n";
    return 1;
  }
  passes::PassResult result = pipeline.run(*module);
  if (!result.ok()) {
    for (const std::string& e : result.errors) std::cerr << e << "\n";
    return 1;
  }
  return write_output(stencilc::ir::print(result.module)) ? 0 : 1;
}
