// What stencilc-generated CUDA (the cpu-free schedule, p2p backend) needs on the host besides the
// runtime: moving the user's global grids into every GPU's block and back. Included by
// generated .cu files only.
#pragma once

#include "stencilc/compiled.hpp"
#include "stencilc/compiled_schedule.hpp"

#include <stencilc/runtime/cuda/generated.cuh>
#include <stencilc/runtime/cuda/halo.cuh>
#include <stencilc/runtime/cuda/spmd.cuh>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace stencilc::compiled {

/// Every PE's block of `g` in the GPUs' symmetric memory, owned and halo cells filled from the
/// grid (see fill_cells; halo cells with no source get `no_source`: poisoned for global-view
/// programs, 0 for SPMD programs as in the reference build). Only the PEs this process holds
/// are filled: all of them with P2PTeam, its own with NvshmemTeam.
template <typename T, int N, class Team>
std::vector<rt::cuda::DBlock<T, N>> upload_grid(Team& team, const rt::ProcessGrid& grid,
                                                const Grid<T, N>& g, Ints<N> halo_lo, Ints<N> halo_hi,
                                                T no_source = poison<T>()) {
  std::array<int, N> extent;
  for (int k = 0; k < N; ++k) extent[k] = g.extent(k);
  std::vector<rt::cuda::DBlock<T, N>> blocks = rt::cuda::alloc_blocks<T, N>(team, grid, extent, halo_lo, halo_hi);
  for (int pe = 0; pe < team.n(); ++pe) {
    if (!team.holds(pe)) continue;
    const rt::cuda::DBlock<T, N>& b = blocks[pe];
    std::vector<T> cells(static_cast<std::size_t>(b.allocated()), poison<T>());
    fill_cells<T, N>(g, layout_of<rt::cuda::DBlock<T, N>, N>(b), cells.data() + b.data_offset(), no_source);
    team.upload(pe, b.data - b.data_offset(), cells.data(), cells.size());
  }
  return blocks;
}

/// Global-view programs: the two grids of a `swap` have the same layout on every PE (one extent
/// for every grid, halos united over the swap group, one process grid), which the kernel relies
/// on when it swaps only the buffers (rt::cuda::swap_buffers). A fatal error if they do not.
template <typename T, int N>
void check_swap_layouts(const std::vector<rt::cuda::DBlock<T, N>>& a, const std::vector<rt::cuda::DBlock<T, N>>& b,
                        const char* program, const char* name_a, const char* name_b) {
  for (std::size_t pe = 0; pe < a.size() && pe < b.size(); ++pe) {
    if (!a[pe].same_buffer_layout(b[pe])) {
      rt::fatal("program '%s' swaps grids '%s' and '%s', whose blocks on PE %zu are laid out differently", program,
                name_a, name_b, pe);
    }
  }
}

/// SPMD programs: every PE's layout of one symmetric block (`blocks`, from upload_grid), in every
/// PE's device memory this process holds, for extent_on/origin_on and for where a put lands on
/// another PE (the kernel gets `on(pe)`).
template <typename T, int N, class Team>
rt::cuda::Sym<rt::cuda::DBlock<T, N>> upload_layouts(Team& team, const std::vector<rt::cuda::DBlock<T, N>>& blocks) {
  rt::cuda::Sym<rt::cuda::DBlock<T, N>> on = team.template alloc<rt::cuda::DBlock<T, N>>(blocks.size());
  for (int pe = 0; pe < team.n(); ++pe) {
    if (team.holds(pe)) team.upload(pe, on.on(pe), blocks.data(), blocks.size());
  }
  return on;
}

