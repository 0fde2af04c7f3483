// What the run-time choice between the CUDA target's schedules (compiled::choose_schedule,
// docs/SCHEDULES.md) knows of a program from the IR: whether the host-controlled schedule can win
// it at all, and the facts of its time loop's step, which the launcher of --schedule=auto emits
// as constants.
#pragma once

#include <string>

#include "ir/IR.h"

namespace stencilc::passes {

/// Why program `p`, after the cpu-free pipeline, gets no host-controlled code under
/// --schedule=auto (its SPMD level; a time loop of one update a step that select-loop-forms marked
/// with a dataflow or register-resident form, where the cpu-free code won at every size
/// measured), else "". A step of several walks keeps both schedules (the classic one wins at
/// large sizes).
std::string cpu_free_only(const ir::Program& p);

/// The step of a program's time loop (its first loop at the top of its body), as the
/// host-controlled schedule runs it: the bytes a grid point moves (each point update and
/// reduction loads every grid it reads once and stores every grid it writes once), the point
/// updates, the halo exchanges and the reductions the host waits for (allreduce). Zero without a
/// loop.
struct ScheduleFacts {
  int bytes_per_point = 0;
  int updates = 0;
  int exchanges = 0;
  int host_reads = 0;
};

/// `p`'s facts; `p` has gone through host_controlled_pipeline() (updates whole, exchanges
/// lowered to halo_send and halo_recv).
ScheduleFacts schedule_facts(const ir::Program& p);

}  // namespace stencilc::passes
