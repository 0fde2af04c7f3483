// The row pipe: the barrier form's inner part of a 2-D point update, streamed through shared
// memory (docs/RUNTIME-CUDA.md, "The row pipe"; measured first in bench/experiments/rowpipe.cu,
// docs/BENCHMARKS.md session 16).
//
// The wide strips (generated.cuh, the emitter's wide_points) keep a point's loads in registers,
// so the bytes a SM has in flight are bounded by its threads' registers: at the persistent
// kernel's 2 blocks of 256 threads a SM they streamed jacobi2d at 74-78% of the copy bandwidth.
// Here a block takes a tile of the chunk, kPipeCols(V) columns (V cells a thread) by a band of
// rows, and walks it row by row; the rows its reads need (the band and `r0` rows either side, the
// tile's columns and up to V cells either side) go into a ring of shared-memory row slots with
// cp.async, kPipeAhead rows ahead of the row computed, without holding registers. A row's points
// then read the ring (a thread's V adjacent cells: per row its reads use, one 16-byte ld.shared,
// or the register of the row before where it read that row (STENCILC_PIPE_REUSE), and the side
// cells from the next lane (pipe_side)) and store 16 bytes at once. The blocks claim the tiles
// one at a time (PipeWork).
// rowpipe.cu: 90% of the copy bandwidth at 16384^2 on one H200 against the wide strips' 74%.
//
// Ring layout, per grid the body reads: R = 2 r0 + 1 + kPipeAhead slots of pipe_slot_cells(V)
// cells; the slot of the tile's loaded row q (global row i0 - r0 + q) is q % R, and its cell k is
// column x0 - V + k of that row (x0: the tile's first column, a multiple of V, so every 16-byte
// chunk is aligned in both places, as DBlock lays rows out: dblock.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "stencilc/runtime/cuda/common.cuh"

