// The pass registry and pipeline: ordering, errors, verification and instrumentation.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "passes/PassManager.h"
#include "tests/ir/TestUtil.h"

namespace stencilc::passes {
namespace {

using namespace ir;

const char* kInput = R"(module "t.cpp"

program @p(%n: i32, %r: ref i32) {
  %r = %n + (1 + 2)
}
)";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// A pass that appends `%r = 0` to every program body, recording that it ran.
PassInfo append_pass(const std::string& name, std::vector<std::string>* log) {
  return make_pass(name, "appends a statement", [name, log](const Module& m) {
    log->push_back(name);
    Module out = m;
    for (Program& p : out.programs) {
      std::vector<Stmt> stmts = as<Block>(p.body)->stmts;
      stmts.push_back(make_assign("r", make_int(0)));
      p.body = make_block(stmts);
    }
    return out;
  });
}

TEST(PassRegistry, BuiltinPassesHaveNamesAndSummaries) {
  const PassRegistry& r = PassRegistry::builtin();
  const PassInfo* fold = r.find("fold-constants");
  ASSERT_NE(fold, nullptr);
  EXPECT_FALSE(fold->summary.empty());
  EXPECT_EQ(r.find("no-such-pass"), nullptr);
  for (const PassInfo& p : r.passes()) EXPECT_TRUE(p.run) << p.name;
}

TEST(PassRegistry, NamesAreUnique) {
  PassRegistry r;
  std::vector<std::string> log;
  EXPECT_TRUE(r.add(append_pass("a", &log)));
  EXPECT_FALSE(r.add(append_pass("a", &log)));
  EXPECT_EQ(r.passes().size(), 1u);
}

TEST(PassPipeline, ParsesPipelineText) {
  PassPipeline p;
  std::string error;
  EXPECT_TRUE(p.add_pipeline("fold-constants, fold-constants", PassRegistry::builtin(), &error));
  EXPECT_EQ(p.passes().size(), 2u);
  EXPECT_FALSE(p.add_pipeline("fold-constants,bogus", PassRegistry::builtin(), &error));
  EXPECT_EQ(error, "unknown pass 'bogus' (see --list-passes)");
  EXPECT_EQ(p.passes().size(), 2u);  // nothing added on failure
}

TEST(PassPipeline, RunsPassesInOrder) {
  std::vector<std::string> log;
  PassPipeline p;
  p.add(append_pass("first", &log));
  p.add(append_pass("second", &log));
  PassResult r = p.run(testing::parse_ok(kInput));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(log, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(count(print(r.module), "%r = 0"), 2u);
}

TEST(PassPipeline, PassErrorsStopThePipeline) {
  std::vector<std::string> log;
  PassPipeline p;
  p.add(PassInfo{"bad", "fails", [](const Module& m) {
                   return PassResult{m, {"t.cpp:1:1: error: nope"}};
                 }});
  p.add(append_pass("after", &log));
  PassResult r = p.run(testing::parse_ok(kInput));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(log.empty());
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "error: pass 'bad' failed");
  EXPECT_EQ(r.errors[1], "t.cpp:1:1: error: nope");
}

PassInfo breaking_pass() {
  return make_pass("break-types", "assigns an f64 to an i32", [](const Module& m) {
    Module out = m;
    out.programs[0].body =
        make_block({make_assign("r", make_float(1.0, ScalarType::F64), {"", 4, 3})});
    return out;
  });
}

TEST(PassPipeline, VerifierFailureNamesThePass) {
  Module in = testing::parse_ok(kInput);
  PassPipeline p;
  p.add(breaking_pass());
  PassResult r = p.run(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0], "error: verifier failed after pass 'break-types'");
  EXPECT_NE(r.errors[1].find("t.cpp:4:3: error: in program @p:"), std::string::npos);
  EXPECT_EQ(print(r.module), print(in));  // the module from before the failing pass

  PipelineOptions no_verify;
  no_verify.verify_each = false;
  PassPipeline unchecked(no_verify);
  unchecked.add(breaking_pass());
  EXPECT_TRUE(unchecked.run(in).ok());
}

TEST(PassPipeline, PrintsIrAfterAllAndBeforeNamed) {
  std::ostringstream dump;
  std::vector<std::string> log;
  PipelineOptions o;
  o.dump = &dump;
  o.print_after_all = true;
  o.print_before = {"second"};
  PassPipeline p(o);
  p.add(append_pass("first", &log));
  p.add(append_pass("second", &log));
  ASSERT_TRUE(p.run(testing::parse_ok(kInput)).ok());
  std::string text = dump.str();
  size_t a1 = text.find("// -----// IR Dump After first //----- //\nmodule \"t.cpp\"");
  size_t b2 = text.find("// -----// IR Dump Before second //----- //\n");
  size_t a2 = text.find("// -----// IR Dump After second //----- //\n");
  ASSERT_NE(a1, std::string::npos) << text;
  ASSERT_NE(b2, std::string::npos) << text;
  ASSERT_NE(a2, std::string::npos) << text;
  EXPECT_LT(a1, b2);
  EXPECT_LT(b2, a2);
  EXPECT_EQ(count(text, "IR Dump Before first"), 0u);
}

TEST(PassPipeline, PrintAfterChangeSkipsPassesThatChangedNothing) {
  std::ostringstream dump;
  PipelineOptions o;
  o.dump = &dump;
  o.print_after = {"fold-constants"};
  o.print_after_change = true;
  PassPipeline p(o);
  std::string error;
  ASSERT_TRUE(p.add_pipeline("fold-constants,fold-constants", PassRegistry::builtin(), &error));
  PassResult r = p.run(testing::parse_ok(kInput));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(count(dump.str(), "IR Dump After fold-constants"), 1u) << dump.str();
  EXPECT_NE(dump.str().find("%r = %n + 3"), std::string::npos);
}

TEST(PassPipeline, TimingReportNamesEveryPass) {
  std::ostringstream timing;
  std::vector<std::string> log;
  PipelineOptions o;
  o.timing = &timing;
  PassPipeline p(o);
  p.add(append_pass("first", &log));
  ASSERT_TRUE(p.run(testing::parse_ok(kInput)).ok());
  EXPECT_NE(timing.str().find("Pass execution timing report"), std::string::npos);
  EXPECT_NE(timing.str().find("  first\n"), std::string::npos) << timing.str();
  EXPECT_NE(timing.str().find("(verify after first)"), std::string::npos);
  EXPECT_NE(timing.str().find("Total\n"), std::string::npos);
}

}  // namespace
}  // namespace stencilc::passes
