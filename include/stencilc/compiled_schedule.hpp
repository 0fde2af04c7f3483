// The run-time choice between the CUDA target's two schedules (docs/SCHEDULES.md, "The schedule
// of a run: --schedule=auto"): a program compiled with --schedule=auto holds the cpu-free code and,
// where it can win, the host-controlled code, and its entry asks choose_schedule which one runs.
// Included by generated .cu files (through compiled_cuda.hpp); plain C++, so the tests run it on
// the host.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stencilc/runtime/common.hpp>
#include <string>

#include "stencilc/stencilc.hpp"

namespace stencilc::compiled {

enum class Schedule { CpuFree, HostControlled };

inline const char* schedule_name(Schedule s) {
  return s == Schedule::HostControlled ? "host-controlled" : "cpu-free";
}

/// Reads a STENCILC_SCHEDULE value: "cpu-free" or "host-controlled" into `out`; false for anything
/// else.
inline bool parse_schedule(const char* text, Schedule* out) {
  if (text == nullptr) return false;
  if (std::strcmp(text, "cpu-free") == 0) {
    *out = Schedule::CpuFree;
  } else if (std::strcmp(text, "host-controlled") == 0) {
    *out = Schedule::HostControlled;
  } else {
    return false;
  }
  return true;
}

/// The per-GPU bytes a step must move for the host-controlled schedule to be chosen. Its kernels
/// stream memory faster than the persistent kernel on steps of several updates with exchanges
/// between them, but each step pays a launch per update and a host round trip per reduction the
/// loop reads, and on several GPUs a cross-GPU event wait per exchange, so it wins only where a
/// step moves enough. Measured on 2 x H200, us a step, cpu-free / host-controlled (bytes a step a
/// GPU, as passes::schedule_facts counts them), fdtd2d (88 bytes a point, 4 updates, 3
/// exchanges), 2026-11-28: 512^2 13.10/18.59 (23 MB) on 1 GPU, 15.64/25.60 (12 MB) on 2; 4096^2
/// 383.2/326.4 (1.48 GB) on 1, 210.9/180.7 (738 MB) on 2; 2026-11-27: 2048^2 106.0/94.5 (369 MB)
/// on 1, 55.6/53.6 (185 MB) on 2. Lines through the 512^2 and 2048^2 points cross at
/// about 135 MB on 1 GPU and 155 MB on 2: the limit is 150 MB on either.
inline constexpr double kHostControlledMinBytesPerGpu = 150e6;

/// The most GPUs the host-controlled schedule is chosen on: on 4 it lost at every size measured
/// (cg2d 4098^2, 470 MB a GPU a step: 299 us against 215; fdtd2d 2048^2: 161 against 60), its
/// exchanges and host round trips growing with the GPUs while each GPU's share of the work
/// shrinks.
inline constexpr int kHostControlledMaxGpus = 2;

/// The fewest point updates a step (kernel launches: a fused sweep is one) for the
/// host-controlled schedule to be chosen. It won only on steps of 4 updates: fdtd2d (88 bytes a
/// point) at 2048^2, 99 against 113 us on 1 GPU and 73 against 77 on 2 (4 x H200, 2026-11-26). On
/// steps of 3 it lost: cg2d fused by fuse-sweeps (ap with p.ap, x and r with r.r, then p: 88
/// bytes a point) at 4098^2 ran cpu-free at 77% of the copy bandwidth, 455 us an iteration on 1
/// GPU against 525 host-controlled and 263 against 300 on 2 (2 x H200, 2026-11-27); on steps of
/// 2, jacobi1d's (32 bytes a point, its loop has only the barrier form), the cpu-free kernel
/// streamed at 82% and won at every size when this limit was set (627 us against 795 at 2^26
/// points on 1 GPU). Since the host-controlled kernels' 4-point walk it loses there (619 against
/// 548, 1 H200, 2026-11-28/29): a miss of this rule, which no bytes limit fixes without losing
/// smooth2d 4096^2 (2 updates: 88.9 cpu-free against 94.2) or cg2d 4098^2 (433 against 453);
/// docs/BENCHMARKS.md, "Against the targets".
inline constexpr int kHostControlledMinUpdates = 4;

/// What choose_schedule decides from: the program's facts, which the driver emits as constants
/// (from the IR of its time loop), and the run's size and GPU count.
struct ScheduleQuery {
  const char* program = "";
  /// The program holds the host-controlled code and this run can take it; where not,
  /// `cpu_free_only` says why (the driver emits it only for global-view programs whose time loops
  /// are not one update with a dataflow or register-resident form: elsewhere the cpu-free code
  /// won at every 2-D size measured; heat3d on 2 and 4 GPUs is the known exception,
  /// docs/SCHEDULES.md; on the nvshmem backend it runs on one node only).
  bool host_controlled = false;
  const char* cpu_free_only = "";
  // The time loop's step (its first loop at the top of the program), as the host-controlled
  // schedule runs it:
  int bytes_per_point = 0;  // bytes a step moves per grid point: each update and reduction's grids
                            // read once, written once
  int updates = 0;          // point updates
  int exchanges = 0;        // halo exchanges
  int host_reads = 0;       // reductions the host waits for (allreduce in the loop)
  // The run:
  long long points = 0;  // grid points (every grid of the program has the same extents)
  int gpus = 1;          // PEs, a GPU each
};

/// The schedule a run takes, and why (STENCILC_TIMING).
struct ScheduleChoice {
  Schedule schedule = Schedule::CpuFree;
  std::string reason;

