// Helpers shared by the IR and pass tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/IRParser.h"
#include "ir/IRPrinter.h"

namespace stencilc::ir::testing {

/// Parses `text`, failing the current test (with the diagnostic) when it does not parse.
inline Module parse_ok(const std::string& text) {
  std::string error;
  std::optional<Module> m = parse_module(text, "test.ir", &error);
  EXPECT_TRUE(m.has_value()) << error;
  return m ? *m : Module{};
}

/// The parse diagnostic for `text`, or "" (and a test failure) when it parses.
inline std::string parse_error(const std::string& text) {
  std::string error;
  std::optional<Module> m = parse_module(text, "test.ir", &error);
  EXPECT_FALSE(m.has_value()) << "parsed unexpectedly:\n" << text;
  return error;
}

/// A parameter without halos (spelled out because Param's later fields have defaults, and
/// aggregate initialization that stops early draws -Wmissing-field-initializers).
inline Param param(std::string name, ParamKind kind, ScalarType type, int rank = 0,
                   bool is_const = false) {
  Param p;
  p.name = std::move(name);
  p.kind = kind;
  p.type = type;
  p.rank = rank;
  p.is_const = is_const;
  return p;
}

}  // namespace stencilc::ir::testing