// 1: the barrier form's inner part of a 2-D point update whose grids allow wide strips runs as
// the row pipe where its chunk is large enough (pipe_tiles) and the launcher gave the kernel its
// rings (compiled::pipe_bytes; STENCILC_PIPE=0 in the environment turns it off for a run).
// Off by default: verified on 1 and 2 GPUs; measured (session 17, nvidia-h200-x2, same-run, us a
// step, strips -> pipe) at 84-86% of the copy bandwidth on jacobi2d 16384^2 (705.8 -> 588.2),
// 16384 x 8192 and 12288 x 16384 on 1 GPU, but slower at 8192 x 16384 (358.5 -> 388.9: the 2-GPU
// halves of 16384^2), 4096^2 (47.8 -> 56.5) and wave2d 8192^2 (322.6 -> 468.8). Session 18:
// that shape moves the same DRAM bytes as 16384 x 8192 at a lower rate (58% against 65% of DRAM
// peak), whatever the grids' placement: docs/BENCHMARKS.md, session 18, item 2.
#ifndef STENCILC_ROW_PIPE
#define STENCILC_ROW_PIPE 0
#endif
// Rows of a tile in flight ahead of the row computed (cp.async groups). rowpipe.cu on H200: 5
// (a ring of 8 slots at radius 1) beat 3 and 9 at every size.
#ifndef STENCILC_PIPE_AHEAD
#define STENCILC_PIPE_AHEAD 5
#endif
// The fewest rows a tile's band may have: thinner bands read their 2 r0 extra rows too often and
// pay a __syncthreads a row for little work (rowpipe.cu: 16-row bands lost to the wide strips,
// 63-row bands won).
#ifndef STENCILC_PIPE_MIN_ROWS
#define STENCILC_PIPE_MIN_ROWS 24
#endif
// Tiles a block takes in a step, on average: a chunk's bands are cut this much thinner than a
// tile a block (never below STENCILC_PIPE_MIN_ROWS rows), and the blocks claim them one at a time
// (PipeWork), so a block the memory system serves faster takes more of them. With a tile a block
// (session 16) the step waited on the slowest block: Nsight Compute on jacobi2d 8192x16384 (one
// H200, session 17) had 31% of the warps' cycles at the step's barrier.
#ifndef STENCILC_PIPE_TILES
#define STENCILC_PIPE_TILES 8
#endif
// The order the blocks claim a chunk's tiles in: 0, band by band (a band's column tiles side by
// side: the blocks in flight read a few whole rows' worth of bytes at a time); 1, column tile by
// column tile (down a column of tiles first: the blocks in flight spread over the chunk's rows).
// Session 18's question (docs/BENCHMARKS.md, session 18, item 2): jacobi2d's 8192 x 16384 moves
// the same DRAM bytes as 16384 x 8192 at 58% of the DRAM's peak against 65%. Measured in session
// 19 (one H200, same run, us a step, band / down): 8192 x 16384 391.12 / 411.71, 16384 x 8192
// 301.08 / 321.84, 16384^2 588.37 / 624.75: down the columns is 5-7% slower everywhere, so 0.
#ifndef STENCILC_PIPE_ORDER
#define STENCILC_PIPE_ORDER 0
#endif
// 1: a row's vector of a grid's row that the row before read one row further on comes from that
// row's register instead of the ring (the emitter's pipe_carries: jacobi2d loads 1 of its 3 rows a
// row, wave2d's u 1 of 5), as rowpipe.cu keeps its rows. Session 17; verified on 1 and 2 GPUs
// in session 18 (with STENCILC_PIPE_SHUFFLE) and no faster: within 2% both ways, 4% slower on
// jacobi2d 16384^2 on 1 GPU (586 -> 611 us a step; docs/BENCHMARKS.md, session 18, item 1). So
// 0, session 17's form (verified on 1 and 2 GPUs in session 17, again on 1 GPU in session 19).
#ifndef STENCILC_PIPE_REUSE
#define STENCILC_PIPE_REUSE 0
#endif
// 1: a row's side cells (the cells past a thread's V that its reads reach) come from the next
// lane's vector by a warp shuffle (pipe_side), the warp's first or last lane reading the ring,
// instead of every thread's scalar shared loads (4 threads a bank: Nsight Compute counted 4-way
// conflicts on 30% of jacobi2d's shared-load wavefronts). Session 17; verified and measured
// with STENCILC_PIPE_REUSE (session 18: shared-memory traffic is not what limits the pipe), and
// off with it (0).
#ifndef STENCILC_PIPE_SHUFFLE
#define STENCILC_PIPE_SHUFFLE 0
#endif
// 1: no row pipe for rows narrower than half a tile (most of the tile's threads would idle). The
// GPU tests set it to 0, and STENCILC_PIPE_MIN_ROWS to 1, so their small grids take the pipe.
#ifndef STENCILC_PIPE_NARROW
#define STENCILC_PIPE_NARROW 1
#endif

namespace stencilc::rt::cuda {

constexpr int kPipeAhead = STENCILC_PIPE_AHEAD;
static_assert(kPipeAhead >= 1, "at least one row in flight");

/// The cells of one ring slot of V-cell chunks: a tile row of V cells a thread and one chunk
/// either side.
__host__ __device__ constexpr int pipe_slot_cells(int v, int block_threads) { return v * (block_threads + 2); }
template <int V>
__host__ __device__ constexpr int pipe_slot_cells(int block_threads) {
  return pipe_slot_cells(V, block_threads);
}

/// Rows in flight ahead of the row computed for a pipe reading `grids` grids: kPipeAhead for one,
/// fewer for more (their rows are in flight together), two at least.
__host__ __device__ constexpr int pipe_ahead(int grids) {
  const int shared = (kPipeAhead + grids - 1) / grids;
  return shared > 2 ? shared : 2;
}

/// The bytes of a pipe's rings: `grids` grids of element `bytes` bytes, `fixed` slots besides
/// each ring's pipe_ahead(grids) (the emitter's: R0 + r0_g + 1 per grid).
__host__ __device__ constexpr std::size_t pipe_ring_bytes(int grids, int fixed, int bytes, int block_threads) {
  return static_cast<std::size_t>(fixed + grids * pipe_ahead(grids)) *
         static_cast<std::size_t>(pipe_slot_cells(16 / bytes, block_threads)) * static_cast<std::size_t>(bytes);
}

/// The most of some ring sizes (a kernel's row pipes share its dynamic shared memory).
constexpr std::size_t pipe_most(std::initializer_list<std::size_t> bytes) {
  std::size_t most = 0;
  for (std::size_t b : bytes) most = b > most ? b : most;
  return most;
}

/// A chunk's tiles: `across` tiles of `cols` (V * block threads) columns along a row, `count /
/// across` bands of `band` rows; tile t is band t / across, column tile t % across, or with
/// `down` (STENCILC_PIPE_ORDER=1) band t % bands, column tile t / bands (the blocks claim them in
/// the order of t: PipeWork). count == 0: the pipe does not pay here.
struct PipeTiles {
  int c0 = 0, n0 = 0;   // the chunk's rows [c0, c0 + n0)
  int x_first = 0;      // the first tile's first column (lo rounded down to V)
  int cols = 0;         // a tile's columns
  int across = 0, band = 0, count = 0;
  bool down = false;    // the claim order: down a column of tiles first