  bool host_controlled() const { return schedule == Schedule::HostControlled; }
  /// What STENCILC_TIMING=1 prints after "stencilc: <program>: ": "schedule: cpu-free (...)".
  std::string summary() const {
    return std::string("schedule: ") + schedule_name(schedule) + " (" + reason + ")";
  }
};

namespace detail {

/// "1.88 GB", "940 MB", "21 MB" (decimal units, as the bandwidths are quoted).
inline std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 1e9) {
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
  } else if (bytes >= 1e6) {
    std::snprintf(text, sizeof text, "%.0f MB", bytes / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.0f kB", bytes / 1e3);
  }
  return text;
}

}  // namespace detail

/// The one place the schedule of a run is chosen (docs/SCHEDULES.md, "The schedule of a run"):
///
/// 1. STENCILC_SCHEDULE=cpu-free or host-controlled where set (anything else: a fatal error; the
///    host-controlled schedule where the program does not hold it: a fatal error that says why).
/// 2. The cpu-free schedule where the program holds no host-controlled code (`cpu_free_only`).
/// 3. The host-controlled schedule where the step has at least kHostControlledMinUpdates point
///    updates, the run has at most kHostControlledMaxGpus GPUs and each
///    GPU's part of a step moves at least kHostControlledMinBytesPerGpu (bytes_per_point x the
///    points / the GPUs).
/// 4. The cpu-free schedule otherwise.
///
/// The reason, in words, is ScheduleChoice::reason; the entry prints it with STENCILC_TIMING=1.
inline ScheduleChoice choose_schedule(const ScheduleQuery& q) {
  ScheduleChoice c;
  if (const char* text = std::getenv("STENCILC_SCHEDULE")) {
    if (!parse_schedule(text, &c.schedule)) {
      rt::fatal("STENCILC_SCHEDULE='%s': expected cpu-free or host-controlled", text);
    }
    if (c.host_controlled() && !q.host_controlled) {
      rt::fatal(
          "program '%s': STENCILC_SCHEDULE=host-controlled, but the program holds only the "
          "cpu-free schedule (%s); "
          "compile it with --schedule=host-controlled",
          q.program, q.cpu_free_only);
    }
    c.reason = std::string("STENCILC_SCHEDULE=") + text;
    return c;
  }
  if (!q.host_controlled) {
    c.reason = std::string("the only schedule compiled: ") + q.cpu_free_only;
    return c;
  }
  const int gpus = q.gpus > 0 ? q.gpus : 1;
  const double per_gpu =
      static_cast<double>(q.bytes_per_point) * static_cast<double>(q.points) / gpus;
  char facts[200];
  std::snprintf(facts, sizeof facts,
                "%d %s, %s a step a GPU (%d bytes a point, %d %s, %d %s, %d %s read by the host)",
                gpus, gpus == 1 ? "GPU" : "GPUs", detail::bytes_text(per_gpu).c_str(),
                q.bytes_per_point, q.updates, q.updates == 1 ? "update" : "updates", q.exchanges,
                q.exchanges == 1 ? "exchange" : "exchanges", q.host_reads,
                q.host_reads == 1 ? "reduction" : "reductions");
  if (q.updates < kHostControlledMinUpdates) {
    c.reason = std::string("cost model: ") + facts + "; fewer than " +
               std::to_string(kHostControlledMinUpdates) + " updates a step";
  } else if (gpus > kHostControlledMaxGpus) {
    c.reason = std::string("cost model: ") + facts + "; more than " +
               std::to_string(kHostControlledMaxGpus) + " GPUs";
  } else if (per_gpu < kHostControlledMinBytesPerGpu) {
    c.reason = std::string("cost model: ") + facts + " < " +
               detail::bytes_text(kHostControlledMinBytesPerGpu);
  } else {
    c.schedule = Schedule::HostControlled;
    c.reason = std::string("cost model: ") + facts +
               " >= " + detail::bytes_text(kHostControlledMinBytesPerGpu);
  }
  return c;
}

/// The grid points of `g` (ScheduleQuery::points).
template <typename T, int N>
long long grid_points(const Grid<T, N>& g) {
  long long n = 1;
  for (int k = 0; k < N; ++k) n *= g.extent(k);
  return n;
}

}  // namespace stencilc::compiled
