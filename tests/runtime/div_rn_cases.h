// The float divisions tests/runtime/div_rn.cu (on the host) and tests/gpu/div_rn.cu (on a GPU)
// check div_rn with: random bit patterns of every class, subnormal numerators over small
// divisors (wave2d's decaying pulse over 12), quotients at the subnormal threshold and at
// overflow, exact ties of the subnormal grid (odd multiples of the least subnormal over 2, 4, 6,
// 12, 24), and every pair of the special values.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace div_rn_cases {

inline float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// Numerators and divisors, pair by pair.
inline void make(std::vector<float>* a, std::vector<float>* b) {
  std::mt19937 rng(20261128);
  std::uniform_int_distribution<std::uint32_t> any;
  auto add = [&](float x, float y) {
    a->push_back(x);
    b->push_back(y);
  };
  for (int k = 0; k < 1 << 21; ++k) add(from_bits(any(rng)), from_bits(any(rng)));
  const float divisors[] = {12.0f, 3.0f, 7.0f, 10.0f, 0.1f, 1.5f, 20.0f, 1e-3f};
  for (int k = 0; k < 1 << 20; ++k) {  // subnormal numerators (either sign)
    const float x = from_bits((any(rng) & 0x807fffffu));
    add(x, divisors[k % 8]);
  }
  for (int k = 0; k < 1 << 20; ++k) {  // quotients about the least normal, 2^-126
    const std::uint32_t exponent = 1 + any(rng) % 12;  // numerator 2^-126 .. 2^-115
    const float x = from_bits((any(rng) & 0x807fffffu) | (exponent << 23));
    const float y = from_bits((any(rng) & 0x007fffffu) | ((127 + any(rng) % 12) << 23));  // 1 .. 2^12
    add(x, y);
  }
  for (int k = 0; k < 1 << 18; ++k) {  // quotients about the largest float
    const float x = from_bits((any(rng) & 0x807fffffu) | (254u << 23));
    const float y = from_bits((any(rng) & 0x007fffffu) | (126u << 23));  // 0.5 .. 1
    add(x, y);
  }
  const float ties[] = {2.0f, 4.0f, 6.0f, 12.0f, 24.0f};
  for (std::uint32_t m = 1; m < 1u << 16; m += 2) {  // exact ties of the subnormal grid
    for (float t : ties) add(from_bits(m) * (t / 2.0f), t);  // m 2^-150 exactly: a tie
  }
  const float special[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::denorm_min(), -1.0f, 12.0f};
  for (float x : special)
    for (float y : special) add(x, y);
}

/// Whether two quotients agree: the same bits, or both NaN.
inline bool same(float x, float y) { return bits(x) == bits(y) || (x != x && y != y); }

}  // namespace div_rn_cases
