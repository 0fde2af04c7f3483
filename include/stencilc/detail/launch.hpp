// The host side of the local view: stencilc::spmd(program, Split{dim, halo}, args...) runs an
// SC_SPMD_PROGRAM on configured_pes() PEs (threads in the reference build).
//
// Each Grid<T, N> argument becomes one symmetric buffer (detail::BlockSet: one buffer per PE,
// contiguous slabs along `dim`, the first extent % P PEs get one point more, with `halo` halo
// layers in `dim` only), and its parameter one Block<T, N> handle per PE, referring to that
// buffer at first. Before the run the owned and halo cells are copied from the grid (halo cells
// past a periodic end hold the wrapped values, past a fixed end 0). Afterwards each non-const
// Block parameter's grid gets the owned cells of the buffer its handles refer to at the end
// (after stencilc::swap, maybe another grid's buffer: swaps are seen by the caller, as for
// grids); all PEs must end with the same mapping. Scalars are copied to every PE; for a T&
// parameter, PE 0's value is copied back.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "stencilc/detail/error.hpp"
#include "stencilc/detail/grid.hpp"
#include "stencilc/detail/runtime.hpp"
#include "stencilc/detail/spmd.hpp"

namespace stencilc {

// How stencilc::spmd decomposes its grid arguments: slabs along `dim`, `halo` layers deep.
struct Split {
  int dim;
  int halo;
};

namespace detail {

// PE `pe`'s slab of `extent` points split over `pes` PEs.
struct Slab {
  int origin;
  int extent;
};
inline Slab slab_of(int extent, int pes, int pe) {
  const int base = extent / pes, extra = extent % pes;
  return Slab{pe * base + (pe < extra ? pe : extra), base + (pe < extra ? 1 : 0)};
}

template <typename X>
struct is_grid : std::false_type {};
template <typename T, int N>
struct is_grid<Grid<T, N>> : std::true_type {};
template <typename X>
struct is_block : std::false_type {};
template <typename T, int N>
struct is_block<Block<T, N>> : std::true_type {};

template <typename X>
using bare_t = std::remove_cv_t<std::remove_reference_t<X>>;

// A Grid argument bound to a Block<T, N>& (or const Block<T, N>&) parameter.
template <typename Param, typename Arg>
class BlockBinding {
  using BlockType = bare_t<Param>;
  using T = typename BlockType::value_type;
  static constexpr int N = BlockType::rank;
  static constexpr bool kWriteBack = !std::is_const_v<std::remove_reference_t<Param>>;
  static_assert(std::is_lvalue_reference_v<Param>,
                "stencilc::spmd: take Block parameters by reference: Block<T, N>&");
  static_assert(std::is_same_v<bare_t<Arg>, Grid<T, N>>,
                "stencilc::spmd: a Block<T, N>& parameter needs a Grid<T, N> argument with the "
                "same element type and rank");
  static_assert(!kWriteBack || !std::is_const_v<std::remove_reference_t<Arg>>,
                "stencilc::spmd: a non-const Block<T, N>& parameter needs a non-const Grid "
                "argument (its owned cells are written back); or make the parameter const");

 public:
  BlockBinding(Arg&& grid, Split split, int pes, int parameter)
      : grid_(&grid), parameter_(parameter), set_(std::make_unique<BlockSet<T, N>>()) {
    if (split.dim >= N) {
      fatal(
          "stencilc::spmd: Split{%d, %d} splits dimension %d, but the grid of parameter %d "
          "is %d-dimensional",
          split.dim, split.halo, split.dim, parameter, N);
    }
    set_->parameter = parameter;
    const int global = grid.extent(split.dim);
    for (int pe = 0; pe < pes; ++pe) {
      const Slab slab = slab_of(global, pes, pe);
      if (slab.extent == 0) {
        fatal(
            "stencilc::spmd: the grid of parameter %d has %d points in dimension %d, fewer than "
            "the %d PEs",
            parameter, global, split.dim, pes);
      }
      if (pes > 1 && slab.extent < split.halo) {
        fatal(
            "stencilc::spmd: PE %d's slab of the grid of parameter %d is %d points thick in "
            "dimension %d, thinner than the halo width %d (extent %d on %d PEs); use fewer PEs",
            pe, parameter, slab.extent, split.dim, split.halo, global, pes);
      }
      std::array<int, N> extent = grid.extents(), halo{}, origin{};
      extent[split.dim] = slab.extent;
      halo[split.dim] = split.halo;
      origin[split.dim] = slab.origin;
      set_->buffers.push_back(
          std::make_unique<BlockBuffer<T, N>>(pe, extent, halo, origin, grid.extents()));
      scatter(*set_->buffers.back(), split.dim);
    }
    handles_.reserve(pes);
    for (int pe = 0; pe < pes; ++pe) {
      handles_.push_back(BlockAccess::make<T, N>(set_.get(), pe, parameter));
    }
  }

