// The forms a time loop can take besides the barrier form, found on the IR: the dataflow form
// (each block waits for its neighbours only; runtime flow.cuh) and, of those loops, the
// register-resident form (each block's rows in registers across steps; runtime regs.cuh). The
// select-loop-forms pass records what it finds on each loop (`forms(dataflow, regs)`), the CUDA
// emitter emits the forms the IR records, and the launcher chooses among them at run time from
// the sizes (docs/SCHEDULES.md).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace stencilc::passes {

/// A walk of the dataflow loop's step: a point update (its boundary part, which walks all of the
/// block's rows in the dataflow form, or an update that was not split) or a fused sweep (a
/// reduction that also stores). Each is a phase of the step: a block waits for its neighbours to
/// have finished the phase before, walks its own rows, and says so (flow.cuh).
/// `faces`: the grids it stores whose halos the loop exchanges, each with the exchange whose
/// channels carry its face cells (the grid itself, or the exchanged grid it swaps with).
/// `wait_back`: how many walks back (in the step, continuing into the step before) is the last
/// walk of the neighbours' that this one must wait for (1: the walk right before, the form's
/// rule; 0: none). A walk depends on a neighbour's rows only where it reads a grid across rows
/// (an offset along dimension 0) that a walk wrote, or writes a grid (its rows, and through the
/// face copy the neighbours' halos) that a walk read across rows: it waits for the last such
/// walk, which covers the ones before it (the flags only grow). flow_waits sets it.
struct FlowWalk {
  const ir::StmtNode* stmt = nullptr;
  std::vector<std::pair<std::string, std::string>> faces;  // (grid stored, exchange handle)
  int wait_back = 1;
};

/// The loop the dataflow schedule may run (flow.cuh; docs/SCHEDULES.md, "The dataflow form"): a
/// time loop at the top of a global-view program whose step is a sequence of walks (point
/// updates and fused sweeps, also under an `if`), their halo exchanges and phase barriers,
/// swaps, scalar statements and reductions. No walk reads a grid it stores anywhere but at the
/// point (the verifier's rule for every point update and reduction), so a block that waits for its neighbours to have finished the walk before reads only
/// finished rows, and a neighbour never writes what the block still reads: blocks next to each
/// other are never more than one walk apart. The form stores each walk's face cells into the
/// neighbours' halos as it writes them (what the exchanges would bring), after one exchange of
/// every exchanged grid before the loop.
///
/// A step of one update (`update` set: jacobi2d, heat3d, wave2d) has the form's fastest walk:
/// the update's face cells stored point by point, the update in strips, a reduction folded into
/// it, the register-resident form. The step, as the pipeline leaves it: halo_send %x, the two
/// parts with the halo_recv %x before the second and phase barriers anywhere in between, and
/// after them swaps that make the grid the update writes the next step's %x.
/// `radius`: the widest halo along dimension 0.
struct FlowLoop {
  const ir::StmtNode* loop = nullptr;
  std::vector<FlowWalk> walks;         // the step's walks, in program order
  std::vector<std::string> exchanged;  // the grids the step exchanges (their halos sent before
                                       // the loop)
  const ir::ForEach* update = nullptr;  // a step of one update: its boundary part (the dataflow
                                        // form walks all of the block's rows with it)
  std::string put_handle;  // a step of one update: whose exchange's send channels the face
                           // stores follow (args.<put_handle>_halo)
  std::string put_grid;    // and the grid each step writes, stored into the neighbours' halos
                           // as it is written
  int radius = 1;
  ir::Stmt body;  // the loop's body
  ir::Stmt stmt;  // the loop itself (a While's condition with it)
};

/// The program's first loop at the top of its body that has a dataflow form, or none.
FlowLoop find_flow_loop(const ir::Program& p);

/// The loop of `p` that select-loop-forms marked forms(dataflow), or none.
FlowLoop marked_flow_loop(const ir::Program& p);

/// A reduction of the dataflow loop's step that its dataflow form combines with no barrier
/// (flow.cuh and reduce.cuh's DFlowReduce). `deferred`: nothing in the loop reads its result
/// or what the assignments right after its allreduce (`tail`: those that read only the result)
/// make of it, and it reads every grid in the block's own rows, so each execution
/// only posts its value and completes the one before (DFlowReduce::post; the tail then assigns
/// values nothing reads), and the last completes after the loop, where the tail runs again on
/// it: after the loop every variable holds what the serial program leaves.
/// `folded`: its walk is the update's (fold_into_update): each thread adds up its points'
/// values as it writes them, when `when` (null: every step) holds.
struct FlowReduction {
  const ir::Reduce* reduce = nullptr;
  bool deferred = false;
  std::vector<ir::Stmt> tail;
  bool folded = false;
  ir::Expr when;
};

/// The reductions of `f`'s step that its dataflow form combines with no barrier, in the order of
/// the kernel's arguments (see the definition).
std::vector<FlowReduction> flow_reductions(const FlowLoop& f);

/// The dataflow loop's register-resident form (regs.cuh; docs/SCHEDULES.md, "The
/// register-resident form"): each block holds its band of the rows in registers for the whole
/// loop. `in`: the grid the update reads, `out`: the one it writes ("": no such form).
struct RegsForm {
  std::string in, out;
  ir::ScalarType type = ir::ScalarType::F32;
};

/// `f`'s register-resident form, or none (see the definition for the conditions).
RegsForm regs_form(const ir::Program& p, const FlowLoop& f,
                   const std::vector<FlowReduction>& reductions);

/// The register-resident form of `f` where select-loop-forms marked its loop forms(regs), else
/// none.
RegsForm marked_regs_form(const ir::Program& p, const FlowLoop& f);

/// What is wrong with `p`'s marks where a loop is marked with a form it does not have
/// (hand-written IR), else "".
std::string loop_forms_mismatch(const ir::Program& p);

/// The select-loop-forms pass: records on each loop at the top of a decomposed global-view
/// program the forms it may take (For/While::forms).
ir::Module select_loop_forms(const ir::Module& m);

/// The grids a statement stores to.
std::set<std::string> stored_grids(const ir::Stmt& s);

/// The index in `b` of the allreduce that combines the result of the reduction at index `i`
/// across the PEs: the first allreduce of its result after it, with only phase barriers and halo
/// exchanges between (none touches the result; the pipeline places a fused sweep's next
/// exchange there), or none (`b.stmts.size()`). The CUDA kernel combines the two in one.
size_t allreduce_after(const ir::Block& b, size_t i);

}  // namespace stencilc::passes
