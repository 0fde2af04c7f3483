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

/// The grids whose buffers some exchange sends: the sent grids and every grid a chain of swaps
/// connects to one.
std::set<std::string> exchanged_buffers(const Program& p) {
  Exchanges e;
  e.visit(p.body);
  std::set<std::string> out = e.sent;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [a, b] : e.swaps) {
      if (out.count(a) != out.count(b)) {
        out.insert(a);
        out.insert(b);
        grew = true;
      }
    }
  }
  return out;
}

class MarkThrough : public IRMutator {
 public:
  MarkThrough(const Program& p, std::set<std::string> exchanged)
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
  std::set<std::string> exchanged_;
};

}  // namespace

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
