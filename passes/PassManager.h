// Named passes and the pipeline that runs them, MLIR style.
//
// Every pass has a short name and a one-line summary (the built-in ones are listed in
// Passes.cpp), so a pipeline is data: `fold-constants,insert-exchanges`. The pipeline verifies
// the module after each pass, and one instrumentation hook provides --print-ir-after-all,
// --print-ir-after=NAME, --print-ir-before=NAME, printing only what changed, and timings.
#pragma once

#include <functional>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::passes {

/// What a pass hands back: the rewritten module, or errors (which stop the pipeline).
struct PassResult {
  ir::Module module;
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};

/// A named module transformation.
struct PassInfo {
  std::string name;     // `fold-constants`: what --pass= and pipelines call it
  std::string summary;  // one line, for --list-passes
  std::function<PassResult(const ir::Module&)> run;
};

/// A PassInfo for a pass that cannot fail.
PassInfo make_pass(std::string name, std::string summary,
                   std::function<ir::Module(const ir::Module&)> fn);

/// Passes by name, in registration order.
class PassRegistry {
 public:
  /// The registry of every built-in pass (see Passes.cpp).
  static const PassRegistry& builtin();

  /// Adds a pass; returns false (and adds nothing) when the name is taken.
  bool add(PassInfo pass);
  const PassInfo* find(const std::string& name) const;
  const std::vector<PassInfo>& passes() const { return passes_; }

 private:
  std::vector<PassInfo> passes_;
};

/// Registers the built-in passes; each new pass adds its line here (Passes.cpp).
void register_builtin_passes(PassRegistry& registry);

/// How a pipeline reports on itself. Dumps are headed `// -----// IR Dump After NAME //----- //`.
struct PipelineOptions {
  std::ostream* dump = nullptr;  // where IR dumps go; null: std::cerr
  bool print_before_all = false;
  bool print_after_all = false;
  std::set<std::string> print_before;  // pass names
  std::set<std::string> print_after;
  bool print_after_change = false;  // "after" dumps only for passes that changed the printed IR
  bool verify_each = true;          // run the verifier after every pass
  std::ostream* timing = nullptr;   // non-null: a per-pass wall-time report goes here
};

class PassPipeline {
 public:
  explicit PassPipeline(PipelineOptions options = {}) : options_(std::move(options)) {}

  void add(PassInfo pass) { passes_.push_back(std::move(pass)); }

  /// Appends the comma-separated pass names of `text` (`a,b,c`) from `registry`. On an unknown
  /// name, appends nothing, sets *error and returns false.
  bool add_pipeline(const std::string& text, const PassRegistry& registry, std::string* error);

  const std::vector<PassInfo>& passes() const { return passes_; }

  /// Runs the passes in order. The first pass error or verifier failure stops the pipeline; the
  /// result then holds the module as it was before the failing pass, and errors that name it.
  PassResult run(const ir::Module& m) const;

 private:
  PipelineOptions options_;
  std::vector<PassInfo> passes_;
};

}  // namespace stencilc::passes
