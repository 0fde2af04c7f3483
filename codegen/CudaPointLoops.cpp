// Point loops of the CUDA kernel (CudaKernelEmitter.h): strips and wide items of the inner parts,
// boundary walks, the dataflow form's batches and strips, folded reductions.
#include <algorithm>

#include "codegen/CudaKernelEmitter.h"
#include "ir/IRPrinter.h"

namespace stencilc::codegen::cuda {

int CudaKernelEmitter::open_points(const Stmt& s, const Range& range,
                                   const std::vector<std::string>& indices, const Stmt& point_body,
                                   int indent, const std::string& group, const ForEach* part,
                                   bool strip) {
  indices_ = indices;
  line(indent, "{");
  ++indent;
  line(indent, "const auto sc_range = " + global_range(range) + ";");
  const std::string where = this->where(s->loc);
  point_checks(range, indices, point_body, where, indent);
  if (spmd_) {
    line(indent, "const auto sc_local = sc_range;");
  } else if (part && part == flow_loop_.update && flow_ && flow_walk_hoisted()) {
    // The dataflow loop: this block's rows of the range, all of them, walked by the block's
    // own threads; the walk was set up before the loop (flow_walk_hoisted).
    split_ = true;
    line(indent, "(void)sc_range;");
    return open_walk(indent, point_body, "sc_mine", where, "sc_flow_walk");
  } else {
    line(indent,
         "const auto sc_local = " + std::string(kRt) + "clip(sc_range, " + first_grid_ + ");");
  }
  size_t n = indices.size();
  split_ = part && part->part != ForEachPart::All;
  if (split_ && flow_) {
    // The dataflow loop: as above, where the range may change from step to step.
    line(indent, "const auto sc_parts = " + std::string(kRt) + "flow_rows(sc_local, sc_flow);");
    return open_walk(indent, point_body, "sc_mine", where);
  }
  if (split_) {
    if (part->part == ForEachPart::Boundary) {
      const auto hoisted = hoisted_walks_.find(part);
      if (hoisted == hoisted_walks_.end()) {
        split_parts(indent, *part, point_body);
        return open_walk(indent, point_body, group, where);
      }
      // The walk set up before the loop (hoist_boundary_walks) where generated.cuh's
      // STENCILC_HOIST_BOUNDARY_WALK reaches the part's rank, else every step.
      line(0, hoist_condition(part->indices.size()));
      line(indent, "const auto& sc_walk = " + hoisted->second + ";  // set up before the loop");
      line(indent, "(void)sc_local;");
      line(0, "#else");
      split_parts(indent, *part, point_body);
      build_walk(indent, "sc_walk", where);
      line(0, "#endif");
      return open_walk(indent, point_body, group, where, "", true);
    }
    split_parts(indent, *part, point_body);
    line(indent, "for (int sc_b = 0; sc_b < sc_parts.count; ++sc_b) {");
    ++indent;
    line(indent, "const auto& sc_box = sc_parts.box[sc_b];");
  } else {
    line(indent, flow_rows_ ? "const auto sc_box = " + std::string(kRt) +
                                  "flow_rows(sc_local, sc_flow).box[0];  // this block's rows"
                            : "const auto& sc_box = sc_local;");
  }
  // Chunks of whole slices along dimension 0 keep the flat index below 2^31 (one chunk unless
  // the block is huge); in a chunk, point p of the group's threads is row-major.
  line(indent, "const int sc_rows = " + std::string(kRt) + "rows_per_chunk(sc_pe, sc_box, \"" +
                   program_->name + " at " + where + "\");");
  line(indent, "for (int sc_c0 = sc_box.lo[0]; sc_c0 < sc_box.hi[0]; sc_c0 += sc_rows) {");
  ++indent;
  std::vector<std::string> extents{"::min(sc_rows, sc_box.hi[0] - sc_c0)"};
  line(indent, "const int sc_n0 = " + extents[0] + ";");
  for (size_t d = 1; d < n; ++d) {
    std::string dd = std::to_string(d);
    line(indent, "const int sc_n" + dd + " = sc_box.hi[" + dd + "] - sc_box.lo[" + dd + "];");
    line(indent, "const " + std::string(kRt) + "FastDiv sc_div" + dd + "(sc_n" + dd + ");");
  }
  std::vector<std::string> sizes;
  for (size_t d = 0; d < n; ++d)
    sizes.push_back("static_cast<unsigned>(sc_n" + std::to_string(d) + ")");
  line(indent, "const unsigned sc_points = " + join(sizes, " * ") + ";");
  open_views(point_body, indent);
  loop_vars_.assign(n, "");
  for (size_t d = 0; d < n; ++d) loop_vars_[d] = "sc_l" + std::to_string(d);
  if (strip) return indent;  // strip_points() emits the loops
  return open_point_loop(indent, group, false);
}

void CudaKernelEmitter::point_checks(const Range& range, const std::vector<std::string>& indices,
                                     const Stmt& point_body, const std::string& where,
                                     int indent) {
  ReadExtents reads;
  reads.visit(point_body);
  for (const auto& [grid, ext] : reads.grids) {
    bool offsets = std::any_of(ext.first.begin(), ext.first.end(), [](int o) { return o != 0; }) ||
                   std::any_of(ext.second.begin(), ext.second.end(), [](int o) { return o != 0; });
    if (spmd_) {
      // Local indices: every read must stay inside the block and its halos (as the reference
      // checks).
      line(indent, "{");
      line(indent + 1, "const int sc_lo[] = " + int_list(ext.first) +
                           ", sc_hi[] = " + int_list(ext.second) + ";");
      line(indent + 1, std::string(kRt) + "check_local_reads(sc_pe, sc_range, " + grid +
                           ", sc_lo, sc_hi, \"" + program_->name + " at " + where +
                           " reading block '" + grid + "'\");");
      line(indent, "}");
      continue;
    }
    if (!offsets) continue;
    line(indent, "{");
    line(indent + 1, "const int sc_lo[] = " + int_list(ext.first) +
                         ", sc_hi[] = " + int_list(ext.second) + ";");
    line(indent + 1, std::string(kRt) + "check_reads(sc_pe, sc_range, sc_args." +
                         derived("shape", grid) + ".extent, sc_args." + derived("shape", grid) +
                         ".periodic, sc_lo, sc_hi, \"" + program_->name + " at " + where +
                         " reading '" + grid + "'\");");
    line(indent, "}");
  }
  if (!spmd_ && range.kind != Range::Kind::Interior && range.kind != Range::Kind::Owned)
    range_check(point_body, where, indent);
  if (spmd_) {
    // SPMD ranges are local already; every point a store writes must be a cell of the block.
    for (const std::string& b : stored_grids(point_body)) {
      line(indent, "{");
      line(indent + 1, "const int sc_lo[] = " + int_list(std::vector<int>(indices.size(), 0)) +
                           ", sc_hi[] = " + int_list(std::vector<int>(indices.size(), 0)) + ";");
      line(indent + 1, std::string(kRt) + "check_local_reads(sc_pe, sc_range, " + b +
                           ", sc_lo, sc_hi, \"" + program_->name + " at " + where +
                           " writing block '" + b + "'\");");
      line(indent, "}");
    }
  }
}

void CudaKernelEmitter::range_check(const Stmt& point_body, const std::string& where,
                                    int indent) {
  const std::set<std::string> indexed = indexed_grids(point_body);
  std::vector<std::string> periodic, names;
  for (const std::string& g : indexed) {
    periodic.push_back("sc_args." + derived("shape", g) + ".periodic");
    names.push_back("\"" + g + "\"");
  }
  line(indent, "{");
  line(indent + 1, "const bool* const sc_periodic[] = {" + join(periodic) + "};");
  line(indent + 1, "const char* const sc_grids[] = {" + join(names) + "};");
  line(indent + 1, std::string(kRt) + "check_range(sc_pe, sc_range, sc_args." +
                       derived("shape", first_grid_) + ".extent, sc_periodic, sc_grids, " +
                       std::to_string(indexed.size()) + ", \"" + program_->name + "\", \"" + where +
                       "\");");
  line(indent, "}");
}

void CudaKernelEmitter::split_parts(int indent, const ForEach& part, const Stmt& point_body) {
  ReadExtents reads;
  reads.visit(point_body);
  const std::string faces = spmd_ ? split_reference_block(part) : first_grid_;
  std::set<std::string> touched =
      stored_grids(point_body);  // the widths' two reasons: sends and receives
  for (const auto& [grid, ext] : reads.grids) touched.insert(grid);
  std::vector<std::string> sides;
  for (const std::string& g : touched)
    if (!spmd_ && exchanged_.count(g)) sides.push_back("sc_args." + derived("halo", g) + ".faces");
  if (sides.empty()) {
    line(indent, "const int sc_wlo[] = " + int_list(part.width_lo) +
                     ", sc_whi[] = " + int_list(part.width_hi) + ";");
  } else {  // faces where no exchange acts need no boundary part
    line(indent, "int sc_wlo[] = " + int_list(part.width_lo) +
                     ", sc_whi[] = " + int_list(part.width_hi) + ";");
    line(indent, std::string(kRt) + "keep_exchanged_faces(sc_wlo, sc_whi, " +
                     std::to_string(part.indices.size()) + ", " + join(sides, " | ") + ");");
  }
  line(indent, "const auto sc_parts = " + std::string(kRt) + "part_boxes(sc_local, " + kRt +
                   "inner_part(sc_local, " + faces + ", sc_wlo, sc_whi), " +
                   (part.part == ForEachPart::Boundary ? "true" : "false") + ");");
}

int CudaKernelEmitter::open_walk(int indent, const Stmt& point_body, const std::string& group,
                                 const std::string& where, const std::string& built,
                                 bool declared) {
  const size_t n = indices_.size();
  walk_ = true;
  if (!built.empty()) {
    line(indent, "const auto& sc_walk = " + built + ";");
  } else if (!declared) {
    build_walk(indent, "sc_walk", where);
  }
  open_views(point_body, indent);
  loop_vars_.assign(n, "");
  for (size_t d = 0; d < n; ++d) loop_vars_[d] = "sc_l" + std::to_string(d);
  if (batch_walk_) {
    // batched_points() emits the body: kPointUnroll points a thread at a time, located first
    // (past the walk's end: its last point again, whose loads are safe; it is not stored);
    // where a thread has one point, or many (batch_walk()), the plain loop below instead.
    const std::string nn = std::to_string(n), r = std::string(kRt);
    batch_group_ = group;
    line(indent, "if (" + r + "batch_walk(sc_walk.total, " + group + ".threads())) {");
    ++indent;
    line(indent, "for (unsigned sc_q = " + group + ".thread(); sc_q < sc_walk.total; sc_q += " + r +
                     "kPointUnroll * " + group + ".threads()) {");
    ++indent;
    line(indent, "int sc_lk[" + r + "kPointUnroll][" + nn + "];  // the batch's points");
    line(indent, "#pragma unroll");
    line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
    line(indent + 1, "sc_walk.locate(::min(sc_q + sc_r * " + group +
                         ".threads(), sc_walk.total - 1u), sc_lk[sc_r]);");
    line(indent, "}");
    return indent;
  }
  return plain_walk_loop(indent, group);
}

int CudaKernelEmitter::plain_walk_loop(int indent, const std::string& group) {
  const size_t n = indices_.size();
  line(indent, std::string("#pragma unroll ") + kRt + "kPointUnroll");
  line(indent, "for (unsigned sc_p = " + group +
                   ".thread(); sc_p < sc_walk.total; sc_p += " + group + ".threads()) {");
  ++indent;
  line(indent, "int sc_l[" + std::to_string(n) + "];");
  line(indent, "sc_walk.locate(sc_p, sc_l);");
  for (size_t d = 0; d < n; ++d)
    line(indent, "const int sc_l" + std::to_string(d) + " = sc_l[" + std::to_string(d) + "];");
  for (size_t d = 0; d < n; ++d) index_var(d, indent);
  return indent;
}

int CudaKernelEmitter::open_point_loop(int indent, const std::string& group, bool strip) {
  const size_t n = indices_.size();
  if (strip) {
    line(indent, std::string("const unsigned sc_items = static_cast<unsigned>((sc_n0 + ") + kRt +
                     strip_rows() + " - 1) / " + kRt + strip_rows() +
                     ") * (sc_points / static_cast<unsigned>(sc_n0));");
    line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_items; sc_p += " + group +
                     ".threads()) {");
  } else if (batch_plain_ > 0) {  // batched_plain_points emits the batch's points
    line(indent, "for (unsigned sc_q = " + group + ".thread(); sc_q < sc_points; sc_q += " +
                     std::to_string(batch_plain_) + "u * " + group + ".threads()) {");
    return indent + 1;
  } else {
    line(indent, std::string("#pragma unroll ") + kRt + "kPointUnroll");
    line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_points; sc_p += " + group +
                     ".threads()) {");
  }
  ++indent;
  const std::string rest = split_dims("sc_p", n, indent);
  if (strip) {
    line(indent,
         "const int sc_s0 = sc_c0 + static_cast<int>(" + rest + ") * " + kRt + strip_rows() + ";");
    line(indent, std::string("const int sc_e0 = ::min(sc_s0 + ") + kRt + strip_rows() +
                     ", sc_c0 + sc_n0);");
  } else {
    line(indent, "const int sc_l0 = sc_c0 + static_cast<int>(" + rest + ");");
  }
  for (size_t d = strip ? 1 : 0; d < n; ++d) index_var(d, indent);
  return indent;
}

