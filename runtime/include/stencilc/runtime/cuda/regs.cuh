// The register-resident form of a 2-D time loop (docs/STATUS.md, "The register-resident form";
// measured by hand in bench/experiments/perks.cu): every block keeps its band of a PE's rows of
// the updated grid in registers for the whole loop, so a step reads and writes no global memory
// but the rows its neighbours need.
//
// The loop it runs: `steps` times, b(i, j) = update(a around (i, j)) on the update's box, then
// swap(a, b); the update reads a within one cell along both dimensions (a 5- or 9-point stencil),
// and anything it likes that the loop does not write (scalars, read-only grids). Dimension 0 is
// cut among the PEs (an N x 1 process grid) and among each PE's blocks, dimension 1 is held whole
// by each block: thread t holds columns [t VEC, t VEC + VEC) of every row of its band (RMAX rows
// at most), in v[RMAX][VEC].
//
// Per step (t counts from 1):
//   1. the block pushes its band's first row into the inbox of the block above (on the PE above
//      at the PE's first block: peer memory, or itself on one periodic PE) and its last row into
//      the inbox of the block below, into the buffer of step parity t & 1, and writes its
//      threads' first and last columns to shared memory;
//   2. thread 0 releases the two neighbours' flags with t (signal_set: after __syncthreads, a
//      cumulative release of the block's stores) and waits for its own two flags to reach t
//      (bounded: a stalled neighbour is reported and stops the run);
//   3. the update, row by row, from the registers, the inbox rows past the band (or the grid's
//      fixed rows at a domain edge that is not periodic), the side columns in shared memory (or
//      the grid's halo columns at the columns' ends).
// Two inbox buffers by parity order both RAW and WAR: a block overwrites a neighbour's buffer of
// parity p at step t + 2 only after that neighbour's flag of step t + 1 reached it, which the
// neighbour releases after it read the buffer of step t.
// After the loop the block writes the update's cells of its band back: the last step's values
// into the grid that holds them after the swaps, the values before the last step into the other
// one (where the serial program leaves them).
//
// The contract (what the launcher must establish before choosing the form): the cells the update
// does not write (fixed boundaries, halo cells) hold the same values in a and b, since the band
// holds one copy of them for both grids; regs_loop checks the ones it reads and stops the run with
// a message where they differ. And the halo rows at a cut are read from the inboxes only: the
// grids' halos need no exchange.
#pragma once

#include <cstddef>
#include <cstdint>

#include "stencilc/runtime/cuda/dblock.cuh"