  Block<T, N>& get(int pe) { return *handles_[pe]; }

  // After the run: every PE's handle must refer to the same symmetric buffer.
  void check() const {
    const BlockSet<T, N>* first = BlockAccess::set(*handles_[0]);
    for (std::size_t pe = 1; pe < handles_.size(); ++pe) {
      const BlockSet<T, N>* other = BlockAccess::set(*handles_[pe]);
      if (other != first) {
        fatal(
            "stencilc::spmd: after the run, the Block of parameter %d refers to the buffer of "
            "parameter %d on PE 0 but to the buffer of parameter %d on PE %d; every PE must "
            "swap its blocks alike (stencilc::swap on every PE in the same step)",
            parameter_, first->parameter, other->parameter, static_cast<int>(pe));
      }
    }
  }

  // The owned cells of the buffer the handles refer to at the end go to this parameter's grid.
  void finish() {
    if constexpr (kWriteBack) {
      for (const auto& buffer : BlockAccess::set(*handles_[0])->buffers) gather(*buffer);
    }
  }

 private:
  static std::array<long long, N> global_index(const BlockBuffer<T, N>& buffer,
                                               const std::array<long long, N>& local) {
    std::array<long long, N> global = local;
    for (int d = 0; d < N; ++d) global[d] += buffer.origin[d];
    return global;
  }

  // Owned and halo cells from the grid: wrapped past a periodic end, 0 past a fixed one.
  void scatter(BlockBuffer<T, N>& buffer, int dim) const {
    const bool periodic = grid_->boundary(dim).kind == Boundary::Kind::Periodic;
    auto copy_in = [&](auto... idx) {
      const std::array<long long, N> local{idx...};
      const std::array<long long, N> global = global_index(buffer, local);
      const bool inside = global[dim] >= 0 && global[dim] < grid_->extent(dim);
      at_index<N>(buffer, local) = (inside || periodic) ? at_index<N>(*grid_, global) : T(0);
    };
    loop_box(buffer.allocated(), copy_in);
  }

  void gather(const BlockBuffer<T, N>& buffer) const {
    auto copy_out = [&](auto... idx) {
      const std::array<long long, N> local{idx...};
      at_index<N>(*grid_, global_index(buffer, local)) = at_index<N>(buffer, local);
    };
    loop_box(Box<N>{std::array<int, N>{}, buffer.extent}, copy_out);
  }

  std::remove_reference_t<Arg>* grid_;
  int parameter_;
  std::unique_ptr<BlockSet<T, N>> set_;                // this argument's symmetric buffer
  std::vector<std::unique_ptr<Block<T, N>>> handles_;  // [pe]: the parameter's handles
};

// Any other argument: one copy per PE; for a non-const T& parameter PE 0's copy is the result.
template <typename Param, typename Arg>
class ValueBinding {
  using Value = bare_t<Param>;
  static constexpr bool kResult =
      std::is_lvalue_reference_v<Param> && !std::is_const_v<std::remove_reference_t<Param>>;
  static_assert(!is_grid<Value>::value,
                "stencilc::spmd: SPMD programs take Block<T, N>& parameters, not Grid<T, N>");
  static_assert(!is_grid<bare_t<Arg>>::value,
                "stencilc::spmd: a Grid argument needs a Block<T, N>& parameter");
  static_assert(!std::is_rvalue_reference_v<Param>,
                "stencilc::spmd: SPMD program parameters cannot be rvalue references");
  static_assert(!kResult || (std::is_lvalue_reference_v<Arg> &&
                             std::is_same_v<std::remove_reference_t<Arg>, Value>),
                "stencilc::spmd: a T& parameter needs a non-const variable of type T as argument");

 public:
  ValueBinding(Arg&& arg, Split, int pes, int) : arg_(&arg) {
    copies_.reserve(pes);
    for (int pe = 0; pe < pes; ++pe) copies_.push_back(Slot{Value(arg)});
  }

  Value& get(int pe) { return copies_[pe].value; }

  void check() const {}

  void finish() {
    if constexpr (kResult) *arg_ = copies_[0].value;
  }

