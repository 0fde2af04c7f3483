// The phase-barrier analysis (see PhaseBarriers.h): a forward walk that carries, per grid buffer,
// the accesses made since the workers last synchronised, and either inserts a barrier where a
// statement depends on one of them (placement) or reports it (checking).
#include "passes/PhaseBarriers.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "passes/GridEffects.h"
#include "passes/SpmdEffects.h"

namespace stencilc::passes {

namespace {

using namespace ir;

// Worker groups, as bits: a specialised PE's comm and compute workers (both: every worker).
constexpr unsigned kComm = 1, kCompute = 2, kBothGroups = kComm | kCompute;

unsigned groups_of(WorkerRole r) {
  return r == WorkerRole::Comm ? kComm : r == WorkerRole::Compute ? kCompute : kBothGroups;
}

/// One group's access to a grid buffer that some workers are not yet ordered after.
struct Access {
  unsigned group = 0;      // kComm or kCompute: the workers that made it
  unsigned unordered = 0;  // the groups a later access by which would still race with it
  unsigned read = 0, written = 0;
  std::string pair;  // the split foreach it belongs to (pair_key), or ""
  ForEachPart part = ForEachPart::All;
  std::string name;  // the buffer's name when accessed (a swap renames buffers, not accesses)
  std::string what;  // the statement, for messages
  WorkerRole role = WorkerRole::All;  // the statement's
  auto key() const {
    return std::tie(group, unordered, read, written, pair, part, name, what, role);
  }
  bool operator<(const Access& o) const { return key() < o.key(); }
  bool operator==(const Access& o) const { return key() == o.key(); }
};

/// Pending accesses by the name the buffer has now.
using State = std::map<std::string, std::set<Access>>;

void join(State& into, const State& other) {
  for (const auto& [name, accesses] : other) into[name].insert(accesses.begin(), accesses.end());
}

std::string describe(const Stmt& s) {
  std::string text = print(s);
  text = text.substr(0, text.find('\n'));
  if (text.size() >= 2 && text.compare(text.size() - 2, 2, " {") == 0) text.resize(text.size() - 2);
  return text;
}

std::string regions(unsigned r) {
  std::vector<std::string> parts;
  if (r & kHalo) parts.push_back("halo");
  if (r & kSendLayers) parts.push_back("send layers");
  if (r & kInnerCells) parts.push_back("inner cells");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? (i + 1 == parts.size() ? " and " : ", ") : "") + parts[i];
  return out;
}

struct CountBarriers : IRVisitor {
  using IRVisitor::visit;
  int n = 0;
  void visit(const PhaseBarrier*) override { ++n; }
};

int count_barriers(const Stmt& s) {
  CountBarriers c;
  c.visit(s);
  return c.n;
}

class PhaseWalk {
 public:
  PhaseWalk(const Program& p, bool place) : program_(p), place_(place) {
    if (p.kind == ProgramKind::Spmd) spmd_.emplace(p);
  }

  Stmt run() {
    State st;
    return block(program_.body, st);
  }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  Stmt block(const Stmt& s, State& st) {
    auto* b = as<Block>(s);
    if (!b) return s;
    std::vector<Stmt> out;
    bool changed = false;
    for (size_t k = 0; k < b->stmts.size(); ++k) {
      const Stmt& x = b->stmts[k];
      Stmt y = x;
      switch (x->kind) {
        case StmtKind::PhaseBarrier:
          if (place_) {  // placement starts from none
            changed = true;
            continue;
          }
          barrier(st, groups_of(as<PhaseBarrier>(x)->role));
          break;
        case StmtKind::AllReduce:
        case StmtKind::Quiet:
        case StmtKind::BarrierAll:
        case StmtKind::SignalDecl:
          // Every worker hands in its part and waits for the result; the SPMD collectives are
          // done by all the PE's workers together too (docs/IR.md, "Persistent programs").
          st.clear();
          break;
        case StmtKind::Swap: {
          auto* sw = as<Swap>(x);
          auto a = st.extract(sw->a), c = st.extract(sw->b);
          if (!a.empty()) a.key() = sw->b, st.insert(std::move(a));
          if (!c.empty()) c.key() = sw->a, st.insert(std::move(c));
          break;
        }
        case StmtKind::ForEach:
        case StmtKind::Reduce:
        case StmtKind::HaloSend:
        case StmtKind::HaloRecv:
        case StmtKind::Exchange:
        case StmtKind::PutSignal:
        case StmtKind::WaitUntil:
          if (depends(st, x) && place_) {
            out.push_back(make_phase_barrier(x->loc));
            st.clear();
            changed = true;
          }
          record(st, x);
          // An SPMD reduction's result is combined over the PE's workers at its end.
          if (spmd_ && x->kind == StmtKind::Reduce) st.clear();
          break;
        case StmtKind::If:
        case StmtKind::For:
        case StmtKind::While: {
          bool before = false;
          y = x->kind == StmtKind::If
                  ? branches(x, st, std::vector<Stmt>(b->stmts.begin() + k + 1, b->stmts.end()),
                             &before)
                  : loop(x, st, &before);
          if (before) out.push_back(make_phase_barrier(x->loc));
          changed = changed || before;
          break;
        }
        case StmtKind::Block:
          y = block(x, st);
          break;
        default:
          break;
      }
      changed = changed || y != x;
      out.push_back(std::move(y));
    }
    return changed ? make_block(std::move(out), b->loc) : s;
  }