std::string CudaKernelEmitter::split_dims(std::string rest, size_t end, int indent) {
  for (size_t k = end; k-- > 1;) {
    const std::string d = std::to_string(k);
    line(indent, "const unsigned sc_q" + d + " = sc_div" + d + ".div(" + rest + ");");
    line(indent, "const int sc_l" + d + " = sc_box.lo[" + d + "] + static_cast<int>(" + rest +
                     " - sc_q" + d + " * sc_n" + d + ");");
    rest = "sc_q" + d;
  }
  return rest;
}

void CudaKernelEmitter::strip_points(const Stmt& point_body, int indent, const std::string& group) {
  line(indent, std::string("if (sc_n0 >= ") + kRt + strip_rows() + ") {");
  int at = indent + 1;
  const int v = wide_cells(point_body);
  if (v > 1) {
    const std::string last = std::to_string(indices_.size() - 1);
    line(at, "// wide strips: columns [sc_w0, sc_w1) of the last dimension, " + std::to_string(v) +
                 " cells at a time");
    line(at, "const int sc_w0 = " + std::string(kRt) + "round_up(sc_box.lo[" + last + "], " +
                 std::to_string(v) + "), sc_w1 = " + kRt + "round_down(sc_box.hi[" + last + "], " +
                 std::to_string(v) + ");");
    std::vector<std::string> ok{"sc_w1 - sc_w0 >= " + std::to_string(v)};
    for (const std::string& g : views_) {
      const Param* q = program_->find_param(g);
      ok.push_back(std::string(kRt) + "wide_ok<" + std::to_string(v) + ">(sc_" + g + "_data, sc_" +
                   g + "_s" + std::to_string(q->rank - 2) + ")");
    }
    line(at, "if (" + join(ok, " && ") + ") {");
    wide_points(point_body, at + 1, group, v);
    line(at, "} else {  // unaligned or narrow: scalar strips");
    ++at;
  }
  int inner = open_point_loop(at, group, true);
  strip_body(point_body, inner);
  line(inner - 1, "}");
  if (v > 1) line(at - 1, "}");
  line(indent, "} else {  // thinner than a strip: point by point");
  inner = open_point_loop(indent + 1, group, false);
  point(point_body, inner);
  line(inner - 1, "}");
  line(indent, "}");
}

