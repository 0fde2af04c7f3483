// The block-role cost model of specialize-blocks (docs/PASSES.md, "The cost model: whether and
// how many"), evaluated once per PE at launch: how many of the persistent kernel's workers
// (thread blocks) form the comm group, or 0 to run every statement on every worker.
//
// The pass records the model's compile-time inputs in the IR (parts, widths, costs, roles); the
// generated launcher passes them as a table (compiled::RoleModel) that compiled::launch turns into
// this PE's bytes with its block's extents (compiled::role_work) before calling
// choose_comm_workers(). Backend-independent and host-only, so it is unit-tested without a GPU.
#pragma once

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

#include "stencilc/runtime/common.hpp"

namespace stencilc::rt {

/// One PE's work per time step, as the model counts it.
struct RoleWork {
  double comm_bytes = 0;     // A: the boundary parts' bytes plus what the comm transfers pack and unpack
  double compute_bytes = 0;  // C: the inner parts' bytes
  bool transfers = false;    // the PE has a neighbour, so a step waits for a transfer's latency
  int items = 0;             // I: the transfers' pieces (one worker each at a time: wait, copy, fence, signal)
  int pe_barriers = 0;       // P: PE-wide phase barriers per step
  int group_barriers = 0;    // G: group phase barriers per step
};

/// What the model assumes of the machine. The defaults are one H200 as measured in
/// docs/RUNTIME-CUDA.md and docs/BENCHMARKS.md (estimates, not a calibration).
struct RoleMachine {
  double bytes_per_s = 1.8e12;     // what all workers of one GPU stream together (copy traffic)
  double latency_s = 2.6e-6;       // L: a put, its signal and the receiver's wait, one way
  double barrier_s = 1.1e-6;       // beta: a PE-wide barrier
  double group_barrier_s = 0.3e-6; // beta_g: a barrier among a few workers
  double comm_rate = 0.25;         // rho: a worker's rate on the comm group's bytes, as a fraction
                                   // of r: thin boundary slabs walked point by point and face
                                   // copies keep fewer loads in flight than the inner part's strips
                                   // (fitted to comm-block sweeps on 2 x H200)
  double item_s = 1.0e-6;          // lambda: one piece's round on its worker besides its bytes (a
                                   // batch of loads in flight, the system fence before its signal)
};

struct RoleChoice {
  int n_comm = 0;               // 0: not specialised
  double unspecialised_s = 0;   // the model's time per step without roles
  double specialised_s = 0;     // with n_comm comm workers (when n_comm > 0)
};

/// With W workers streaming r = bytes_per_s / W each (rho r on the comm group's bytes A), and a
/// worker running ceil(I / n) of the I transfer pieces one after the other when n workers share them:
///   T_unspecialised  = (A / rho + C) / (W r) + max(0, L + ceil(I / W) lambda - C / (W r)) + (P + G) beta
///   T_specialised(n) = max(A / (n rho r) + L + ceil(I / n) lambda, C / ((W - n) r)) + P beta + G beta_g,
///                      1 <= n < W
/// n_comm is the smallest n within 1% of the best T_specialised that beats T_unspecialised (the
/// time is nearly flat once the latency dominates, and fewer comm workers leave more for the inner
/// points); the PE specialises iff W >= 2, C > 0 and some n beats T_unspecialised.
inline RoleChoice choose_comm_workers(const RoleWork& w, int workers, const RoleMachine& m = {}) {
  RoleChoice choice;
  const double latency = w.transfers ? m.latency_s : 0.0;
  const double r = m.bytes_per_s / std::max(workers, 1);
  const double all = workers * r;
  auto rounds = [&](int n) { return static_cast<double>((w.items + n - 1) / n) * m.item_s; };
  const double comm = w.comm_bytes / m.comm_rate;  // in inner-part bytes
  choice.unspecialised_s = (comm + w.compute_bytes) / all +
                           std::max(0.0, latency + rounds(std::max(workers, 1)) - w.compute_bytes / all) +
                           (w.pe_barriers + w.group_barriers) * m.barrier_s;
  if (workers < 2 || w.compute_bytes <= 0) return choice;
  auto specialised = [&](int n) {
    return std::max(comm / (n * r) + latency + rounds(n), w.compute_bytes / ((workers - n) * r)) +
           w.pe_barriers * m.barrier_s + w.group_barriers * m.group_barrier_s;
  };
  double best = std::numeric_limits<double>::infinity();
  for (int n = 1; n < workers; ++n) best = std::min(best, specialised(n));
  for (int n = 1; n < workers; ++n) {
    const double t = specialised(n);
    if (t <= 1.01 * best && t < choice.unspecialised_s) {
      choice.n_comm = n;
      choice.specialised_s = t;
      break;
    }
  }
  return choice;
}

/// The comm group's size for one PE: STENCILC_COMM_BLOCKS when set (0 turns roles off; clamped
/// to workers - 1), the cost model otherwise.
inline int comm_workers(const RoleWork& w, int workers, const RoleMachine& m = {}) {
  if (const char* text = std::getenv("STENCILC_COMM_BLOCKS")) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || n < 0) {
      fatal("STENCILC_COMM_BLOCKS='%s' is not a number of thread blocks (0 or more)", text);
    }
    return static_cast<int>(std::min<long>(n, std::max(workers - 1, 0)));
  }
  return choose_comm_workers(w, workers, m).n_comm;
}

/// The points of a split foreach's parts on a block of `extent` (the range taken as the whole
/// block): the inner box keeps `width_lo`/`width_hi` from the faces, the boundary is the rest.
template <int N>
inline void part_points(const std::array<int, N>& extent, const std::array<int, N>& width_lo,
                        const std::array<int, N>& width_hi, double* inner, double* boundary) {
  double all = 1, in = 1;
  for (int d = 0; d < N; ++d) {
    all *= extent[d];
    in *= std::max(0, extent[d] - width_lo[d] - width_hi[d]);
  }
  *inner = in;
  *boundary = all - in;
}

}  // namespace stencilc::rt
