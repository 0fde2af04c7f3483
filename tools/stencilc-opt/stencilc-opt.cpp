// stencilc-opt: reads textual IR, verifies it, runs the named passes and prints the result.
// The test driver of every pass: `stencilc-opt in.ir --pass=fold-constants | FileCheck in.ir`.
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "PassOptions.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Nesting.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace {

using namespace stencilc;

namespace cl = llvm::cl;

cl::OptionCategory category("stencilc-opt options");
cl::opt<std::string> input(cl::Positional, cl::desc("<input.ir | ->"), cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Write the output to <file> (default: stdout)"),
                            cl::value_desc("file"), cl::init("-"), cl::cat(category));
// --pass and --pass-pipeline run in command-line order, so both feed one ordered list.
cl::list<std::string> pass("pass",
                           cl::desc("Run the named pass (repeatable; in command-line order)"),
                           cl::value_desc("name"), cl::cat(category));
cl::list<std::string> pass_pipeline("pass-pipeline",
                                    cl::desc("Run the comma-separated passes in order"),
                                    cl::value_desc("a,b,c"), cl::cat(category));
cl::opt<bool> verify_only("verify-only", cl::desc("Parse and verify; print nothing on success"),
                          cl::cat(category));
cl::opt<bool> split_input_file("split-input-file",
                               cl::desc("Treat `// -----` lines as separating independent inputs"),
                               cl::cat(category));

bool fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

/// The passes of --pass and --pass-pipeline, in the order they were given.
std::vector<std::string> pipelines_in_order() {
  std::vector<std::pair<unsigned, std::string>> positioned;
  for (size_t i = 0; i < pass.size(); ++i) positioned.emplace_back(pass.getPosition(i), pass[i]);
  for (size_t i = 0; i < pass_pipeline.size(); ++i)
    positioned.emplace_back(pass_pipeline.getPosition(i), pass_pipeline[i]);
  std::sort(positioned.begin(), positioned.end());
  std::vector<std::string> out;
  for (auto& p : positioned) out.push_back(std::move(p.second));
  return out;
}

bool read_input(const std::string& path, std::string* text, std::string* error) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(error, "cannot open '" + path + "'");
    ss << in.rdbuf();
  }
  *text = ss.str();
  return true;
}

/// Splits at `// -----` lines. Each chunk keeps its lines' numbers (earlier lines become blank),
/// so diagnostics point at the right line of the whole file.
std::vector<std::string> split_input(const std::string& text) {
  std::vector<std::string> chunks(1);
  std::istringstream in(text);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 8, "// -----") == 0) {
      chunks.push_back(std::string(lines, '\n'));
    } else {
      chunks.back() += line + "\n";
    }
  }
  return chunks;
}

/// Parses, verifies and transforms one input; appends its output text. False on any error.
bool process(const std::string& text, const std::string& name, const passes::PassPipeline& pipeline,
             std::string* out) {
  std::string error;
  std::optional<ir::Module> m = ir::parse_module(text, name, &error);
  if (!m) {
    std::cerr << error;
    return false;
  }
  std::vector<std::string> errors = ir::verify(*m);
  for (const std::string& e : errors) std::cerr << e << "\n";
  if (!errors.empty() || verify_only) return errors.empty();
  passes::PassResult r = pipeline.run(*m);
  for (const std::string& e : r.errors) std::cerr << e << "\n";
  if (!r.ok()) return false;
  *out += ir::print(r.module);
  return true;
}

int report(const std::string& message) {
  std::cerr << "stencilc-opt: error: " << message << "\n";
  return 1;
}

int run() {
  const passes::PassRegistry& registry = passes::PassRegistry::builtin();
  if (tools::list_passes_requested()) {
    tools::print_pass_list(registry, std::cout);
    return 0;
  }
  if (input.empty()) return report("no input file (use - for stdin)");
  std::string error, text;
  if (!tools::check_dump_pass_names(registry, &error)) return report(error);
  passes::PassPipeline pipeline(tools::pipeline_options_from_command_line());
  for (const std::string& p : pipelines_in_order()) {
    if (!pipeline.add_pipeline(p, registry, &error)) return report(error);
  }
  if (!read_input(input, &text, &error)) return report(error);
  const std::string name = input == "-" ? "<stdin>" : input.getValue();
  std::vector<std::string> chunks =
      split_input_file ? split_input(text) : std::vector<std::string>{text};
  bool ok = true;
  std::string out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::string chunk_out;
    ok = process(chunks[i], name, pipeline, &chunk_out) && ok;
    if (i > 0 && !verify_only) out += "// -----\n";
    out += chunk_out;
  }
  if (output == "-") {
    std::cout << out;
  } else {
    std::ofstream f(output, std::ios::binary);
    if (!(f << out)) return report("cannot write '" + output + "'");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  cl::HideUnrelatedOptions({&category, &stencilc::tools::pass_options_category()});
  stencilc::tools::set_version_printer("stencilc-opt");
  if (!cl::ParseCommandLineOptions(
          argc, argv, "stencilc-opt: parses textual IR, verifies it, runs passes, prints it\n",
          &llvm::errs()))
    return 1;
  // Input may nest as deep as the parser allows: the walks over it need the deep stack.
  return stencilc::ir::run_with_deep_stack([&] { return run(); });
}
