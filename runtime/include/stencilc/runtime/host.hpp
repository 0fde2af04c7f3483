// The host backend of the stencilc device communication runtime: the PEs are threads of one
// process, the symmetric heap is one allocation per PE per sym_alloc call, puts are memcpy and
// signals are 64-bit atomics. Generated code for the host target calls exactly the operations
// the GPU backends offer (NVSHMEM: putmem_signal_nbi, signal_wait_until, quiet, barrier_all;
// p2p: peer pointers and atomic flags), so the schedule can be run and checked before GPUs.
// docs/RUNTIME.md maps each call onto the GPU backends.
//
// Every wait is bounded by wait_timeout_ms(): a deadlocked schedule fails with a report from
// every waiting PE and exit status 3 instead of hanging.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "stencilc/runtime/common.hpp"

namespace stencilc::rt {

class Pe;

// What the PEs of one run share: the symmetric heap, the barrier, the allreduce slots and the
// timeout state. Made by run_team; generated code only sees Pe.
class Team {
 public:
  explicit Team(int n_pes)
      : n_pes_(checked_pe_count(n_pes)), timeout_ms_(wait_timeout_ms()), reduce_(2 * n_pes_) {}
  ~Team() {
    for (const std::unique_ptr<SymAllocation>& allocation : heap_) {
      for (unsigned char* copy : allocation->copies) {
        ::operator delete(copy, std::align_val_t(kSymAlignment));
      }
    }
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int n() const { return n_pes_; }
  long long timeout_ms() const { return timeout_ms_; }

  static constexpr std::size_t kSymAlignment = 64;

 private:
  friend class Pe;

  static int checked_pe_count(int n_pes) {
    if (n_pes < 1) fatal("cannot run %d PEs: the PE count must be at least 1", n_pes);
    return n_pes;
  }

  // One collective sym_alloc: every PE's copy, allocated together by the first PE to arrive.
  struct SymAllocation {
    std::size_t bytes;
    int first_pe;
    std::vector<unsigned char*> copies;  // [pe]; never changes once made
  };
  // One PE's slot of one allreduce round, on its own cache line.
  struct alignas(64) ReduceSlot {
    unsigned char bytes[16];
  };

  const int n_pes_;
  const long long timeout_ms_;
  std::mutex heap_mutex_;
  std::vector<std::unique_ptr<SymAllocation>> heap_;  // in allocation order; under heap_mutex_
  std::atomic<int> barrier_arrived_{0};
  std::atomic<std::uint64_t> barrier_generation_{0};
  std::vector<ReduceSlot> reduce_;  // [round parity * n_pes + pe]
  // A wait timed out; PEs inside a bounded wait; of those, how many have reported since.
  std::atomic<bool> timed_out_{false};
  std::atomic<int> waiting_{0};
  std::atomic<int> reported_{0};
};

// One PE's handle, passed to the body of run_team (and by generated code to everything it
// calls). Not shared between threads: only its own PE uses it.
class Pe {
 public:
  Pe(Team& team, int id) : team_(&team), id_(id) {}
  Pe(const Pe&) = delete;
  Pe& operator=(const Pe&) = delete;

  int id() const { return id_; }
  int n() const { return team_->n_pes_; }

  // ---- Symmetric heap -------------------------------------------------------------------------

  // Collective: every PE calls it in the same order with the same size. Returns this PE's copy,
  // zero-filled and 64-byte aligned. Ends with a barrier, so no PE can reach a peer's copy
  // before it exists. Freed when the team ends.
  void* sym_alloc(std::size_t bytes) {
    const std::size_t index = heap_.size();
    const Team::SymAllocation* allocation = find_or_make_allocation(index, bytes);
    heap_.push_back(SymView{allocation->copies[id_], bytes > 0 ? bytes : 1, &allocation->copies});
    barrier_all("the barrier that ends sym_alloc");
    return allocation->copies[id_];
  }