/// Copies the owned cells of the blocks the kernel ended with (one per PE) back into `g`.
template <typename T, int N>
void download_grid(rt::cuda::P2PTeam& team, const std::vector<rt::cuda::DBlock<T, N>>& blocks, Grid<T, N>& g) {
  for (int pe = 0; pe < team.n(); ++pe) {
    const rt::cuda::DBlock<T, N>& b = blocks[pe];
    std::vector<T> cells(static_cast<std::size_t>(b.allocated()));
    team.download(pe, cells.data(), b.data - b.data_offset(), cells.size());
    gather_cells<T, N>(cells.data() + b.data_offset(), layout_of<rt::cuda::DBlock<T, N>, N>(b), g);
  }
}

/// An upper bound of the symmetric memory one run of a program takes on each PE: per grid a block
/// of the largest owned extents with halos (H cells; every PE's block is at most that), and for an
/// exchanged grid its slots and staging, 2 parities each: every face lies in the halo shell of
/// such a block, so they take at most 4 * (H - owned) cells. Plus the reductions' scratch and the
/// small things (plans, signals, the final block descriptors, allocation rounding). A block's
/// rows are padded to 16 bytes and it has a lead of under 16 bytes (dblock_shape): counted as
/// 16 more bytes per row and per block. Both GPU backends size their heap with it
/// (STENCILC_SYM_HEAP_MB overrides it).
template <int N>
std::size_t symmetric_bytes(const Plan<N>& plan, const std::vector<GridDesc<N>>& grids,
                            const std::vector<std::size_t>& element_bytes, const std::vector<bool>& exchanged) {
  // The small things, and the dataflow loop's flags (flow.cuh: 1025 + 2 of 128 bytes).
  std::size_t total = (std::size_t{1} << 14) * sizeof(std::uint64_t) + (std::size_t{1} << 20) + (std::size_t{1} << 18);
  for (std::size_t k = 0; k < grids.size(); ++k) {
    std::array<int, N> largest{};
    for (int pe = 0; pe < plan.grid.size(); ++pe) {
      const rt::BlockLayout<N> layout = rt::block_layout<N>(plan.grid, pe, grids[k].extent);
      for (int d = 0; d < N; ++d) largest[d] = layout.extent[d] > largest[d] ? layout.extent[d] : largest[d];
    }
    std::size_t with_halos = 1, owned = 1;
    for (int d = 0; d < N; ++d) {
      with_halos *= static_cast<std::size_t>(largest[d] + grids[k].halo_lo[d] + grids[k].halo_hi[d]);
      owned *= static_cast<std::size_t>(largest[d]);
    }
    const std::size_t shell = exchanged[k] ? 4 * (with_halos - owned) : 0;
    const std::size_t rows = with_halos / static_cast<std::size_t>(largest[N - 1] + grids[k].halo_lo[N - 1] +
                                                                   grids[k].halo_hi[N - 1]);
    total += (with_halos + shell) * element_bytes[k] + 16 * (rows + 1) + (std::size_t{64} << 10);
  }
  return total;
}

/// STENCILC_MAX_BLOCKS (blocks per GPU at most; 0: no cap) where set, else 0.
inline int max_blocks_set() {
  const char* text = std::getenv("STENCILC_MAX_BLOCKS");
  if (text == nullptr || std::string(text) == "0") return 0;
  long long n = 0;
  if (!rt::parse_positive(text, 1 << 20, &n)) rt::fatal("STENCILC_MAX_BLOCKS='%s' is not a number of blocks", text);
  return static_cast<int>(n);
}

/// The persistent kernel's grid size cap for `plan`'s largest block: about `points_per_thread`
/// points per thread, so small grids run on few blocks (a grid barrier costs more the more blocks
/// arrive) and large ones on as many as fit. STENCILC_MAX_BLOCKS overrides it (0: no cap).
template <int N>
int max_blocks_for(const Plan<N>& plan, int block_threads, int points_per_thread = 4) {
  if (std::getenv("STENCILC_MAX_BLOCKS")) return max_blocks_set();
  double points = 1;
  for (int d = 0; d < N; ++d) points *= (plan.extent[d] + plan.grid.dims[d] - 1) / plan.grid.dims[d];
  const double blocks = points / (static_cast<double>(block_threads) * points_per_thread);
  return blocks >= (1 << 20) ? 0 : std::max(2, static_cast<int>(blocks + 0.999));
}