namespace stencilc::rt::cuda {

constexpr int kRegsFlagStride = 16;  // u64 words between two flags: one 128-byte line each

// The inboxes of one PE (symmetric memory, allocated by the launcher: regs_inbox_elements and
// regs_flag_words of them, zero-filled) and the shape of the loop on it.
template <class T>
struct RegsArgs {
  T* inbox = nullptr;            // [block][parity][side][pitch]; side 0: from above, 1: from below
  std::uint64_t* flags = nullptr;  // [block][side][kRegsFlagStride]: the last step whose row is in
  int pitch = 0;                 // an inbox row's elements (the columns, rounded up to 16 bytes)
  int blocks = 0;                // blocks a PE (every PE the same)
  int up = -1, down = -1;        // the PEs above and below (-1: none, the domain's fixed edge)
  int row_lo = 0, row_hi = 0;    // the rows (local) the update writes
  int col_lo = 0, col_hi = 0;    // the columns it writes
};

__host__ __device__ inline int regs_pitch(int cols, int element_bytes) {
  const int per16 = 16 / element_bytes > 0 ? 16 / element_bytes : 1;
  return (cols + per16 - 1) / per16 * per16;
}
__host__ __device__ inline std::size_t regs_inbox_elements(int blocks, int pitch) {
  return static_cast<std::size_t>(blocks) * 4 * static_cast<std::size_t>(pitch);
}
__host__ __device__ inline std::size_t regs_flag_words(int blocks) {
  return static_cast<std::size_t>(blocks) * 2 * kRegsFlagStride;
}

// PE `pe`'s arguments (host side): its inboxes and flags (symmetric, this PE's copies), `blocks`
// blocks, its grid block `blk` (an N x 1 process grid of `n` PEs, dimension 0 periodic or not),
// and the update's box in global indices [lo0, hi0) x [lo1, hi1).
template <class T>
RegsArgs<T> regs_args(T* inbox, std::uint64_t* flags, int pe, int n, int blocks, const DBlock<T, 2>& blk, bool periodic,
                      int lo0, int hi0, int lo1, int hi1) {
  RegsArgs<T> r;
  r.inbox = inbox;
  r.flags = flags;
  r.pitch = regs_pitch(blk.extent[1], static_cast<int>(sizeof(T)));
  r.blocks = blocks;
  r.up = pe > 0 ? pe - 1 : (periodic ? n - 1 : -1);
  r.down = pe < n - 1 ? pe + 1 : (periodic ? 0 : -1);
  auto local = [&](int g) { return g - blk.origin[0] < 0 ? 0 : (g - blk.origin[0] > blk.extent[0] ? blk.extent[0] : g - blk.origin[0]); };
  r.row_lo = local(lo0);
  r.row_hi = local(hi0);
  r.col_lo = lo1;
  r.col_hi = hi1;
  return r;
}

// Block g's band of `rows` rows on `blocks` blocks: [r0, r1).
__host__ __device__ inline void regs_band(int rows, int blocks, int g, int& r0, int& r1) {
  r0 = static_cast<int>(static_cast<long long>(rows) * g / blocks);
  r1 = static_cast<int>(static_cast<long long>(rows) * (g + 1) / blocks);
}

// Whether the form holds `rows` rows of `cols` columns on `blocks` blocks of `threads` threads.
__host__ __device__ inline bool regs_fits(int rows, int cols, int blocks, int threads, int vec, int rmax) {
  return blocks >= 1 && rows >= blocks && (rows + blocks - 1) / blocks <= rmax &&
         static_cast<long long>(threads) * vec >= cols;
}

// The dynamic shared memory the loop needs: the side columns, two parities.
template <class T>
__host__ __device__ constexpr std::size_t regs_smem_bytes(int rmax, int threads) {
  return sizeof(T) * 2 * static_cast<std::size_t>(rmax) * 2 * static_cast<std::size_t>(threads);
}

#if defined(__CUDACC__)

// Runs the loop on this block (every thread of every block of the PE calls it; the kernel's
// dynamic shared memory is `smem`, regs_smem_bytes<T>(RMAX, blockDim.x) bytes). `a` and `b`:
// the loop's two grids as the loop starts (a read, b written by the first step); after it,
// the grid names follow `steps` swaps (the caller swaps its DBlocks). `update(w, c, i, j)`
// returns b at local (i, j) from w, rows i - 1, i, i + 1 of a at columns [c0 - 1, c0 + VEC] of
// the thread (w[k][c + 1] is a(i - 1 + k, c0 + c), c the thread's column 0..VEC-1).
template <int VEC, int RMAX, class T, class Pe, class Update>
__device__ void regs_loop(const Pe& pe, const RegsArgs<T>& args, const DBlock<T, 2>& a, const DBlock<T, 2>& b, int steps,
                          unsigned char* smem, const Update& update, const char* what) {
  const int B = args.blocks, g = static_cast<int>(blockIdx.x), t = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x), rows = a.extent[0], cols = a.extent[1];
  if (static_cast<int>(gridDim.x) != B || !regs_fits(rows, cols, B, threads, VEC, RMAX)) {
    if (t == 0) {
      pe.fatal_with([&](detail::Message& m) {
        m.str(what).str(": the register-resident form cannot hold ").num(rows).str(" x ").num(cols)
            .str(" cells on ").num(gridDim.x).str(" blocks (planned ").num(B).str(") of ").num(threads)
            .str(" threads, ").num(RMAX).str(" rows a block and ").num(VEC).str(" columns a thread at most");
      });  // traps
    }
    __syncthreads();  // the others wait here for thread 0's record and trap
    __trap();
  }
  int r0 = 0, r1 = 0;
  regs_band(rows, B, g, r0, r1);
  const int R = r1 - r0, c0 = t * VEC;
  const bool partial = c0 + VEC > cols;  // a thread whose columns end past the grid's
  T* const side = reinterpret_cast<T*>(smem);  // [parity][RMAX][2][threads]