  template <class T>
  T* sym_alloc_array(std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>,
                  "symmetric memory holds trivially copyable data");
    static_assert(alignof(T) <= Team::kSymAlignment, "over-aligned type");
    if (count > SIZE_MAX / sizeof(T)) fatal("sym_alloc_array: %zu elements overflow", count);
    return static_cast<T*>(sym_alloc(count * sizeof(T)));
  }

  // The same symmetric object on PE `pe`. `local_sym` must point into this PE's copy of a
  // symmetric allocation.
  template <class T>
  T* remote(T* local_sym, int pe) {
    return reinterpret_cast<T*>(translate(local_sym, 1, pe, "remote"));
  }

  // ---- Puts and signals -----------------------------------------------------------------------

  // Copies `bytes` from `src` (any memory of this PE) to the symmetric `dst_sym` on PE `pe`.
  // Complete on return here; the GPU backends complete it at quiet() or at a signal.
  void put(void* dst_sym, const void* src, std::size_t bytes, int pe) {
    unsigned char* dst = translate(dst_sym, bytes, pe, "put");
    if (bytes > 0) std::memmove(dst, src, bytes);
  }

  // put(), then sets the symmetric signal `sig_sym` on PE `pe` to `value` with release ordering:
  // a PE that sees the value with an acquire load (wait_until) sees the data.
  void put_signal(void* dst_sym, const void* src, std::size_t bytes, std::uint64_t* sig_sym,
                  std::uint64_t value, int pe) {
    std::atomic<std::uint64_t>& signal = signal_on(sig_sym, pe, "put_signal");
    put(dst_sym, src, bytes, pe);
    signal.store(value, std::memory_order_release);
  }

  // Sets the symmetric signal `sig_sym` on PE `pe` to `value` (release: earlier puts and stores
  // of this PE are visible to whoever acquires the value).
  void signal_set(std::uint64_t* sig_sym, std::uint64_t value, int pe) {
    signal_on(sig_sym, pe, "signal_set").store(value, std::memory_order_release);
  }

  // This PE's value of the symmetric signal `sig_sym` (acquire).
  std::uint64_t signal_fetch(std::uint64_t* sig_sym) {
    return signal_on(sig_sym, id_, "signal_fetch").load(std::memory_order_acquire);
  }

  // Waits until this PE's signal `sig_sym` compares to `value` as `cmp` says (acquire). `what`
  // names the wait in the timeout report.
  void wait_until(std::uint64_t* sig_sym, Cmp cmp, std::uint64_t value, const char* what) {
    const std::atomic<std::uint64_t>& signal = signal_on(sig_sym, id_, "wait_until");
    bounded_wait([&] { return compare(signal.load(std::memory_order_acquire), cmp, value); },
                 [&] {
                   return format("%s: signal is %llu, waiting for %s %llu", what,
                                 static_cast<unsigned long long>(signal.load()), cmp_symbol(cmp),
                                 static_cast<unsigned long long>(value));
                 });
  }

  // Completes this PE's earlier puts. They are complete on return here, so a release fence is
  // all that is left to do. (ThreadSanitizer does not model fences and the release stores of the
  // signals already order everything, so TSan builds skip it.)
  void quiet() {
#if !defined(__SANITIZE_THREAD__)
    std::atomic_thread_fence(std::memory_order_release);
#endif
  }