void CudaKernelEmitter::index_var(size_t d, int indent) {
  std::string dd = std::to_string(d);
  if (spmd_) {
    line(indent, "const int " + indices_[d] + " = sc_l" + dd + ";");
  } else {
    line(indent, "const int " + indices_[d] + " = " + first_grid_ + ".origin[" + dd + "] + sc_l" +
                     dd + ";");
  }
  line(indent, "(void)" + indices_[d] + ";");
}

void CudaKernelEmitter::strip_body(const Stmt& point_body, int indent) {
  const bool defer = deferrable_stores(point_body) && !stored_grids(point_body).empty();
  line(indent, std::string("if (sc_e0 - sc_s0 == ") + kRt + strip_rows() + ") {");
  std::vector<std::string> stored;
  if (defer) {
    for (const std::string& g : stored_grids(point_body)) {
      const Param* q = program_->find_param(g);
      line(indent + 1, std::string(cpp_type(q->type)) + " sc_st_" + g + "[" + kRt + strip_rows() +
                           "];  // the strip's values");
      stored.push_back(g);
    }
  }
  line(indent + 1, "#pragma unroll");
  line(indent + 1, std::string("for (int sc_r = 0; sc_r < ") + kRt + strip_rows() + "; ++sc_r) {");
  line(indent + 2, "const int sc_l0 = sc_s0 + sc_r;");
  index_var(0, indent + 2);
  defer_stores_ = defer;
  point(point_body, indent + 2);
  defer_stores_ = false;
  line(indent + 1, "}");
  if (defer) {
    line(indent + 1, "#pragma unroll");
    line(indent + 1,
         std::string("for (int sc_r = 0; sc_r < ") + kRt + strip_rows() + "; ++sc_r) {");
    line(indent + 2, "const int sc_l0 = sc_s0 + sc_r;");
    for (const std::string& g : stored) {
      GridRead centre(ScalarType::F32, g, std::vector<int>(loop_vars_.size(), 0));
      line(indent + 2, grid_read(&centre) + " = sc_st_" + g + "[sc_r];");
    }
    line(indent + 1, "}");
  }
  line(indent, "} else {");
  line(indent + 1, "for (int sc_l0 = sc_s0; sc_l0 < sc_e0; ++sc_l0) {");
  index_var(0, indent + 2);
  point(point_body, indent + 2);
  line(indent + 1, "}");
  line(indent, "}");
}

