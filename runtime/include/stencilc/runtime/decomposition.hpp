// How a global grid is cut into one block per PE: the process grid, each PE's block, and its
// neighbours. Pure functions of the PE count, extents and halo widths, independent of any
// backend: the host launcher and the CUDA launchers call the same code, so every backend
// decomposes a program identically.
#pragma once

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "stencilc/runtime/common.hpp"

namespace stencilc::rt {

// A contiguous range of indices: [start, start + count).
struct Span {
  int start;
  int count;
};

// Part `index` of `extent` cut into `parts` contiguous parts. The first extent % parts parts get
// one more index, so sizes differ by at most one and are non-increasing.
inline Span split(int extent, int parts, int index) {
  if (extent < 0 || parts < 1 || index < 0 || index >= parts) {
    fatal("split(extent %d, parts %d, index %d): expected extent >= 0 and 0 <= index < parts",
          extent, parts, index);
  }
  const int base = extent / parts;
  const int extra = extent % parts;
  return Span{index * base + (index < extra ? index : extra), base + (index < extra ? 1 : 0)};
}

// The PEs arranged as a rank-dimensional grid, row-major (the last dimension fastest, like the
// data). Dimensions at and past `rank` are 1.
struct ProcessGrid {
  int rank = 1;
  std::array<int, 3> dims{1, 1, 1};

  int size() const { return dims[0] * dims[1] * dims[2]; }

  std::array<int, 3> coords(int pe) const {
    std::array<int, 3> c{0, 0, 0};
    for (int d = 2; d >= 0; --d) {
      c[d] = pe % dims[d];
      pe /= dims[d];
    }
    return c;
  }

  int pe_at(const std::array<int, 3>& c) const { return (c[0] * dims[1] + c[1]) * dims[2] + c[2]; }
};

// "4 x 2", the way messages print extents and process grids.
inline std::string format_dims(const int* values, int rank, const char* separator = " x ") {
  std::string text;
  for (int d = 0; d < rank; ++d) {
    if (d > 0) text += separator;
    text += std::to_string(values[d]);
  }
  return text;
}

// Parses a process grid such as "2x2" or "4x1x1" (the option --stencilc-decomp= or the
// environment variable STENCILC_DECOMP): 1 to 3 positive integers separated by 'x'.
inline std::optional<std::vector<int>> parse_decomp_spec(const std::string& spec,
                                                         std::string* error) {
  std::vector<int> dims;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = spec.find('x', begin);
    const std::string part = spec.substr(begin, end == std::string::npos ? end : end - begin);
    long long value = 0;
    if (!parse_positive(part.c_str(), 1 << 20, &value) || dims.size() == 3) {
      if (error != nullptr) {
        *error = format(
            "bad decomposition '%s': expected 1 to 3 positive integers joined by 'x', "
            "such as 4x2",
            spec.c_str());
      }
      return std::nullopt;
    }
    dims.push_back(static_cast<int>(value));
    if (end == std::string::npos) return dims;
    begin = end + 1;
  }
}

// The decomposition override of a run: the last --stencilc-decomp=SPEC in argv, else the
// environment variable STENCILC_DECOMP, else "" (choose automatically).
inline std::string find_decomp_override(int argc, const char* const* argv) {
  const std::string option = "--stencilc-decomp=";
  std::string found;
  bool have = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i] != nullptr ? argv[i] : "";
    if (arg.compare(0, option.size(), option) == 0) {
      found = arg.substr(option.size());
      have = true;
    }
  }
  if (have) return found;
  const char* env = std::getenv("STENCILC_DECOMP");
  return env != nullptr ? env : "";
}

namespace detail {

// What one decomposition problem is about, for choosing and for messages.
struct DecompProblem {
  int n_pes;
  int rank;
  std::array<int, 3> extents, halo_lo, halo_hi;

