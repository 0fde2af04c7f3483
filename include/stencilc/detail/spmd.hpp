// The local view: what an SC_SPMD_PROGRAM sees on one processing element (PE).
//
// In the reference build the PEs of one stencilc::spmd call are threads of this process (see
// launch.hpp). Each has a Block handle for every global grid argument, referring to one symmetric
// buffer (swappable with stencilc::swap), the Signals it constructs, and the communication
// intrinsics below, which mirror the device runtime (NVSHMEM-like) one to one:
// puts complete before they return, so quiet() is only a fence. Every wait is bounded: after
// STENCILC_WAIT_TIMEOUT_MS (default 10 s) the waiting PE reports what it waited for and the
// process exits with status 3, so a deadlocked program fails instead of hanging.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "stencilc/detail/error.hpp"
#include "stencilc/detail/grid.hpp"

namespace stencilc {

class Signal;
template <typename T, int N>
class Block;

// Comparisons for signal_wait_until.
enum class Cmp { EQ, NE, GT, GE, LT, LE };

// ---------------------------------------------------------------------------------------------
// PEs, their shared state, bounded waiting
// ---------------------------------------------------------------------------------------------
namespace detail {

// What the PEs of one stencilc::spmd call share.
struct SpmdRun {
  SpmdRun(int pes, long long timeout_ms) : n_pes(pes), wait_timeout_ms(timeout_ms), signals(pes) {}