int CudaKernelEmitter::wide_cells(const Stmt& point_body) const {
  const size_t n = indices_.size();
  if (n < 2 || !deferrable_stores(point_body)) return 1;
  int bytes = 0;
  for (const std::string& g : views_) {
    const Param* q = program_->find_param(g);
    if (q->rank != static_cast<int>(n)) return 1;
    bytes = std::max(bytes, byte_size(q->type));
  }
  return bytes >= 4 && 16 % bytes == 0 ? 16 / bytes
                                       : 1;  // narrower cells: too many copies of the body
}

auto CudaKernelEmitter::find_wide_row(const std::string& grid, int d0, const std::vector<int>& mids)
    -> WideRow* {
  for (WideRow& w : wide_rows_)
    if (w.grid == grid && w.d0 == d0 && w.mids == mids) return &w;
  return nullptr;
}

std::string CudaKernelEmitter::wide_read(const GridRead* r) {
  const size_t n = r->offsets.size();
  std::vector<int> mids(r->offsets.begin() + 1, r->offsets.end() - 1);
  const WideRow* w = find_wide_row(r->grid, r->offsets[0] + wide_r_, mids);
  const int pos = wide_v_ + r->offsets[n - 1];
  if (pos >= 0 && pos < wide_cells_) return w->name + ".v[" + std::to_string(pos) + "]";
  return w->name + (pos < 0 ? "_m" + std::to_string(-pos) : "_p" + std::to_string(pos));
}

std::string CudaKernelEmitter::wide_address(const std::string& g, const std::string& row,
                                            const std::vector<int>& mids, const std::string& col) {
  std::string a = "sc_" + g + "_data + " + row + " * sc_" + g + "_s0";
  for (size_t k = 0; k < mids.size(); ++k) {
    const std::string d = std::to_string(k + 1);
    a += " + " + shifted("sc_l" + d, mids[k]) + " * sc_" + g + "_s" + d;
  }
  return a + " + " + col;
}

