// defer-host-reads (passes/DeferHostReads.h), and the reduction-tail analyses it shares with
// the dataflow form's deferred reductions (LoopForms.cpp).
#include "passes/DeferHostReads.h"

#include <algorithm>
#include <optional>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace stencilc::passes {

using namespace ir;

namespace {

/// The names an expression reads.
struct VarReads : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> names;
  void visit(const Var* v) override { names.insert(v->name); }
};

/// Whether `s` holds a `return` (the loop it is in may end without reaching what follows it).
bool returns(const Stmt& s) {
  struct Find : IRVisitor {
    using IRVisitor::visit;
    bool found = false;
    void visit(const Stmt& s) override {
      if (s && s->kind == StmtKind::Return) found = true;
      IRVisitor::visit(s);
    }
  } find;
  find.visit(s);
  return find.found;
}

/// How many reductions in `s` name their result `result`.
int reductions_named(const Stmt& s, const std::string& result) {
  struct Count : IRVisitor {
    using IRVisitor::visit;
    const std::string* result = nullptr;
    int n = 0;
    void visit(const Stmt& s) override {
      if (auto* r = s ? as<Reduce>(s) : nullptr) n += r->result == *result;
      IRVisitor::visit(s);
    }
  } count;
  count.result = &result;
  count.visit(s);
  return count.n;
}

/// One loop's deferred reductions: the loop rewritten, and the statements that go before it (the
/// flags) and after it (the combinations).
class DeferInLoop {
 public:
  DeferInLoop(const Stmt& loop, int& flags)
      : loop_(loop), flags_(flags), loop_var_(loop->kind == StmtKind::For ? as<For>(loop)->var : "") {}

  std::vector<Stmt> run() {
    Stmt body = loop_->kind == StmtKind::For ? as<For>(loop_)->body : as<While>(loop_)->body;
    if (returns(body)) return {loop_};
    Stmt rewritten = rewrite(body);
    if (rewritten == body) return {loop_};
    Stmt loop;
    if (auto* f = as<For>(loop_)) {
      auto copy = std::make_shared<For>(*f);
      copy->body = rewritten;
      loop = copy;
    } else {
      auto copy = std::make_shared<While>(*as<While>(loop_));
      copy->body = rewritten;
      loop = copy;
    }
    std::vector<Stmt> out = std::move(before_);
    out.push_back(loop);
    out.insert(out.end(), after_.begin(), after_.end());
    return out;
  }

 private:
  // The statements of the loop's body where its own reductions are: blocks and the branches of
  // ifs, not loops inside it (their own reductions are theirs) or point bodies.
  Stmt rewrite(const Stmt& s) {
    if (auto* b = s ? as<Block>(s) : nullptr) return rewrite_block(*b, s);
    if (auto* i = s ? as<If>(s) : nullptr) {
      Stmt then_body = rewrite(i->then_body), else_body = rewrite(i->else_body);
      if (then_body == i->then_body && else_body == i->else_body) return s;
      auto copy = std::make_shared<If>(*i);
      copy->then_body = then_body;
      copy->else_body = else_body;
      return copy;
    }
    return s;
  }