/// What the cost model knows of a dataflow loop's launch: the largest PE's rows (dimension 0)
/// and points, the loop's radius along dimension 0, the blocks and threads a launch has, the
/// PEs and the grid's rank.
struct FlowSize {
  long long rows = 0, points = 0;
  long long min_rows = 0;  // the PE with the fewest rows (rows: the one with the most)
  int radius = 1, blocks = 0, block_threads = 0, pes = 1, rank = 2;
  int walks = 1;  // the walks of a step (select-loop-forms: point updates and fused sweeps)
};

/// The loop's size on `plan`'s PEs, its step of `walks` walks; the blocks as the cooperative launch
/// gives them with no cap (STENCILC_MIN_BLOCKS_PER_SM on every SM of GPU 0; STENCILC_MAX_BLOCKS
/// caps them).
template <int N>
FlowSize flow_size(const Plan<N>& plan, int radius, int block_threads, int walks = 1) {
  FlowSize f;
  f.walks = walks;
  f.rows = (plan.extent[0] + plan.grid.dims[0] - 1) / plan.grid.dims[0];
  f.min_rows = plan.extent[0] / plan.grid.dims[0];
  f.points = 1;
  for (int d = 0; d < N; ++d) f.points *= (plan.extent[d] + plan.grid.dims[d] - 1) / plan.grid.dims[d];
  f.radius = radius;
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) sms = 0;
  f.blocks = sms * STENCILC_MIN_BLOCKS_PER_SM;
  if (const int cap = max_blocks_set(); cap > 0 && cap < f.blocks) f.blocks = cap;
  f.block_threads = block_threads;
  f.pes = plan.grid.dims[0] * plan.grid.dims[1] * plan.grid.dims[2];
  f.rank = N;
  return f;
}

/// The dataflow loop's grid: a block for each `radius` rows of the largest PE's (DFlow's active
/// blocks; a PE with fewer rows leaves some idle), at most kMaxFlowBlocks and STENCILC_MAX_BLOCKS;
/// the cooperative launch caps it by what is resident. Idle blocks would only spin in the loop's
/// end barrier next to the working ones.
inline int flow_blocks(const FlowSize& s) {
  const int cap = max_blocks_set();
  return rt::cuda::flow_part(static_cast<int>(s.rows), s.radius, cap > 0 ? cap : rt::cuda::kMaxFlowBlocks, 0).active;
}

