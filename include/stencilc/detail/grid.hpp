// The global view: boundaries, boxes, Grid<T, N>, and the serial for_each / reduce / swap /
// exchange that give stencil programs their reference meaning.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "stencilc/detail/error.hpp"

namespace stencilc {

// ---------------------------------------------------------------------------------------------
// Boundaries and boxes
// ---------------------------------------------------------------------------------------------

// How one dimension of a grid ends. fixed(w): the outer w layers at each end belong to the grid
// but no stencil writes them (Dirichlet data). periodic(): indices wrap around.
struct Boundary {
  enum class Kind { Fixed, Periodic };
  Kind kind;
  int width;
};

constexpr Boundary fixed(int width) {
  return Boundary{Boundary::Kind::Fixed, width};
}
constexpr Boundary periodic() {
  return Boundary{Boundary::Kind::Periodic, 0};
}

// A half-open index box [lo, hi) in N dimensions: stencilc::Box<2>{{0, 1}, {1, n - 1}}.
template <int N>
struct Box {
  static_assert(N >= 1 && N <= 3, "stencilc::Box<N>: N must be 1, 2 or 3");
  std::array<int, N> lo;
  std::array<int, N> hi;

  bool empty() const {
    for (int d = 0; d < N; ++d) {
      if (hi[d] <= lo[d]) return true;
    }
    return false;
  }
};

// Reduction operators for stencilc::reduce.
struct Sum {};
struct Max {};
struct Min {};

namespace detail {

// Calls f(i), f(i, j) or f(i, j, k) for every point of `box`, last index fastest.
template <int N, typename F>
inline void loop_box(const Box<N>& box, F& f) {
  if constexpr (N == 1) {
    for (int i = box.lo[0]; i < box.hi[0]; ++i) f(i);
  } else if constexpr (N == 2) {
    for (int i = box.lo[0]; i < box.hi[0]; ++i)
      for (int j = box.lo[1]; j < box.hi[1]; ++j) f(i, j);
  } else {
    for (int i = box.lo[0]; i < box.hi[0]; ++i)
      for (int j = box.lo[1]; j < box.hi[1]; ++j)
        for (int k = box.lo[2]; k < box.hi[2]; ++k) f(i, j, k);
  }
}

// The type a point function returns when called with N ints.
template <typename F, int N>
struct point_result;
template <typename F>
struct point_result<F, 1> {
  using type = std::decay_t<std::invoke_result_t<F&, int>>;
};
template <typename F>
struct point_result<F, 2> {
  using type = std::decay_t<std::invoke_result_t<F&, int, int>>;
};
template <typename F>
struct point_result<F, 3> {
  using type = std::decay_t<std::invoke_result_t<F&, int, int, int>>;
};

template <typename Op>
struct reduce_op;
template <>
struct reduce_op<Sum> {
  template <typename R>
  static R identity() {
    return R(0);
  }
  template <typename R>
  static R combine(R acc, R x) {
    return acc + x;
  }
};
template <>
struct reduce_op<Max> {
  template <typename R>
  static R identity() {
    return std::numeric_limits<R>::lowest();
  }
  template <typename R>
  static R combine(R acc, R x) {
    return x > acc ? x : acc;
  }
};
template <>
struct reduce_op<Min> {
  template <typename R>
  static R identity() {
    return std::numeric_limits<R>::max();
  }
  template <typename R>
  static R combine(R acc, R x) {
    return x < acc ? x : acc;
  }
};

// Collects the indices of a Grid or Block operator() call. The stencilc front end defines
// __STENCILC_FRONTEND__ and reports a wrong index count with its own diagnostic.
template <int N, typename... Idx>
inline std::array<long long, N> collect_index(Idx... idx) {
#if !defined(__STENCILC_FRONTEND__)
  static_assert(sizeof...(Idx) == N,
                "stencilc: a Grid<T, N> or Block<T, N> takes exactly N indices");
#endif
  static_assert((std::is_integral_v<Idx> && ...), "stencilc: grid indices must be integers");
  const long long given[] = {static_cast<long long>(idx)..., 0};
  std::array<long long, N> out{};
  for (int d = 0; d < N && d < static_cast<int>(sizeof...(Idx)); ++d) out[d] = given[d];
  return out;
}

// Row-major strides of an array with the given extents.
template <int N>
inline std::array<std::size_t, N> row_major_strides(const std::array<int, N>& extents) {
  std::array<std::size_t, N> strides{};
  std::size_t stride = 1;
  for (int d = N - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= static_cast<std::size_t>(extents[d]);
  }
  return strides;
}

// Calls `object(idx[0], ..., idx[N-1])`: lets internal loops use the public, checked accessors.
template <typename Object, int N, std::size_t... I>
inline decltype(auto) at_index(Object& object, const std::array<long long, N>& idx,
                               std::index_sequence<I...>) {
  return object(idx[I]...);
}
template <int N, typename Object>
inline decltype(auto) at_index(Object& object, const std::array<long long, N>& idx) {
  return at_index<Object, N>(object, idx, std::make_index_sequence<N>{});
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Grid<T, N>
// ---------------------------------------------------------------------------------------------

// A global N-dimensional array, row-major (last index fastest), with one boundary per dimension.
// Movable (std::swap is O(1)), not copyable: a grid stands for device memory when compiled.
template <typename T, int N>
class Grid {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::int32_t>,
                "stencilc::Grid<T, N>: T must be float, double or int32_t");
  static_assert(N >= 1 && N <= 3, "stencilc::Grid<T, N>: N must be 1, 2 or 3");

 public:
  using value_type = T;
  static constexpr int rank = N;

  Grid(std::array<int, N> extents, std::array<Boundary, N> bounds)
      : extents_(extents), bounds_(bounds) {
    for (int d = 0; d < N; ++d) {
      if (extents_[d] < 1) {
        detail::fatal("Grid<%s, %d>: extent %d in dimension %d must be positive",
                      detail::type_name<T>(), N, extents_[d], d);
      }
      if (bounds_[d].kind == Boundary::Kind::Fixed && bounds_[d].width < 0) {
        detail::fatal("Grid<%s, %d>: fixed(%d) in dimension %d: the width must not be negative",
                      detail::type_name<T>(), N, bounds_[d].width, d);
      }
    }
    strides_ = detail::row_major_strides<N>(extents_);
    data_.assign(strides_[0] * static_cast<std::size_t>(extents_[0]), T(0));
  }

  // All dimensions fixed(0).
  explicit Grid(std::array<int, N> extents) : Grid(extents, all_fixed0()) {}

  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;
  Grid(Grid&&) noexcept = default;
  Grid& operator=(Grid&&) noexcept = default;
  ~Grid() = default;

  // Element access with global indices. Periodic dimensions wrap any distance; in a fixed
  // dimension an index outside [0, extent) is a fatal error.
  template <typename... Idx>
  T& operator()(Idx... idx) {
    return data_[offset(detail::collect_index<N>(idx...))];
  }
  template <typename... Idx>
  const T& operator()(Idx... idx) const {
    return data_[offset(detail::collect_index<N>(idx...))];
  }

  int extent(int d) const { return extents_[check_dim(d)]; }
  const std::array<int, N>& extents() const { return extents_; }
  Boundary boundary(int d) const { return bounds_[check_dim(d)]; }

  // The index box without the fixed layers (a periodic dimension contributes its whole extent).
  Box<N> interior() const {
    Box<N> box{};
    for (int d = 0; d < N; ++d) {
      const int w = bounds_[d].kind == Boundary::Kind::Fixed ? bounds_[d].width : 0;
      box.lo[d] = w < extents_[d] ? w : extents_[d];
      box.hi[d] = extents_[d] - w > box.lo[d] ? extents_[d] - w : box.lo[d];
    }
    return box;
  }

  // Sets every point to f(i, j, k) (global indices).
  template <typename F>
  void fill(F&& f) {
    std::size_t at = 0;  // the loop visits points in storage order
    auto store = [&](auto... idx) { data_[at++] = static_cast<T>(f(idx...)); };
    detail::loop_box(Box<N>{zeros(), extents_}, store);
  }

  void copy_to(std::vector<T>& out) const {
    out.assign(data_.begin(), data_.end());
    detail::dump_for_tests(data_.data(), data_.size());
  }
  void copy_from(const std::vector<T>& in) {
    if (in.size() != data_.size()) {
      detail::fatal("Grid<%s, %d>::copy_from: the vector has %zu elements, the grid %zu",
                    detail::type_name<T>(), N, in.size(), data_.size());
    }
    data_.assign(in.begin(), in.end());
  }

  std::size_t size() const { return data_.size(); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }

 private:
  static std::array<Boundary, N> all_fixed0() {
    std::array<Boundary, N> b{};
    for (auto& x : b) x = fixed(0);
    return b;
  }
  static std::array<int, N> zeros() { return std::array<int, N>{}; }

  int check_dim(int d) const {
    if (d < 0 || d >= N)
      detail::fatal("Grid<%s, %d>: no dimension %d", detail::type_name<T>(), N, d);
    return d;
  }

  std::size_t offset(const std::array<long long, N>& idx) const {
    std::size_t off = 0;
    for (int d = 0; d < N; ++d) {
      long long i = idx[d];
      if (static_cast<unsigned long long>(i) >= static_cast<unsigned long long>(extents_[d])) {
        i = outside(d, i);
      }
      off += static_cast<std::size_t>(i) * strides_[d];
    }
    return off;
  }

  // Slow path of offset(): wraps a periodic index, dies on a fixed one.
  long long outside(int d, long long i) const {
    const long long n = extents_[d];
    if (bounds_[d].kind == Boundary::Kind::Periodic) return ((i % n) + n) % n;
    detail::fatal(
        "Grid<%s, %d>: index %lld out of range [0, %lld) in dimension %d (fixed boundary)",
        detail::type_name<T>(), N, i, n, d);
  }

  std::array<int, N> extents_;
  std::array<Boundary, N> bounds_;
  std::array<std::size_t, N> strides_{};
  std::vector<T> data_;
};

// Swaps two grids of the same shape and boundaries in O(1); a mismatch is a fatal error.
template <typename T, int N>
void swap(Grid<T, N>& a, Grid<T, N>& b) {
  for (int d = 0; d < N; ++d) {
    const Boundary ba = a.boundary(d), bb = b.boundary(d);
    if (a.extent(d) != b.extent(d) || ba.kind != bb.kind || ba.width != bb.width) {
      detail::fatal("stencilc::swap: the grids differ in dimension %d (extent %d vs %d)", d,
                    a.extent(d), b.extent(d));
    }
  }
  std::swap(a, b);
}

// ---------------------------------------------------------------------------------------------
// Point updates, reductions, exchanges
// ---------------------------------------------------------------------------------------------

#if defined(__STENCILC_FRONTEND__)
// The stencilc front end checks point updates itself (the lambda's arity against the range's
// rank, the indices of every access) and reports them with its own diagnostics. It only needs
// signatures, so that a mismatched lambda reaches those checks instead of failing here first.
namespace detail {
template <typename F>
struct lambda_result : lambda_result<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct lambda_result<R (C::*)(A...) const> {
  using type = R;
};
template <typename C, typename R, typename... A>
struct lambda_result<R (C::*)(A...)> {
  using type = R;
};
}  // namespace detail

// The bodies never call f: a lambda's type has no linkage, so a declaration alone would not do.
template <int N, typename F>
void for_each(const Box<N>&, F&&) {}
template <int N, typename Op, typename F>
typename detail::lambda_result<std::decay_t<F>>::type reduce(const Box<N>&, Op, F&&) {
  return {};
}
#else
// Calls f(i, j, k) for every point of `range`, serially in row-major order.
template <int N, typename F>
void for_each(const Box<N>& range, F&& f) {
  detail::loop_box(range, f);
}

// Combines f(i, j, k) over `range` with Sum{}, Max{} or Min{}; returns f's return type. Sum
// starts from 0, Max from the lowest value, Min from the largest; serial row-major order.
template <int N, typename Op, typename F>
auto reduce(const Box<N>& range, Op, F&& f) -> typename detail::point_result<F, N>::type {
  static_assert(std::is_same_v<Op, Sum> || std::is_same_v<Op, Max> || std::is_same_v<Op, Min>,
                "stencilc::reduce: the operator must be stencilc::Sum{}, Max{} or Min{}");
  using R = typename detail::point_result<F, N>::type;
  using Ops = detail::reduce_op<Op>;
  R acc = Ops::template identity<R>();
  auto step = [&](auto... idx) { acc = Ops::combine(acc, static_cast<R>(f(idx...))); };
  detail::loop_box(range, step);
  return acc;
}

#endif  // __STENCILC_FRONTEND__

// Says that g's halos must be fresh here. Nothing to do in the serial reference build.
template <typename T, int N>
void exchange(const Grid<T, N>&) {}

}  // namespace stencilc