  __host__ __device__ void tile(int t, int* i0, int* i1, int* x0) const {
    int by = 0, bx = 0;
    if (down) {
      const int bands = count / across;
      bx = t / bands;
      by = t - bx * bands;
    } else {
      by = t / across;
      bx = t - by * across;
    }
    *i0 = c0 + by * band;
    *i1 = *i0 + band < c0 + n0 ? *i0 + band : c0 + n0;
    *x0 = x_first + bx * cols;
  }
};

/// `x` rounded down to a multiple of V (negative too).
template <int V>
__host__ __device__ constexpr int pipe_round_down(int x) {
  return x >= 0 ? x / V * V : -((-x + V - 1) / V) * V;
}

/// The tiles of rows [c0, c0 + n0) x columns [lo1, hi1) for `blocks` blocks of `block_threads`
/// threads: STENCILC_PIPE_TILES tiles a block, in bands of at least STENCILC_PIPE_MIN_ROWS rows;
/// none (count 0) where even a tile a block would make bands thinner than that, or a row is
/// narrower than half a tile: the wide strips do better there.
template <int V>
__host__ __device__ inline PipeTiles pipe_tiles(int c0, int n0, int lo1, int hi1, int blocks, int block_threads) {
  PipeTiles p;
  p.c0 = c0;
  p.n0 = n0;
  p.cols = V * block_threads;
  p.x_first = pipe_round_down<V>(lo1);
  // (whole warps: pipe_side's shuffles take every lane)
  if (n0 <= 0 || hi1 <= lo1 || block_threads % 32 != 0 || (STENCILC_PIPE_NARROW && 2 * (hi1 - lo1) < p.cols)) return p;
  p.across = (hi1 - p.x_first + p.cols - 1) / p.cols;
  int bands = blocks / p.across;
  if (bands < 1) bands = 1;
  if (bands > n0) bands = n0;
  if ((n0 + bands - 1) / bands < STENCILC_PIPE_MIN_ROWS) return p;
  bands = bands * STENCILC_PIPE_TILES < n0 ? bands * STENCILC_PIPE_TILES : n0;
  p.band = (n0 + bands - 1) / bands;
  if (p.band < STENCILC_PIPE_MIN_ROWS) p.band = STENCILC_PIPE_MIN_ROWS;
  p.count = p.across * ((n0 + p.band - 1) / p.band);
  p.down = STENCILC_PIPE_ORDER != 0;
  return p;
}

/// The 16-byte chunks of a row a tile reads: those that hold columns [max(x0, lo1) - r1,
/// min(x0 + cols, hi1) + r1) (r1 <= V: the reads' reach along the row), `first` the first one's
/// column and `at` its cell in a slot (whose cell 0 is column x0 - V). Set up once a tile.
struct PipeSpan {
  int first = 0, chunks = 0, at = 0;
};
template <int V>
__host__ __device__ inline PipeSpan pipe_span(int x0, int cols, int lo1, int hi1, int r1) {
  PipeSpan s;
  const int from = (x0 > lo1 ? x0 : lo1) - r1, to = (x0 + cols < hi1 ? x0 + cols : hi1) + r1;
  s.first = pipe_round_down<V>(from);
  s.chunks = (to - s.first + V - 1) / V;
  s.at = s.first - x0 + V;
  return s;
}

/// A row pipe site's tiles, claimed by the blocks of its group one at a time from the site's
/// ticket counter (KernelArgs::sc_pipe_work, zero at launch): tickets run on over the site's runs,
/// run k's tiles being tickets [base_k, base_k + count_k). A block claims until it draws a ticket
/// past its run; that ticket is a tile of a later run (every ticket before it was drawn, those of
/// this run included), which the block keeps for it: no ticket is lost, none is drawn twice, and
/// no run waits for the blocks still in an earlier one. Every thread keeps the same copy.
constexpr unsigned long long kPipeNoTicket = ~0ULL;
struct PipeWork {
  unsigned long long base = 0;              // the tickets of the site's earlier runs
  unsigned long long held = kPipeNoTicket;  // the block's ticket not yet used, if any
};

#if defined(__CUDACC__)
/// Block-collective, at the start of a run: the block's first ticket, the one it holds or (the
/// first run) a new one that thread 0 claims and `mailbox` (a __shared__ word) hands round.
__device__ inline unsigned long long pipe_first(PipeWork& w, unsigned long long* tickets, unsigned long long& mailbox) {
  if (w.held == kPipeNoTicket) {
    if (threadIdx.x == 0) mailbox = atomicAdd(tickets, 1ULL);
    __syncthreads();
    w.held = mailbox;
    __syncthreads();  // read before thread 0 writes it again
  }
  return w.held;
}

/// Thread 0's claim of the block's next ticket (0 on the other threads), made when a tile starts
/// so that it is back before the tile ends.
__device__ __forceinline__ unsigned long long pipe_claim(unsigned long long* tickets) {
  return threadIdx.x == 0 ? atomicAdd(tickets, 1ULL) : 0ULL;
}

/// Block-collective, at the end of a tile: thread 0's claim `next` to every thread (the
/// __syncthreads also frees the ring slots the tile read for the next tile's copies).
__device__ __forceinline__ unsigned long long pipe_pass(unsigned long long next, unsigned long long& mailbox) {
  if (threadIdx.x == 0) mailbox = next;
  __syncthreads();
  return mailbox;
}

/// The end of a run of `count` tiles: `ticket`, the one past it, is kept for a later run.
__device__ __forceinline__ void pipe_done(PipeWork& w, unsigned long long ticket, int count) {
  w.held = ticket;
  w.base += static_cast<unsigned long long>(count);
}

__device__ __forceinline__ unsigned pipe_smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Starts the copy of one row of a tile into its slot, a chunk a thread: `row` is the row's local
/// column 0, `slot` the slot's cell 0.
template <int V, class T>
__device__ __forceinline__ void pipe_row(T* slot, const T* row, const PipeSpan& span) {
  static_assert(V * sizeof(T) == 16, "a chunk is 16 bytes");
  for (int k = static_cast<int>(threadIdx.x); k < span.chunks; k += static_cast<int>(blockDim.x)) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(pipe_smem_address(slot + span.at + k * V)),
                 "l"(row + span.first + k * V)
                 : "memory");
  }
}