/// The cost model's choice: the dataflow loop where
/// each active block holds at most this many points per thread. A step is then latency-bound,
/// and the default loop's barriers and exchange protocol cost more than the flags; with more,
/// the one block per few rows is too few to stream the grid. Measured on 2 x H200 (us a step,
/// the form against the barrier form, with the face stores staged, FaceWriter):
///   1 GPU:        the form wins up to 16 (from 1.2x at wave2d 512^2 to 2.3x at
///                 heat3d 32^3) and loses from 35 (jacobi2d 1536^2: 16.9 against 15.6; heat3d
///                 96^3: 14.9 against 8.7, the barrier form's boundary walk built cheaply);
///   2-D, 2 GPUs:  wins at 17.5 (jacobi2d 1536^2: 10.8 against 17.0), even at 31 (jacobi2d
///                 2048^2: 16.4 against 17.3; wave2d 2048^2: 24.2 against 20.9);
///   3-D, 2 GPUs:  wins at 36 (heat3d 96^3: 21.8 against 29.6) and 49 (112^3: 28.8 against
///                 50.6 before the cheap boundary walk, which saved 11-16 us a step at 96^3 and
///                 256^3), loses at 64 (128^3: 36.1 against 30.5, before it). A 3-D block's rows
///                 are whole planes, so its points per thread run higher for the same number of
///                 active blocks; the barrier form's exchange of 3-D faces and its boundary
///                 planes cost more than in 2-D.
/// A step of several walks (4 x H200, 2026-11-27, us a step, the form against the barrier form):
///   1 GPU:        never: the form loses even at 0.2 points a thread (jacobi1d 2^14, two
///                 updates: 5.75 against 5.32; fdtd2d 512^2: 25.7 against 21.0; cg2d 1026^2,
///                 four reductions read in the loop: 48.7 against 33.4): one GPU's grid barrier
///                 costs less than a walk's flags and face copies;
///   2 and 4 GPUs: with the walks in strips, wins up to 31 (cg2d 2050^2 on 2 GPUs: 85.8 against
///                 98.4; fdtd2d 2048^2 on 2: 67.3 against 76.3, on 4 (15.5): 34.3 against 58.9;
///                 cg2d 2050^2 on 4: 46.5 against 59.7; jacobi1d 2^22 on 4, 1-D: 13.2 against
///                 38.8; fdtd2d 512^2 on 4: 18.7 against 36.4); at 31 the 1-D walk loses
///                 (jacobi1d 2^22 on 2: 38.1 against 25.3, a point walk: 1-D has no strips) and
///                 at 62 cg2d did (4098^2 on 2: 331 against 277, timed beside other GPU work).
/// Returns a negative limit where the form never pays.
inline double flow_points_limit(int rank, int pes, int walks = 1) {
  if (walks > 1) return pes <= 1 ? -1.0 : rank >= 2 ? 32.0 : 16.0;
  if (pes <= 1) return 16.0;
  return rank >= 3 ? 56.0 : 24.0;
}

/// The cost model's measure: the points a thread of an active block holds (the active blocks:
/// min(s.blocks, rows / radius), flow_part), or -1 where the size is not known.
inline double flow_points_per_thread(const FlowSize& s) {
  if (s.blocks <= 0 || s.block_threads <= 0 || s.rows <= 0) return -1;
  const long long active = rt::cuda::flow_part(static_cast<int>(s.rows), s.radius, s.blocks, 0).active;
  return static_cast<double>(s.points) / static_cast<double>(active * s.block_threads);
}

/// Whether the dataflow form pays for a loop of size `s` (choose_form, flow_grid).
inline bool flow_pays(const FlowSize& s) {
  const double per_thread = flow_points_per_thread(s);
  return per_thread >= 0 && per_thread <= flow_points_limit(s.rank, s.pes, s.walks);
}

/// STENCILC_FORM, the time loop's form for a run: unset or `auto`, choose_form's choice;
/// `barrier`; `dataflow` (from global memory, wherever it can run; stderr says where it cannot);
/// `regs` (the register-resident form where its band fits, else the dataflow form; stderr says
/// which and why). Anything else stops the run.
enum class FormSetting { Auto, Barrier, Dataflow, Regs };

inline FormSetting form_setting() {
  const char* text = std::getenv("STENCILC_FORM");
  if (text == nullptr) return FormSetting::Auto;
  const std::string v(text);
  if (v == "auto") return FormSetting::Auto;
  if (v == "barrier") return FormSetting::Barrier;
  if (v == "dataflow") return FormSetting::Dataflow;
  if (v == "regs") return FormSetting::Regs;
  rt::fatal("STENCILC_FORM='%s': expected auto, barrier, dataflow or regs", text);
}

/// The dataflow loop (both fast forms run it): 0 off, 1 asked for, 2 the cost model's choice.
inline int flow_mode() {
  const FormSetting f = form_setting();
  return f == FormSetting::Auto ? 2 : f == FormSetting::Barrier ? 0 : 1;
}

/// The register-resident form: 0 off, 1 asked for (say why where it does not run), 2 where its
/// band fits.
inline int regs_mode() {
  const FormSetting f = form_setting();
  return f == FormSetting::Auto ? 2 : f == FormSetting::Regs ? 1 : 0;
}