  // Waits until every PE has arrived (bounded). Everything a PE did before is visible to every
  // PE after.
  void barrier_all(const char* what = "barrier_all") {
    Team& team = *team_;
    const std::uint64_t generation = team.barrier_generation_.load(std::memory_order_acquire);
    // acq_rel: the last PE to arrive acquires every other PE's release, then releases them all.
    if (team.barrier_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == team.n_pes_) {
      team.barrier_arrived_.store(0, std::memory_order_relaxed);
      team.barrier_generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    bounded_wait(
        [&] { return team.barrier_generation_.load(std::memory_order_acquire) != generation; },
        [&] {
          return format("%s (barrier #%llu): %d of %d PEs arrived", what,
                        static_cast<unsigned long long>(generation), team.barrier_arrived_.load(),
                        team.n_pes_);
        });
  }

  // Combines every PE's `value`, in PE order 0..n-1, so every PE gets the bit-identical result
  // and a run gives the same result every time. Collective.
  template <class T>
  T allreduce(T value, ReduceOp op) {
    static_assert(std::is_arithmetic_v<T> && sizeof(T) <= sizeof(Team::ReduceSlot::bytes),
                  "allreduce of a scalar");
    Team& team = *team_;
    // Two sets of slots, alternating: a PE can only reach round r + 2 after the barrier of round
    // r + 1, which every PE passes only after reading the slots of round r.
    const int round = static_cast<int>(reduce_rounds_++ & 1);
    Team::ReduceSlot* slots = &team.reduce_[static_cast<std::size_t>(round) * team.n_pes_];
    std::memcpy(slots[id_].bytes, &value, sizeof(T));
    barrier_all("allreduce");
    T result;
    std::memcpy(&result, slots[0].bytes, sizeof(T));
    for (int pe = 1; pe < team.n_pes_; ++pe) {
      T next;
      std::memcpy(&next, slots[pe].bytes, sizeof(T));
      result = combine(result, next, op);
    }
    return result;
  }

 private:
  // This PE's view of one symmetric allocation: private, so lookups need no lock.
  struct SymView {
    unsigned char* local;
    std::size_t bytes;
    const std::vector<unsigned char*>* copies;
  };

  const Team::SymAllocation* find_or_make_allocation(std::size_t index, std::size_t bytes) {
    Team& team = *team_;
    std::lock_guard<std::mutex> lock(team.heap_mutex_);
    if (index == team.heap_.size()) {
      auto allocation = std::make_unique<Team::SymAllocation>();
      allocation->bytes = bytes;
      allocation->first_pe = id_;
      const std::size_t size = bytes > 0 ? bytes : 1;  // distinct addresses even for 0 bytes
      for (int pe = 0; pe < team.n_pes_; ++pe) {
        void* copy = ::operator new(size, std::align_val_t(Team::kSymAlignment), std::nothrow);
        if (copy == nullptr) {
          fatal("sym_alloc #%zu: cannot allocate %zu bytes for each of %d PEs", index, bytes,
                team.n_pes_);
        }
        std::memset(copy, 0, size);
        allocation->copies.push_back(static_cast<unsigned char*>(copy));
      }
      team.heap_.push_back(std::move(allocation));
    }
    const Team::SymAllocation* allocation = team.heap_[index].get();
    if (allocation->bytes != bytes) {
      fatal(
          "sym_alloc #%zu: PE %d asks for %zu bytes but PE %d asked for %zu bytes (every PE "
          "must make the same symmetric allocations in the same order)",
          index, id_, bytes, allocation->first_pe, allocation->bytes);
    }
    return allocation;
  }

  // The address on PE `pe` of [p, p + bytes) in this PE's copy of a symmetric allocation.
  unsigned char* translate(const void* p, std::size_t bytes, int pe, const char* operation) {
    if (pe < 0 || pe >= team_->n_pes_) {
      fatal("%s on PE %d: there is no PE %d (the team has %d PEs)", operation, id_, pe,
            team_->n_pes_);
    }
    const auto* address = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < heap_.size(); ++k) {
      // Most calls hit the allocation of the previous call: start there.
      const std::size_t index = (last_hit_ + k) % heap_.size();
      const SymView& view = heap_[index];
      if (address < view.local || address >= view.local + view.bytes) continue;
      const std::size_t offset = static_cast<std::size_t>(address - view.local);
      if (bytes > view.bytes - offset) {
        fatal(
            "%s on PE %d: %zu bytes at offset %zu overrun symmetric allocation #%zu of %zu "
            "bytes",
            operation, id_, bytes, offset, index, view.bytes);
      }
      last_hit_ = index;
      return (*view.copies)[pe] + offset;
    }
    fatal("%s on PE %d: %p is not in this PE's symmetric heap (allocate with sym_alloc)", operation,
          id_, p);
  }