  // The thinnest block dimension d may have once it is cut.
  int min_thickness(int d) const {
    const int halo = halo_lo[d] > halo_hi[d] ? halo_lo[d] : halo_hi[d];
    return halo > 1 ? halo : 1;
  }
  // The most parts each dimension may be cut into (1 for dimensions past rank: never cut).
  std::array<long long, 3> part_limits() const {
    std::array<long long, 3> limit{1, 1, 1};
    for (int d = 0; d < rank; ++d) {
      const long long most = extents[d] / min_thickness(d);
      limit[d] = most > 1 ? most : 1;
    }
    return limit;
  }
  // Why cutting dimension d into `parts` is impossible, or "" if it is possible.
  std::string too_thin(int d, int parts) const {
    if (parts == 1 || extents[d] / parts >= min_thickness(d)) return "";
    return format("blocks would be %d thick in dimension %d, thinner than %s (%d)",
                  extents[d] / parts, d, min_thickness(d) > 1 ? "the halo" : "one layer",
                  min_thickness(d));
  }
  std::string describe_grid() const {
    return format("a grid of %s points with halos (%s) below and (%s) above",
                  format_dims(extents.data(), rank).c_str(),
                  format_dims(halo_lo.data(), rank, ", ").c_str(),
                  format_dims(halo_hi.data(), rank, ", ").c_str());
  }
  // Elements sent per step by all PEs together: for each cut dimension, the global face
  // orthogonal to it, its halo depth both ways, once per cut.
  long long traffic(const std::array<int, 3>& dims) const {
    long long total = 0;
    for (int d = 0; d < rank; ++d) {
      long long face = 1;
      for (int e = 0; e < rank; ++e) face *= e == d ? 1 : extents[e];
      total += face * (halo_lo[d] + halo_hi[d]) * (dims[d] - 1);
    }
    return total;
  }
};

// Every way to write `remaining` as a product of dims[d..rank): calls visit(dims) for each.
template <typename Visit>
void for_each_factorization(int remaining, int d, int rank, std::array<int, 3>& dims,
                            Visit&& visit) {
  if (d == rank - 1) {
    dims[d] = remaining;
    visit(dims);
    return;
  }
  for (int parts = 1; parts <= remaining; ++parts) {
    if (remaining % parts != 0) continue;
    dims[d] = parts;
    for_each_factorization(remaining / parts, d + 1, rank, dims, visit);
  }
}

// The cheapest process grid for `problem`, if any fits.
inline std::optional<ProcessGrid> best_fit(const DecompProblem& problem) {
  std::optional<ProcessGrid> best;
  // More PEs than the limits multiply to cannot fit: say so before trying n_pes's divisors.
  const std::array<long long, 3> limit = problem.part_limits();
  if (limit[0] * limit[1] * limit[2] < problem.n_pes) return best;
  long long best_traffic = 0;
  std::array<int, 3> dims{1, 1, 1};
  for_each_factorization(problem.n_pes, 0, problem.rank, dims, [&](const std::array<int, 3>& c) {
    for (int d = 0; d < problem.rank; ++d) {
      if (!problem.too_thin(d, c[d]).empty()) return;
    }
    const long long traffic = problem.traffic(c);
    // Ties go to cutting lower dimensions: their faces are contiguous in row-major order.
    // Factorizations come with dims[0] increasing, so a later one that ties has more dim-0 cuts.
    if (!best || traffic <= best_traffic) {
      best = ProcessGrid{problem.rank, c};
      best_traffic = traffic;
    }
  });
  return best;
}

inline std::optional<ProcessGrid> forced_fit(const DecompProblem& problem, const std::string& spec,
                                             std::string* error) {
  const std::optional<std::vector<int>> parsed = parse_decomp_spec(spec, error);
  if (!parsed) return std::nullopt;
  const std::vector<int>& dims = *parsed;
  std::string problem_text;
  if (static_cast<int>(dims.size()) != problem.rank) {
    problem_text = format("it has %d dimensions, the grid has %d", static_cast<int>(dims.size()),
                          problem.rank);
  } else {
    long long product = 1;
    for (int parts : dims) product *= parts;
    if (product != problem.n_pes) {
      problem_text = format("it makes %lld blocks for %d PEs", product, problem.n_pes);
    }
    for (int d = 0; d < problem.rank && problem_text.empty(); ++d) {
      problem_text = problem.too_thin(d, dims[d]);
    }
  }
  if (!problem_text.empty()) {
    if (error != nullptr) {
      *error = format("cannot use the decomposition '%s' for %s over %d PEs: %s", spec.c_str(),
                      problem.describe_grid().c_str(), problem.n_pes, problem_text.c_str());
    }
    return std::nullopt;
  }
  ProcessGrid grid;
  grid.rank = problem.rank;
  for (int d = 0; d < problem.rank; ++d) grid.dims[d] = dims[d];
  return grid;
}

// The most PEs below problem.n_pes that some process grid fits. Dimension d takes at most
// extents[d] / min_thickness(d) parts (one part always fits), so this is the largest product of
// per-dimension part counts within those limits that stays below n_pes: found by trying the
// part counts of the lower dimensions and taking the most the last one allows, never by trying
// every smaller PE count (a million PEs on a small grid answered only after minutes).
inline int most_pes_that_fit(const DecompProblem& problem) {
  const std::array<long long, 3> limit = problem.part_limits();
  const long long below = static_cast<long long>(problem.n_pes) - 1;
  long long best = 0;
  const auto most_in_last = [&](long long before) { return std::min(limit[problem.rank - 1], below / before); };
  if (problem.rank == 1) best = std::min(limit[0], below);
  for (long long p0 = 1; problem.rank > 1 && p0 <= limit[0] && p0 <= below && best < below; ++p0) {
    if (problem.rank == 2) best = std::max(best, p0 * most_in_last(p0));
    for (long long p1 = 1; problem.rank == 3 && p1 <= limit[1] && p0 * p1 <= below && best < below; ++p1) {
      best = std::max(best, p0 * p1 * most_in_last(p0 * p1));
    }
  }
  return static_cast<int>(best);
}

// Why no process grid fits, with the most PEs that would.
inline std::string no_fit_message(const DecompProblem& problem) {
  std::string limits;
  for (int d = 0; d < problem.rank; ++d) {
    const int most = problem.extents[d] / problem.min_thickness(d);
    limits += format("%sdimension %d at most %d", d > 0 ? ", " : "", d, most);
  }
  return format(
      "cannot split %s over %d PEs: every process grid gives blocks thinner than the "
      "halo they must supply (parts per dimension: %s); use fewer PEs (%d would fit)",
      problem.describe_grid().c_str(), problem.n_pes, limits.c_str(), most_pes_that_fit(problem));
}

}  // namespace detail