/// What STENCILC_FORM says, for the reasons choose_form gives.
inline std::string form_setting_text() {
  const char* text = std::getenv("STENCILC_FORM");
  return std::string("STENCILC_FORM=") + (text != nullptr ? text : "auto");
}

/// The most blocks a PE the register-resident form runs on: STENCILC_MIN_BLOCKS_PER_SM a SM of
/// GPU 0 (regs_heap_bytes sets their inboxes aside).
inline int regs_heap_blocks() {
  int sms = 0;
  STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms * STENCILC_MIN_BLOCKS_PER_SM;
}

/// The symmetric heap the register-resident form may take (the inboxes and flags of
/// regs_heap_blocks), for grids of `cols` columns.
inline std::size_t regs_heap_bytes(long cols, std::size_t element_bytes) {
  const int blocks = regs_heap_blocks();
  const int pitch = rt::cuda::regs_pitch(static_cast<int>(cols), rt::cuda::kRegsVec, static_cast<int>(element_bytes));
  return rt::cuda::regs_inbox_elements(blocks, pitch) * element_bytes + rt::cuda::regs_flag_words(blocks) * 8 + 512;
}

/// The forms a cpu-free time loop can take (docs/SCHEDULES.md, "The forms of a cpu-free time
/// loop"): the barrier form, which every loop has; the dataflow form (flow.cuh), where the IR
/// records forms(dataflow); its register-resident form (regs.cuh), where it records
/// forms(dataflow, regs).
enum class LoopForm { Barrier, Dataflow, Regs };

inline const char* form_name(LoopForm form) {
  return form == LoopForm::Regs ? "register-resident form" : form == LoopForm::Dataflow ? "dataflow form" : "barrier form";
}

/// What choose_form decides from, all known before the launch: the forms the compiled kernel
/// holds (what select-loop-forms recorded in the IR, as the launcher passes them), the backend,
/// the run's process grid and the sizes.
struct FormQuery {
  const char* program = "";
  const char* loop = nullptr;  // where the time loop is ("jacobi2d.cpp:12"; "": not known); null: none
  bool dataflow = false;       // the kernel holds the loop's dataflow form
  bool regs = false;           // and its register-resident form
  bool direct = true;          // every PE reaches every other's symmetric memory by loads and
                               // stores: p2p always, nvshmem where NVSHMEM maps every peer
                               // (NvshmemTeam::all_direct: one node, NVLink)
  rt::ProcessGrid grid;        // the run's process grid (flow_grid's where the loop has a dataflow form)
  bool periodic0 = false;      // the grid the dataflow form stores faces of is periodic along dimension 0
  bool periodic1 = false;      // the grid the register-resident form reads is periodic along dimension 1
  long cols = 0;               // the grids' extent along dimension 1 (the register-resident form's columns)
  FlowSize size;               // the loop's size on the largest PE (flow_size)
};

/// What the GPUs say about the register-resident form's launch (regs_device asks them; a test
/// passes its own): the dynamic shared memory a block takes (the threads' side columns), the most
/// a block may take, the blocks that can be resident with it on the PE that has the fewest (not
/// asked where the shared memory does not fit), the blocks whose inboxes the heap sets aside.
struct RegsDevice {
  std::size_t smem = 0;
  int smem_optin = 0;
  int resident = 0;
  int heap_blocks = 0;
};

/// The form a run of the loop takes, and what its launch needs.
struct FormChoice {
  LoopForm form = LoopForm::Barrier;
  int blocks = 0;          // the launch's blocks a PE (the barrier form: unused, max_blocks_for's cap)
  std::size_t smem = 0;    // the register-resident form's dynamic shared memory a block
  std::string reason;      // why this form (STENCILC_TIMING)
  std::vector<std::string> said;  // what STENCILC_FORM=dataflow or regs printed on stderr
  std::string loop;        // FormQuery::loop ("": not known)
  bool has_loop = false;   // FormQuery::loop was not null
  rt::ProcessGrid grid;
  bool periodic0 = false;

