// stencilc-opt: reads textual IR, verifies it, runs the named passes and prints the result.
// The test driver of every pass: `stencilc-opt in.ir --pass=fold-constants | FileCheck in.ir`.
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Nesting.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"

namespace {

using namespace stencilc;

const char* kUsage =
    "usage: stencilc-opt [options] <input.ir | ->\n"
    "  --pass=NAME               run pass NAME (repeatable; runs in command-line order)\n"
    "  --pass-pipeline=A,B       run passes A then B\n"
    "  --list-passes             list the passes and exit\n"
    "  --verify-only             parse and verify; print nothing on success\n"
    "  --no-verify-each          do not verify the IR after each pass\n"
    "  --print-ir-before-all     dump the IR before every pass (to stderr)\n"
    "  --print-ir-after-all      dump the IR after every pass (to stderr)\n"
    "  --print-ir-before=NAME    dump the IR before pass NAME (repeatable)\n"
    "  --print-ir-after=NAME     dump the IR after pass NAME (repeatable)\n"
    "  --print-ir-after-change   only dump after passes that changed the IR\n"
    "  --timing                  report per-pass wall time (to stderr)\n"
    "  --split-input-file        treat `// -----` lines as separating independent inputs\n"
    "  -o FILE                   write the output to FILE (default: stdout)\n";

struct Options {
  std::string input;
  std::string output = "-";
  std::vector<std::string> pipelines;  // --pass and --pass-pipeline, in order
  passes::PipelineOptions pipeline;
  bool list_passes = false;
  bool verify_only = false;
  bool split_input = false;
  bool timing = false;
};

bool fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

/// Hand-rolled so the tool needs no LLVM. Returns false with *error set on a bad command line.
bool parse_options(int argc, char** argv, Options* o, std::string* error) {
  auto value = [](const std::string& arg, const std::string& flag, std::string* out) {
    if (arg.rfind(flag + "=", 0) != 0) return false;
    *out = arg.substr(flag.size() + 1);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (value(a, "--pass", &v) || value(a, "--pass-pipeline", &v)) {
      o->pipelines.push_back(v);
    } else if (value(a, "--print-ir-after", &v)) {
      o->pipeline.print_after.insert(v);
    } else if (value(a, "--print-ir-before", &v)) {
      o->pipeline.print_before.insert(v);
    } else if (a == "--print-ir-after-all") {
      o->pipeline.print_after_all = true;
    } else if (a == "--print-ir-before-all") {
      o->pipeline.print_before_all = true;
    } else if (a == "--print-ir-after-change") {
      o->pipeline.print_after_change = true;
    } else if (a == "--no-verify-each") {
      o->pipeline.verify_each = false;
    } else if (a == "--list-passes") {
      o->list_passes = true;
    } else if (a == "--verify-only") {
      o->verify_only = true;
    } else if (a == "--split-input-file") {
      o->split_input = true;
    } else if (a == "--timing") {
      o->timing = true;
    } else if (a == "-o" && i + 1 < argc) {
      o->output = argv[++i];
    } else if (a.rfind("-o", 0) == 0 && a.size() > 2 && a[2] != '-') {
      o->output = a.substr(2);
    } else if (a == "-" || a[0] != '-') {
      if (!o->input.empty())
        return fail(error, "more than one input file: '" + o->input + "', '" + a + "'");
      o->input = a;
    } else {
      return fail(error, "unknown option '" + a + "' (see --help)");
    }
  }
  if (o->input.empty() && !o->list_passes) return fail(error, "no input file (use - for stdin)");
  // --print-ir-after-change alone means "after every pass that changed something".
  if (o->pipeline.print_after_change && o->pipeline.print_after.empty())
    o->pipeline.print_after_all = true;
  return true;
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
             const Options& o, std::string* out) {
  std::string error;
  std::optional<ir::Module> m = ir::parse_module(text, name, &error);
  if (!m) {
    std::cerr << error;
    return false;
  }
  std::vector<std::string> errors = ir::verify(*m);
  for (const std::string& e : errors) std::cerr << e << "\n";
  if (!errors.empty() || o.verify_only) return errors.empty();
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

int run(const Options& o) {
  const passes::PassRegistry& registry = passes::PassRegistry::builtin();
  if (o.list_passes) {
    for (const passes::PassInfo& p : registry.passes())
      std::cout << "  " << p.name << "  - " << p.summary << "\n";
    return 0;
  }
  passes::PipelineOptions popts = o.pipeline;
  if (o.timing) popts.timing = &std::cerr;
  passes::PassPipeline pipeline(popts);
  std::string error, text;
  for (const std::string& p : o.pipelines) {
    if (!pipeline.add_pipeline(p, registry, &error)) return report(error);
  }
  if (!read_input(o.input, &text, &error)) return report(error);
  const std::string name = o.input == "-" ? "<stdin>" : o.input;
  std::vector<std::string> chunks =
      o.split_input ? split_input(text) : std::vector<std::string>{text};
  bool ok = true;
  std::string out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::string chunk_out;
    ok = process(chunks[i], name, pipeline, o, &chunk_out) && ok;
    if (i > 0 && !o.verify_only) out += "// -----\n";
    out += chunk_out;
  }
  if (o.output == "-") {
    std::cout << out;
  } else {
    std::ofstream f(o.output, std::ios::binary);
    if (!(f << out)) return report("cannot write '" + o.output + "'");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string error;
  if (!parse_options(argc, argv, &o, &error)) return report(error);
  // Input may nest as deep as the parser allows: the walks over it need the deep stack.
  return ir::run_with_deep_stack([&] { return run(o); });
}
