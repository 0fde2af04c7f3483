// Small helpers shared by the GPU tests of the p2p backend (tests/gpu/*.cu).
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stencilc/runtime/cuda/halo.cuh"

namespace gputest {

// "--name=value" or "--name value"; `fallback` if absent.
inline const char* arg(int argc, char** argv, const char* name, const char* fallback) {
  const std::size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, length) != 0) continue;
    if (argv[i][length] == '=') return argv[i] + length + 1;
    if (argv[i][length] == '\0' && i + 1 < argc) return argv[i + 1];
  }
  return fallback;
}
inline int arg_int(int argc, char** argv, const char* name, int fallback) {
  const char* text = arg(argc, argv, name, nullptr);
  return text != nullptr ? std::atoi(text) : fallback;
}

// Counts failed checks and prints each (the first few in full).
struct Checker {
  int failures = 0;
  int printed = 0;

  __attribute__((format(printf, 3, 4))) bool expect(bool ok, const char* fmt, ...) {
    if (ok) return true;
    ++failures;
    if (printed++ < 20) {
      std::va_list args;
      va_start(args, fmt);
      std::printf("  check failed: ");
      std::vprintf(fmt, args);
      std::printf("\n");
      va_end(args);
    }
    return false;
  }
};

// A well-mixed 32-bit hash (not zero-heavy: the tests never run on zeros).
__host__ __device__ inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The owned cells of PE `pe`'s 2-D block, row by row (extent[0] x extent[1]), downloaded through
// the block's own layout (padded rows, lead).
template <class Team, class T>
std::vector<T> owned_cells(Team& team, int pe, const stencilc::rt::cuda::DBlock<T, 2>& blk) {
  std::vector<T> all(static_cast<std::size_t>(blk.allocated()));
  team.download(pe, all.data(), blk.data - blk.data_offset(), all.size());
  std::vector<T> owned(static_cast<std::size_t>(blk.extent[0]) * blk.extent[1]);
  for (int i = 0; i < blk.extent[0]; ++i) {
    for (int j = 0; j < blk.extent[1]; ++j) {
      owned[static_cast<std::size_t>(i) * blk.extent[1] + j] = all[blk.data_offset() + i * blk.stride[0] + j];
    }
  }
  return owned;
}

// Ends a test program: "PASS name" / "FAIL name (k failed checks)", status 0 or 1.
inline int finish(const char* name, const Checker& checker) {
  if (checker.failures == 0) {
    std::printf("PASS %s\n", name);
    return 0;
  }
  std::printf("FAIL %s (%d failed checks)\n", name, checker.failures);
  return 1;
}

}  // namespace gputest