  /// Both fast forms are the kernel's dataflow loop (its sc_flow_on).
  bool flow_on() const { return form != LoopForm::Barrier; }
  bool regs_on() const { return form == LoopForm::Regs; }
  /// The PEs before the first and after the last row (-1 at a non-periodic edge).
  int up(int pe) const { return rt::neighbor(grid, pe, {-1, 0, 0}, {periodic0, false, false}); }
  int down(int pe) const { return rt::neighbor(grid, pe, {1, 0, 0}, {periodic0, false, false}); }
  /// What STENCILC_TIMING=1 prints after "stencilc: <program>: ": "time loop at jacobi2d.cpp:12:
  /// register-resident form (the band fits: ...)".
  std::string summary() const {
    const std::string what = std::string(form_name(form)) + " (" + reason + ")";
    if (!has_loop) return what;
    return "time loop" + (loop.empty() ? std::string() : " at " + loop) + ": " + what;
  }
};

/// The register-resident form's device facts: never asked (a loop without the form, nvshmem).
struct NoRegsDevice {
  RegsDevice operator()(int) const { return {}; }
};

namespace detail {

/// "2x2" for a 2-D process grid.
inline std::string grid_text(const rt::ProcessGrid& grid) {
  std::string t;
  for (int d = 0; d < std::max(grid.rank, 1); ++d) t += (d ? "x" : "") + std::to_string(grid.dims[d]);
  return t;
}

/// The cost model's verdict on `s` in words: "9.1 points a thread <= 24, the limit for 2-D on
/// 2 PEs".
inline std::string flow_cost_text(const FlowSize& s) {
  const double per_thread = flow_points_per_thread(s);
  if (per_thread < 0) return "the loop's size on the GPU is not known";
  char text[160];
  const double limit = flow_points_limit(s.rank, s.pes, s.walks);
  if (s.walks > 1 && s.pes <= 1) return "a step of " + std::to_string(s.walks) + " walks on 1 PE";
  if (s.walks > 1) {
    std::snprintf(text, sizeof text, "%.1f points a thread %s %g, the limit for a step of %d walks on %d PEs",
                  per_thread, per_thread <= limit ? "<=" : ">", limit, s.walks, s.pes);
  } else if (s.pes <= 1) {
    std::snprintf(text, sizeof text, "%.1f points a thread %s %g, the limit on 1 PE", per_thread,
                  per_thread <= limit ? "<=" : ">", limit);
  } else {
    std::snprintf(text, sizeof text, "%.1f points a thread %s %g, the limit for %d-D on %d PEs", per_thread,
                  per_thread <= limit ? "<=" : ">", limit, s.rank, s.pes);
  }
  return text;
}

}  // namespace detail