void CudaKernelEmitter::wide_points(const Stmt& point_body, int indent, const std::string& group,
                                    int v) {
  const std::string L = std::to_string(indices_.size() - 1), V = std::to_string(v), R = wide_rows(v);
  wide_items_.emplace(static_cast<int>(indices_.size()), v);
  collect_wide_rows(point_body);
  line(indent, "const unsigned sc_nv = static_cast<unsigned>((sc_w1 - sc_w0) / " + V + ");");
  line(indent, "const " + std::string(kRt) + "FastDiv sc_divv(sc_nv);");
  line(indent, "const unsigned sc_items = static_cast<unsigned>((sc_n0 + " + R + " - 1) / " + R +
                   ") * (sc_points / static_cast<unsigned>(sc_n0) / static_cast<unsigned>(sc_n" +
                   L + ")) * sc_nv;");
  side_setup(indent);
  line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_items; sc_p += " + group +
                   ".threads()) {");
  const int in = indent + 1;
  line(in, "const unsigned sc_qv = sc_divv.div(sc_p);");
  line(in, "const int sc_wl = sc_w0 + static_cast<int>(sc_p - sc_qv * sc_nv) * " + V + ";");
  const std::string rest = split_dims("sc_qv", indices_.size() - 1, in);
  for (size_t d = 1; d + 1 < indices_.size(); ++d) index_var(d, in);
  line(in, "const int sc_s0 = sc_c0 + static_cast<int>(" + rest + ") * " + R + ";");
  line(in, "const int sc_e0 = ::min(sc_s0 + " + R + ", sc_c0 + sc_n0);");
  line(in, "if (sc_e0 - sc_s0 == " + R + ") {");
  wide_loads(in + 1, v);
  wide_item(point_body, in + 1, v);
  line(in, "} else {  // the strip's last, partial item: row by row");
  line(in + 1, "for (int sc_l0 = sc_s0; sc_l0 < sc_e0; ++sc_l0) {");
  index_var(0, in + 2);
  for (int c = 0; c < v; ++c) {
    line(in + 2, "{");
    line(in + 3, "const int sc_l" + L + " = sc_wl + " + std::to_string(c) + ";");
    index_var(indices_.size() - 1, in + 3);
    point(point_body, in + 3);
    line(in + 2, "}");
  }
  line(in + 1, "}");
  line(in, "}");
  line(indent, "}");
  line(indent, "for (unsigned sc_p = " + group + ".thread(); sc_p < sc_side_points; sc_p += " +
                   group + ".threads()) {  // the side points");
  side_point(point_body, indent + 1, "sc_p");
  line(indent, "}");
}

void CudaKernelEmitter::collect_wide_rows(const Stmt& point_body, int rows) {
  const std::vector<const GridRead*> reads = grid_reads(point_body);
  wide_rows_.clear();
  for (int r = 0; r < rows; ++r) {
    for (const GridRead* g : reads) {
      std::vector<int> mids(g->offsets.begin() + 1, g->offsets.end() - 1);
      WideRow* w = find_wide_row(g->grid, g->offsets[0] + r, mids);
      if (!w) {
        wide_rows_.push_back(WideRow{
            g->grid, g->offsets[0] + r, mids, {}, r, "sc_v" + std::to_string(wide_rows_.size())});
        w = &wide_rows_.back();
      }
      w->last.insert(g->offsets.back());
    }
  }
}

void CudaKernelEmitter::wide_loads(int indent, int v) {
  const std::string V = std::to_string(v), R = wide_rows(v);
  for (const WideRow& w : wide_rows_) {
    const std::string t = cpp_type(program_->find_param(w.grid)->type);
    const std::string at =
        wide_address(w.grid, "(sc_s0 + " + std::to_string(w.d0) + ")", w.mids, "sc_wl");
    const std::string when = R + " > " + std::to_string(w.first_r);
    line(indent, "const " + std::string(kRt) + "Vec<" + t + ", " + V + "> " + w.name + " = " +
                     when + " ? " + kRt + "load_vec<" + V + ">(" + at + ") : " + kRt + "Vec<" + t +
                     ", " + V + ">{};");
    for (const auto& [pos, name] : wide_sides(w, v))
      line(indent, "const " + t + " " + name + " = " + when + " ? (" + at + ")[" +
                       std::to_string(pos) + "] : " + t + "{};");
  }
}

std::vector<std::pair<int, std::string>> CudaKernelEmitter::wide_sides(const WideRow& w, int v) {
  std::set<int> sides;
  for (int o : w.last)
    for (int c = 0; c < v; ++c)
      if (c + o < 0 || c + o >= v) sides.insert(c + o);
  std::vector<std::pair<int, std::string>> out;
  for (int pos : sides)
    out.emplace_back(pos,
                     w.name + (pos < 0 ? "_m" + std::to_string(-pos) : "_p" + std::to_string(pos)));
  return out;
}

void CudaKernelEmitter::wide_item(const Stmt& point_body, int indent, int v) {
  const size_t n = indices_.size(), last = n - 1;
  const std::string L = std::to_string(last), V = std::to_string(v), R = wide_rows(v);
  const std::set<std::string> stored = stored_grids(point_body);
  for (const std::string& g : stored) {
    line(indent, std::string(cpp_type(program_->find_param(g)->type)) + " sc_st_" + g + "[" +
                     std::to_string(kMaxWideRows) + "][" + V + "];  // the item's values");
  }
  wide_cells_ = v;
  for (int r = 0; r < kMaxWideRows; ++r) {
    line(indent, "if constexpr (" + R + " > " + std::to_string(r) + ") {");
    for (int c = 0; c < v; ++c) {
      line(indent + 1, "{");
      line(indent + 2, "const int sc_l0 = sc_s0 + " + std::to_string(r) + ";");
      index_var(0, indent + 2);
      line(indent + 2, "const int sc_l" + L + " = sc_wl + " + std::to_string(c) + ";");
      index_var(last, indent + 2);
      wide_r_ = r;
      wide_v_ = c;
      point(point_body, indent + 2);
      wide_r_ = wide_v_ = -1;
      line(indent + 1, "}");
    }
    for (const std::string& g : stored) {
      std::vector<std::string> cells;
      for (int c = 0; c < v; ++c)
        cells.push_back("sc_st_" + g + "[" + std::to_string(r) + "][" + std::to_string(c) + "]");
      const std::string row = "(sc_s0 + " + std::to_string(r) + ")";
      const std::string value = std::string(kRt) + "Vec<" +
                                cpp_type(program_->find_param(g)->type) + ", " + V + ">{{" +
                                join(cells) + "}}";
      line(indent + 1, std::string(kRt) + "store_vec<" + V + ">(" +
                           wide_address(g, row, std::vector<int>(n - 2, 0), "sc_wl") + ", " +
                           value + ");");
    }
    line(indent, "}");
  }
  wide_cells_ = 1;
}

