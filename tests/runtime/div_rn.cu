// div_rn's binary64 form on the host (no GPU): rounding the binary64 quotient of two floats to
// binary32 must give the correctly rounded binary32 quotient, bit for bit, on every case of
// div_rn_cases.h (subnormal numerators and quotients, ties of the subnormal grid, overflow,
// specials), against the host's float division (IEEE round to nearest, subnormals kept). The
// device side (div_rn against __fdiv_rn on a GPU) is tests/gpu/div_rn.cu. Built with nvcc, run
// on the host. Prints the first failures and `N passed, M failed`.

#include <cstdio>
#include <stencilc/runtime/cuda/generated.cuh>
#include <string>
#include <vector>

#include "div_rn_cases.h"
#include "tally.h"

int main() {
  std::vector<float> a, b;
  div_rn_cases::make(&a, &b);
  long long wrong = 0, rounded_subnormal = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const volatile float x = a[k], y = b[k];  // the host's own division, not folded
    const float want = x / y;
    const float got = stencilc::rt::cuda::div_rn_binary64(x, y);
    if (!div_rn_cases::same(got, want)) {
      if (++wrong <= 5) {
        tally::check(false, "div_rn_binary64(" + std::to_string(x) + ", " + std::to_string(y) + ") bits " +
                                std::to_string(div_rn_cases::bits(got)) + ", want " +
                                std::to_string(div_rn_cases::bits(want)));
      }
    }
    if (want != 0.0f && (div_rn_cases::bits(want) & 0x7f800000u) == 0 && static_cast<double>(x) / y != want)
      ++rounded_subnormal;  // a subnormal quotient that had to be rounded
  }
  tally::check(wrong == 0, std::to_string(wrong) + " of " + std::to_string(a.size()) + " quotients differ");
  tally::check(rounded_subnormal > 1000, "the cases round subnormal quotients (" + std::to_string(rounded_subnormal) + ")");
  tally::check(div_rn_cases::same(stencilc::rt::cuda::div_rn(1.0f, 3.0f), 1.0f / 3.0f), "div_rn on the host is a / b");
  std::printf("%zu quotients compared\n", a.size());
  return tally::finish();
}