/// The one place a time loop's form is chosen for a run, among the forms the compiled kernel
/// holds (`q.dataflow`, `q.regs`: what the IR records), in this order:
///
/// 1. The **register-resident form** where the kernel holds it and its band fits (below), unless
///    STENCILC_FORM asks for another. It runs the dataflow loop with each block's rows in
///    registers: on as many blocks as can be resident (fewer rows a block, a shorter step:
///    jacobi2d 256^2 on one H200, 2.43 us a step at 4 rows a block, 2.02 at 2), at most a row
///    each on the PE with the fewest rows and regs_heap_blocks.
/// 2. The **dataflow form** where the kernel holds it and STENCILC_FORM=dataflow (or regs) asks for it, or
///    where it is `auto` (the default) and the cost model finds it pays (flow_pays: at most
///    flow_points_limit points a thread of an active block, 16 on one PE, 24 for 2-D and 56 for
///    3-D on several; measured, see there). A block per radius of the largest PE's rows
///    (flow_blocks).
/// 3. The **barrier form** otherwise, and wherever STENCILC_FORM=barrier.
///
/// Both fast forms need every peer's memory reachable by loads and stores (their face signals and
/// the register-resident form's rows are plain stores to the peers: p2p, or nvshmem within one
/// node, FormQuery::direct) and a
/// process grid that cuts dimension 0 only (blocks own whole rows); flow_grid took that grid
/// before the team was made where the form would run on it. The register-resident form also
/// needs: dimension 1 not periodic, a block's threads holding every column (kBlockThreads x
/// kRegsVec), the PE with the most rows holding them at kRegsRows a block on blocks that can all
/// be resident with the band's shared memory (`device`, asked only when the checks before it
/// pass) while the PE with the fewest gives each block a row, and inboxes within the heap set
/// aside for them. The kernel still checks the form's contract on the device and runs the loop
/// from global memory where it does not hold.
///
/// STENCILC_FORM=dataflow (and regs) says on stderr where the dataflow form cannot run,
/// STENCILC_FORM=regs where and why the register-resident form runs or does not (both also kept in `said`). The reason
/// for the choice is FormChoice::reason, which the launcher prints with STENCILC_TIMING=1.
template <class Device = NoRegsDevice>
FormChoice choose_form(const FormQuery& q, Device device = Device{}) {
  FormChoice c;
  c.loop = q.loop ? q.loop : "";
  c.has_loop = q.loop != nullptr;
  c.grid = q.grid;
  c.periodic0 = q.periodic0;
  if (!q.dataflow) {
    c.reason = q.loop ? "the loop's only form: select-loop-forms found no other" : "no time loop at the top of the program";
    return c;
  }
  auto say = [&](const std::string& line) {
    std::fprintf(stderr, "stencilc: %s: %s\n", q.program, line.c_str());
    c.said.push_back(line);
  };
  const int dataflow = flow_mode();
  const int regs = q.regs ? regs_mode() : 0;
  const bool rows_only = q.grid.dims[1] == 1 && q.grid.dims[2] == 1;
  const bool possible = q.direct && rows_only;
  std::string not_here;  // why neither fast form can run here
  if (!q.direct) {
    not_here = "some PE's memory is not reachable by loads and stores (NVSHMEM maps no address for it): the "
               "dataflow and register-resident forms store into their neighbours";
  } else if (!rows_only) {
    not_here = "the process grid " + detail::grid_text(q.grid) + " cuts " +
               (q.grid.dims[1] > 1 && q.grid.dims[2] > 1 ? "dimensions 1 and 2"
                : q.grid.dims[1] > 1                     ? "dimension 1"
                                                         : "dimension 2");
  }
  if (dataflow == 0) {
    c.reason = form_setting_text();
    return c;
  }
  if (dataflow == 1 && !possible) {
    say(std::string("the dataflow loop needs ") +
        (q.direct ? "a process grid that cuts dimension 0 only (STENCILC_DECOMP=Nx1)"
                  : "every PE's memory reachable by loads and stores") +
        "; it keeps its barriers");
  }
  const bool flow_on = possible && (dataflow == 1 || flow_pays(q.size));
  const std::string flow_why = dataflow == 1 ? form_setting_text() : "cost model: " + detail::flow_cost_text(q.size);

  // The register-resident form: "" where it runs, else why not.
  std::string regs_why = "not in the kernel";
  if (q.regs && regs == 0) regs_why = form_setting_text();
  if (q.regs && regs != 0) {
    const FlowSize& s = q.size;
    const int threads = s.block_threads;
    const int fewest = static_cast<int>((s.rows + rt::cuda::kRegsRows - 1) / rt::cuda::kRegsRows);  // at kRegsRows a block
    RegsDevice d;
    if (!possible) {
      regs_why = "the dataflow loop cannot run here (choose_form)";
    } else if (q.periodic1) {
      regs_why = "dimension 1 is periodic";
    } else if (q.cols > static_cast<long>(threads) * rt::cuda::kRegsVec) {
      regs_why = "a block's threads do not hold every column";
    } else if (fewest < 1 || s.min_rows < fewest) {
      regs_why = "too few rows on a PE for a row a block";
    } else if (d = device(threads); d.smem > static_cast<std::size_t>(d.smem_optin)) {
      regs_why = "its side columns exceed a block's shared memory";
    } else if (d.resident < fewest) {
      regs_why = "the band's blocks cannot all be resident";
    } else if (d.heap_blocks < fewest) {
      regs_why = "its inboxes exceed the heap set aside for them";
    } else {
      regs_why.clear();
      c.form = LoopForm::Regs;
      c.blocks = static_cast<int>(std::min<long long>({d.resident, s.min_rows, d.heap_blocks}));
      c.smem = d.smem;
      const long long rows = (s.rows + c.blocks - 1) / c.blocks;
      c.reason = "the band fits: " + std::to_string(rows) + (rows == 1 ? " row" : " rows") + " x " +
                 std::to_string(rt::cuda::kRegsVec) + " columns a thread on " + std::to_string(c.blocks) +
                 " blocks of " + std::to_string(threads) + " threads a PE";
      if (regs == 1) {
        char line[200];
        std::snprintf(line, sizeof line,
                      "the register-resident form runs: %d blocks a PE of %d threads, %d rows x %d columns a thread at most",
                      c.blocks, threads, rt::cuda::kRegsRows, rt::cuda::kRegsVec);
        say(line);
      }
      return c;
    }
    if (regs == 1) say("the register-resident form does not run: " + regs_why);
  }
  const std::string and_regs = q.regs && possible ? "; the register-resident form does not run: " + regs_why : "";
  if (flow_on) {
    c.form = LoopForm::Dataflow;
    c.blocks = flow_blocks(q.size);
    c.reason = flow_why + and_regs;
  } else {
    c.reason = possible ? flow_why + and_regs : not_here;
  }
  return c;
}