  std::atomic<std::uint64_t>& signal_on(std::uint64_t* sig_sym, int pe, const char* operation) {
    // The API takes uint64_t* like NVSHMEM; in memory a signal is a lock-free atomic of the same
    // size and alignment (C++20 would say std::atomic_ref).
    static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t) &&
                      alignof(std::atomic<std::uint64_t>) == alignof(std::uint64_t) &&
                      std::atomic<std::uint64_t>::is_always_lock_free,
                  "signals must be plain 64-bit words");
    if (reinterpret_cast<std::uintptr_t>(sig_sym) % alignof(std::uint64_t) != 0) {
      fatal("%s on PE %d: signal %p is not 8-byte aligned", operation, id_,
            static_cast<void*>(sig_sym));
    }
    unsigned char* address = translate(sig_sym, sizeof(std::uint64_t), pe, operation);
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(address);
  }

  // Spins until done(), then yields, then sleeps a little (PEs may outnumber cores). After the
  // team's timeout reports describe() and ends the run with status 3; see give_up.
  template <class Done, class Describe>
  void bounded_wait(Done&& done, Describe&& describe) {
    using Clock = std::chrono::steady_clock;
    if (done()) return;
    Team& team = *team_;
    team.waiting_.fetch_add(1, std::memory_order_relaxed);
    const Clock::time_point start = Clock::now();
    for (unsigned long spins = 1; !done(); ++spins) {
      if (spins < 64) continue;
      std::this_thread::yield();
      if (spins % 64 != 0) continue;
      const long long waited_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      if (waited_ms >= team.timeout_ms_ || team.timed_out_.load(std::memory_order_acquire)) {
        give_up(describe(), waited_ms);
      }
      if (waited_ms >= 2) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    team.waiting_.fetch_sub(1, std::memory_order_relaxed);
  }

  // A deadlock is best read from all sides: the first PE to time out reports its wait, waits
  // (up to a second) until every other waiting PE has reported its own, then exits with 3.
  [[noreturn]] void give_up(const std::string& what, long long waited_ms) {
    Team& team = *team_;
    const bool first = !team.timed_out_.exchange(true, std::memory_order_acq_rel);
    report_error("PE %d of %d waited %lld ms for %s", id_, team.n_pes_, waited_ms, what.c_str());
    if (!first) {
      team.reported_.fetch_add(1, std::memory_order_acq_rel);
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // the first PE exits
    }
    for (int i = 0; i < 1000 && team.reported_.load(std::memory_order_acquire) <
                                    team.waiting_.load(std::memory_order_relaxed) - 1;
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    report_error(
        "giving up after STENCILC_WAIT_TIMEOUT_MS=%lld ms: the PEs above are "
        "deadlocked or too slow",
        team.timeout_ms_);
    exit_process(3);
  }

  Team* team_;
  int id_;
  std::vector<SymView> heap_;  // in allocation order, like Team::heap_
  std::size_t last_hit_ = 0;
  std::uint64_t reduce_rounds_ = 0;
};

// Runs `body` on n_pes PEs, one thread each, and returns when all have returned. A fatal error
// or a timeout on any PE ends the process.
inline void run_team(int n_pes, const std::function<void(Pe&)>& body) {
  Team team(n_pes);  // checks n_pes
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(n_pes));
  for (int id = 0; id < n_pes; ++id) {
    detail::live_pe_threads().fetch_add(1, std::memory_order_acq_rel);
    try {
      threads.emplace_back([&team, &body, id] {
        Pe pe(team, id);
        try {
          body(pe);
        } catch (const std::exception& e) {
          fatal("PE %d of %d: uncaught exception: %s", id, team.n(), e.what());
        } catch (...) {
          fatal("PE %d of %d: uncaught exception", id, team.n());
        }
      });
    } catch (const std::system_error& e) {
      fatal("cannot start the thread of PE %d of %d: %s", id, n_pes, e.what());
    }
  }
  for (std::thread& thread : threads) thread.join();
  detail::live_pe_threads().fetch_sub(n_pes, std::memory_order_acq_rel);
}

}  // namespace stencilc::rt
