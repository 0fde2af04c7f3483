// Error reporting and small parsing helpers shared by the reference implementation.
//
// Two kinds of failure exist in the reference build:
//  - fatal(): a bug in the program (an out-of-range index, a bad put_signal, a decomposition that
//    cannot work). Message on stderr, then std::abort() so a debugger or core dump shows where.
//  - usage_error(): a bad command line or environment. Message on stderr, then std::exit(2).
#pragma once

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#if defined(__GNUC__)
#define STENCILC_DETAIL_PRINTF(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define STENCILC_DETAIL_PRINTF(fmt_index, first_arg)
#endif

namespace stencilc {
namespace detail {

inline void vreport(const char* fmt, std::va_list args) {
  std::fflush(stdout);  // keep the program's own output ahead of the message
  char message[1024];
  std::vsnprintf(message, sizeof message, fmt, args);
  std::fprintf(stderr, "stencilc: error: %s\n", message);
  std::fflush(stderr);
}

[[noreturn]] STENCILC_DETAIL_PRINTF(1, 2) inline void fatal(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
  std::abort();
}

[[noreturn]] STENCILC_DETAIL_PRINTF(1, 2) inline void usage_error(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
  std::exit(2);
}

// printf into a std::string, for messages assembled in pieces.
STENCILC_DETAIL_PRINTF(1, 2) inline std::string format(const char* fmt, ...) {
  char buffer[512];
  std::va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

// Parses all of `text` as a decimal integer in [1, INT_MAX]; false for anything else.
inline bool parse_positive_int(const char* text, int& out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > 0x7fffffffLL) return false;
  out = static_cast<int>(value);
  return true;
}

// Reads a positive integer from the environment; `fallback` when unset, usage_error when invalid.
inline int positive_int_from_env(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  int value = 0;
  if (!parse_positive_int(text, value)) {
    usage_error("%s='%s' is not a positive integer", name, text);
  }
  return value;
}

// For the test suite: with STENCILC_DUMP_DIR set, every Grid::copy_to also writes the grid's
// values to <dir>/grid-<k>.<type> (k counts the calls), so that a compiled run can be compared
// with the reference build element by element.
template <typename T>
inline void dump_for_tests(const T* data, std::size_t n);

template <typename T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else if constexpr (std::is_same_v<T, double>) {
    return "double";
  } else {
    return "int32_t";
  }
}

template <typename T>
inline void dump_for_tests(const T* data, std::size_t n) {
  static std::atomic<int> calls{0};
  const char* dir = std::getenv("STENCILC_DUMP_DIR");
  if (dir == nullptr || *dir == '\0') return;
  const std::string path = format("%s/grid-%d.%s", dir, calls++, type_name<T>());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, sizeof(T), n, f) != n) fatal("cannot write %s", path.c_str());
  std::fclose(f);
}

}  // namespace detail
}  // namespace stencilc
