// The host-controlled schedule's command queues (a GPU's commands, appended by the launcher's
// thread, issued by the GPU's worker thread) and the bookkeeping of which marks a stream already
// waits for (host_controlled.cuh, Control).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace stencilc::rt::cuda::hc {

namespace detail {

// Busy-waiting: a pause, and after a while a yield (the waits are short: a command behind).
inline void relax(unsigned& spins) {
  if (++spins < 2048) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    std::this_thread::yield();
  }
}

// One GPU's command queue: the launcher's thread appends commands, the GPU's worker thread runs
// them in order (a ring with one writer and one reader). A command's position counts from 0.
class CommandQueue {
 public:
  static constexpr long long kSlots = 4096;

  // Appends `command` (waits while the ring is full); returns its position.
  long long push(std::function<void()> command) {
    const long long at = head_.load(std::memory_order_relaxed);
    unsigned spins = 0;
    while (at - tail_.load(std::memory_order_acquire) >= kSlots) relax(spins);
    slots_[at % kSlots] = std::move(command);
    head_.store(at + 1, std::memory_order_release);
    return at;
  }

  // The position the next command will have (the launcher's thread).
  long long next() const { return head_.load(std::memory_order_relaxed); }

  // Runs the next command, if there is one.
  bool run_next() {
    const long long at = tail_.load(std::memory_order_relaxed);
    if (head_.load(std::memory_order_acquire) == at) return false;
    std::function<void()>& slot = slots_[at % kSlots];
    slot();
    slot = nullptr;
    tail_.store(at + 1, std::memory_order_release);
    return true;
  }

  // Whether the command at `position` has run (to its end).
  bool ran(long long position) const { return tail_.load(std::memory_order_acquire) > position; }

  // Whether every command appended so far has run.
  bool drained() const {
    return tail_.load(std::memory_order_acquire) == head_.load(std::memory_order_acquire);
  }

 private:
  std::vector<std::function<void()>> slots_ = std::vector<std::function<void()>>(kSlots);
  alignas(64) std::atomic<long long> head_{0};
  alignas(64) std::atomic<long long> tail_{0};
};

// The latest mark of each PE that each PE's stream waits for (Control::covered): a wait for mark
// `mark` of `producer` is covered where `waiter` already waits for it or a later one of the same
// producer; otherwise it becomes the latest. Marks count from 0; -1: none yet.
class WaitCover {
 public:
  explicit WaitCover(int pes)
      : latest_(static_cast<std::size_t>(pes),
                std::vector<long long>(static_cast<std::size_t>(pes), -1)) {}

  bool covered(int waiter, int producer, long long mark) {
    long long& latest =
        latest_[static_cast<std::size_t>(waiter)][static_cast<std::size_t>(producer)];
    if (latest >= mark) return true;
    latest = mark;
    return false;
  }

 private:
  std::vector<std::vector<long long>> latest_;  // [waiter][producer]
};

}  // namespace detail

}  // namespace stencilc::rt::cuda::hc
