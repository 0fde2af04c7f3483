// Internal to codegen/: small pieces the host and CUDA emitters share.
#pragma once

#include "codegen/CppEmitter.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "passes/LoopForms.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace stencilc::codegen {

using namespace ir;

/// A name the generated code derives from a user's `name`, in both targets: `sc_<role>_<name>`,
/// `role` one word (blocks, final, out, halo, on, shape, interior, epoch, grid, value, result).
/// A user's names never begin with sc_ (the front end stops them) and no fixed name of the
/// generated code has one of these roles' forms, so a derived name meets no other name: a grid
/// `u` and a grid `u_final` get `sc_final_u` and `sc_final_u_final`.
inline std::string derived(const char* role, const std::string& name) {
  return std::string("sc_") + role + "_" + name;
}

inline std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

inline std::string int_list(const std::vector<int>& v) {
  std::vector<std::string> s;
  for (int x : v) s.push_back(std::to_string(x));
  return "{" + join(s) + "}";
}

/// Every grid read of a statement, in the order it holds them (repeats included).
inline std::vector<const GridRead*> grid_reads(const Stmt& s) {
  struct Reads : IRVisitor {
    using IRVisitor::visit;
    std::vector<const GridRead*> all;
    void visit(const GridRead* r) override { all.push_back(r); }
  } reads;
  reads.visit(s);
  return reads.all;
}

/// The distinct grid reads of a statement (grid and offsets), in order of first appearance.
inline std::vector<const GridRead*> distinct_reads(const Stmt& s) {
  std::vector<const GridRead*> out;
  for (const GridRead* r : grid_reads(s)) {
    if (std::none_of(out.begin(), out.end(), [&](const GridRead* seen) {
          return seen->grid == r->grid && seen->offsets == r->offsets;
        }))
      out.push_back(r);
  }
  return out;
}

inline std::string block_type(const Param& p) {
  return std::string("::stencilc::rt::Block<") + cpp_type(p.type) + ", " + std::to_string(p.rank) + ">";
}

/// A launcher's check that no grid is passed for two of the program's grid parameters
/// (compiled::check_distinct_grids: the reference reads and writes one grid through both names,
/// the compiled program would give each its own storage); "" for fewer than two grid parameters.
/// `prefix`: the launcher's parameter names are the grids' with it in front.
inline std::string distinct_grids_check(const Program& p, const std::string& prefix = "") {
  std::vector<std::string> grids;
  for (const Param& g : p.params)
    if (g.kind == ParamKind::Grid)
      grids.push_back("{\"" + g.name + "\", &" + prefix + g.name + ", " + (g.is_const ? "true" : "false") + "}");
  if (grids.size() < 2) return "";
  return "  ::stencilc::compiled::check_distinct_grids(\"" + p.name + "\", {" + join(grids) + "});";
}

/// An SPMD launcher's line taking its type-erased argument `k` as the program's parameter `g`
/// (a block parameter arrives as its stencilc::Grid), for both targets; a block's GridDesc (halos
/// from the split) goes into `descs`.
inline std::string spmd_argument(const Param& g, size_t k, std::vector<std::string>* descs) {
  const std::string t = cpp_type(g.type), arg = "sc_args[" + std::to_string(k) + "]";
  if (g.kind == ParamKind::Block) {
    const std::string grid =
        std::string(g.is_const ? "const " : "") + "::stencilc::Grid<" + t + ", " + std::to_string(g.rank) + ">";
    descs->push_back("::stencilc::compiled::describe(\"" + g.name + "\", " + g.name + ", sc_halo, sc_halo)");
    return "  " + grid + "& " + g.name + " = *static_cast<" + grid + "*>(" + arg + ");";
  }
  if (g.kind == ParamKind::Scalar) return "  const " + t + " " + g.name + " = *static_cast<const " + t + "*>(" + arg + ");";
  return "  " + t + "& " + g.name + " = *static_cast<" + t + "*>(" + arg + ");";
}

/// The smallest and largest offset of every grid read in a point body, per grid and dimension.
struct ReadExtents : IRVisitor {
  using IRVisitor::visit;
  std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> grids;
  void visit(const GridRead* r) override {
    auto [it, fresh] = grids.try_emplace(r->grid, r->offsets, r->offsets);
    for (size_t d = 0; !fresh && d < r->offsets.size(); ++d) {
      it->second.first[d] = std::min(it->second.first[d], r->offsets[d]);
      it->second.second[d] = std::max(it->second.second[d], r->offsets[d]);
    }
  }
};

/// A wait's comparison as the runtime spells it (::stencilc::rt::Cmp::<name>).
inline const char* cmp_name(CmpOp op) {
  static const char* const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  return names[static_cast<int>(op)];
}

/// The grids a point body indexes, stored or read (a range check names them).
inline std::set<std::string> indexed_grids(const Stmt& point_body) {
  std::set<std::string> grids = passes::stored_grids(point_body);
  ReadExtents reads;
  reads.visit(point_body);
  for (const auto& read : reads.grids) grids.insert(read.first);
  return grids;
}

/// Grids that go through a halo exchange somewhere in the program.
struct ExchangedGrids : IRVisitor {
  using IRVisitor::visit;
  std::set<std::string> grids;
  std::vector<std::array<int, 2>> swaps;
  const Program* program = nullptr;
  void visit(const Stmt& s) override {
    if (auto* h = as<HaloSend>(s)) grids.insert(h->grid);
    if (auto* h = as<HaloRecv>(s)) grids.insert(h->grid);
    IRVisitor::visit(s);
  }
  void visit(const Swap* s) override {
    int a = -1, b = -1, k = 0;
    for (const Param& p : program->params) {
      if (p.kind != ParamKind::Grid) continue;
      if (p.name == s->a) a = k;
      if (p.name == s->b) b = k;
      ++k;
    }
    swaps.push_back({a, b});
  }
};

}  // namespace stencilc::codegen
