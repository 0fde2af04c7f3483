// The tally of the host-run runtime tests (nvcc-built, run without a GPU): check() counts each
// assertion and prints the first failures; finish() prints `N passed, M failed` and gives the
// exit status.
#pragma once

#include <cstdio>
#include <string>

namespace tally {

inline int passed = 0, failed = 0;

inline void check(bool ok, const std::string& what) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  if (failed < 20) std::printf("FAIL %s\n", what.c_str());
}

inline int finish() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace tally