  /// The if with its branches walked from st; st becomes the join of their ends. *before: one
  /// barrier before the if does better than those in its branches: it saves barriers in them or
  /// in `rest` (what follows in the block), or, in a loop, as many but leaves less pending for
  /// the next iteration (a branch without a barrier would carry the accesses on).
  Stmt branches(const Stmt& x, State& st, const std::vector<Stmt>& rest, bool* before) {
    auto* i = as<If>(x);
    auto walk = [&](State entry, Stmt* then_body, Stmt* else_body) {
      State else_state = entry;
      *then_body = block(i->then_body, entry);
      *else_body = i->else_body ? block(i->else_body, else_state) : nullptr;
      join(entry, else_state);
      return entry;
    };
    Stmt then_body, else_body;
    State end = walk(st, &then_body, &else_body);
    if (place_ && !st.empty()) {
      Stmt clean_then, clean_else;
      ++quiet_;
      State clean_end = walk(State{}, &clean_then, &clean_else);
      --quiet_;
      int inside = count_barriers(then_body) + (else_body ? count_barriers(else_body) : 0) +
                   barriers_after(end, rest);
      int clean = 1 + count_barriers(clean_then) + (clean_else ? count_barriers(clean_else) : 0) +
                  barriers_after(clean_end, rest);
      bool less_pending = loops_ > 0 && clean_end != end;
      if (clean < inside || (clean == inside && less_pending)) {
        *before = true;
        end = std::move(clean_end);
        then_body = clean_then;
        else_body = clean_else;
      }
    }
    st = std::move(end);
    if (then_body == i->then_body && else_body == i->else_body) return x;
    return rebuild_if(*i, i->cond, then_body, else_body);
  }

  /// The loop with its body walked from the fixpoint of its head state; st becomes that state
  /// (a loop exits from its head). *before: a barrier before the loop saves one inside it.
  Stmt loop(const Stmt& x, State& st, bool* before) {
    const Stmt& body = x->kind == StmtKind::For ? as<For>(x)->body : as<While>(x)->body;
    ++loops_;
    State head = fixpoint(body, st);
    State end = head;
    Stmt out = block(body, end);
    if (place_ && !st.empty()) {
      State clean_head = fixpoint(body, State{}), clean_end = clean_head;
      ++quiet_;
      Stmt clean = block(body, clean_end);
      --quiet_;
      if (count_barriers(clean) < count_barriers(out)) {
        *before = true;
        head = std::move(clean_head);
        out = clean;
      }
    }
    --loops_;
    st = std::move(head);
    if (out == body) return x;
    if (auto* f = as<For>(x)) return make_for(f->var, f->type, f->lo, f->hi, f->step, out, f->loc);
    return make_while(as<While>(x)->cond, out, x->loc);
  }

  /// How many barriers `rest` needs when walked from st.
  int barriers_after(State st, const std::vector<Stmt>& rest) {
    if (rest.empty()) return 0;
    ++quiet_;
    Stmt walked = block(make_block(rest), st);
    --quiet_;
    return count_barriers(walked);
  }

  State fixpoint(const Stmt& body, State head) {
    ++quiet_;
    for (;;) {
      State end = head;
      block(body, end);
      State next = head;
      join(next, end);
      if (next == head) break;
      head = std::move(next);
    }
    --quiet_;
    return head;
  }

  void barrier(State& st, unsigned groups) {
    if (groups == kBothGroups) return st.clear();
    for (auto it = st.begin(); it != st.end();) {
      std::set<Access> kept;
      for (Access a : it->second) {
        if (a.group == groups) a.unordered &= ~groups;
        if (a.unordered) kept.insert(std::move(a));
      }
      if (kept.empty()) {
        it = st.erase(it);
      } else {
        it->second = std::move(kept);
        ++it;
      }
    }
  }

