// What every backend of the stencilc device communication runtime shares: the comparison and
// reduction enums of its API, fatal errors for bad run-time configuration, the wait timeout,
// and process exit that is safe while PE threads are running.
//
// Generated code includes one backend header (host.hpp today; the CUDA backends later); this
// file holds only what is the same for all of them.
#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#if defined(__GNUC__)
#define STENCILC_RT_PRINTF(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define STENCILC_RT_PRINTF(fmt_index, first_arg)
#endif

#if defined(__CUDACC__)
#define STENCILC_RT_HOST_DEVICE __host__ __device__
#else
#define STENCILC_RT_HOST_DEVICE
#endif

namespace stencilc::rt {

// How wait_until compares a signal with a value (NVSHMEM_CMP_EQ, ...).
enum class Cmp { EQ, NE, GT, GE, LT, LE };

// The combining operation of allreduce.
enum class ReduceOp { Sum, Max, Min };

// `a` combined with `b` by `op`, `a` the value so far: the one rule of every reduction's
// combining step, on the host and on the GPUs, so that the same values combined in the same
// order give the same bits on every backend and schedule.
template <class T>
STENCILC_RT_HOST_DEVICE inline T combine(T a, T b, ReduceOp op) {
  if (op == ReduceOp::Sum) return static_cast<T>(a + b);
  if (op == ReduceOp::Max) return b > a ? b : a;
  return b < a ? b : a;
}

inline const char* cmp_symbol(Cmp cmp) {
  switch (cmp) {
    case Cmp::EQ:
      return "==";
    case Cmp::NE:
      return "!=";
    case Cmp::GT:
      return ">";
    case Cmp::GE:
      return ">=";
    case Cmp::LT:
      return "<";
    case Cmp::LE:
      return "<=";
  }
  return "?";
}

// Also device code: the CUDA backends' waits use it.
#if defined(__CUDACC__)
#define STENCILC_HOST_DEVICE __host__ __device__
#else
#define STENCILC_HOST_DEVICE
#endif

STENCILC_HOST_DEVICE inline bool compare(std::uint64_t current, Cmp cmp, std::uint64_t value) {
  switch (cmp) {
    case Cmp::EQ:
      return current == value;
    case Cmp::NE:
      return current != value;
    case Cmp::GT:
      return current > value;
    case Cmp::GE:
      return current >= value;
    case Cmp::LT:
      return current < value;
    case Cmp::LE:
      return current <= value;
  }
  return false;
}

namespace detail {

// How many PE threads of run_team are alive, process-wide. exit() while other threads run
// destroys static objects under their feet, so exit_process uses _Exit then.
inline std::atomic<int>& live_pe_threads() {
  static std::atomic<int> count{0};
  return count;
}

}  // namespace detail

// Ends the process with `status`. Only the first caller exits: a second PE failing at the same
// moment parks here, so its message is printed but the status is the first one's.
[[noreturn]] inline void exit_process(int status) {
  static std::atomic<bool> exiting{false};
  if (exiting.exchange(true, std::memory_order_acq_rel)) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::fflush(nullptr);
  if (detail::live_pe_threads().load(std::memory_order_acquire) == 0) std::exit(status);
  std::_Exit(status);
}

// printf into a std::string, for messages assembled in pieces.
STENCILC_RT_PRINTF(1, 2) inline std::string format(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string text(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
  std::vsnprintf(text.data(), text.size() + 1, fmt, again);
  va_end(again);
  return text;
}

// Prints "stencilc: error: <message>" on stderr, after the program's own output.
STENCILC_RT_PRINTF(1, 2) inline void report_error(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  char message[2048];
  std::vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  std::fflush(stdout);
  std::fprintf(stderr, "stencilc: error: %s\n", message);
  std::fflush(stderr);
}

// A bad run-time configuration (PE count, decomposition, environment) or a misuse of the runtime
// by generated code: the message, then exit status 2. Any PE calling it ends the process.
[[noreturn]] STENCILC_RT_PRINTF(1, 2) inline void fatal(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  char message[2048];
  std::vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  report_error("%s", message);
  exit_process(2);
}

// Parses all of `text` as a decimal integer in [1, max]; false for anything else.
inline bool parse_positive(const char* text, long long max, long long* out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > max) return false;
  *out = value;
  return true;
}

// How long a wait (wait_until, barrier_all, a halo exchange) may take before the run is declared
// deadlocked: STENCILC_WAIT_TIMEOUT_MS, default 10 s.
inline long long wait_timeout_ms() {
  const char* text = std::getenv("STENCILC_WAIT_TIMEOUT_MS");
  if (text == nullptr) return 10000;
  long long value = 0;
  if (!parse_positive(text, 1LL << 40, &value)) {
    fatal("STENCILC_WAIT_TIMEOUT_MS='%s' is not a positive number of milliseconds", text);
  }
  return value;
}

}  // namespace stencilc::rt
