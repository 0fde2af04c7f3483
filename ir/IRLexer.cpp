// The lexer for the IR's textual form.
#include "ir/IRLexer.h"

#include <cctype>

namespace stencilc::ir {

namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.line = line_;
      t.col = col_;
      if (pos_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      next(t);
      bool stop = t.kind == TokKind::Error;
      out.push_back(std::move(t));
      if (stop) {
        out.push_back(Token{TokKind::Eof, "", "", line_, col_});
        return out;
      }
    }
  }

 private:
  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  char advance() {
    char c = s_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }

  void skip_space() {
    while (pos_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(peek()))) {
        advance();
      } else if (peek() == '/' && peek(1) == '/') {
        while (pos_ < s_.size() && peek() != '\n') advance();
      } else {
        return;
      }
    }
  }

  std::string take_name() {
    std::string n;
    while (is_name_char(peek())) n += advance();
    return n;
  }

  void next(Token& t) {
    char c = peek();
    if ((c == '%' || c == '@') && is_name_start(peek(1))) {
      advance();
      t.kind = c == '%' ? TokKind::VarName : TokKind::FuncName;
      t.text = take_name();
    } else if (is_name_start(c)) {
      t.kind = TokKind::Ident;
      t.text = take_name();
    } else if (is_digit(c)) {
      number(t);
    } else if (c == '"') {
      string(t);
    } else {
      punct(t);
    }
  }

  void number(Token& t) {
    bool is_float = false;
    while (is_digit(peek())) t.text += advance();
    if (peek() == '.') {
      is_float = true;
      t.text += advance();
      while (is_digit(peek())) t.text += advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
      is_float = true;
      t.text += advance();
      if (peek() == '+' || peek() == '-') t.text += advance();
      while (is_digit(peek())) t.text += advance();
    }
    t.suffix = take_name();
    t.kind = is_float ? TokKind::Float : TokKind::Int;
    bool ok = is_float ? (t.suffix.empty() || t.suffix == "f")
                       : (t.suffix.empty() || t.suffix == "l" || t.suffix == "u");
    if (!ok) {
      t.kind = TokKind::Error;
      t.text = "invalid suffix '" + t.suffix + "' on numeric literal";
    }
  }

  void string(Token& t) {
    advance();  // the opening quote
    t.kind = TokKind::String;
    for (;;) {
      if (pos_ >= s_.size() || peek() == '\n') {
        t.kind = TokKind::Error;
        t.text = "unterminated string";
        return;
      }
      char c = advance();
      if (c == '"') return;
      if (c != '\\') {
        t.text += c;
        continue;
      }
      char e = pos_ < s_.size() ? advance() : '\0';
      if (e == 'n') {
        t.text += '\n';
      } else if (e == '"' || e == '\\') {
        t.text += e;
      } else if (e == 'x' && hex_value(peek()) >= 0 && hex_value(peek(1)) >= 0) {
        int hi = hex_value(advance());
        t.text += static_cast<char>(hi * 16 + hex_value(advance()));
      } else {
        t.kind = TokKind::Error;
        t.text = "invalid escape in string";
        return;
      }
    }
  }

  void punct(Token& t) {
    static const char* kTwo[] = {"<=", ">=", "==", "!=", "&&", "||"};
    for (const char* p : kTwo) {
      if (peek() == p[0] && peek(1) == p[1]) {
        t.kind = TokKind::Punct;
        t.text = std::string{advance(), advance()};
        return;
      }
    }
    static const std::string kOne = "()[]{},:<>!+-*/%=.";
    if (kOne.find(peek()) != std::string::npos) {
      t.kind = TokKind::Punct;
      t.text = std::string(1, advance());
      return;
    }
    t.kind = TokKind::Error;
    unsigned char c = static_cast<unsigned char>(peek());
    t.text = std::isprint(c) ? std::string("unexpected character '") + peek() + "'"
                             : "unexpected byte " + std::to_string(c);
  }

  const std::string& s_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> lex(const std::string& text) {
  return Lexer(text).run();
}

std::string format_diagnostic(const std::string& file, const std::string& text, int line, int col,
                              const std::string& message) {
  std::string out =
      file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message + "\n";
  size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start > text.size()) return out;
  size_t end = text.find('\n', start);
  std::string src = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  out += src + "\n";
  // Keep tabs so the caret lines up under the column whatever the tab width.
  std::string pad;
  for (int i = 0; i + 1 < col && i < static_cast<int>(src.size()); ++i) {
    pad += src[i] == '\t' ? '\t' : ' ';
  }
  return out + pad + "^\n";
}

}  // namespace stencilc::ir