 private:
  struct Slot {  // not std::vector<bool>'s proxies when Value is bool
    Value value;
  };
  std::remove_reference_t<Arg>* arg_;
  std::vector<Slot> copies_;
};

template <typename Param, typename Arg>
using binding_t = std::conditional_t<is_block<bare_t<Param>>::value, BlockBinding<Param, Arg>,
                                     ValueBinding<Param, Arg>>;

template <typename... Params, typename... Args, std::size_t... I>
void run_spmd(void (*program)(Params...), Split split, std::index_sequence<I...>, Args&&... args) {
  if (PeContext* caller = current_pe_slot()) {
    fatal("stencilc::spmd called inside an SPMD program (on PE %d)", caller->pe);
  }
  if (split.dim < 0 || split.halo < 0) {
    fatal("stencilc::spmd: Split{%d, %d}: the dimension and the halo width must not be negative",
          split.dim, split.halo);
  }
  const int pes = configured_pes();
  SpmdRun run(pes, wait_timeout_from_env());
  // Braces: the grids are split in parameter order (left to right), so errors name the first.
  std::tuple<binding_t<Params, Args>...> bindings{
      binding_t<Params, Args>(std::forward<Args>(args), split, pes, static_cast<int>(I) + 1)...};

  std::vector<std::thread> threads;
  threads.reserve(pes);
  for (int pe = 0; pe < pes; ++pe) {
    threads.emplace_back([&, pe] {
      PeContext me{&run, pe};
      current_pe_slot() = &me;
      program(std::get<I>(bindings).get(pe)...);
      current_pe_slot() = nullptr;
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Every mapping is checked before any grid is written.
  (std::get<I>(bindings).check(), ...);
  (std::get<I>(bindings).finish(), ...);
}

}  // namespace detail

// Runs `program` once per PE (configured_pes() of them) and waits for all; see the file comment
// for how arguments reach the PEs and come back.
namespace detail {

// Compiled builds (stencilc --target=host): the generated code registers each SC_SPMD_PROGRAM's
// launcher here, and stencilc::spmd runs it instead of the reference thread runner. Arguments
// travel type-erased: for a Block parameter a pointer to its Grid, for a T& parameter a pointer
// to the caller's variable, otherwise a pointer to the value converted to the parameter's type.
using CompiledSpmd = void (*)(Split, void* const* args);

inline std::vector<std::pair<const void*, CompiledSpmd>>& compiled_spmd_registry() {
  static std::vector<std::pair<const void*, CompiledSpmd>> registry;
  return registry;
}

inline bool register_compiled_spmd(const void* program, CompiledSpmd launch) {
  compiled_spmd_registry().emplace_back(program, launch);
  return true;
}

inline CompiledSpmd find_compiled_spmd(const void* program) {
  for (const auto& [p, launch] : compiled_spmd_registry())
    if (p == program) return launch;
  return nullptr;
}

template <typename Param, typename Arg>
class ErasedArg {
  using P = bare_t<Param>;
  static constexpr bool kBlock = is_block<P>::value;
  static constexpr bool kRef = std::is_lvalue_reference_v<Param> && !std::is_const_v<std::remove_reference_t<Param>>;
  using Value = std::conditional_t<kBlock || kRef, char, P>;

 public:
  explicit ErasedArg(Arg& arg) : arg_(const_cast<void*>(static_cast<const void*>(&arg))) {
    if constexpr (!kBlock && !kRef) value_ = static_cast<P>(arg);
  }
  void* get() { return kBlock || kRef ? arg_ : static_cast<void*>(&value_); }

 private:
  void* arg_;
  Value value_{};
};

template <typename... Params, typename... Args, std::size_t... I>
void run_compiled_spmd(CompiledSpmd launch, Split split, std::index_sequence<I...>, Args&... args) {
  std::tuple<ErasedArg<Params, Args>...> held{ErasedArg<Params, Args>(args)...};
  void* pointers[] = {std::get<I>(held).get()..., nullptr};
  launch(split, pointers);
}

}  // namespace detail

template <typename... Params, typename... Args>
void spmd(void (*program)(Params...), Split split, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "stencilc::spmd: pass exactly one argument per program parameter");
  if constexpr (sizeof...(Params) == sizeof...(Args)) {
    if (detail::CompiledSpmd launch = detail::find_compiled_spmd(reinterpret_cast<const void*>(program))) {
      detail::run_compiled_spmd<Params...>(launch, split, std::index_sequence_for<Args...>{}, args...);
      return;
    }
    detail::run_spmd(program, split, std::index_sequence_for<Args...>{},
                     std::forward<Args>(args)...);
  }
}

}  // namespace stencilc
