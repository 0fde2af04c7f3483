// The pass registry and the pipeline with its instrumentation (IR dumps, verification, timing).
#include "passes/PassManager.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "ir/IRPrinter.h"
#include "ir/Verifier.h"

namespace stencilc::passes {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void dump_ir(std::ostream& out, const char* when, const std::string& pass, const std::string& ir) {
  out << "// -----// IR Dump " << when << " " << pass << " //----- //\n" << ir << "\n";
}

struct Timing {
  std::string name;
  double seconds;
};

void report_timing(std::ostream& out, const std::vector<Timing>& timings) {
  double total = 0;
  for (const Timing& t : timings) total += t.seconds;
  const char* rule =
      "===-------------------------------------------------------------------------===";
  out << rule << "\n                      ... Pass execution timing report ...\n" << rule << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "  Total Execution Time: %.4f seconds\n\n", total);
  out << line << "  ----Wall Time----  ----Name----\n";
  for (const Timing& t : timings) {
    std::snprintf(line, sizeof line, "  %8.4f (%5.1f%%)  %s\n", t.seconds,
                  total > 0 ? 100.0 * t.seconds / total : 0.0, t.name.c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, "  %8.4f (100.0%%)  Total\n", total);
  out << line;
}

std::vector<std::string> split_pipeline(const std::string& text) {
  std::vector<std::string> names;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      if (!cur.empty()) names.push_back(cur);
      cur.clear();
    } else if (c != ' ' && c != '\t' && c != '\n') {
      cur += c;
    }
  }
  return names;
}

}  // namespace

PassInfo make_pass(std::string name, std::string summary,
                   std::function<ir::Module(const ir::Module&)> fn) {
  return PassInfo{std::move(name), std::move(summary), [fn = std::move(fn)](const ir::Module& m) {
                    return PassResult{fn(m), {}};
                  }};
}

// ---------------------------------------------------------------------------------------------
// Registry

const PassRegistry& PassRegistry::builtin() {
  static const PassRegistry registry = [] {
    PassRegistry r;
    register_builtin_passes(r);
    return r;
  }();
  return registry;
}

bool PassRegistry::add(PassInfo pass) {
  if (find(pass.name)) return false;
  passes_.push_back(std::move(pass));
  return true;
}

const PassInfo* PassRegistry::find(const std::string& name) const {
  for (const PassInfo& p : passes_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Pipeline

bool PassPipeline::add_pipeline(const std::string& text, const PassRegistry& registry,
                                std::string* error) {
  std::vector<PassInfo> found;
  for (const std::string& name : split_pipeline(text)) {
    const PassInfo* p = registry.find(name);
    if (!p) {
      if (error) *error = "unknown pass '" + name + "' (see --list-passes)";
      return false;
    }
    found.push_back(*p);
  }
  for (PassInfo& p : found) add(std::move(p));
  return true;
}

PassResult PassPipeline::run(const ir::Module& m) const {
  std::ostream& dump = options_.dump ? *options_.dump : std::cerr;
  PassResult cur{m, {}};
  std::vector<Timing> timings;
  auto finish = [&]() -> PassResult {
    if (options_.timing) report_timing(*options_.timing, timings);
    return cur;
  };
  for (const PassInfo& pass : passes_) {
    bool before = options_.print_before_all || options_.print_before.count(pass.name);
    bool after = options_.print_after_all || options_.print_after.count(pass.name);
    std::string before_text;
    if (before || (after && options_.print_after_change)) before_text = ir::print(cur.module);
    if (before) dump_ir(dump, "Before", pass.name, before_text);

    Clock::time_point start = Clock::now();
    PassResult r = pass.run(cur.module);
    timings.push_back({pass.name, seconds_since(start)});
    if (!r.ok()) {
      cur.errors = {"error: pass '" + pass.name + "' failed"};
      cur.errors.insert(cur.errors.end(), r.errors.begin(), r.errors.end());
      return finish();
    }
    if (options_.verify_each) {
      start = Clock::now();
      std::vector<std::string> errors = ir::verify(r.module);
      timings.push_back({"(verify after " + pass.name + ")", seconds_since(start)});
      if (!errors.empty()) {
        // The broken IR is what a pass writer needs to see, so dump it when dumps were asked for.
        if (after)
          dump_ir(dump, "After", pass.name + " (failed verification)", ir::print(r.module));
        cur.errors = {"error: verifier failed after pass '" + pass.name + "'"};
        cur.errors.insert(cur.errors.end(), errors.begin(), errors.end());
        return finish();
      }
    }
    if (after) {
      std::string text = ir::print(r.module);
      if (!options_.print_after_change || text != before_text)
        dump_ir(dump, "After", pass.name, text);
    }
    cur.module = std::move(r.module);
  }
  return finish();
}

}  // namespace stencilc::passes