  Stmt rewrite_block(const Block& b, const Stmt& self) {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      auto* r = as<Reduce>(b.stmts[k]);
      auto* all = k + 1 < b.stmts.size() ? as<AllReduce>(b.stmts[k + 1]) : nullptr;
      if (r && all && all->var == r->result) {
        if (std::optional<size_t> tail = defer(b, k, *r, *all, &stmts)) {
          k += 1 + *tail;  // past the allreduce and its tail
          changed = true;
          continue;
        }
      }
      Stmt t = rewrite(b.stmts[k]);
      changed = changed || t != b.stmts[k];
      stmts.push_back(t);
    }
    return changed ? make_block(std::move(stmts), b.loc) : self;
  }

  // Reduction `r` at `at` of `b`, its allreduce `all` right after it: deferred where nothing in
  // the loop reads what it and its tail give; appends to `stmts` the reduction and the flag's
  // assignment and returns the tail's length (none: not deferred).
  std::optional<size_t> defer(const Block& b, size_t at, const Reduce& r, const AllReduce& all,
                              std::vector<Stmt>* stmts) {
    std::vector<Stmt> tail = reduction_tail(b, at + 2, r.result);
    std::set<std::string> names{r.result};
    for (const Stmt& t : tail) names.insert(as<Assign>(t)->name);
    if (names.count(loop_var_) || reductions_named(loop_, r.result) != 1 ||
        !unread_in_loop(loop_, tail, names))
      return std::nullopt;
    const std::string flag = "sc_deferred" + std::to_string(flags_++);
    before_.push_back(make_var_decl(flag, ScalarType::Bool, make_bool(false), all.loc));
    std::vector<Stmt> combine{make_var_decl(r.result, r.type, nullptr, all.loc),
                              make_all_reduce(all.var, all.op, all.loc, /*last=*/true)};
    combine.insert(combine.end(), tail.begin(), tail.end());
    after_.push_back(make_if(make_var(flag, ScalarType::Bool), make_block(std::move(combine), all.loc),
                             nullptr, all.loc));
    stmts->push_back(b.stmts[at]);
    stmts->push_back(make_assign(flag, make_bool(true), all.loc));
    return tail.size();
  }

  const Stmt& loop_;
  int& flags_;
  const std::string loop_var_;  // a `for`'s variable, else empty
  std::vector<Stmt> before_, after_;
};

/// Rewrites every loop of a program body, innermost first, splicing each one's flags before it
/// and its combinations after it into the block that holds it.
class DeferLoops : public IRMutator {
 protected:
  using IRMutator::visit;
  Stmt visit(const Ref<Block>& op) override {
    bool changed = false;
    std::vector<Stmt> stmts;
    for (const Stmt& s : op->stmts) {
      Stmt m = mutate(s);  // the loops inside first
      changed = changed || m != s;
      if (m && (m->kind == StmtKind::For || m->kind == StmtKind::While)) {
        std::vector<Stmt> spliced = DeferInLoop(m, flags_).run();
        changed = changed || spliced.size() != 1 || spliced[0] != m;
        stmts.insert(stmts.end(), spliced.begin(), spliced.end());
      } else if (m) {
        stmts.push_back(std::move(m));
      }
    }
    if (!changed) return op;
    return make_block(std::move(stmts), op->loc);
  }

 private:
  int flags_ = 0;
};

}  // namespace

std::vector<Stmt> reduction_tail(const Block& b, size_t from, const std::string& result) {
  std::vector<Stmt> tail;
  for (size_t k = from; k < b.stmts.size(); ++k) {
    auto* assign = as<Assign>(b.stmts[k]);
    if (!assign) break;
    VarReads value;
    value.visit(assign->value);
    if (std::any_of(value.names.begin(), value.names.end(),
                    [&](const std::string& n) { return n != result; }))
      break;
    tail.push_back(b.stmts[k]);
  }
  return tail;
}

bool unread_in_loop(const Stmt& loop, const std::vector<Stmt>& tail,
                    const std::set<std::string>& names) {
  struct Uses : IRVisitor {
    using IRVisitor::visit;
    const std::set<const StmtNode*>* skip = nullptr;
    const std::set<std::string>* names = nullptr;
    bool used = false;
    void visit(const Var* v) override { used = used || names->count(v->name); }
    void visit(const Assign* a) override {
      if (skip->count(a)) return;
      used = used || names->count(a->name);
      IRVisitor::visit(a);
    }
    void visit(const VarDecl* d) override {
      used = used || names->count(d->name);
      IRVisitor::visit(d);
    }
  } uses;
  std::set<const StmtNode*> skip;
  for (const Stmt& t : tail) skip.insert(t.get());
  uses.skip = &skip;
  uses.names = &names;
  uses.visit(loop);
  return !uses.used;
}

Module defer_host_reads(const Module& m) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.kind != ProgramKind::Global || !p.decomposed) continue;
    p.body = DeferLoops().mutate(p.body);
  }
  return out;
}

}  // namespace stencilc::passes