void CudaKernelEmitter::side_setup(int indent) {
  const size_t n = indices_.size();
  const std::string L = std::to_string(n - 1);
  line(indent, "const int sc_side_lo = sc_w0 - sc_box.lo[" + L +
                   "], sc_sides = sc_side_lo + (sc_box.hi[" + L + "] - sc_w1);");
  line(indent, "const " + std::string(kRt) +
                   "FastDiv sc_divs(static_cast<unsigned>(sc_sides > 0 ? sc_sides : 1));");
  line(indent,
       "const unsigned sc_side_points = sc_sides > 0 ? sc_points / static_cast<unsigned>(sc_n" + L +
           ") * static_cast<unsigned>(sc_sides) : 0u;");
}

void CudaKernelEmitter::side_point(const Stmt& point_body, int indent, const std::string& index) {
  const size_t n = indices_.size();
  const std::string L = std::to_string(n - 1);
  line(indent, "const unsigned sc_ps = " + index + ";");
  line(indent, "const unsigned sc_qs = sc_divs.div(sc_ps);");
  line(indent,
       "const int sc_side = static_cast<int>(sc_ps - sc_qs * static_cast<unsigned>(sc_sides));");
  line(indent, "const int sc_l" + L + " = sc_side < sc_side_lo ? sc_box.lo[" + L +
                   "] + sc_side : sc_w1 + (sc_side - sc_side_lo);");
  const std::string rest = split_dims("sc_qs", n - 1, indent);
  line(indent, "const int sc_l0 = sc_c0 + static_cast<int>(" + rest + ");");
  for (size_t d = 0; d < n; ++d) index_var(d, indent);
  point(point_body, indent);
}

bool CudaKernelEmitter::deferrable_stores(const Stmt& point_body) {
  // The body's top-level statements in order; a lone store is a body of one statement.
  std::vector<Stmt> stmts;
  if (point_body->kind == StmtKind::Block) {
    stmts = as<Block>(point_body)->stmts;
  } else {
    stmts.push_back(point_body);
  }
  std::set<std::string> top;
  for (const Stmt& st : stmts)
    if (st->kind == StmtKind::Store && !top.insert(as<Store>(st)->grid).second) return false;
  struct Uses : IRVisitor {
    using IRVisitor::visit;
    std::vector<const GridRead*> reads;
    int stores = 0;
    void visit(const GridRead* r) override { reads.push_back(r); }
    void visit(const Store* s) override {
      ++stores;
      IRVisitor::visit(s);
    }
  };
  int stores = 0;
  std::set<std::string> stored_before;  // grids a statement before this one stored
  for (const Stmt& st : stmts) {
    Uses uses;
    uses.visit(st);
    stores += uses.stores;
    for (const GridRead* r : uses.reads) {
      if (!top.count(r->grid)) continue;
      // A stored grid is read only at the point itself, and not after its store: that read sees
      // the value before the store whether the store comes at once or after the whole item.
      if (stored_before.count(r->grid)) return false;
      if (std::any_of(r->offsets.begin(), r->offsets.end(), [](int o) { return o != 0; }))
        return false;
    }
    if (st->kind == StmtKind::Store) stored_before.insert(as<Store>(st)->grid);
  }
  return stores == static_cast<int>(top.size());  // else a store under a condition or loop
}

void CudaKernelEmitter::close_points(int indent, bool strip) {
  if (!strip) line(--indent, "}");      // points (strip_points closes its own)
  if (walk_else_) line(--indent, "}");  // a batched walk's plain loop's else
  walk_else_ = false;
  if (!walk_) {
    line(--indent, "}");  // chunks
    if (split_) line(--indent, "}");
  }
  split_ = walk_ = false;
  line(--indent, "}");
  loop_vars_.clear();
  views_.clear();
}

int CudaKernelEmitter::batched_points(const ForEach& u, int indent) {
  const std::string group = std::move(batch_group_);
  batch_group_.clear();
  const size_t n = indices_.size();
  const std::string r = std::string(kRt);
  std::vector<std::string> stored;
  for (const std::string& g : stored_grids(u.body)) {
    const Param* q = program_->find_param(g);
    line(indent, std::string(cpp_type(q->type)) + " sc_st_" + g + "[" + r +
                     "kPointUnroll];  // the batch's values");
    stored.push_back(g);
  }
  auto point = [&](int at) {
    for (size_t d = 0; d < n; ++d)
      line(at, "const int sc_l" + std::to_string(d) + " = sc_lk[sc_r][" + std::to_string(d) + "];");
    for (size_t d = 0; d < n; ++d) index_var(d, at);
  };
  line(indent, "#pragma unroll");
  line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
  point(indent + 1);
  defer_stores_ = true;
  body(u.body, indent + 1);
  defer_stores_ = false;
  line(indent, "}");
  line(indent, "#pragma unroll");
  line(indent, "for (int sc_r = 0; sc_r < " + r + "kPointUnroll; ++sc_r) {");
  line(indent + 1, "if (sc_q + sc_r * " + group + ".threads() >= sc_walk.total) break;");
  point(indent + 1);
  for (const std::string& g : stored) {
    if (g == flow_loop_.put_grid && !no_faces_) {
      std::vector<std::string> l;
      for (size_t d = 0; d < n; ++d) l.push_back("sc_l" + std::to_string(d));
      forward_value(g, "sc_st_" + g + "[sc_r]", indent + 1, put_forwards(g),
                    no_faces_ ? "" : "const int sc_l[] = {" + join(l) + "};");
    } else {
      GridRead centre(ScalarType::F32, g, std::vector<int>(n, 0));
      line(indent + 1, grid_read(&centre) + " = sc_st_" + g + "[sc_r];");
    }
  }
  if (folding_ >= 0) fold_point(u, indent + 1);
  line(indent, "}");
  line(indent - 1, "}");  // the batches
  line(indent - 2, "} else {  // one point a thread, or many: one at a time");
  const int inner = plain_walk_loop(indent - 1, group);
  body(u.body, inner);
  if (folding_ >= 0) fold_point(u, inner);
  walk_else_ = true;  // close_points closes the else too
  return inner;
}