  const int n_pes;
  const long long wait_timeout_ms;
  // barrier_all: arrivals in this round, and the round number.
  std::atomic<int> barrier_arrived{0};
  std::atomic<std::uint64_t> barrier_generation{0};
  // signals[pe][k] is PE pe's k-th Signal (null once destroyed); k names the symmetric object.
  std::mutex signals_mutex;
  std::vector<std::vector<Signal*>> signals;
  // Timeouts: PEs inside bounded_wait, whether one gave up, how many others reported since.
  std::atomic<int> waiting{0};
  std::atomic<bool> exiting{false};
  std::atomic<int> reported{0};
};

// Who the calling thread is.
struct PeContext {
  SpmdRun* run;
  int pe;
};

inline PeContext*& current_pe_slot() {
  static thread_local PeContext* context = nullptr;
  return context;
}

inline PeContext& require_pe(const char* what) {
  PeContext* context = current_pe_slot();
  if (context == nullptr) {
    fatal("%s used outside an SPMD program (run one with stencilc::spmd)", what);
  }
  return *context;
}

inline long long wait_timeout_from_env() {
  return positive_int_from_env("STENCILC_WAIT_TIMEOUT_MS", 10000);
}

// Reports one PE's unfinished wait. The first PE to time out starts the shutdown; every other
// PE still waiting then reports too (a deadlock is best read from all sides) and the first one
// exits with status 3 once they have, or after a second.
[[noreturn]] inline void give_up_waiting(const PeContext& me, const std::string& what,
                                         long long waited_ms) {
  SpmdRun& run = *me.run;
  const bool first = !run.exiting.exchange(true);
  std::fflush(stdout);
  std::fprintf(
      stderr,
      "stencilc: error: PE %d of %d %s %lld ms in %s (limit STENCILC_WAIT_TIMEOUT_MS=%lld)\n",
      me.pe, run.n_pes, first ? "gave up after" : "was still waiting after", waited_ms,
      what.c_str(), run.wait_timeout_ms);
  std::fflush(stderr);
  if (first) {
    for (int i = 0; i < 1000 && run.reported.load() < run.waiting.load() - 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::exit(3);
  }
  ++run.reported;
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // the first PE exits
}

// Spins until done() holds. Yields early because PEs may outnumber cores; after the run's
// timeout, reports describe() and exits with status 3 (see give_up_waiting).
template <typename Done, typename Describe>
inline void bounded_wait(const PeContext& me, Done&& done, Describe&& describe) {
  using Clock = std::chrono::steady_clock;
  if (done()) return;
  SpmdRun& run = *me.run;
  ++run.waiting;
  const Clock::time_point start = Clock::now();
  for (unsigned long spins = 1;; ++spins) {
    if (done()) break;
    if (spins < 64) continue;
    std::this_thread::yield();
    if (spins % 64 != 0) continue;
    const long long waited_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if (waited_ms >= run.wait_timeout_ms || run.exiting.load()) {
      give_up_waiting(me, describe(), waited_ms);
    }
    if (waited_ms >= 2) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  --run.waiting;
}

// A reusable barrier over all PEs of the run (generation counter).
inline void barrier(const PeContext& me, const char* what) {
  SpmdRun& run = *me.run;
  const std::uint64_t generation = run.barrier_generation.load(std::memory_order_acquire);
  if (run.barrier_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == run.n_pes) {
    run.barrier_arrived.store(0, std::memory_order_relaxed);
    run.barrier_generation.store(generation + 1, std::memory_order_release);
    return;
  }
  bounded_wait(
      me, [&] { return run.barrier_generation.load(std::memory_order_acquire) != generation; },
      [&] {
        return format("%s (barrier #%llu): %d of %d PEs arrived", what,
                      static_cast<unsigned long long>(generation), run.barrier_arrived.load(),
                      run.n_pes);
      });
}

inline const char* cmp_name(Cmp cmp) {
  switch (cmp) {
    case Cmp::EQ:
      return "EQ";
    case Cmp::NE:
      return "NE";
    case Cmp::GT:
      return "GT";
    case Cmp::GE:
      return "GE";
    case Cmp::LT:
      return "LT";
    case Cmp::LE:
      return "LE";
  }
  return "?";
}

inline bool compare(std::uint64_t current, Cmp cmp, std::uint64_t value) {
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

struct SignalAccess;
struct BlockAccess;

template <int N>
inline std::string format_box(const Box<N>& box) {
  std::string text;
  for (int d = 0; d < N; ++d) {
    if (d > 0) text += " x ";
    text += format("[%d, %d)", box.lo[d], box.hi[d]);
  }
  return text;
}

// "5" in 1D, "(5, 3)" otherwise.
template <int N>
inline std::string format_ints(const std::array<int, N>& values) {
  if (N == 1) return format("%d", values[0]);
  std::string text = "(";
  for (int d = 0; d < N; ++d) text += format(d > 0 ? ", %d" : "%d", values[d]);
  return text + ")";
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Signal
// ---------------------------------------------------------------------------------------------

// A 64-bit counter in symmetric memory, starting at 0. Constructing and destroying one are
// collective: every PE constructs its Signals in the same order, and the k-th Signal of PE p is
// the same symmetric object as the k-th Signal of PE q. The constructor and the destructor end
// or begin with a barrier, so no PE can signal a peer's Signal that does not exist (yet/any more).
class Signal {
 public:
  Signal() : me_(&detail::require_pe("stencilc::Signal")) {
    {
      std::lock_guard<std::mutex> lock(me_->run->signals_mutex);
      std::vector<Signal*>& mine = me_->run->signals[me_->pe];
      index_ = static_cast<int>(mine.size());
      mine.push_back(this);
    }
    detail::barrier(*me_, "constructing a stencilc::Signal");
  }
  ~Signal() {
    detail::barrier(*me_, "destroying a stencilc::Signal");
    std::lock_guard<std::mutex> lock(me_->run->signals_mutex);
    std::vector<Signal*>& mine = me_->run->signals[me_->pe];
    mine[index_] = nullptr;
    while (!mine.empty() && mine.back() == nullptr) mine.pop_back();
  }
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

 private:
  friend struct detail::SignalAccess;
  const detail::PeContext* me_;
  int index_ = -1;
  std::atomic<std::uint64_t> value_{0};
};

namespace detail {

struct SignalAccess {
  // `sig` as the calling PE's own Signal.
  static std::atomic<std::uint64_t>& local(Signal& sig, const PeContext& me, const char* what) {
    if (sig.me_ != &me) {
      fatal("%s on PE %d: Signal #%d belongs to PE %d", what, me.pe, sig.index_, sig.me_->pe);
    }
    return sig.value_;
  }
  // The same symmetric Signal on PE `pe`.
  static std::atomic<std::uint64_t>& remote(Signal& sig, const PeContext& me, int pe) {
    local(sig, me, "stencilc::put_signal");
    std::lock_guard<std::mutex> lock(me.run->signals_mutex);
    const std::vector<Signal*>& theirs = me.run->signals[pe];
    if (sig.index_ >= static_cast<int>(theirs.size()) || theirs[sig.index_] == nullptr) {
      fatal(
          "stencilc::put_signal on PE %d: PE %d has no Signal #%d (every PE must construct "
          "its Signals in the same order)",
          me.pe, pe, sig.index_);
    }
    return theirs[sig.index_]->value_;
  }
  static int index(const Signal& sig) { return sig.index_; }
};

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Symmetric buffers, Block handles and Regions
// ---------------------------------------------------------------------------------------------
//
// As on NVSHMEM's symmetric heap, each Grid argument of a stencilc::spmd call has one symmetric
// buffer (detail::BlockSet): one detail::BlockBuffer per PE, that PE's layout and cells, owned
// by the run. An SPMD program sees Block handles, one per Block parameter and PE, each referring
// to one symmetric buffer. stencilc::swap exchanges the buffers two handles of the calling PE
// refer to (what generated code does with two local pointers); put_signal addresses buffers, not
// handles: its destination is PE pe's buffer of the symmetric buffer that dst was made from.

template <typename T, int N>
class Region;

namespace detail {

// One PE's buffer of a symmetric block: its layout and its owned and halo cells.
template <typename T, int N>
struct BlockBuffer {
  BlockBuffer(int pe_, std::array<int, N> extent_, std::array<int, N> halo_,
              std::array<int, N> origin_, std::array<int, N> global_extent_)
      : pe(pe_), extent(extent_), halo(halo_), origin(origin_), global_extent(global_extent_) {
    std::array<int, N> allocated_extent{};
    for (int d = 0; d < N; ++d) allocated_extent[d] = extent[d] + 2 * halo[d];
    strides = row_major_strides<N>(allocated_extent);
    data.assign(strides[0] * static_cast<std::size_t>(allocated_extent[0]), T(0));
  }
  BlockBuffer(const BlockBuffer&) = delete;
  BlockBuffer& operator=(const BlockBuffer&) = delete;

  // Local indices, checked against the halo'd extents.
  template <typename... Idx>
  T& operator()(Idx... idx) {
    return data[offset(collect_index<N>(idx...))];
  }
  template <typename... Idx>
  const T& operator()(Idx... idx) const {
    return data[offset(collect_index<N>(idx...))];
  }

  std::size_t offset(const std::array<long long, N>& idx) const {
    std::size_t off = 0;
    for (int d = 0; d < N; ++d) {
      const long long i = idx[d] + halo[d];
      if (static_cast<unsigned long long>(i) >=
          static_cast<unsigned long long>(extent[d] + 2 * halo[d])) {
        fatal(
            "Block<%s, %d> of PE %d: local index %lld out of range [%d, %d) in dimension "
            "%d (owned [0, %d), halo %d)",
            type_name<T>(), N, pe, idx[d], -halo[d], extent[d] + halo[d], d, extent[d], halo[d]);
      }
      off += static_cast<std::size_t>(i) * strides[d];
    }
    return off;
  }

  // Owned and halo cells.
  Box<N> allocated() const {
    Box<N> box{};
    for (int d = 0; d < N; ++d) {
      box.lo[d] = -halo[d];
      box.hi[d] = extent[d] + halo[d];
    }
    return box;
  }

  bool same_layout(const BlockBuffer& other) const {
    return extent == other.extent && halo == other.halo && origin == other.origin &&
           global_extent == other.global_extent;
  }

  const int pe;
  const std::array<int, N> extent, halo, origin, global_extent;
  std::array<std::size_t, N> strides{};
  std::vector<T> data;
};

// A symmetric buffer: every PE's BlockBuffer of one grid argument of a stencilc::spmd call. The
// run owns it; messages name it after the parameter whose grid it was made from.
template <typename T, int N>
struct BlockSet {
  std::vector<std::unique_ptr<BlockBuffer<T, N>>> buffers;  // [pe]
  int parameter = 0;                                        // 1-based, among the parameters
};

}  // namespace detail

// One PE's handle to a symmetric buffer: its part of a global grid, in local indices. The owned
// points are [0, extent(d)), the halo points [-halo(d), 0) and [extent(d), extent(d) + halo(d)).
// Global index = origin(d) + local. Accesses are bounds-checked against the halo'd extents;
// nothing wraps. Handles exist only inside a stencilc::spmd run (one per Block parameter and
// PE) and are neither copyable nor movable, so std::swap does not apply to them:
// stencilc::swap(a, b) exchanges the symmetric buffers two handles refer to.
template <typename T, int N>
class Block {
 public:
  using value_type = T;
  static constexpr int rank = N;

  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  template <typename... Idx>
  T& operator()(Idx... idx) {
    return (*local_)(idx...);
  }
  template <typename... Idx>
  const T& operator()(Idx... idx) const {
    const detail::BlockBuffer<T, N>& local = *local_;
    return local(idx...);
  }

  int extent(int d) const { return local_->extent[check_dim(d)]; }
  int halo(int d) const { return local_->halo[check_dim(d)]; }
  int origin(int d) const { return local_->origin[check_dim(d)]; }
  int global_extent(int d) const { return local_->global_extent[check_dim(d)]; }
  // The owned extent and origin of this handle's symmetric buffer on PE `pe` (slabs may differ
  // by one).
  int extent_on(int pe, int d) const { return buffer_on(pe).extent[check_dim(d)]; }
  int origin_on(int pe, int d) const { return buffer_on(pe).origin[check_dim(d)]; }

  Box<N> owned() const { return Box<N>{std::array<int, N>{}, local_->extent}; }

  // A box of the buffer this handle refers to now, halo cells allowed (the region keeps naming
  // that buffer after a swap). As a put_signal destination the box is read in the target PE's
  // local indices and checked against that PE's buffer.
  Region<T, N> region(const Box<N>& box) const {
    for (int d = 0; d < N; ++d) {
      if (box.hi[d] < box.lo[d]) {
        detail::fatal("Block::region on PE %d: inverted box %s", pe_,
                      detail::format_box<N>(box).c_str());
      }
    }
    return Region<T, N>(this, set_, box);
  }

 private:
  friend struct detail::BlockAccess;

  Block(detail::BlockSet<T, N>* set, int pe, int parameter)
      : set_(set), local_(set->buffers[pe].get()), pe_(pe), parameter_(parameter) {}

  int check_dim(int d) const {
    if (d < 0 || d >= N)
      detail::fatal("Block<%s, %d>: no dimension %d", detail::type_name<T>(), N, d);
    return d;
  }

  const detail::BlockBuffer<T, N>& buffer_on(int pe) const {
    if (pe < 0 || pe >= static_cast<int>(set_->buffers.size())) {
      detail::fatal("Block on PE %d: there is no PE %d (n_pes() = %d)", pe_, pe,
                    static_cast<int>(set_->buffers.size()));
    }
    return *set_->buffers[pe];
  }

  detail::BlockSet<T, N>* set_;       // the symmetric buffer this handle refers to now
  detail::BlockBuffer<T, N>* local_;  // its buffer on this PE: set_->buffers[pe_]
  int pe_;
  int parameter_;  // 1-based: the program parameter this handle is bound to
};

// A box of a symmetric buffer (the one its block referred to when the region was made): the
// source or destination of put_signal.
template <typename T, int N>
class Region {
 public:
  const Block<T, N>& block() const { return *block_; }
  const Box<N>& box() const { return box_; }

 private:
  friend class Block<T, N>;
  friend struct detail::BlockAccess;
  Region(const Block<T, N>* block, detail::BlockSet<T, N>* set, const Box<N>& box)
      : block_(block), set_(set), box_(box) {}

  const Block<T, N>* block_;
  detail::BlockSet<T, N>* set_;
  Box<N> box_;
};

namespace detail {

struct BlockAccess {
  // PE `pe`'s handle of parameter `parameter`, referring to `set` at first.
  template <typename T, int N>
  static std::unique_ptr<Block<T, N>> make(BlockSet<T, N>* set, int pe, int parameter) {
    return std::unique_ptr<Block<T, N>>(new Block<T, N>(set, pe, parameter));
  }
  template <typename T, int N>
  static int pe(const Block<T, N>& block) {
    return block.pe_;
  }
  template <typename T, int N>
  static int parameter(const Block<T, N>& block) {
    return block.parameter_;
  }
  // The symmetric buffer a handle refers to now, and the one a region was made from.
  template <typename T, int N>
  static BlockSet<T, N>* set(const Block<T, N>& block) {
    return block.set_;
  }
  template <typename T, int N>
  static BlockSet<T, N>* set(const Region<T, N>& region) {
    return region.set_;
  }

  // "parameter 2", or "parameter 2 (now the buffer of parameter 1)" after swaps.
  template <typename T, int N>
  static std::string describe(const Block<T, N>& block) {
    std::string text = format("parameter %d", block.parameter_);
    if (block.set_->parameter != block.parameter_) {
      text += format(" (now the buffer of parameter %d)", block.set_->parameter);
    }
    return text;
  }

  // stencilc::swap: checks, then exchanges the buffers of two handles of the calling PE.
  template <typename T, int N>
  static void swap(Block<T, N>& a, Block<T, N>& b, const PeContext& me) {
    for (const Block<T, N>* handle : {&a, &b}) {
      if (handle->pe_ != me.pe) {
        fatal("stencilc::swap on PE %d: the block of %s belongs to PE %d", me.pe,
              describe(*handle).c_str(), handle->pe_);
      }
    }
    if (a.set_ == b.set_) return;  // a handle swapped with itself
    const int pes = static_cast<int>(a.set_->buffers.size());
    for (int k = 0; k < pes; ++k) {
      const int pe = (me.pe + k) % pes;  // this PE's layouts first
      const BlockBuffer<T, N>& x = *a.set_->buffers[pe];
      const BlockBuffer<T, N>& y = *b.set_->buffers[pe];
      if (x.same_layout(y)) continue;
      fatal(
          "stencilc::swap on PE %d: the blocks of %s and %s have different layouts on PE %d: "
          "local extents %s vs %s, halos %s vs %s, origins %s vs %s, global extents %s vs %s "
          "(only blocks of grids with the same shape can be swapped)",
          me.pe, describe(a).c_str(), describe(b).c_str(), pe, format_ints<N>(x.extent).c_str(),
          format_ints<N>(y.extent).c_str(), format_ints<N>(x.halo).c_str(),
          format_ints<N>(y.halo).c_str(), format_ints<N>(x.origin).c_str(),
          format_ints<N>(y.origin).c_str(), format_ints<N>(x.global_extent).c_str(),
          format_ints<N>(y.global_extent).c_str());
    }
    std::swap(a.set_, b.set_);
    std::swap(a.local_, b.local_);
  }
};

template <typename T, int N>
inline void check_region_inside(const Box<N>& box, const BlockBuffer<T, N>& buffer,
                                const BlockSet<T, N>& set, const char* role, int me) {
  const Box<N> bounds = buffer.allocated();
  for (int d = 0; d < N; ++d) {
    if (box.lo[d] < bounds.lo[d] || box.hi[d] > bounds.hi[d]) {
      fatal(
          "stencilc::put_signal on PE %d: the %s box %s is outside PE %d's block %s "
          "(the buffer of parameter %d)",
          me, role, format_box<N>(box).c_str(), buffer.pe, format_box<N>(bounds).c_str(),
          set.parameter);
    }
  }
}

}  // namespace detail

// Exchanges the symmetric buffers that two Block handles of the calling PE refer to, in O(1) and
// on this PE only: a program swaps on every PE in the same step (generated code swaps two local
// pointers). The two buffers must have the same layout on every PE (extents, halos, origins:
// blocks of grids of the same shape); otherwise a fatal error. Blocks are not movable, so this,
// not std::swap, is how blocks swap.
template <typename T, int N>
void swap(Block<T, N>& a, Block<T, N>& b) {
  detail::BlockAccess::swap(a, b, detail::require_pe("stencilc::swap of blocks"));
}

// Everything else that names two blocks: a compile-time error that says why. (The stencilc front
// end reports these swaps with its own diagnostics.)
template <typename T, int N, typename U, int M>
void swap(const Block<T, N>&, const Block<U, M>&) {
#if !defined(__STENCILC_FRONTEND__)
  static_assert(!(std::is_same_v<T, U> && N == M),
                "stencilc::swap: a const Block (a read-only parameter) cannot be swapped");
  static_assert(std::is_same_v<T, U> && N == M,
                "stencilc::swap: the blocks differ in element type or rank");
#endif
}

// ---------------------------------------------------------------------------------------------
// Communication intrinsics
// ---------------------------------------------------------------------------------------------

inline int my_pe() {
  return detail::require_pe("stencilc::my_pe()").pe;
}
inline int n_pes() {
  return detail::require_pe("stencilc::n_pes()").run->n_pes;
}

// Copies `src` (a region of one of this PE's blocks) into the same-shaped region `dst` on PE
// `pe`: into PE pe's buffer of the symmetric buffer that dst was made from (not of the handle:
// after a swap on PE pe its other handle may refer to that buffer). Then sets `sig` on PE `pe`
// to `value`, with release ordering after the data. Blocking in the reference build.
template <typename T, int N>
void put_signal(const Region<T, N>& dst, const Region<T, N>& src, Signal& sig, std::uint64_t value,
                int pe) {
  const detail::PeContext& me = detail::require_pe("stencilc::put_signal");
  using detail::BlockAccess;
  if (pe < 0 || pe >= me.run->n_pes) {
    detail::fatal("stencilc::put_signal on PE %d: there is no PE %d (n_pes() = %d)", me.pe, pe,
                  me.run->n_pes);
  }
  if (BlockAccess::pe(src.block()) != me.pe || BlockAccess::pe(dst.block()) != me.pe) {
    detail::fatal("stencilc::put_signal on PE %d: regions must be of this PE's own blocks", me.pe);
  }
  for (int d = 0; d < N; ++d) {
    if (dst.box().hi[d] - dst.box().lo[d] != src.box().hi[d] - src.box().lo[d]) {
      detail::fatal("stencilc::put_signal on PE %d: the shapes differ: destination %s, source %s",
                    me.pe, detail::format_box<N>(dst.box()).c_str(),
                    detail::format_box<N>(src.box()).c_str());
    }
  }
  const detail::BlockSet<T, N>& from_set = *BlockAccess::set(src);
  const detail::BlockSet<T, N>& to_set = *BlockAccess::set(dst);
  const detail::BlockBuffer<T, N>& from = *from_set.buffers[me.pe];
  detail::BlockBuffer<T, N>& to = *to_set.buffers[pe];
  detail::check_region_inside(src.box(), from, from_set, "source", me.pe);
  detail::check_region_inside(dst.box(), to, to_set, "destination", me.pe);

  // Through a buffer: source and destination may overlap when pe == my_pe().
  std::vector<T> buffer;
  auto gather = [&](auto... idx) { buffer.push_back(from(idx...)); };
  detail::loop_box(src.box(), gather);
  std::size_t next = 0;
  auto scatter = [&](auto... idx) { to(idx...) = buffer[next++]; };
  detail::loop_box(dst.box(), scatter);

  detail::SignalAccess::remote(sig, me, pe).store(value, std::memory_order_release);
}

// Waits until `sig` (on this PE) compares to `value` as `cmp` says; acquire ordering. Bounded by
// STENCILC_WAIT_TIMEOUT_MS: then prints the wait and the signal's value and exits with status 3.
inline void signal_wait_until(Signal& sig, Cmp cmp, std::uint64_t value) {
  const detail::PeContext& me = detail::require_pe("stencilc::signal_wait_until");
  std::atomic<std::uint64_t>& current =
      detail::SignalAccess::local(sig, me, "stencilc::signal_wait_until");
  detail::bounded_wait(
      me, [&] { return detail::compare(current.load(std::memory_order_acquire), cmp, value); },
      [&] {
        return detail::format("signal_wait_until(signal #%d, Cmp::%s, %llu): the signal is %llu",
                              detail::SignalAccess::index(sig), detail::cmp_name(cmp),
                              static_cast<unsigned long long>(value),
                              static_cast<unsigned long long>(current.load()));
      });
}

// Completes this PE's earlier puts. They complete on return already here: a fence suffices.
inline void quiet() {
  detail::require_pe("stencilc::quiet");
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Waits for all PEs (bounded like signal_wait_until); earlier puts are complete after it.
inline void barrier_all() {
  detail::barrier(detail::require_pe("stencilc::barrier_all"), "barrier_all");
}

}  // namespace stencilc