  // Neighbour blocks: the one above (its "from below" inbox side) and below ("from above").
  int up_pe = pe.id, up_g = g - 1, dn_pe = pe.id, dn_g = g + 1;
  if (g == 0) up_pe = args.up, up_g = B - 1;
  if (g == B - 1) dn_pe = args.down, dn_g = 0;
  const bool has_up = up_pe >= 0, has_dn = dn_pe >= 0;
  T* const up_rows = has_up ? pe.remote(args.inbox, up_pe) + static_cast<long>(up_g) * 4 * args.pitch : nullptr;
  T* const dn_rows = has_dn ? pe.remote(args.inbox, dn_pe) + static_cast<long>(dn_g) * 4 * args.pitch : nullptr;
  std::uint64_t* const up_flag = has_up ? args.flags + (up_g * 2 + 1) * kRegsFlagStride : nullptr;  // symmetric, on up_pe
  std::uint64_t* const dn_flag = has_dn ? args.flags + (dn_g * 2 + 0) * kRegsFlagStride : nullptr;
  const T* const my_rows = args.inbox + static_cast<long>(g) * 4 * args.pitch;
  const std::uint64_t* const my_flags = args.flags + g * 2 * kRegsFlagStride;

  // The band, and what never changes around it: the grid's rows past a fixed edge, and its
  // columns -1 and cols (halo cells, or unread) of the band's rows and the two rows past it.
  T v[RMAX][VEC];
#pragma unroll
  for (int r = 0; r < RMAX; ++r) {
#pragma unroll
    for (int c = 0; c < VEC; ++c) v[r][c] = r < R && c0 + c < cols ? a(r0 + r, c0 + c) : T(0);
  }
  // Cell (i, j): in the grids' allocation (halos included); written by the update; a fixed cell's
  // value (the grid's, the same in a and b; 0 outside the allocation, never read by the update).
  auto allocated = [&](int i, int j) {
    return i >= -a.halo_lo[0] && i < rows + a.halo_hi[0] && j >= -a.halo_lo[1] && j < cols + a.halo_hi[1];
  };
  auto updated = [&](int i, int j) { return i >= args.row_lo && i < args.row_hi && j >= args.col_lo && j < args.col_hi; };
  auto fixed = [&](int i, int j) { return allocated(i, j) ? a(i, j) : T(0); };
  {  // The contract: the fixed cells this block reads are the same in a and b.
    bool differ = false;
    for (int r = -1; r <= R; ++r) {
      const int i = r0 + r;
      if ((r == -1 && has_up) || (r == R && has_dn)) continue;  // another block's row (from the inbox)
      for (int j = c0 - 1; j <= c0 + VEC && j <= cols; ++j) {
        if (!allocated(i, j) || updated(i, j)) continue;
        const T x = a(i, j), y = b(i, j);
        differ = differ || !(x == y || (x != x && y != y));
      }
    }
    if (__syncthreads_or(differ)) {
      if (t == 0) {
        pe.fatal_with([&](detail::Message& m) {
          m.str(what).str(": the register-resident form needs the cells the update does not write to be the same in both "
                          "grids, and in block ")
              .num(g).str("'s rows they differ");
        });  // traps
      }
      __syncthreads();  // the others wait here for thread 0's record and trap
      __trap();
    }
  }

  // The update's cells of the band into `grid` (no other block reads them there during the loop).
  auto store_band = [&](const DBlock<T, 2>& grid) {
#pragma unroll
    for (int r = 0; r < RMAX; ++r) {
#pragma unroll
      for (int c = 0; c < VEC; ++c)
        if (r < R && updated(r0 + r, c0 + c)) grid(r0 + r, c0 + c) = v[r][c];
    }
  };

