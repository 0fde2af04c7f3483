// The time loop's forms on the host (no GPU): flow_part (flow.cuh) must give every active block
// at least `radius` rows, cover a PE's rows once and in order, and never more blocks than the
// grid has; compiled::choose_form must take the dataflow form only where asked or where the cost
// model (flow_pays) says it pays, with every peer mapped and a process grid that cuts dimension 0 only, with the
// right neighbours along it, and the register-resident form where its band fits (the GPU's
// answers played by a fake), and say why in words that the benchmark's timing pattern does not
// take for a time; flow_grid must take the process grid the dataflow form needs.
// Built with nvcc, run on the host. Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>

#include <stencilc/compiled_cuda.hpp>

#include "tally.h"

namespace rc = stencilc::rt::cuda;

namespace {

using tally::check;

void partition(int rows, int radius, int grid_blocks) {
  const std::string c = "rows " + std::to_string(rows) + ", radius " + std::to_string(radius) + ", " +
                        std::to_string(grid_blocks) + " blocks";
  const rc::FlowPart first = rc::flow_part(rows, radius, grid_blocks, 0);
  check(first.active >= 1 && first.active <= grid_blocks && first.active <= rc::kMaxFlowBlocks, c + ": active in range");
  int next = 0;
  bool wide = true, ordered = true;
  for (int g = 0; g < grid_blocks; ++g) {
    const rc::FlowPart p = rc::flow_part(rows, radius, grid_blocks, g);
    ordered = ordered && p.active == first.active;
    if (g >= p.active) {
      ordered = ordered && p.begin == p.end;
      continue;
    }
    ordered = ordered && p.begin == next && p.end >= p.begin;
    if (rows >= radius) wide = wide && p.end - p.begin >= radius;
    next = p.end;
  }
  check(ordered && next == rows, c + ": the ranges cover the rows once, in order");
  check(wide, c + ": every active block holds at least the radius");
}

void plan(const char* decomp, bool periodic, bool direct, const char* env, bool want_on, int pe, int want_up, int want_down,
          const stencilc::compiled::FlowSize* size = nullptr) {
  stencilc::rt::ProcessGrid grid;
  std::sscanf(decomp, "%dx%dx%d", &grid.dims[0], &grid.dims[1], &grid.dims[2]);
  grid.rank = 3;
  if (env) setenv("STENCILC_FORM", env, 1); else unsetenv("STENCILC_FORM");
  stencilc::compiled::FormQuery q;
  q.program = "test";
  q.loop = "test.cpp:1";
  q.dataflow = true;
  q.direct = direct;
  q.grid = grid;
  q.periodic0 = periodic;
  if (size) q.size = *size;
  const stencilc::compiled::FormChoice f = stencilc::compiled::choose_form(q);
  const std::string c = std::string(decomp) + (periodic ? " periodic" : " fixed") + (direct ? " direct" : " unmapped peers") +
                        " STENCILC_FORM=" + (env ? env : "(unset)") + " PE " + std::to_string(pe) +
                        (size ? " points " + std::to_string(size->points) : "");
  check(f.flow_on() == want_on && f.form == (want_on ? stencilc::compiled::LoopForm::Dataflow
                                                         : stencilc::compiled::LoopForm::Barrier),
        c + ": on " + std::to_string(f.flow_on()));
  if (want_on) {
    check(f.up(pe) == want_up, c + ": up " + std::to_string(f.up(pe)) + ", expected " + std::to_string(want_up));
    check(f.down(pe) == want_down, c + ": down " + std::to_string(f.down(pe)) + ", expected " + std::to_string(want_down));
  }
}

// flow_grid: plan's process grid for `pes` PEs and an extent of rows x cols (halos of 1), then
// the grid flow_grid keeps or takes, as "AxB".
std::string chosen(int pes, int rows, int cols, const char* form, const char* decomp) {
  stencilc::compiled::Plan<2> p;
  p.pes = pes;
  p.extent = {rows, cols};
  p.halo_lo = p.halo_hi = {1, 1, 0};
  std::string error;
  p.grid = *stencilc::rt::choose_process_grid(pes, 2, {rows, cols, 1}, p.halo_lo, p.halo_hi, "", &error);
  if (form) setenv("STENCILC_FORM", form, 1); else unsetenv("STENCILC_FORM");
  if (decomp) setenv("STENCILC_DECOMP", decomp, 1); else unsetenv("STENCILC_DECOMP");
  const stencilc::compiled::Plan<2> q = stencilc::compiled::flow_grid(p, 1, 256);
  unsetenv("STENCILC_DECOMP");
  return std::to_string(q.grid.dims[0]) + "x" + std::to_string(q.grid.dims[1]);
}

void grid_choice(int pes, int rows, int cols, const char* form, const char* decomp, const std::string& want) {
  const std::string got = chosen(pes, rows, cols, form, decomp);
  check(got == want, std::to_string(pes) + " PEs, " + std::to_string(rows) + " x " + std::to_string(cols) +
                         ", STENCILC_FORM=" + (form ? form : "(unset)") + ", STENCILC_DECOMP=" +
                         (decomp ? decomp : "(unset)") + ": " + got + ", expected " + want);
}


// choose_form with the register-resident form in the kernel: a 2-D loop of `rows` x `cols` on
// `pes` PEs (the fewest rows `min_rows`, 0: rows), 264 blocks of 256 threads, and a GPU that
// answers `device` (counting the questions in `asked`).
struct RegsCase {
  long long rows = 128, cols = 256, min_rows = 0;
  int pes = 2;
  const char* decomp = "2x1x1";
  bool periodic1 = false;
  bool direct = true;
  stencilc::compiled::RegsDevice device{4096, 232448, 264, 264};
};

stencilc::compiled::FormChoice regs_choice(const RegsCase& r, const char* form, int* asked) {
  namespace sc = stencilc::compiled;
  if (form) setenv("STENCILC_FORM", form, 1); else unsetenv("STENCILC_FORM");
  sc::FormQuery q;
  q.program = "test";
  q.loop = "test.cpp:12";
  q.dataflow = true;
  q.regs = true;
  q.direct = r.direct;
  std::sscanf(r.decomp, "%dx%dx%d", &q.grid.dims[0], &q.grid.dims[1], &q.grid.dims[2]);
  q.grid.rank = 2;
  q.periodic1 = r.periodic1;
  q.cols = static_cast<long>(r.cols);
  q.size.rows = r.rows;
  q.size.min_rows = r.min_rows ? r.min_rows : r.rows;
  q.size.points = r.rows * r.cols;
  q.size.blocks = 264;
  q.size.block_threads = 256;
  q.size.pes = r.pes;
  q.size.rank = 2;
  *asked = 0;
  const sc::FormChoice c = sc::choose_form(q, [&](int threads) {
    ++*asked;
    check(threads == 256, "the device is asked for the kernel's block size");
    return r.device;
  });
  unsetenv("STENCILC_FORM");
  return c;
}

// The form, its blocks, and what STENCILC_TIMING says (after "stencilc: test: "), checked.
void form_is(const stencilc::compiled::FormChoice& c, stencilc::compiled::LoopForm form, int blocks,
             const std::string& summary, const std::string& what) {
  check(c.form == form, what + ": " + stencilc::compiled::form_name(c.form));
  if (blocks >= 0) check(c.blocks == blocks, what + ": " + std::to_string(c.blocks) + " blocks");
  check(c.summary() == summary, what + ": \"" + c.summary() + "\", expected \"" + summary + "\"");
  // bench/measure.py's pattern of a time line must not take the form line for one.
  const std::string line = "stencilc: test: " + c.summary();
  check(!std::regex_match(line, std::regex("^stencilc: .*: ([0-9.]+) ms$")), what + ": the form line is not a time");
}

void reasons() {
  namespace sc = stencilc::compiled;
  using sc::LoopForm;
  int asked = 0;
  const std::string at = "time loop at test.cpp:12: ";
  // The band fits: as many blocks as are resident, a row each at least on the PE with the fewest.
  RegsCase small;
  form_is(regs_choice(small, nullptr, &asked), LoopForm::Regs, 128,
          at + "register-resident form (the band fits: 1 row x 8 columns a thread on 128 blocks of 256 threads a PE)",
          "256^2 on 2 PEs");
  check(asked == 1, "the device is asked once");
  RegsCase one = small;
  one.rows = 1024;
  one.cols = 2048;
  one.pes = 1;
  one.decomp = "1x1x1";
  // 31 points a thread: the dataflow form alone would not pay on one PE; the band fits.
  form_is(regs_choice(one, nullptr, &asked), LoopForm::Regs, 264,
          at + "register-resident form (the band fits: 4 rows x 8 columns a thread on 264 blocks of 256 threads a PE)",
          "1024^2 on 1 PE");
  sc::FormChoice c = regs_choice(one, "regs", &asked);
  check(c.said.size() == 1 && c.said[0] == "the register-resident form runs: 264 blocks a PE of 256 threads, 4 rows x 8 "
                                           "columns a thread at most",
        "STENCILC_FORM=regs says where it runs");
  // Why not, in the order of the checks; the device is asked only past the checks that need none.
  RegsCase wider = small;
  wider.cols = 8192;
  form_is(regs_choice(wider, nullptr, &asked), LoopForm::Barrier, -1,
          at + "barrier form (cost model: 32.0 points a thread > 24, the limit for 2-D on 2 PEs; the register-resident "
               "form does not run: a block's threads do not hold every column)",
          "8192 columns");
  check(asked == 0, "8192 columns: the device is not asked");
  RegsCase wide = small;
  wide.rows = wide.min_rows = 64;
  wide.cols = 4096;
  form_is(regs_choice(wide, nullptr, &asked), LoopForm::Dataflow, 64,
          at + "dataflow form (cost model: 16.0 points a thread <= 24, the limit for 2-D on 2 PEs; the register-resident "
               "form does not run: a block's threads do not hold every column)",
          "64 x 4096");
  RegsCase periodic = small;
  periodic.periodic1 = true;
  c = regs_choice(periodic, "regs", &asked);
  form_is(c, LoopForm::Dataflow, 128,
          at + "dataflow form (STENCILC_FORM=regs; the register-resident form does not run: dimension 1 is periodic)",
          "periodic along dimension 1");
  check(c.said.size() == 1 && c.said[0] == "the register-resident form does not run: dimension 1 is periodic",
        "STENCILC_FORM=regs says why not");
  check(asked == 0, "periodic: the device is not asked");
  RegsCase uneven = small;
  uneven.rows = 1100;
  uneven.min_rows = 200;  // 275 blocks at 4 rows on the largest PE, 200 rows on the smallest
  c = regs_choice(uneven, nullptr, &asked);
  check(c.form != LoopForm::Regs && c.reason.find("too few rows on a PE for a row a block") != std::string::npos,
        "too few rows: " + c.reason);
  RegsCase smem = small;
  smem.device.smem_optin = 1024;
  c = regs_choice(smem, nullptr, &asked);
  check(c.form == LoopForm::Dataflow && c.reason.find("its side columns exceed a block's shared memory") != std::string::npos,
        "shared memory: " + c.reason);
  check(asked == 1, "shared memory: the device is asked");
  RegsCase resident = small;
  resident.rows = resident.min_rows = 1024;
  resident.device.resident = 200;  // 256 blocks at 4 rows
  c = regs_choice(resident, nullptr, &asked);
  check(c.form != LoopForm::Regs && c.reason.find("the band's blocks cannot all be resident") != std::string::npos,
        "resident: " + c.reason);
  RegsCase heap = resident;
  heap.device.resident = 264;
  heap.device.heap_blocks = 255;
  c = regs_choice(heap, nullptr, &asked);
  check(c.form != LoopForm::Regs && c.reason.find("its inboxes exceed the heap set aside for them") != std::string::npos,
        "heap: " + c.reason);
  heap.device.heap_blocks = 256;
  form_is(regs_choice(heap, nullptr, &asked), LoopForm::Regs, 256,
          at + "register-resident form (the band fits: 4 rows x 8 columns a thread on 256 blocks of 256 threads a PE)",
          "the heap's blocks cap it");
  // The setting: dataflow leaves the dataflow form (asked for), barrier the barrier form, regs the
  // register-resident form where its band fits.
  form_is(regs_choice(small, "dataflow", &asked), LoopForm::Dataflow, 128,
          at + "dataflow form (STENCILC_FORM=dataflow; the register-resident form does not run: STENCILC_FORM=dataflow)",
          "STENCILC_FORM=dataflow");
  check(asked == 0, "STENCILC_FORM=dataflow: the device is not asked");
  form_is(regs_choice(small, "barrier", &asked), LoopForm::Barrier, -1, at + "barrier form (STENCILC_FORM=barrier)",
          "STENCILC_FORM=barrier");
  check(asked == 0, "STENCILC_FORM=barrier: the device is not asked");
  form_is(regs_choice(small, "regs", &asked), LoopForm::Regs, 128,
          at + "register-resident form (the band fits: 1 row x 8 columns a thread on 128 blocks of 256 threads a PE)",
          "STENCILC_FORM=regs");
  form_is(regs_choice(wide, "dataflow", &asked), LoopForm::Dataflow, 64,
          at + "dataflow form (STENCILC_FORM=dataflow; the register-resident form does not run: STENCILC_FORM=dataflow)",
          "64 x 4096, STENCILC_FORM=dataflow");
  form_is(regs_choice(small, "auto", &asked), LoopForm::Regs, 128,
          at + "register-resident form (the band fits: 1 row x 8 columns a thread on 128 blocks of 256 threads a PE)",
          "STENCILC_FORM=auto");
  // Where neither runs: a process grid that cuts dimension 1, the nvshmem backend.
  RegsCase square = small;
  square.decomp = "2x2x1";
  square.pes = 4;
  c = regs_choice(square, "regs", &asked);
  form_is(c, LoopForm::Barrier, -1, at + "barrier form (the process grid 2x2 cuts dimension 1)", "2 x 2");
  check(c.said.size() == 2 &&
            c.said[0] == "the dataflow loop needs a process grid that cuts dimension 0 only (STENCILC_DECOMP=Nx1); it "
                         "keeps its barriers" &&
            c.said[1] == "the register-resident form does not run: the dataflow loop cannot run here (choose_form)",
        "2 x 2: what STENCILC_FORM=regs says");
  check(asked == 0, "2 x 2: the device is not asked");
  c = regs_choice(square, "dataflow", &asked);
  check(c.said.size() == 1, "2 x 2, STENCILC_FORM=dataflow: only the dataflow loop's line");
  RegsCase unmapped = small;
  unmapped.direct = false;
  form_is(regs_choice(unmapped, nullptr, &asked), LoopForm::Barrier, -1,
          at + "barrier form (some PE's memory is not reachable by loads and stores (NVSHMEM maps no address for "
               "it): the dataflow and register-resident forms store into their neighbours)",
          "peers not mapped");
  // A loop with no other form, and a program with no time loop.
  sc::FormQuery q;
  q.program = "test";
  q.loop = "cg2d.cpp:40";
  form_is(sc::choose_form(q), LoopForm::Barrier, -1,
          "time loop at cg2d.cpp:40: barrier form (the loop's only form: select-loop-forms found no other)", "no form");
  q.loop = nullptr;
  form_is(sc::choose_form(q), LoopForm::Barrier, -1, "barrier form (no time loop at the top of the program)",
          "no loop");
  // 3-D, and a size the cost model does not know.
  // A dataflow-able loop of `rows` x `cols` points on `pes` PEs cut along dimension 0 only, 264
  // blocks of `threads`.
  auto flow_query = [](const char* program, int rank, int pes, long long rows, long long cols, int threads) {
    sc::FormQuery f;
    f.program = program;
    f.loop = "";
    f.dataflow = true;
    f.grid.rank = rank;
    f.grid.dims = {pes, 1, 1};
    f.size.rows = f.size.min_rows = rows;
    f.size.points = rows * cols;
    f.size.blocks = 264;
    f.size.block_threads = threads;
    f.size.pes = pes;
    f.size.rank = rank;
    return f;
  };
  sc::FormQuery h = flow_query("test", 3, 2, 64, 128 * 128, 192);
  form_is(sc::choose_form(h), LoopForm::Barrier, -1,
          "time loop: barrier form (cost model: 85.3 points a thread > 56, the limit for 3-D on 2 PEs)", "heat3d 128^3");
  h.size.blocks = 0;
  form_is(sc::choose_form(h), LoopForm::Barrier, -1,
          "time loop: barrier form (cost model: the loop's size on the GPU is not known)", "no size");
  h.grid.dims = {1, 2, 2};
  form_is(sc::choose_form(h), LoopForm::Barrier, -1, "time loop: barrier form (the process grid 1x2x2 cuts dimensions 1 and 2)",
          "1 x 2 x 2");
  // A step of several walks (fdtd2d 512^2: four), on 1 and on 4 PEs.
  sc::FormQuery w = flow_query("fdtd", 2, 1, 512, 512, 256);
  w.size.walks = 4;
  form_is(sc::choose_form(w), LoopForm::Barrier, -1, "time loop: barrier form (cost model: a step of 4 walks on 1 PE)",
          "fdtd2d 512^2 on 1 PE");
  w = flow_query("fdtd", 2, 4, 128, 512, 256);
  w.size.walks = 4;
  form_is(sc::choose_form(w), LoopForm::Dataflow, 128,
          "time loop: dataflow form (cost model: 2.0 points a thread <= 32, the limit for a step of 4 walks on 4 PEs)",
          "fdtd2d 512^2 on 4 PEs");
}

// STENCILC_FORM with a value it does not know stops the run (status 2) and says what it takes; in
// a child process, as rt::fatal exits.
void bad_setting() {
  const auto [status, text] =
      tally::in_child("STENCILC_FORM", "regs-form", [] { (void)stencilc::compiled::flow_mode(); });
  check(status == 2, "STENCILC_FORM=regs-form: exit status 2");
  check(text.find("STENCILC_FORM='regs-form': expected auto, barrier, dataflow or regs") != std::string::npos,
        "STENCILC_FORM=regs-form: the message, got '" + text + "'");
}

}  // namespace

