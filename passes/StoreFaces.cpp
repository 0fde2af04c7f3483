// store-faces (passes/StoreFaces.h).
#include "passes/StoreFaces.h"

#include <map>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// The grids some halo_send names, and the swapped pairs.
struct Exchanges : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> sent;
  std::vector<std::pair<std::string, std::string>> swaps;
  void visit(const Stmt& s) override {
    if (auto* h = s ? as<HaloSend>(s) : nullptr) sent.insert(h->grid);
    if (auto* w = s ? as<Swap>(s) : nullptr) swaps.push_back({w->a, w->b});
    IRVisitor::visit(s);
  }
};

/// The grids a point body stores to.
struct Stored : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> grids;
  void visit(const Stmt& s) override {
    if (auto* st = s ? as<Store>(s) : nullptr) grids.insert(st->grid);
    IRVisitor::visit(s);
  }
};

class MarkThrough : public IRMutator {
 public:
  MarkThrough(const Program& p, std::map<std::string, std::string> exchanged)
      : program_(p), exchanged_(std::move(exchanged)) {}

 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<ForEach>& op) override {
    if (op->part != ForEachPart::All) return op;
    Stored stored;
    stored.visit(op->body);
    std::vector<std::string> through;
    for (const Param& g : program_.params) {  // in parameter order: the printed IR is stable
      if (g.kind == ParamKind::Grid && stored.grids.count(g.name) && exchanged_.count(g.name))
        through.push_back(g.name);
    }
    if (through == op->through) return op;
    return with_through(op, std::move(through));
  }

 private:
  const Program& program_;
  std::map<std::string, std::string> exchanged_;
};

}  // namespace

std::map<std::string, std::string> exchanged_buffers(const Program& p) {
  Exchanges e;
  e.visit(p.body);
  std::map<std::string, std::string> out;
  for (const std::string& g : e.sent) out[g] = g;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [a, b] : e.swaps) {
      if (out.count(a) != out.count(b)) {
        const std::string sender = out.count(a) ? out[a] : out[b];
        out[a] = out[b] = sender;
        grew = true;
      }
    }
  }
  return out;
}

Module store_faces(const Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind != ProgramKind::Global || !p.decomposed) continue;
    MarkThrough mark(p, exchanged_buffers(p));
    p.body = mark.mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