int CudaKernelEmitter::batch_points(const Stmt& point_body) const {
  if (!deferrable_stores(point_body)) return 0;
  // 64 bytes of each read in flight a thread: at the persistent kernel's 512 threads a SM, about
  // the 32 KiB a SM that keeps an H100's or H200's memory busy (Little's law, ~1 us under load).
  int bytes = 0;
  const std::vector<const GridRead*> reads = distinct_reads(point_body);
  for (const GridRead* g : reads) bytes = std::max(bytes, byte_size(program_->find_param(g->grid)->type));
  int points = std::clamp(bytes > 0 ? kBatchBytes / bytes : kMaxBatchPoints, 2, kMaxBatchPoints);
  while (points > 2 && static_cast<int>(reads.size()) * points > kMaxPrefetched) points /= 2;
  return static_cast<int>(reads.size()) * points <= kMaxPrefetched ? points : 0;
}

int CudaKernelEmitter::batched_plain_points(const ForEach& u, int indent,
                                            const std::string& group, int points) {
  const size_t n = indices_.size();
  const std::string k = "sc_batch", nn = std::to_string(n);
  auto coordinates = [&](int at) {
    for (size_t d = 0; d < n; ++d)
      line(at, "const int sc_l" + std::to_string(d) + " = sc_lk[sc_r][" + std::to_string(d) + "];");
  };
  // The batch's points (past the chunk's end: its last point again, loaded but not stored).
  line(indent, "constexpr int sc_batch = " + std::to_string(points) +
                   ";  // points a thread in flight (batch_points)");
  line(indent, "int sc_lk[" + k + "][" + nn + "];  // the batch's points");
  line(indent, "#pragma unroll");
  line(indent, "for (int sc_r = 0; sc_r < " + k + "; ++sc_r) {");
  line(indent + 1,
       "const unsigned sc_pk = ::min(sc_q + sc_r * " + group + ".threads(), sc_points - 1u);");
  const std::string rest = split_dims("sc_pk", n, indent + 1);
  line(indent + 1, "sc_lk[sc_r][0] = sc_c0 + static_cast<int>(" + rest + ");");
  for (size_t d = 1; d < n; ++d)
    line(indent + 1, "sc_lk[sc_r][" + std::to_string(d) + "] = sc_l" + std::to_string(d) + ";");
  line(indent, "}");
  // Every distinct read of the batch, first.
  const std::vector<const GridRead*> reads = distinct_reads(u.body);
  std::vector<std::pair<std::string, std::string>> loads;  // register, read
  for (const GridRead* g : reads) {
    if (!views_.count(g->grid)) continue;
    const std::string reg = "sc_in" + std::to_string(loads.size());
    line(indent, std::string(cpp_type(program_->find_param(g->grid)->type)) + " " + reg + "[" + k +
                     "];  // " + g->grid + int_list(g->offsets));
    loads.emplace_back(reg, view_read(g));
  }
  if (!loads.empty()) {
    line(indent, "#pragma unroll");
    line(indent, "for (int sc_r = 0; sc_r < " + k + "; ++sc_r) {");
    coordinates(indent + 1);
    for (const auto& [reg, read] : loads) line(indent + 1, reg + "[sc_r] = " + read + ";");
    line(indent, "}");
  }
  // The values, from the registers.
  std::vector<std::string> stored;
  for (const std::string& g : stored_grids(u.body)) {
    line(indent, std::string(cpp_type(program_->find_param(g)->type)) + " sc_st_" + g + "[" + k +
                     "];  // the batch's values");
    stored.push_back(g);
  }
  line(indent, "#pragma unroll");
  line(indent, "for (int sc_r = 0; sc_r < " + k + "; ++sc_r) {");
  coordinates(indent + 1);
  for (size_t d = 0; d < n; ++d) index_var(d, indent + 1);
  for (const auto& [reg, read] : loads) prefetched_[read] = reg + "[sc_r]";
  defer_stores_ = true;
  body(u.body, indent + 1);
  defer_stores_ = false;
  prefetched_.clear();
  line(indent, "}");
  // The stores of the points before the chunk's end.
  line(indent, "#pragma unroll");
  line(indent, "for (int sc_r = 0; sc_r < " + k + "; ++sc_r) {");
  line(indent + 1, "if (sc_q + sc_r * " + group + ".threads() >= sc_points) break;");
  coordinates(indent + 1);
  for (const std::string& g : stored) {
    GridRead centre(ScalarType::F32, g, std::vector<int>(n, 0));
    line(indent + 1, grid_read(&centre) + " = sc_st_" + g + "[sc_r];");
  }
  line(indent, "}");
  return indent;
}