  /// What x is for the pair rule: its split key and the grids it stores to.
  struct Part {
    std::string pair;
    ForEachPart part = ForEachPart::All;
    std::set<std::string> stored;
  };
  const Part& part_of(const Stmt& x) {
    auto [it, fresh] = parts_.try_emplace(x.get());
    auto* f = as<ForEach>(x);
    if (fresh && f && f->part != ForEachPart::All) {
      std::string widths;
      for (size_t d = 0; d < f->width_lo.size() && d < f->width_hi.size(); ++d)
        widths += std::to_string(f->width_lo[d]) + ":" + std::to_string(f->width_hi[d]) + ",";
      std::string indices;
      for (const std::string& i : f->indices) indices += i + ",";
      it->second.pair = widths + "|" + print(f->range) + "|" + indices + "|" + print(f->body);
      it->second.part = f->part;
      it->second.stored = point_body_use(f->body).stored;
    }
    return it->second;
  }

  /// True when x depends on a pending access; reports each such dependence when checking.
  bool depends(const State& st, const Stmt& x) {
    unsigned groups = groups_of(role_of(x));
    const Part& me = part_of(x);
    bool found = false;
    std::map<std::string, GridAccess> accessed = accesses(x);
    if (spmd_ && x->kind == StmtKind::PutSignal) {
      // Once a put's signal is set, peers may write the cells puts write into: every worker
      // must be done with them (SpmdAnalysis::effects says the same for moves).
      for (const auto& [name, a] : spmd_->peer_writable()) accessed[name].written |= a.written;
    }
    if (spmd_ && x->kind == StmtKind::WaitUntil) {
      // A wait touches no cell itself: the peer's put wrote what it guards, and the workers that
      // read or write those cells after it are ordered after it by its recorded access.
      accessed.clear();
    }
    for (const auto& [name, a] : accessed) {
      auto it = st.find(name);
      if (it == st.end()) continue;
      for (const Access& e : it->second) {
        bool raw = e.written & a.read, war = e.read & a.written, waw = e.written & a.written;
        if (!(raw || war || waw)) continue;
        // The two parts of one split foreach touch disjoint points of the grids it stores to.
        if (!me.pair.empty() && e.pair == me.pair && e.part != me.part && e.name == name &&
            me.stored.count(name))
          continue;
        for (unsigned h : {kComm, kCompute}) {
          if (!(groups & h) || !(e.unordered & h)) continue;
          found = true;
          if (quiet_ == 0 && !place_) report(x, name, a, e, raw ? "reads" : "writes");
        }
      }
    }
    return found;
  }

  void report(const Stmt& x, const std::string& name, const GridAccess& a, const Access& e,
              const char* verb) {
    unsigned overlap = (e.written & (a.read | a.written)) | (e.read & a.written);
    // Work of one group on both sides: that group's barrier would do.
    WorkerRole role = role_of(x);
    std::string which = role != WorkerRole::All && role == e.role
                            ? std::string("role(") + to_string(role) + ") or PE-wide "
                            : "";
    std::string message = describe(x) + " " + verb + " the " + regions(overlap) + " of %" + name +
                          " after " + e.what + " with no " + which + "phase_barrier between them";
    for (const std::string& m : problems_) {
      if (m == message) return;
    }
    problems_.push_back(std::move(message));
  }

  void record(State& st, const Stmt& x) {
    const Part& me = part_of(x);
    std::string what = describe(x);
    for (const auto& [name, a] : accesses(x)) {
      for (unsigned h : {kComm, kCompute}) {
        if (!(groups_of(role_of(x)) & h)) continue;
        st[name].insert(
            Access{h, kBothGroups, a.read, a.written, me.pair, me.part, name, what, role_of(x)});
      }
    }
  }

  static WorkerRole role_of(const Stmt& x) {
    if (auto* f = as<ForEach>(x)) return f->role;
    if (auto* h = as<HaloSend>(x)) return h->role;
    if (auto* h = as<HaloRecv>(x)) return h->role;
    if (auto* p = as<PutSignal>(x)) return p->role;
    if (auto* w = as<WaitUntil>(x)) return w->role;
    return WorkerRole::All;
  }

  /// The regions of each grid or block that x by itself reads and writes.
  std::map<std::string, GridAccess> accesses(const Stmt& x) const {
    return spmd_ ? spmd_->accesses(x) : grid_accesses(program_, x);
  }

  const Program& program_;
  std::optional<SpmdAnalysis> spmd_;  // SPMD programs: their blocks' regions
  const bool place_;
  int quiet_ = 0;  // > 0 while walking for a state only (fixpoints, alternatives)
  int loops_ = 0;  // loops around the statement being walked
  std::map<const StmtNode*, Part> parts_;
  std::vector<std::string> problems_;
};

}  // namespace

ir::Stmt place_phase_barriers(const ir::Program& p) {
  return PhaseWalk(p, /*place=*/true).run();
}

std::vector<std::string> unordered_dependences(const ir::Program& p) {
  PhaseWalk walk(p, /*place=*/false);
  walk.run();
  return walk.problems();
}

}  // namespace stencilc::passes