int main() {
  for (int rows : {1, 2, 3, 7, 64, 128, 129, 1000, 5000})
    for (int radius : {1, 2, 3})
      for (int blocks : {1, 3, 32, 132, 264, 2000}) partition(rows, radius, blocks);
  // The cost model: at most 16 points per thread of an active block (min(blocks, rows / radius))
  // on one PE; on several, 24 for a 2-D loop and 56 for a 3-D one. 264 blocks of 256 threads (an
  // H200 at 2 per SM); 2 PEs and 2-D unless said.
  namespace sc = stencilc::compiled;
  auto size = [](long long rows, long long cols, int radius, int pes = 2, int rank = 2) {
    sc::FlowSize f;
    f.rows = rows;
    f.points = rows * cols;
    f.radius = radius;
    f.blocks = 264;
    f.block_threads = 256;
    f.pes = pes;
    f.rank = rank;
    return f;
  };
  check(sc::flow_pays(size(128, 256, 1)), "jacobi2d 256^2 on 2 PEs: 1 point a thread");
  check(sc::flow_pays(size(512, 1024, 1)), "1024^2 on 2 PEs: 7.8 points a thread");
  check(sc::flow_pays(size(1024, 1024, 1, 1)), "1024^2 on 1 PE: 15.5 points a thread");
  check(sc::flow_pays(size(768, 1536, 1)), "1536^2 on 2 PEs: 17.5 points a thread");
  check(!sc::flow_pays(size(1536, 1536, 1, 1)), "1536^2 on 1 PE: 35 points a thread");
  check(!sc::flow_pays(size(768, 1536, 1, 1)), "17.5 points a thread on 1 PE");
  check(!sc::flow_pays(size(1024, 2048, 1)), "2048^2 on 2 PEs: 31 points a thread");
  check(sc::flow_pays(size(512, 1024, 2)), "radius 2, 512 rows: 256 active blocks, 8 points a thread");
  check(sc::flow_pays(size(32, 64 * 64, 1, 2, 3)), "heat3d 64^3 on 2 PEs: 32 planes, 16 points a thread");
  check(sc::flow_pays(size(48, 96 * 96, 1, 2, 3)), "heat3d 96^3 on 2 PEs: 48 planes, 36 points a thread");
  check(sc::flow_pays(size(56, 112 * 112, 1, 2, 3)), "heat3d 112^3 on 2 PEs: 56 planes, 49 points a thread");
  check(!sc::flow_pays(size(64, 128 * 128, 1, 2, 3)), "heat3d 128^3 on 2 PEs: 64 planes, 64 points a thread");
  check(!sc::flow_pays(size(96, 96 * 96, 1, 1, 3)), "heat3d 96^3 on 1 PE: 36 points a thread");
  check(sc::flow_pays(size(64, 64 * 64, 1, 1, 3)), "heat3d 64^3 on 1 PE: 16 points a thread");
  check(!sc::flow_pays(size(112, 112 * 112, 1, 1, 3)), "heat3d 112^3 on 1 PE: 49 points a thread");
  // A step of several walks: never on one PE; on several up to 32 points a thread (2-D, 3-D: its
  // walks in strips), 16 in 1-D.
  auto walks = [&](long long rows, long long cols, int pes, int n, int rank = 2) {
    sc::FlowSize f = size(rows, cols, 1, pes, rank);
    f.walks = n;
    return f;
  };
  check(!sc::flow_pays(walks(16384, 1, 1, 2, 1)), "jacobi1d 2^14 on 1 PE, two walks: 0.2 points a thread");
  check(!sc::flow_pays(walks(512, 512, 1, 4)), "fdtd2d 512^2 on 1 PE, four walks");
  check(sc::flow_pays(walks(256, 512, 2, 4)), "fdtd2d 512^2 on 2 PEs: 1.9 points a thread");
  check(sc::flow_pays(walks(513, 2050, 4, 3)), "cg2d 2050^2 on 4 PEs: 15.6 points a thread");
  check(sc::flow_pays(walks(1048576, 1, 4, 2, 1)), "jacobi1d 2^22 on 4 PEs: 15.5 points a thread");
  check(sc::flow_pays(walks(1025, 2050, 2, 3)), "cg2d 2050^2 on 2 PEs: 31 points a thread");
  check(!sc::flow_pays(walks(2049, 4098, 2, 3)), "cg2d 4098^2 on 2 PEs: 62 points a thread");
  check(!sc::flow_pays(walks(2097152, 1, 2, 2, 1)), "jacobi1d 2^22 on 2 PEs: 31 points a thread");
  check(sc::flow_pays(size(1024, 1320, 1, 4)) && !sc::flow_pays(walks(1024 * 1320, 1, 4, 2, 1)),
        "20 points a thread on 4 PEs: one 2-D update's form pays, two 1-D walks' does not");
  check(!sc::flow_pays(size(1024, 1848, 1, 4)) && sc::flow_pays(walks(1024, 1848, 4, 2)),
        "28 points a thread, 2-D on 4 PEs: over one update's limit (24), under several walks' (32)");
  check(!sc::flow_pays(size(64, 128 * 128, 1, 2)), "64 points a thread in 2-D");
  check(sc::flow_pays(size(16, 32 * 32, 1, 2, 3)), "heat3d 32^3 on 2 PEs: 4 points a thread");
  check(!sc::flow_pays(sc::FlowSize{}), "no size known: off");
  // The grid: a block per radius of rows, at most 1024 (and STENCILC_MAX_BLOCKS).
  unsetenv("STENCILC_MAX_BLOCKS");
  check(sc::flow_blocks(size(128, 256, 1)) == 128, "128 rows, radius 1: 128 blocks");
  check(sc::flow_blocks(size(129, 256, 2)) == 64, "129 rows, radius 2: 64 blocks");
  check(sc::flow_blocks(size(5000, 64, 1)) == rc::kMaxFlowBlocks, "5000 rows: the flags' 1024");
  check(sc::flow_blocks(size(1, 64, 2)) == 1, "fewer rows than the radius: 1 block");
  setenv("STENCILC_MAX_BLOCKS", "32", 1);
  check(sc::flow_blocks(size(128, 256, 1)) == 32, "STENCILC_MAX_BLOCKS=32 caps it");
  unsetenv("STENCILC_MAX_BLOCKS");
  const sc::FlowSize small = size(128, 256, 1), large = size(1024, 2048, 1);
  plan("2x1x1", false, true, nullptr, true, 0, -1, 1, &small);  // unset: the cost model
  plan("2x1x1", false, true, "auto", true, 1, 0, -1, &small);
  plan("2x1x1", false, true, "auto", false, 0, 0, 0, &large);
  plan("2x1x1", false, true, "barrier", false, 0, 0, 0, &small);
  plan("1x1x1", false, true, "auto", true, 0, -1, -1, &small);    // one PE too
  plan("2x1x1", false, true, "dataflow", true, 0, -1, 1, &large);        // asked for: on whatever the size
  plan("2x2x1", false, true, "auto", false, 0, 0, 0, &small);      // cuts dimension 1 too
  plan("2x1x1", false, false, "auto", false, 0, 0, 0, &small);     // a peer NVSHMEM does not map
  // Without a size the cost model keeps it off; asked for, with mapped peers and an N x 1 x 1 grid only.
  plan("2x1x1", true, true, nullptr, false, 0, 0, 0);
  plan("2x1x1", true, true, "barrier", false, 0, 0, 0);
  plan("2x1x1", true, true, "dataflow", true, 0, 1, 1);
  plan("3x1x1", true, true, "dataflow", true, 0, 2, 1);
  plan("3x1x1", false, true, "dataflow", true, 0, -1, 1);
  plan("3x1x1", false, true, "dataflow", true, 2, 1, -1);
  plan("1x1x1", true, true, "dataflow", true, 0, 0, 0);   // one periodic PE: its own neighbour
  plan("1x1x1", false, true, "dataflow", true, 0, -1, -1);
  plan("2x2x1", true, true, "dataflow", false, 0, 0, 0);  // cuts dimension 1 too: keeps its barriers
  plan("2x1x1", true, false, "dataflow", false, 0, 0, 0); // a peer NVSHMEM does not map
  // The process grid (flow_grid): least halo traffic (2 x 2 on 4 PEs at 256^2) unless the form
  // would run on the grid cutting dimension 0 only. Asked for: that grid; off: plan's; a forced
  // grid stays; too few rows for N x 1: plan's. (The cost model's choice needs a GPU's SM count:
  // with none it keeps plan's.)
  grid_choice(4, 256, 256, "barrier", nullptr, "2x2");
  grid_choice(4, 256, 256, "dataflow", nullptr, "4x1");
  grid_choice(4, 256, 256, "dataflow", "2x2", "2x2");
  grid_choice(2, 256, 256, "dataflow", nullptr, "2x1");
  grid_choice(4, 3, 256, "dataflow", nullptr, chosen(4, 3, 256, "barrier", nullptr));
  grid_choice(4, 256, 256, "auto", nullptr, "2x2");
  reasons();
  bad_setting();
  return tally::finish();
}