// The process grid for n_pes PEs and a rank-dimensional grid of `extents` with halos `halo_lo`
// (below) and `halo_hi` (above) per dimension. Among the factorizations of n_pes whose cut
// dimensions keep every block at least max(halo_lo, halo_hi, 1) thick, the one with the least
// halo traffic per step; ties cut lower dimensions first. `override_spec` ("2x2"), when not
// empty, forces the grid (still checked). If nothing fits: nullopt and *error says why.
inline std::optional<ProcessGrid> choose_process_grid(
    int n_pes, int rank, std::array<int, 3> extents, std::array<int, 3> halo_lo,
    std::array<int, 3> halo_hi, const std::string& override_spec, std::string* error) {
  if (n_pes < 1 || rank < 1 || rank > 3) {
    if (error != nullptr) *error = format("cannot decompose: %d PEs, rank %d", n_pes, rank);
    return std::nullopt;
  }
  for (int d = 0; d < rank; ++d) {
    if (extents[d] >= 1 && halo_lo[d] >= 0 && halo_hi[d] >= 0) continue;
    if (error != nullptr) {
      *error = format(
          "cannot decompose: dimension %d has extent %d and halos %d, %d (extents "
          "must be positive, halos not negative)",
          d, extents[d], halo_lo[d], halo_hi[d]);
    }
    return std::nullopt;
  }
  for (int d = rank; d < 3; ++d) {
    extents[d] = 1;
    halo_lo[d] = halo_hi[d] = 0;
  }
  const detail::DecompProblem problem{n_pes, rank, extents, halo_lo, halo_hi};
  if (!override_spec.empty()) return detail::forced_fit(problem, override_spec, error);
  std::optional<ProcessGrid> best = detail::best_fit(problem);
  if (!best && error != nullptr) *error = detail::no_fit_message(problem);
  return best;
}

// The PE at coords(pe) + dir, wrapping in periodic dimensions (a periodic dimension that is not
// cut wraps onto the PE itself); -1 past the edge of a non-periodic dimension.
inline int neighbor(const ProcessGrid& grid, int pe, const std::array<int, 3>& dir,
                    const std::array<bool, 3>& periodic) {
  std::array<int, 3> c = grid.coords(pe);
  for (int d = 0; d < 3; ++d) {
    if (dir[d] == 0) continue;
    if (d >= grid.rank) return -1;
    c[d] += dir[d];
    if (c[d] >= 0 && c[d] < grid.dims[d]) continue;
    if (!periodic[d]) return -1;
    c[d] = ((c[d] % grid.dims[d]) + grid.dims[d]) % grid.dims[d];
  }
  return grid.pe_at(c);
}

// One PE's block of an N-dimensional global grid: global index = origin[d] + local index.
template <int N>
struct BlockLayout {
  std::array<int, N> origin{};
  std::array<int, N> extent{};
};

template <int N>
BlockLayout<N> block_layout(const ProcessGrid& grid, int pe,
                            const std::array<int, N>& global_extent) {
  static_assert(N >= 1 && N <= 3, "grids have 1 to 3 dimensions");
  if (grid.rank != N || pe < 0 || pe >= grid.size()) {
    fatal("block_layout: PE %d of a rank-%d process grid of %d PEs for a %d-dimensional grid", pe,
          grid.rank, grid.size(), N);
  }
  const std::array<int, 3> c = grid.coords(pe);
  BlockLayout<N> layout;
  for (int d = 0; d < N; ++d) {
    const Span span = split(global_extent[d], grid.dims[d], c[d]);
    layout.origin[d] = span.start;
    layout.extent[d] = span.count;
  }
  return layout;
}

}  // namespace stencilc::rt
