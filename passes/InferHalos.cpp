// infer-halos: the read footprint of each grid, united over the grids that swap with it.
#include "passes/InferHalos.h"

#include <algorithm>
#include <map>
#include <string>

#include "ir/IRVisitor.h"

namespace stencilc::passes {

namespace {

using namespace ir;

/// The extent of the reads of one grid around the point: widths below and above per dimension.
struct Footprint {
  std::vector<int> lo, hi;
  bool corners = false;

  void grow_to(size_t rank) {
    if (lo.size() < rank) lo.resize(rank, 0);
    if (hi.size() < rank) hi.resize(rank, 0);
  }
  void add_read(const std::vector<int>& offsets) {
    grow_to(offsets.size());
    int off_centre = 0;
    for (size_t d = 0; d < offsets.size(); ++d) {
      lo[d] = std::max(lo[d], -offsets[d]);
      hi[d] = std::max(hi[d], offsets[d]);
      if (offsets[d] != 0) ++off_centre;
    }
    if (off_centre >= 2) corners = true;
  }
  void merge(const Footprint& o) {
    grow_to(std::max(o.lo.size(), o.hi.size()));
    for (size_t d = 0; d < o.lo.size(); ++d) lo[d] = std::max(lo[d], o.lo[d]);
    for (size_t d = 0; d < o.hi.size(); ++d) hi[d] = std::max(hi[d], o.hi[d]);
    corners = corners || o.corners;
  }
};

/// Every grid read of a program (only point bodies hold them) and every swap.
class ReadsAndSwaps : public IRVisitor {
 public:
  using IRVisitor::visit;
  std::map<std::string, Footprint> footprints;
  std::vector<std::pair<std::string, std::string>> swaps;

  void visit(const GridRead* op) override { footprints[op->grid].add_read(op->offsets); }
  void visit(const Swap* op) override { swaps.emplace_back(op->a, op->b); }
};

/// Union-find over grid names: the groups of grids that swaps let share buffers.
class SwapGroups {
 public:
  std::string find(const std::string& g) {
    auto it = parent_.find(g);
    if (it == parent_.end() || it->second == g) return g;
    std::string root = find(it->second);
    parent_[g] = root;
    return root;
  }
  void unite(const std::string& a, const std::string& b) {
    std::string ra = find(a), rb = find(b);
    if (ra != rb) parent_[ra] = rb;
  }

 private:
  std::map<std::string, std::string> parent_;
};

bool is_grid(const Param& p) {
  return p.kind == ParamKind::Grid;
}

Program infer_program(const Program& p) {
  if (p.kind != ProgramKind::Global) return p;
  ReadsAndSwaps walk;
  walk.visit(p.body);
  SwapGroups groups;
  for (const auto& [a, b] : walk.swaps) groups.unite(a, b);

  std::map<std::string, Footprint> per_group;
  for (const Param& param : p.params) {
    if (!is_grid(param)) continue;
    Footprint& f = per_group[groups.find(param.name)];
    f.grow_to(static_cast<size_t>(param.rank));
    auto reads = walk.footprints.find(param.name);
    if (reads != walk.footprints.end()) f.merge(reads->second);
  }

  Program out = p;
  for (Param& param : out.params) {
    if (!is_grid(param)) continue;
    const Footprint& f = per_group[groups.find(param.name)];
    param.halo_lo.assign(f.lo.begin(), f.lo.begin() + param.rank);
    param.halo_hi.assign(f.hi.begin(), f.hi.begin() + param.rank);
    param.halo_corners = f.corners;
  }
  return out;
}

}  // namespace

ir::Module infer_halos(const ir::Module& m) {
  Module out = m;
  for (Program& p : out.programs) p = infer_program(p);
  return out;
}

}  // namespace stencilc::passes
