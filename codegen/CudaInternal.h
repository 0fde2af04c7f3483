// What the CUDA emitter's two halves share (CudaEmitter.cpp: the kernel; CudaLauncher.cpp: the
// host launcher that plans the run, moves the grids, launches the kernel and brings the results
// back). Internal to codegen/.
#pragma once

#include <array>
#include <set>
#include <string>
#include <vector>

#include "codegen/CudaEmitter.h"
#include "codegen/EmitUtil.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace stencilc::codegen::cuda {

/// The runtime's namespace, as generated code names it.
inline constexpr const char* kRt = "::stencilc::rt::cuda::";

/// The device block type of grid or block parameter `p`.
std::string dblock_type(const ir::Param& p);

/// What the launcher needs to evaluate specialize-blocks' cost model (docs/PASSES.md, "The cost
/// model: whether and how many"): the specialised parts in time loops, the grids the comm group
/// transfers, and the phase barriers per step.
struct RoleModelInputs : ir::IRVisitor {
  using ir::IRVisitor::visit;
  struct Part {
    std::vector<int> width_lo, width_hi;
    int bytes_per_point;
  };
  std::vector<Part> inner_parts;     // role(compute) inner parts; their boundary parts are comm's
  std::set<std::string> comm_grids;  // transferred by the comm group
  int pe_barriers = 0, group_barriers = 0;
  bool roles = false;
  bool spmd_transfers = false;  // an SPMD program's role(comm) put_signal/wait_until in a loop
  int signals = 0;              // an SPMD program's signal declarations

  void visit(const ir::For* op) override {
    in_loop([&] { IRVisitor::visit(op); });
  }
  void visit(const ir::While* op) override {
    in_loop([&] { IRVisitor::visit(op); });
  }
  void visit(const ir::ForEach* op) override {
    roles |= op->role != ir::WorkerRole::All;
    if (loops_ > 0 && op->role == ir::WorkerRole::Compute && op->part == ir::ForEachPart::Inner)
      inner_parts.push_back({op->width_lo, op->width_hi, op->bytes_per_point});
  }
  void visit(const ir::PutSignal* op) override { spmd_transfer(op->role); }
  void visit(const ir::WaitUntil* op) override { spmd_transfer(op->role); }
  void visit(const ir::SignalDecl*) override { ++signals; }
  void visit(const ir::HaloSend* op) override { transfer(op->grid, op->role); }
  void visit(const ir::HaloRecv* op) override { transfer(op->grid, op->role); }
  void visit(const ir::PhaseBarrier* op) override {
    roles |= op->role != ir::WorkerRole::All;
    if (loops_ == 0) return;
    (op->role == ir::WorkerRole::All ? pe_barriers : group_barriers) += 1;
  }

 private:
  int loops_ = 0;
  template <class F>
  void in_loop(F f) {
    ++loops_;
    f();
    --loops_;
  }
  void spmd_transfer(ir::WorkerRole role) {
    roles |= role != ir::WorkerRole::All;
    spmd_transfers |= role == ir::WorkerRole::Comm && loops_ > 0;
  }
  void transfer(const std::string& grid, ir::WorkerRole role) {
    roles |= role != ir::WorkerRole::All;
    if (role == ir::WorkerRole::Comm) comm_grids.insert(grid);
  }
};

/// The kernel's argument struct (`struct KernelArgs`) of program `p`.
std::string kernel_args(const ir::Program& p, const std::set<std::string>& exchanged, bool roles);

/// The host side of global-view program `p` (see CudaLauncher.cpp); `source`: the file it came
/// from (the module's), where STENCILC_TIMING says its time loop is.
std::string launcher(const ir::Program& p, const std::string& source,
                     const std::set<std::string>& exchanged,
                     const std::vector<std::array<int, 2>>& swaps, const RoleModelInputs& model,
                     CudaBackend backend);

/// The host side of SPMD program `p`, which stencilc::spmd finds and calls.
std::string spmd_launcher(const ir::Program& p, const RoleModelInputs& model, CudaBackend backend);

/// The nvshmem backend: program `p`'s `sc_<p>::launch_proxied`, declared in both units and
/// defined in the one built with -rdc (kNvshmemDeviceUnit), where its `kernel` takes
/// NvshmemDevicePe; the launcher calls it where some peer is behind NVSHMEM's proxy.
std::string proxied_launch(const ir::Program& p);

}  // namespace stencilc::codegen::cuda
