// store-through: a time loop's halo exchange folded into the point update that produces the
// halos (passes/StoreThrough.h says what matches and why the result is right).
#include "passes/StoreThrough.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// What a statement does to grids, nested statements included: the grids it stores to, reads, and
/// reads at a non-zero offset (their halos), and whether it holds a swap or a halo transfer.
struct Effects : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> stored, read, halo_read;
  bool swaps = false, transfers = false;
  void visit(const Store* op) override {
    stored.insert(op->grid);
    IRVisitor::visit(op);
  }
  void visit(const GridRead* op) override {
    read.insert(op->grid);
    for (int o : op->offsets) {
      if (o != 0) halo_read.insert(op->grid);
    }
    IRVisitor::visit(op);
  }
  void visit(const Stmt& s) override {
    if (s && s->kind == StmtKind::Swap) swaps = true;
    if (s && (s->kind == StmtKind::HaloSend || s->kind == StmtKind::HaloRecv)) transfers = true;
    IRVisitor::visit(s);
  }
};

Effects effects_of(const Stmt& s) {
  Effects e;
  e.visit(s);
  return e;
}

/// The rewritten loop body and what goes before the loop, when the body matches.
struct Folded {
  std::vector<Stmt> prologue;
  Stmt body;
};

std::optional<Folded> fold(const Program& p, const Stmt& loop_body, const SourceLoc& loop_loc) {
  auto* body = as<Block>(loop_body);
  if (!body) return std::nullopt;
  const std::vector<Stmt>& stmts = body->stmts;
  // The swaps: at the top level, after every statement that touches a grid (only scalar work,
  // such as counting iterations, may follow them), none nested. The buffer each name holds after
  // them.
  size_t first_swap = 0;
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (stmts[k]->kind == StmtKind::Swap) continue;
    const Effects e = effects_of(stmts[k]);
    if (!e.stored.empty() || !e.read.empty() || e.transfers || e.swaps) first_swap = k + 1;
  }
  std::map<std::string, std::string> held;  // name -> the name whose buffer it holds afterwards
  for (size_t k = first_swap; k < stmts.size(); ++k) {
    auto* sw = as<Swap>(stmts[k]);
    if (!sw) continue;  // scalar work
    if (!held.count(sw->a)) held[sw->a] = sw->a;
    if (!held.count(sw->b)) held[sw->b] = sw->b;
    std::swap(held[sw->a], held[sw->b]);
  }
  // The one exchanged grid: its halo_send and halo_recv at the top level, no other transfer.
  std::optional<size_t> send, recv;
  std::string g;
  for (size_t k = 0; k < first_swap; ++k) {
    const Stmt& s = stmts[k];
    if (auto* h = as<HaloSend>(s)) {
      if (send || (!g.empty() && g != h->grid)) return std::nullopt;
      send = k;
      g = h->grid;
      continue;
    }
    if (auto* h = as<HaloRecv>(s)) {
      if (recv || (!g.empty() && g != h->grid)) return std::nullopt;
      recv = k;
      g = h->grid;
      continue;
    }
    const Effects e = effects_of(s);
    if (e.swaps || e.transfers) return std::nullopt;
  }
  if (!send || !recv || *send > *recv || !held.count(g)) return std::nullopt;
  const std::string h = held[g];  // the buffer g names at the next iteration, named h now
  const Param* hp = p.find_param(h);
  if (h == g || !hp || hp->kind != ParamKind::Grid) return std::nullopt;
  // h written only by the two parts of one split foreach, g not at all, h's halo never read.
  std::vector<size_t> writers;
  for (size_t k = 0; k < first_swap; ++k) {
    const Effects e = effects_of(stmts[k]);
    if (e.stored.count(g) || e.halo_read.count(h)) return std::nullopt;
    if (e.stored.count(h)) writers.push_back(k);
  }
  if (writers.size() != 2) return std::nullopt;
  auto* a = as<ForEach>(stmts[writers[0]]);
  auto* b = as<ForEach>(stmts[writers[1]]);
  if (!a || !b || !are_split_parts(*a, *b) || !a->through.empty() || !b->through.empty()) return std::nullopt;
  const size_t boundary = a->part == ForEachPart::Boundary ? writers[0] : writers[1];
  // The boundary part must hold every cell that is sent: towards the high side the layers the
  // neighbour's low halo needs (halo_lo deep), towards the low side halo_hi. split-boundary sized
  // the parts by the halos the update reads, which differ for a one-sided stencil (advect2d reads
  // only i - 1 and j - 1, so it sends its last rows, which would lie in the inner part): widen
  // both parts alike.
  std::vector<int> width_lo = a->width_lo, width_hi = a->width_hi;
  if (width_lo.size() != hp->halo_lo.size() || width_hi.size() != hp->halo_hi.size()) return std::nullopt;
  for (size_t d = 0; d < width_lo.size(); ++d) {
    width_lo[d] = std::max(width_lo[d], hp->halo_hi[d]);
    width_hi[d] = std::max(width_hi[d], hp->halo_lo[d]);
  }
  // The new body: no transfers of g, the boundary part written through, a barrier after F.
  std::vector<Stmt> out;
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (k == *send || k == *recv) continue;
    if (k == writers[0] || k == writers[1]) {
      const Stmt widened = with_widths(stmts[k], width_lo, width_hi);
      out.push_back(k == boundary ? with_through(widened, h) : widened);
    } else {
      out.push_back(stmts[k]);
    }
    if (k == writers[1]) out.push_back(make_barrier_all(stmts[k]->loc));
  }
  Folded folded;
  const SourceLoc& at = stmts[*send]->loc.valid() ? stmts[*send]->loc : loop_loc;
  for (const std::string& grid : {g, h}) {
    folded.prologue.push_back(make_halo_send(grid, at));
    folded.prologue.push_back(make_halo_recv(grid, at));
  }
  // The first step stores into the neighbours' halos, which their own recv above may still be
  // unpacking into: every PE finishes its exchanges before any PE stores through. (Missing in
  // session 6's version: small, run-to-run errors on 2-4 GPUs.)
  folded.prologue.push_back(make_barrier_all(at));
  folded.body = make_block(std::move(out), body->loc);
  return folded;
}

/// Folds every matching loop, innermost first; a folded loop's prologue goes into the enclosing
/// block just before it.
class FoldLoops : public IRMutator {
 public:
  explicit FoldLoops(const Program& p) : program_(p) {}

 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<Block>& op) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      Stmt m = mutate(s);
      changed = changed || m != s;
      if (auto* f = as<For>(m)) {
        if (std::optional<Folded> folded = fold(program_, f->body, f->loc)) {
          stmts.insert(stmts.end(), folded->prologue.begin(), folded->prologue.end());
          stmts.push_back(make_for(f->var, f->type, f->lo, f->hi, f->step, folded->body, f->loc));
          changed = true;
          continue;
        }
      } else if (auto* w = as<While>(m)) {
        if (std::optional<Folded> folded = fold(program_, w->body, w->loc)) {
          stmts.insert(stmts.end(), folded->prologue.begin(), folded->prologue.end());
          stmts.push_back(make_while(w->cond, folded->body, w->loc));
          changed = true;
          continue;
        }
      }
      stmts.push_back(std::move(m));
    }
    return changed ? make_block(std::move(stmts), op->loc) : op;
  }

 private:
  const Program& program_;
};

}  // namespace

ir::Module store_through(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind != ProgramKind::Global || !p.decomposed) continue;
    p.body = FoldLoops(p).mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
