// The facts of a program that compiled::choose_schedule decides from (see ScheduleFacts.h).
#include "passes/ScheduleFacts.h"

#include "ir/IRVisitor.h"
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
  void visit(const Reduce* op) override { facts.bytes_per_point += body_bytes(*program, op->body); }
  void visit(const HaloSend*) override { ++facts.exchanges; }
  void visit(const AllReduce*) override { ++facts.host_reads; }
};

}  // namespace

std::string cpu_free_only(const Program& p) {
  if (p.kind == ProgramKind::Spmd) return "an SPMD program";
  const FlowLoop flow = marked_flow_loop(p);
  if (!flow.loop) return "";
  return marked_regs_form(p, flow).in.empty() ? "its time loop has a dataflow form"
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
