// What stencilc-generated CUDA (the cpu-free schedule, p2p backend) needs on the host besides the
// runtime: moving the user's global grids into every GPU's block and back. Included by
// generated .cu files only.
#pragma once

#include "stencilc/compiled.hpp"

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
};

/// The loop's size on `plan`'s PEs; the blocks as the cooperative launch gives them with no cap
/// (STENCILC_MIN_BLOCKS_PER_SM on every SM of GPU 0; STENCILC_MAX_BLOCKS caps them).
template <int N>
FlowSize flow_size(const Plan<N>& plan, int radius, int block_threads) {
  FlowSize f;
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
inline double flow_points_limit(int rank, int pes) {
  if (pes <= 1) return 16.0;
  return rank >= 3 ? 56.0 : 24.0;
}

inline bool flow_pays(const FlowSize& s) {
  if (s.blocks <= 0 || s.block_threads <= 0 || s.rows <= 0) return false;
  const long long active = rt::cuda::flow_part(static_cast<int>(s.rows), s.radius, s.blocks, 0).active;
  const double per_thread = static_cast<double>(s.points) / static_cast<double>(active * s.block_threads);
  return per_thread <= flow_points_limit(s.rank, s.pes);
}

/// Where a kernel with a dataflow loop (flow.cuh: the loop's second form) runs it:
/// STENCILC_DATAFLOW=1 in the environment asks for it, 0 turns it off, `auto` (the default, 2)
/// leaves it to the cost model (flow_pays, given `size`; off without one). It runs only on the p2p backend (its
/// face signals are plain stores to the peers) with a process grid that cuts dimension 0 only
/// (blocks own whole rows); asked for elsewhere, it says so on stderr. `up`/`down`: the PEs
/// before the first and after the last row (-1 at a non-periodic edge).
struct FlowPlan {
  bool on = false;
  bool possible = false;  // the backend and process grid allow it
  rt::ProcessGrid grid;
  bool periodic = false;  // along dimension 0
  int up(int pe) const { return rt::neighbor(grid, pe, {-1, 0, 0}, {periodic, false, false}); }
  int down(int pe) const { return rt::neighbor(grid, pe, {1, 0, 0}, {periodic, false, false}); }
};

/// A three-way switch from the environment variable `name` (0, 1 or auto), else `built` (the
/// build's default): 0 off, 1 on, 2 auto.
inline int switch_mode(const char* name, int built) {
  const char* text = std::getenv(name);
  if (text == nullptr) return built;
  const std::string v(text);
  if (v != "0" && v != "1" && v != "auto") rt::fatal("%s='%s': expected 0, 1 or auto", name, text);
  return v == "auto" ? 2 : v == "1" ? 1 : 0;
}

/// STENCILC_DATAFLOW: 0 off, 1 on, unset or auto the cost model's choice.
inline int flow_mode() { return switch_mode("STENCILC_DATAFLOW", 2); }

inline FlowPlan flow_plan(const char* program, const rt::ProcessGrid& grid, bool periodic0, bool p2p,
                          const FlowSize* size = nullptr) {
  FlowPlan f;
  f.grid = grid;
  f.periodic = periodic0;
  const int mode = flow_mode();
  const bool possible = p2p && grid.dims[1] == 1 && grid.dims[2] == 1;
  f.possible = possible;
  if (mode == 1) {
    f.on = possible;
    if (!possible) {
      std::fprintf(stderr, "stencilc: %s: the dataflow loop needs %s; it keeps its barriers\n", program,
                   p2p ? "a process grid that cuts dimension 0 only (STENCILC_DECOMP=Nx1)" : "the p2p backend");
    }
  } else if (mode == 2) {
    f.on = possible && size != nullptr && flow_pays(*size);
  }
  return f;
}

/// STENCILC_REGS: 0 off, 1 on where the band fits (and say why not), unset or auto where it fits
/// (regs_plan).
inline int regs_mode() { return switch_mode("STENCILC_REGS", 2); }

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

/// The register-resident form (regs.cuh) for one launch: whether it runs, on how many blocks a
/// PE, with how much dynamic shared memory.
struct RegsPlan {
  bool on = false;
  int blocks = 0;
  std::size_t smem = 0;
};

/// Where the register-resident form runs, unless STENCILC_REGS=0: wherever the dataflow loop can run (flow_plan), dimension 1 is not
/// periodic, a block's threads hold every column (kBlockThreads x kRegsVec) and the PE with the
/// most rows holds them on the blocks that can be resident (kRegsRows a block at most) while the
/// PE with the fewest gives each block a row. It takes as many blocks as can be resident (fewer
/// rows a block, a shorter step), at most a row each on the PE with the fewest and
/// regs_heap_blocks. It then also turns the dataflow loop on. The kernel still
/// checks the form's contract on the device (the cells the update does not write the same in both
/// grids) and runs the loop from global memory where it does not hold. Where the form cannot
/// run, STENCILC_REGS=1 says why on stderr.
template <class T, class... KArgs>
RegsPlan regs_plan(void (*kernel)(KArgs...), const char* program, const FlowPlan& flow, const FlowSize& size, long cols,
                   bool periodic1, rt::cuda::P2PTeam& team) {
  RegsPlan p;
  const int mode = regs_mode();
  if (mode == 0 || flow_mode() == 0) return p;
  auto say = [&](const char* why) {
    if (mode == 1) std::fprintf(stderr, "stencilc: %s: the register-resident form does not run: %s\n", program, why);
  };
  if (!flow.possible) return say("the dataflow loop cannot run here (flow_plan)"), p;
  if (periodic1) return say("dimension 1 is periodic"), p;
  const int threads = size.block_threads;
  if (cols > static_cast<long>(threads) * rt::cuda::kRegsVec) return say("a block's threads do not hold every column"), p;
  const int fewest = static_cast<int>((size.rows + rt::cuda::kRegsRows - 1) / rt::cuda::kRegsRows);  // blocks at kRegsRows rows
  if (fewest < 1 || size.min_rows < fewest) return say("too few rows on a PE for a row a block"), p;
  int optin = 0, device = 0;
  STENCILC_CUDA_CHECK(cudaGetDevice(&device));
  STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t smem = rt::cuda::regs_smem_bytes<T>(rt::cuda::kRegsRows, threads, rt::cuda::kRegsVec);
  if (smem > static_cast<std::size_t>(optin)) return say("its side columns exceed a block's shared memory"), p;
  rt::cuda::LaunchConfig config;
  config.block_threads = threads;
  config.dynamic_smem = smem;
  int resident = std::numeric_limits<int>::max();
  for (int pe = 0; pe < team.n(); ++pe) {
    STENCILC_CUDA_CHECK(cudaSetDevice(team.device(pe)));
    // Raised, never lowered: the kernel's attribute may already allow more.
    cudaFuncAttributes attributes{};
    STENCILC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    STENCILC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             std::max(attributes.maxDynamicSharedSizeBytes, static_cast<int>(smem))));
    resident = std::min(resident, team.cooperative_blocks(pe, kernel, config));
  }
  STENCILC_CUDA_CHECK(cudaSetDevice(device));
  if (resident < fewest) return say("the band's blocks cannot all be resident"), p;
  const int heap_blocks = regs_heap_blocks();
  if (heap_blocks < fewest) return say("its inboxes exceed the heap set aside for them"), p;
  // As many blocks as can be resident, a row each at least on the PE with the fewest: fewer rows a
  // block shorten the step (jacobi2d 256^2 on one H200: 2.43 us at 4 rows a block, 2.02 at 2).
  const int blocks = static_cast<int>(std::min<long long>({resident, size.min_rows, heap_blocks}));
  p.on = true;
  p.blocks = blocks;
  p.smem = smem;
  if (mode == 1) {
    std::fprintf(stderr,
                 "stencilc: %s: the register-resident form runs: %d blocks a PE of %d threads, %d rows x %d columns a thread "
                 "at most\n",
                 program, blocks, threads, rt::cuda::kRegsRows, rt::cuda::kRegsVec);
  }
  return p;
}

/// The plan of a program whose time loop has a dataflow form (the p2p launcher): `p`'s process
/// grid, the one with the least halo traffic, unless it cuts more than dimension 0 while the form
/// would run on the grid that cuts dimension 0 only (STENCILC_DATAFLOW=1, or the cost model on
/// that grid's size): then that grid, which the form needs (flow_plan). Where the form pays, the
/// halo it adds costs little next to the barriers it saves: jacobi2d 256^2 on 4 GPUs ran the
/// barrier form on 2 x 2 at 12.7 us a step, where 2 GPUs run the form at 3.9. Not
/// where STENCILC_DECOMP or --stencilc-decomp forces a grid.
template <int N>
Plan<N> flow_grid(const Plan<N>& p, int radius, int block_threads) {
  const int mode = flow_mode();
  if (mode == 0 || !configured_decomp().empty()) return p;
  if (p.grid.dims[1] == 1 && p.grid.dims[2] == 1) return p;
  const std::optional<rt::ProcessGrid> rows = rows_grid(p);
  if (!rows) return p;  // too few rows for that many PEs
  Plan<N> q = p;
  q.grid = *rows;
  return mode == 1 || flow_pays(flow_size(q, radius, block_threads)) ? q : p;
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