void CudaKernelEmitter::point(const Stmt& point_body, int indent) {
  if (reducing_) {
    reduce_point(reducing_, reducing_->result, indent);
  } else {
    body(point_body, indent);
  }
}

void CudaKernelEmitter::open_fold(int indent) {
  const FlowReduction& f = flow_reduction_list_[folding_];
  const std::string k = std::to_string(folding_), t = cpp_type(f.reduce->type);
  line(indent, t + " sc_fold" + k + " = " + reduce_identity(f.reduce->op, f.reduce->type) +
                   ";  // %" + f.reduce->result +
                   ", folded into the update's walk: this thread's points");
  line(indent, "const bool sc_fold" + k + "_on = " + (f.when ? expr(f.when) : std::string("true")) +
                   ";  // this step computes it");
}

void CudaKernelEmitter::fold_point(const ForEach& u, int indent) {
  const FlowReduction& f = flow_reduction_list_[folding_];
  const Reduce* r = f.reduce;
  const std::string k = std::to_string(folding_);
  line(indent, "if (sc_fold" + k + "_on) {  // %" + r->result + " at this point");
  for (size_t d = 0; d < r->indices.size(); ++d)
    if (r->indices[d] != u.indices[d])
      line(indent + 1, "const int " + r->indices[d] + " = " + u.indices[d] + ";");
  reduce_point(r, "sc_fold" + k, indent + 1);
  line(indent, "}");
}

void CudaKernelEmitter::for_each(const Stmt& self, int indent) {
  auto* s = as<ForEach>(self);
  comment(indent, self);
  if (flow_ && s->part == ForEachPart::Inner) {
    line(indent, "// (the dataflow loop: the boundary part below walks all of the block's rows)");
    return;
  }
  if (flow_walks()) return flow_walk(self, indent);
  int in_role = flow_ ? indent : open_role(s->role, indent);  // the dataflow loop has no groups
  const bool strip =
      s->indices.size() >= 2 && s->part != ForEachPart::Boundary;  // boundaries: one walk
  folding_ = -1;
  for (size_t k = 0; flow_ && s == flow_loop_.update && k < flow_reduction_list_.size(); ++k)
    if (flow_reduction_list_[k].folded) folding_ = static_cast<int>(k);
  if (folding_ >= 0) open_fold(in_role);
  if (in_regs_ && s == flow_loop_.update) {  // the register-resident form: the step on the band
    regs_step(*s, in_role);
    folding_ = -1;
    return;
  }
  // The dataflow loop's walk in batches of points (batched_points) where its stores allow; the
  // barrier form's loops of a point a thread in batches too (batched_plain_points).
  const bool batched = flow_ && !strip && deferrable_stores(s->body);
  const int plain_batched = !flow_ && !strip && folding_ < 0 && !in_regs_ &&
                                   s->part != ForEachPart::Boundary
                               ? batch_points(s->body)
                               : 0;
  auto points = [&](int at) {
    batch_walk_ = batched;
    batch_plain_ = plain_batched;
    int inner = open_points(self, s->range, s->indices, s->body, at, group(s->role), s, strip);
    batch_walk_ = false;
    batch_plain_ = 0;
    if (strip) {
      strip_points(s->body, inner, group(s->role));
    } else if (!batch_group_.empty()) {  // open_walk opened a batched walk
      inner = batched_points(*s, inner);
    } else if (plain_batched > 0 && !walk_) {
      inner = batched_plain_points(*s, inner, group(s->role), plain_batched);
    } else {
      body(s->body, inner);
      if (folding_ >= 0) fold_point(*s, inner);
    }
    close_points(inner, strip);
  };
  if (flow_ && !strip) {
    // The dataflow loop's walk, twice: its face stores (FaceWriter) go through a pointer that may
    // alias the grids, so where they are emitted the compiler keeps each point's loads behind
    // the point before's stores (one round trip a point). Most blocks have no face rows.
    line(in_role,
         "if (sc_faces == 0) {  // no face rows: no face stores, so a point's loads may pass the "
         "stores before");
    no_faces_ = true;
    if (s == flow_loop_.update && flow_strips_possible()) {
      flow_strips(self, in_role + 1, points);
    } else {
      points(in_role + 1);
    }
    no_faces_ = false;
    line(in_role, "} else {");
    if (s == flow_loop_.update && flow_strips_possible() && !flow_loop_.put_grid.empty() &&
        stored_grids(self).count(flow_loop_.put_grid)) {
      flow_strips(self, in_role + 1, points, /*faces=*/true);
    } else {
      points(in_role + 1);
    }
    line(in_role, "}");
  } else {
    points(in_role);
  }
  folding_ = -1;
  if (flow_) {
    // The dataflow loop: the block's rows, and its face cells in the neighbours' halos (store()),
    // are written.
    line(indent,
         "sc_flow.publish(sc_step);  // in place of the barriers: this block's rows are done");
  }
  if (!flow_) close_role(s->role, indent);
  if (!flow_)
    conservative_barrier(indent, "the update is complete before anything reads or overwrites it");
}

}  // namespace stencilc::codegen::cuda
