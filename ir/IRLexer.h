// Tokens of the IR's textual form, and the `file:line:col: error:` diagnostic format that the
// parser reports with. Internal to the IR library: users call parse_module (IRParser.h).
#pragma once

#include <string>
#include <vector>

namespace stencilc::ir {

enum class TokKind {
  Eof,
  Ident,     // a bare word: keywords, types, intrinsic names, `loc`, `true`, `inf`
  VarName,   // `%name` (text holds the name without `%`)
  FuncName,  // `@name` (text holds the name without `@`)
  Int,       // digits with an optional suffix `l` or `u` (suffix holds it)
  Float,     // digits with `.` or an exponent, optional suffix `f`
  String,    // a quoted string (text holds the unescaped contents)
  Punct,     // operators and delimiters: `(`, `<=`, `&&`, `%`, ...
  Error,     // a character the lexer cannot start a token with (text says why)
};

struct Token {
  TokKind kind = TokKind::Eof;
  std::string text;
  std::string suffix;
  int line = 1;
  int col = 1;

  bool is(TokKind k, const std::string& t) const { return kind == k && text == t; }
  bool is_punct(const std::string& t) const { return is(TokKind::Punct, t); }
  bool is_ident(const std::string& t) const { return is(TokKind::Ident, t); }
};

/// Splits `text` into tokens, dropping whitespace and `//` comments. Always ends with Eof; a
/// malformed token becomes an Error token at its position (the parser reports it).
std::vector<Token> lex(const std::string& text);

/// `file:line:col: error: message`, then the source line and a caret under the column.
std::string format_diagnostic(const std::string& file, const std::string& text, int line, int col,
                              const std::string& message);

}  // namespace stencilc::ir