/// Side cell `Pos` of this thread's row vector `mine` (V cells from its cell 0; Pos in [-V, 0) or
/// [V, 2V)) whose cell 0 is `at` in a ring slot: with STENCILC_PIPE_SHUFFLE the neighbouring
/// lane's cell (a thread's V cells follow the previous lane's in the slot), the warp's first (last)
/// lane reading its left (right) cells from the ring; every lane of every warp calls it.
template <int Pos, class VecT, class T>
__device__ __forceinline__ T pipe_side(const VecT& mine, const T* at) {
  constexpr int V = static_cast<int>(sizeof(VecT) / sizeof(T));
  static_assert((Pos >= -V && Pos < 0) || (Pos >= V && Pos < 2 * V), "a side cell within one vector of the thread's");
#if STENCILC_PIPE_SHUFFLE
  const unsigned lane = threadIdx.x % 32u;
  if constexpr (Pos < 0) {
    const T left = __shfl_up_sync(0xffffffffu, mine.v[V + Pos], 1);
    return lane == 0 ? at[Pos] : left;
  } else {
    const T right = __shfl_down_sync(0xffffffffu, mine.v[Pos - V], 1);
    return lane == 31 ? at[Pos] : right;
  }
#else
  return at[Pos];
#endif
}

/// Closes this thread's copies started since the last commit into one group (an empty group
/// where it started none, so every thread counts the same groups).
__device__ __forceinline__ void pipe_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most `Pending` of this thread's newest groups are still in flight.
template <int Pending>
__device__ __forceinline__ void pipe_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}
#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
