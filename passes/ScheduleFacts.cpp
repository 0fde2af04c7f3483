// The facts of a program that compiled::choose_schedule decides from (see ScheduleFacts.h).
#include "passes/ScheduleFacts.h"

#include "ir/IRVisitor.h"
#include "passes/FuseSweeps.h"
#include "passes/GridEffects.h"
#include "passes/LoopForms.h"

namespace stencilc::passes {

using namespace ir;

namespace {

/// The bytes a point body moves: each grid it reads once, each it stores once.
int body_bytes(const Program& p, const Stmt& body) {
  const PointBodyUse use = point_body_use(body);
  int bytes = 0;
  for (const auto& read : use.offsets) {
    if (const Param* q = p.find_param(read.first)) bytes += byte_size(q->type);
  }
  for (const std::string& g : use.stored) {
    if (const Param* q = p.find_param(g)) bytes += byte_size(q->type);
  }
  return bytes;
}

struct StepFacts : IRVisitor {
  using IRVisitor::visit;
  const Program* program = nullptr;
  ScheduleFacts facts;

  void visit(const ForEach* op) override {
    ++facts.updates;
    facts.bytes_per_point += body_bytes(*program, op->body);
  }
  // A reduce that also stores (fuse-sweeps' sweep) is an update's launch as well.
  void visit(const Reduce* op) override {
    if (!point_body_use(op->body).stored.empty()) ++facts.updates;
    facts.bytes_per_point += body_bytes(*program, op->body);
  }
  // A step's branches: fuse-sweeps' fused version where it versioned the step (what runs where
  // the interiors are equal), else the branch that moves more.
  void visit(const If* op) override {
    const ScheduleFacts before = facts;
    facts = {};
    visit(op->then_body);
    const ScheduleFacts then_facts = facts;
    facts = {};
    if (op->else_body) visit(op->else_body);
    const ScheduleFacts else_facts = facts;
    const ScheduleFacts& taken =
        is_sweep_version(*op) || then_facts.bytes_per_point >= else_facts.bytes_per_point ? then_facts
                                                                                          : else_facts;
    facts = before;
    facts.bytes_per_point += taken.bytes_per_point;
    facts.updates += taken.updates;
    facts.exchanges += taken.exchanges;
    facts.host_reads += taken.host_reads;
  }
  void visit(const HaloSend*) override { ++facts.exchanges; }
  void visit(const AllReduce*) override { ++facts.host_reads; }
};

}  // namespace

std::string cpu_free_only(const Program& p) {
  if (p.kind == ProgramKind::Spmd) return "an SPMD program";
  const FlowLoop flow = marked_flow_loop(p);
  if (!flow.loop || !flow.update) return "";  // a step of several walks: both schedules
  return marked_regs_form(p, flow).in.empty() ? "its time loop has a dataflow form of one update"
                                              : "its time loop has a register-resident form";
}

ScheduleFacts schedule_facts(const Program& p) {
  StepFacts step;
  step.program = &p;
  if (const Block* body = as<Block>(p.body)) {
    for (const Stmt& s : body->stmts) {
      if (s->kind != StmtKind::For && s->kind != StmtKind::While) continue;
      step.visit(s);
      break;
    }
  }
  return step.facts;
}

}  // namespace stencilc::passes