  for (int step = 1; step <= steps; ++step) {
    const int par = step & 1;
    // The values before the last step, where the serial program leaves them: the grid the last
    // step reads (a when the steps are odd).
    if (step == steps) store_band((steps & 1) ? a : b);
    // 1. The edge rows to the neighbours, the side columns to shared memory.
    if (c0 < cols) {
#pragma unroll
      for (int c = 0; c < VEC; ++c) {
        if (c0 + c < cols) {
          if (has_up) up_rows[(par * 2 + 1) * args.pitch + c0 + c] = v[0][c];
        }
      }
#pragma unroll
      for (int r = 0; r < RMAX; ++r) {
        if (r == R - 1 && has_dn) {
#pragma unroll
          for (int c = 0; c < VEC; ++c)
            if (c0 + c < cols) dn_rows[(par * 2 + 0) * args.pitch + c0 + c] = v[r][c];
        }
      }
    }
    T* const sp = side + par * RMAX * 2 * threads;
#pragma unroll
    for (int r = 0; r < RMAX; ++r) {
      sp[(r * 2 + 0) * threads + t] = v[r][0];
      sp[(r * 2 + 1) * threads + t] = v[r][VEC - 1];
    }
    // 2. The flags.
    __syncthreads();
    if (t == 0) {
      const std::uint64_t want = static_cast<std::uint64_t>(step);
      // A neighbour on this PE (this GPU) takes a GPU-scope release and acquire, one on another
      // PE the team's system-scope signal; a short spin first, then the team's bounded wait.
      auto release = [&](std::uint64_t* flag, int peer) {
        if (peer == pe.id) {
          asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(flag), "l"(want) : "memory");
        } else {
          pe.signal_set(flag, want, peer);
        }
      };
      if (has_up) release(up_flag, up_pe);
      if (has_dn) release(dn_flag, dn_pe);
      for (int s = 0; s < 2; ++s) {
        if (!(s == 0 ? has_up : has_dn)) continue;
        const std::uint64_t* flag = my_flags + s * kRegsFlagStride;
        const bool local = (s == 0 ? up_pe : dn_pe) == pe.id;
        std::uint64_t seen = 0;
        for (int spin = 0; spin < 4096; ++spin) {
          if (local) {
            asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(seen) : "l"(flag) : "memory");
          } else {
            asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(seen) : "l"(flag) : "memory");
          }
          if (seen >= want) break;
        }
        if (seen >= want) continue;
        pe.wait_with(flag, Cmp::GE, want, [&](detail::Message& m) {
          m.str(what).str(": register-resident step ").num(step).str(": block ").num(g).str(" waits for the row from ")
              .str(s == 0 ? "above (PE " : "below (PE ").num(s == 0 ? up_pe : dn_pe).str(", block ")
              .num(s == 0 ? up_g : dn_g).str(")");
        });
      }
    }
    __syncthreads();
    // 3. The update, row by row: w holds rows r - 1, r, r + 1 with a column each side.
    if (c0 < cols) {
      T w[3][VEC + 2];
      auto outer_row = [&](T (&row)[VEC + 2], int side_i, int i) {  // row i past the band
        const bool pushed = side_i == 0 ? has_up : has_dn;
        if (pushed) {
          const T* src = my_rows + (par * 2 + side_i) * args.pitch;
#pragma unroll
          for (int c = 0; c < VEC + 2; ++c) {
            const int j = c0 + c - 1;
            row[c] = j >= 0 && j < cols ? __ldcg(src + j) : fixed(i, j);
          }
        } else {
#pragma unroll
          for (int c = 0; c < VEC + 2; ++c) row[c] = fixed(i, c0 + c - 1);
        }
      };
      auto band_row = [&](T (&row)[VEC + 2], int r) {  // band row r from registers and the sides
        row[0] = t > 0 ? sp[(r * 2 + 1) * threads + t - 1] : fixed(r0 + r, -1);
        if (!partial) {
#pragma unroll
          for (int c = 0; c < VEC; ++c) row[c + 1] = v[r][c];
          row[VEC + 1] = c0 + VEC < cols ? sp[(r * 2 + 0) * threads + t + 1] : fixed(r0 + r, cols);
        } else {  // the thread holding the last columns: column `cols` (a halo cell) falls inside
#pragma unroll
          for (int c = 0; c <= VEC; ++c) {
            const int j = c0 + c;
            row[c + 1] = j < cols ? v[r][c < VEC ? c : VEC - 1] : fixed(r0 + r, j);
          }
        }
      };
      outer_row(w[0], 0, r0 - 1);
      band_row(w[1], 0);
#pragma unroll
      for (int r = 0; r < RMAX; ++r) {
        if (r < R) {
          if (r + 1 < R) {
            band_row(w[2], r + 1 < RMAX ? r + 1 : r);
          } else {
            outer_row(w[2], 1, r1);
          }
          const int i = r0 + r;
          T nv[VEC];
#pragma unroll
          for (int c = 0; c < VEC; ++c) nv[c] = updated(i, c0 + c) ? update(w, c, i, c0 + c) : w[1][c + 1];
#pragma unroll
          for (int c = 0; c < VEC; ++c) v[r][c] = nv[c];
#pragma unroll
          for (int k = 0; k < 2; ++k) {
#pragma unroll
            for (int c = 0; c < VEC + 2; ++c) w[k][c] = w[k + 1][c];
          }
        }
      }
    }
  }
  // The last step wrote b when the steps are odd (the first step writes b, the swaps alternate),
  // a when they are even.
  if (steps > 0) store_band((steps & 1) ? b : a);
}

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