/// The plan of a program whose time loop has a dataflow form (the p2p launcher): `p`'s process
/// grid, the one with the least halo traffic, unless it cuts more than dimension 0 while the form
/// would run on the grid that cuts dimension 0 only (STENCILC_FORM=dataflow or regs, or the cost model on
/// that grid's size): then that grid, which the form needs (choose_form). Where the form pays, the
/// halo it adds costs little next to the barriers it saves: jacobi2d 256^2 on 4 GPUs ran the
/// barrier form on 2 x 2 at 12.7 us a step, where 2 GPUs run the form at 3.9. Not
/// where STENCILC_DECOMP or --stencilc-decomp forces a grid.
template <int N>
Plan<N> flow_grid(const Plan<N>& p, int radius, int block_threads, int walks = 1) {
  const int mode = flow_mode();
  if (mode == 0 || !configured_decomp().empty()) return p;
  if (p.grid.dims[1] == 1 && p.grid.dims[2] == 1) return p;
  const std::optional<rt::ProcessGrid> rows = rows_grid(p);
  if (!rows) return p;  // too few rows for that many PEs
  Plan<N> q = p;
  q.grid = *rows;
  return mode == 1 || flow_pays(flow_size(q, radius, block_threads, walks)) ? q : p;
}

template <int N>
rt::cuda::SBox<N> sbox(const Box<N>& b) {
  rt::cuda::SBox<N> s;
  for (int k = 0; k < N; ++k) s.lo[k] = b.lo[k], s.hi[k] = b.hi[k];
  return s;
}

/// A grid's shape for the device: global extents and which dimensions are periodic.
template <int N>
struct DeviceShape {
  int extent[N];
  bool periodic[N];
};

template <int N>
DeviceShape<N> device_shape(const GridDesc<N>& g) {
  DeviceShape<N> s;
  for (int k = 0; k < N; ++k) {
    s.extent[k] = g.extent[k];
    s.periodic[k] = g.bounds[k].kind == Boundary::Kind::Periodic;
  }
  return s;
}

}  // namespace stencilc::compiled

// The launch template (compiled::launch), built on everything above.
#include "stencilc/compiled_launch.hpp"
