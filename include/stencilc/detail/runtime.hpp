// init / finalize and the number of processing elements (PEs) a run uses.
//
// The PE count comes from `--stencilc-pes=N` on the command line (removed from argv by init),
// else from the environment variable STENCILC_PES, else 1. Global-view programs ignore it in the
// reference build; stencilc::spmd runs that many PEs as threads.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>

#include "stencilc/detail/error.hpp"

namespace stencilc {
namespace detail {

struct RuntimeState {
  bool initialized = false;
  int pes = 1;
  bool pes_given = false;  // by --stencilc-pes or STENCILC_PES (not the default of 1)
  std::string decomp;  // --stencilc-decomp=AxB[xC]: the process grid compiled runs must use
};

inline RuntimeState& runtime_state() {
  static RuntimeState state;
  return state;
}

inline int pes_from_environment() {
  return positive_int_from_env("STENCILC_PES", 1);
}

}  // namespace detail

// Reads and removes the --stencilc-* options from argv (argc is updated, argv stays
// null-terminated). An invalid value or an unknown --stencilc-* option exits with status 2.
inline void init(int& argc, char** argv) {
  static const char kPesOption[] = "--stencilc-pes=";
  static const char kDecompOption[] = "--stencilc-decomp=";
  int pes = 0;  // 0: not given on the command line
  std::string decomp;
  int kept = argc > 0 ? 1 : 0;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (std::strncmp(arg, "--stencilc-", 11) != 0) {
      argv[kept++] = argv[i];
    } else if (std::strncmp(arg, kPesOption, sizeof kPesOption - 1) == 0) {
      const char* value = arg + sizeof kPesOption - 1;
      if (!detail::parse_positive_int(value, pes)) {
        detail::usage_error(
            "invalid value '%s' in '%s': the number of PEs must be a positive integer", value, arg);
      }
    } else if (std::strncmp(arg, kDecompOption, sizeof kDecompOption - 1) == 0) {
      // Checked against the PE count and the grids where a compiled program runs; the reference
      // build runs global-view programs serially and has nothing to decompose.
      decomp = arg + sizeof kDecompOption - 1;
      if (decomp.empty() || decomp.find_first_not_of("0123456789x") != std::string::npos) {
        detail::usage_error("invalid value in '%s': expected a process grid such as 2x2 or 4x1x1", arg);
      }
    } else if (std::strcmp(arg, "--stencilc-pes") == 0) {
      detail::usage_error("'--stencilc-pes' needs a value: --stencilc-pes=N");
    } else {
      detail::usage_error("unknown option '%s' (known: --stencilc-pes=N, --stencilc-decomp=AxB[xC])",
                          arg);
    }
  }
  if (argv != nullptr && kept < argc) argv[kept] = nullptr;
  argc = kept;
  detail::RuntimeState& state = detail::runtime_state();
  state.pes = pes > 0 ? pes : detail::pes_from_environment();
  state.pes_given = pes > 0 || std::getenv("STENCILC_PES") != nullptr;
  state.decomp = decomp;
  state.initialized = true;
}

// Ends a run. The reference build only flushes stdout.
inline void finalize() {
  std::fflush(stdout);
}

// The number of PEs of this run: what init found, or STENCILC_PES / 1 if init was not called.
inline int configured_pes() {
  const detail::RuntimeState& state = detail::runtime_state();
  return state.initialized ? state.pes : detail::pes_from_environment();
}

// Whether the PE count was asked for (--stencilc-pes, STENCILC_PES) rather than defaulted: a
// backend whose PE count is fixed elsewhere (the NVSHMEM backend: mpirun -np) checks it.
inline bool configured_pes_given() {
  const detail::RuntimeState& state = detail::runtime_state();
  return state.initialized ? state.pes_given : std::getenv("STENCILC_PES") != nullptr;
}

// The process grid a compiled run must use: --stencilc-decomp=, else STENCILC_DECOMP, else ""
// (the runtime chooses the one with the least halo traffic).
inline std::string configured_decomp() {
  const detail::RuntimeState& state = detail::runtime_state();
  if (!state.decomp.empty()) return state.decomp;
  const char* env = std::getenv("STENCILC_DECOMP");
  return env != nullptr ? env : "";
}

}  // namespace stencilc
