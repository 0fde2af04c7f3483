// The schedule of a run on the host (no GPU): compiled::choose_schedule must take the
// host-controlled schedule only where the program holds it and the cost model says it clearly wins
// (at least kHostControlledMinUpdates updates a step, at most kHostControlledMaxGpus GPUs, at least
// kHostControlledMinBytesPerGpu a step a GPU), on the configurations it was calibrated with;
// STENCILC_SCHEDULE must override it, and a bad value or a schedule the program does not hold must
// stop the run with a clear message and a non-zero exit; the reason must be words that the
// benchmark's timing pattern does not take for a time. Built with nvcc, run on the host. Prints a
// line per failure and `N passed, M failed`.

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <stencilc/compiled_cuda.hpp>
#include <string>

#include "tally.h"

namespace sc = stencilc::compiled;

namespace {

using tally::check;
using tally::in_child;

/// A program with both schedules compiled: cg2d's step (fused: 88 bytes a point, 3 updates, 1
/// exchange, 2 reductions read by the host) or fdtd2d's (88, 4, 3, 0) at n x n on `gpus`, as
/// stencilc emits them for samples/cg2d.cpp and samples/fdtd2d.cpp.
sc::ScheduleQuery both(const std::string& program, long long n, int gpus) {
  sc::ScheduleQuery q;
  q.program = program.c_str();
  q.host_controlled = true;
  const bool cg = program == "cg2d";
  q.bytes_per_point = 88;
  q.updates = cg ? 3 : 4;
  q.exchanges = cg ? 1 : 3;
  q.host_reads = cg ? 2 : 0;
  q.points = n * n;
  q.gpus = gpus;
  return q;
}

void chosen(const sc::ScheduleQuery& q, sc::Schedule want, const std::string& reason,
            const std::string& what) {
  const sc::ScheduleChoice c = sc::choose_schedule(q);
  check(c.schedule == want, what + ": " + sc::schedule_name(want) + " wanted, got " +
                                sc::schedule_name(c.schedule) + " (" + c.reason + ")");
  if (!reason.empty())
    check(c.reason == reason, what + ": reason '" + c.reason + "', want '" + reason + "'");
  // bench/measure.py reads "stencilc: ...: <number> ms" as a time: the schedule's line must not be
  // one.
  const std::string line = "stencilc: " + std::string(q.program) + ": " + c.summary();
  check(!std::regex_match(line, std::regex("^stencilc: .*: ([0-9.]+) ms$")),
        what + ": '" + line + "' reads as a time");
}

void cost_model() {
  using S = sc::Schedule;
  unsetenv("STENCILC_SCHEDULE");
  // Where the host-controlled schedule won (sc::kHostControlledMinUpdates' evidence): fdtd2d,
  // 4 updates a step, from 369 MB a GPU.
  chosen(both("fdtd2d", 2048, 1), S::HostControlled,
         "cost model: 1 GPU, 369 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host) >= 150 MB",
         "fdtd2d 2048^2, 1 GPU");
  chosen(both("fdtd2d", 4096, 2), S::HostControlled, "", "fdtd2d 4096^2, 2 GPUs (738 MB a GPU)");
  // Where the cpu-free schedule won, or the host-controlled one only narrowly: cg2d fused (3
  // updates) at every size.
  chosen(both("cg2d", 4098, 1), S::CpuFree,
         "cost model: 1 GPU, 1.48 GB a step a GPU (88 bytes a point, 3 updates, 1 exchange, 2 "
         "reductions read by the host); fewer than 4 updates a step",
         "cg2d 4098^2, 1 GPU");
  chosen(both("cg2d", 4098, 2), S::CpuFree, "", "cg2d 4098^2, 2 GPUs (740 MB a GPU)");
  chosen(both("fdtd2d", 4096, 4), S::CpuFree,
         "cost model: 4 GPUs, 369 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host); more than 2 GPUs",
         "fdtd2d 4096^2, 4 GPUs");
  chosen(both("cg2d", 4098, 4), S::CpuFree, "", "cg2d 4098^2, 4 GPUs");
  chosen(both("cg2d", 1026, 1), S::CpuFree, "", "cg2d 1026^2, 1 GPU");
  chosen(both("cg2d", 1026, 2), S::CpuFree, "", "cg2d 1026^2, 2 GPUs");
  chosen(both("cg2d", 258, 1), S::CpuFree, "", "cg2d 258^2, 1 GPU");
  chosen(both("fdtd2d", 2048, 2), S::HostControlled,
         "cost model: 2 GPUs, 185 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host) >= 150 MB",
         "fdtd2d 2048^2, 2 GPUs (won by 4%)");
  chosen(both("fdtd2d", 1024, 2), S::CpuFree,
         "cost model: 2 GPUs, 46 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host) < 150 MB",
         "fdtd2d 1024^2, 2 GPUs");
  chosen(both("fdtd2d", 512, 2), S::CpuFree, "", "fdtd2d 512^2, 2 GPUs (lost by 39%)");
  chosen(both("fdtd2d", 2048, 4), S::CpuFree, "", "fdtd2d 2048^2, 4 GPUs");
  // One GPU, the same limit (fdtd2d 512^2, 23 MB, lost by 42%).
  chosen(both("fdtd2d", 512, 1), S::CpuFree,
         "cost model: 1 GPU, 23 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host) < 150 MB",
         "fdtd2d 512^2, 1 GPU");
  chosen(both("fdtd2d", 1024, 1), S::CpuFree, "", "fdtd2d 1024^2, 1 GPU (92 MB)");
  chosen(both("fdtd2d", 256, 1), S::CpuFree,
         "cost model: 1 GPU, 6 MB a step a GPU (88 bytes a point, 4 updates, 3 exchanges, 0 "
         "reductions read by the host) < 150 MB",
         "fdtd2d 256^2, 1 GPU");
  chosen(both("fdtd2d", 8192, 3), S::CpuFree, "", "fdtd2d 8192^2, 3 GPUs");
  // Steps of fewer updates: jacobi1d's 2 (32 bytes a point, 2 exchanges), faster cpu-free at
  // 2^26 points (2.15 GB a step) on 1 and 2 GPUs; a step of one update (multiwrite2d's).
  sc::ScheduleQuery jacobi1d = both("fdtd2d", 0, 1);
  jacobi1d.program = "jacobi1d";
  jacobi1d.bytes_per_point = 32;
  jacobi1d.updates = 2;
  jacobi1d.exchanges = 2;
  jacobi1d.points = 1LL << 26;
  chosen(jacobi1d, S::CpuFree,
         "cost model: 1 GPU, 2.15 GB a step a GPU (32 bytes a point, 2 updates, 2 exchanges, 0 "
         "reductions read by the host); fewer than 4 updates a step",
         "jacobi1d 2^26, 1 GPU");
  jacobi1d.gpus = 2;
  chosen(jacobi1d, S::CpuFree, "", "jacobi1d 2^26, 2 GPUs");
  sc::ScheduleQuery one = jacobi1d;
  one.updates = 1;
  one.points = 8192LL * 8192;
  chosen(one, S::CpuFree, "", "one update a step, 8192^2");
  // The limits themselves (2 GPUs: per GPU; 1 GPU), and a program with no time loop (no bytes
  // a step).
  sc::ScheduleQuery edge = both("fdtd2d", 0, 2);
  edge.bytes_per_point = 100;
  edge.points = 2 * static_cast<long long>(sc::kHostControlledMinBytesPerGpu) / 100;
  chosen(edge, S::HostControlled, "", "at the limit, 2 GPUs");
  edge.points -= 2;
  chosen(edge, S::CpuFree, "", "just under the limit, 2 GPUs");
  edge.gpus = 1;
  edge.points = static_cast<long long>(sc::kHostControlledMinBytesPerGpu) / 100;
  chosen(edge, S::HostControlled, "", "at the limit, 1 GPU");
  edge.points -= 1;
  chosen(edge, S::CpuFree, "", "just under the limit, 1 GPU");
  sc::ScheduleQuery none = both("fdtd2d", 4096, 1);
  none.bytes_per_point = none.updates = none.exchanges = 0;
  chosen(none, S::CpuFree, "", "no time loop");
  // A program that holds only the cpu-free code: its reason, whatever the size.
  sc::ScheduleQuery only;
  only.program = "jacobi";
  only.cpu_free_only = "its time loop has a register-resident form";
  only.points = 1LL << 30;
  chosen(only, S::CpuFree, "the only schedule compiled: its time loop has a register-resident form",
         "jacobi2d");
}

void overrides() {
  using S = sc::Schedule;
  S s = S::CpuFree;
  check(sc::parse_schedule("host-controlled", &s) && s == S::HostControlled,
        "parse host-controlled");
  check(sc::parse_schedule("cpu-free", &s) && s == S::CpuFree, "parse cpu-free");
  for (const char* bad : {"", "auto", "hc", "cpu_free", "Host-Controlled", "cpu-free "})
    check(!sc::parse_schedule(bad, &s), std::string("parse rejects '") + bad + "'");
  check(!sc::parse_schedule(nullptr, &s), "parse rejects null");

  setenv("STENCILC_SCHEDULE", "cpu-free", 1);
  chosen(both("cg2d", 4098, 1), S::CpuFree, "STENCILC_SCHEDULE=cpu-free",
         "STENCILC_SCHEDULE=cpu-free, cg2d 4098^2");
  setenv("STENCILC_SCHEDULE", "host-controlled", 1);
  chosen(both("cg2d", 258, 4), S::HostControlled, "STENCILC_SCHEDULE=host-controlled",
         "STENCILC_SCHEDULE=host-controlled, cg2d 258^2 on 4 GPUs");
  unsetenv("STENCILC_SCHEDULE");

  // A bad value, and a schedule the program does not hold: a message and exit status 2.
  auto [rc, text] = in_child("STENCILC_SCHEDULE", "hostcontrolled", [] { sc::choose_schedule(both("cg2d", 64, 1)); });
  check(rc == 2, "a bad STENCILC_SCHEDULE exits with 2, got " + std::to_string(rc));
  check(text ==
            "stencilc: error: STENCILC_SCHEDULE='hostcontrolled': expected cpu-free or "
            "host-controlled\n",
        "a bad STENCILC_SCHEDULE's message: '" + text + "'");
  sc::ScheduleQuery only;
  only.program = "jacobi";
  only.cpu_free_only = "its time loop has a register-resident form";
  std::tie(rc, text) = in_child("STENCILC_SCHEDULE", "host-controlled", [&] { sc::choose_schedule(only); });
  check(rc == 2, "host-controlled where not compiled exits with 2, got " + std::to_string(rc));
  check(text ==
            "stencilc: error: program 'jacobi': STENCILC_SCHEDULE=host-controlled, but the program "
            "holds only the "
            "cpu-free schedule (its time loop has a register-resident form); compile it with "
            "--schedule=host-controlled\n",
        "host-controlled where not compiled: '" + text + "'");
  std::tie(rc, text) = in_child("STENCILC_SCHEDULE", "cpu-free", [&] { sc::choose_schedule(only); });
  check(rc == 0 && text.empty(), "cpu-free where only it is compiled runs quietly");
}

}  // namespace

int main() {
  cost_model();
  overrides();
  return tally::finish();
}
