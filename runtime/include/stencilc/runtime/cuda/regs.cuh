// The register-resident form of a 2-D time loop (docs/SCHEDULES.md, "The register-resident
// form"): every block keeps its band of a PE's rows of
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
//      the inbox of the block below, into the buffer of step parity t & 1 (with the row's fixed
//      cells left and right of the columns, at the row's end), and writes its threads' first and
//      last columns to shared memory;
//   2. thread 0 releases the two neighbours' flags with t (signal_set: after __syncthreads, a
//      cumulative release of the block's stores) and waits for its own two flags to reach t
//      (bounded: a stalled neighbour is reported and stops the run);
//   3. the update, row by row, from the registers, the inbox rows past the band (or the grid's
//      fixed rows at a domain edge that is not periodic), the side columns in shared memory (the
//      grid's cells left and right of the columns in two more slots there, set once).
// The hot path is straight-line code (a block of fewer than RMAX rows leaves it after them), and a
// thread whose cells are all updated takes a copy of the update without the box's checks.
// Two inbox buffers by parity order both RAW and WAR: a block overwrites a neighbour's buffer of
// parity p at step t + 2 only after that neighbour's flag of step t + 1 reached it, which the
// neighbour releases after it read the buffer of step t.
// After the loop the block writes the update's cells of its band back: the last step's values
// into the grid that holds them after the swaps, the values before the last step into the other
// one (where the serial program leaves them).
//
// The contract: the cells the update does not write (fixed boundaries, halo cells) hold the same
// values in a and b, since the band holds one copy of them for both grids. Each block checks the
// ones it reads (RegsBand::contract_holds: the generated kernel votes and runs the loop from
// global memory where it fails; regs_loop stops the run with a message). And the halo rows at a
// cut are read from the inboxes only: the grids' halos need no exchange.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/dblock.cuh"

namespace stencilc::rt::cuda {

constexpr int kRegsFlagStride = 16;  // u64 words between two flags: one 128-byte line each

// The inboxes of one PE (symmetric memory, allocated by the launcher: regs_inbox_elements and
// regs_flag_words of them, zero-filled) and the shape of the loop on it.
template <class T>
struct RegsArgs {
  T* inbox = nullptr;            // [block][parity][side][pitch]; side 0: from above, 1: from below
  std::uint64_t* flags = nullptr;  // [block][side][kRegsFlagStride]: the last step whose row is in
  int pitch = 0;                 // an inbox row's elements (regs_pitch)
  int blocks = 0;                // blocks a PE (every PE the same)
  int up = -1, down = -1;        // the PEs above and below (-1: none, the domain's fixed edge)
  int row_lo = 0, row_hi = 0;    // the rows (local) the update writes
  int col_lo = 0, col_hi = 0;    // the columns it writes
};

// An inbox row's elements: the columns rounded up to a whole number of threads' chunks (a thread
// stores its VEC values whole), the row's cells at columns -1 and cols (at pitch - 2 and
// pitch - 1), rounded up to 16 bytes (every row starts aligned for vector stores).
__host__ __device__ inline int regs_pitch(int cols, int vec, int element_bytes) {
  const int per16 = 16 / element_bytes > 0 ? 16 / element_bytes : 1;
  return ((cols + vec - 1) / vec * vec + 2 + per16 - 1) / per16 * per16;
}
__host__ __device__ inline std::size_t regs_inbox_elements(int blocks, int pitch) {
  return static_cast<std::size_t>(blocks) * 4 * static_cast<std::size_t>(pitch);
}
__host__ __device__ inline std::size_t regs_flag_words(int blocks) {
  return static_cast<std::size_t>(blocks) * 2 * kRegsFlagStride;
}

// PE `pe`'s arguments (host side) for a loop of VEC columns a thread: its inboxes and flags
// (symmetric, this PE's copies; rows of regs_pitch(cols, VEC, sizeof(T)) elements), `blocks`
// blocks, its grid block `blk` (an N x 1 process grid of `n` PEs, dimension 0 periodic or not),
// and the update's box in global indices [lo0, hi0) x [lo1, hi1).
template <int VEC, class T>
RegsArgs<T> regs_args(T* inbox, std::uint64_t* flags, int pe, int n, int blocks, const DBlock<T, 2>& blk, bool periodic,
                      int lo0, int hi0, int lo1, int hi1) {
  RegsArgs<T> r;
  r.inbox = inbox;
  r.flags = flags;
  r.pitch = regs_pitch(blk.extent[1], VEC, static_cast<int>(sizeof(T)));
  r.blocks = blocks;
  r.up = pe > 0 ? pe - 1 : (periodic ? n - 1 : -1);
  r.down = pe < n - 1 ? pe + 1 : (periodic ? 0 : -1);
  auto local = [&](int g) { return std::clamp(g - blk.origin[0], 0, blk.extent[0]); };  // a global row, local and clamped to the block
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

// The dynamic shared memory the loop needs: the side columns (two parities, a slot of 2 RMAX + 1
// values for every thread and two more, the grid's cells left and right of the columns; the odd
// slot puts a warp's accesses at one row in distinct banks), and the fixed rows above and below
// the band (where it has no neighbour there), a column past each end of the threads' columns.
template <class T>
__host__ __device__ constexpr std::size_t regs_smem_bytes(int rmax, int threads, int vec) {
  return sizeof(T) * (2 * (static_cast<std::size_t>(threads) + 2) * (2 * static_cast<std::size_t>(rmax) + 1) +
                      2 * (static_cast<std::size_t>(threads) * vec + 2));
}

#if defined(__CUDACC__)

namespace detail {

// A thread's VEC elements to and from an inbox row: 16-byte (or 8-byte) vectors where VEC
// elements make whole vectors (`p` then aligned: rows start on 16 bytes, chunks on VEC
// elements), elements otherwise. The loads bypass L1 (another SM wrote the row).
template <int VEC, class T, class Word>
struct RegsChunk {
  static constexpr int kPer = static_cast<int>(sizeof(Word) / sizeof(T));
  union Pack {
    Word word;
    T e[kPer];
  };
  __device__ static void store(T* p, const T (&x)[VEC]) {
#pragma unroll
    for (int k = 0; k < VEC / kPer; ++k) {
      Pack u;
#pragma unroll
      for (int e = 0; e < kPer; ++e) u.e[e] = x[k * kPer + e];
      reinterpret_cast<Word*>(p)[k] = u.word;
    }
  }
  template <int N>
  __device__ static void load(const T* p, T (&x)[N], int at) {
#pragma unroll
    for (int k = 0; k < VEC / kPer; ++k) {
      Pack u;
      u.word = __ldcg(reinterpret_cast<const Word*>(p) + k);
#pragma unroll
      for (int e = 0; e < kPer; ++e) x[at + k * kPer + e] = u.e[e];
    }
  }
};
// p ? x : y, opaque to the compiler's combining of selects into a run-time array index.
template <class T>
__device__ inline T regs_pick(bool p, T x, T y) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- or 64-bit elements");
  using Bits = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  Bits xi, yi, r;
  memcpy(&xi, &x, sizeof(T));
  memcpy(&yi, &y, sizeof(T));
  const unsigned q = p;
  if constexpr (sizeof(T) == 4) {
    asm("{ .reg .pred q; setp.ne.u32 q, %3, 0; selp.b32 %0, %1, %2, q; }" : "=r"(r) : "r"(xi), "r"(yi), "r"(q));
  } else {
    asm("{ .reg .pred q; setp.ne.u32 q, %3, 0; selp.b64 %0, %1, %2, q; }" : "=l"(r) : "l"(xi), "l"(yi), "r"(q));
  }
  T out;
  memcpy(&out, &r, sizeof(T));
  return out;
}

template <int VEC, class T>
using RegsVector = RegsChunk<VEC, T,
                             std::conditional_t<(VEC * sizeof(T)) % 16 == 0 && sizeof(T) <= 16, uint4,
                                                std::conditional_t<(VEC * sizeof(T)) % 8 == 0 && sizeof(T) <= 8, uint2, T>>>;

}  // namespace detail

// No reduction folded into the steps (RegsBand::step's `fold`).
struct RegsNoFold {
  template <class T, class Acc>
  __device__ void operator()(Acc&, T, T, int, int) const {}
};

// One block's band of the loop (every thread of every block of the PE makes one, with the same
// arguments; the kernel's dynamic shared memory is `smem`, regs_smem_bytes<T>(RMAX, blockDim.x,
// VEC) bytes, 16-byte aligned). `a` and `b`: the loop's two grids as it starts (a read, b written
// by the first step). The band's rows live in registers (every member function is inlined, and
// none takes the object's address).
//   RegsBand band(pe, args, a, b, smem, what);   the band from a, the fixed cells around it
//   band.contract_holds()                        whether this block's fixed cells agree in a and b
//   band.step(update, fold, acc, fold_on, in, last)   one step (`in`: the grid it reads)
//   band.finish(grid)                            the band into the grid the last step wrote
// `update(w, c, i, j)` returns the written grid at local (i, j) from w, rows i - 1, i, i + 1 of
// the read grid at columns [c0 - 1, c0 + VEC] of the thread (w[k][c + 1] is (i - 1 + k, c0 + c),
// c the thread's column 0..VEC-1). `fold(acc, new, old, i, j)`, where `fold_on`, adds a cell's
// value of a reduction over the update's cells to this thread's `acc` (new: the cell's value
// after the step, old: before).
template <int VEC, int RMAX, class T, class Pe>
class RegsBand {
  static_assert(VEC >= 1 && VEC <= 32 && RMAX >= 1, "1 to 32 columns a thread, a row a block at least");
  static constexpr int kSide = 2 * RMAX + 1;  // a thread's slot of side columns: 2 RMAX and one of padding
  static constexpr unsigned kAllColumns = VEC == 32 ? ~0u : (1u << VEC) - 1u;
  using Vector = detail::RegsVector<VEC, T>;

 public:
  __device__ __forceinline__ RegsBand(const Pe& pe, const RegsArgs<T>& args, const DBlock<T, 2>& a, const DBlock<T, 2>& b,
                                      unsigned char* smem, const char* what)
      : pe_(pe), what_(what) {
    const int B = args.blocks, threads = static_cast<int>(blockDim.x), rows = a.extent[0], cols = a.extent[1];
    g_ = static_cast<int>(blockIdx.x), t_ = static_cast<int>(threadIdx.x);
    if (static_cast<int>(gridDim.x) != B || !regs_fits(rows, cols, B, threads, VEC, RMAX) ||
        args.pitch < regs_pitch(cols, VEC, static_cast<int>(sizeof(T)))) {
      if (t_ == 0) {
        const int blocks = static_cast<int>(gridDim.x), b0 = B, pitch = args.pitch;
        pe.fatal_with([what, rows, cols, blocks, b0, threads, pitch](detail::Message& m) {
          m.str(what).str(": the register-resident form cannot hold ").num(rows).str(" x ").num(cols)
              .str(" cells on ").num(blocks).str(" blocks (planned ").num(b0).str(") of ").num(threads)
              .str(" threads, ").num(RMAX).str(" rows a block and ").num(VEC).str(" columns a thread at most, inbox rows of ")
              .num(pitch).str(" elements");
        });  // traps
      }
      __syncthreads();  // the others wait here for thread 0's record and trap
      __trap();
    }
    int r1 = 0;
    regs_band(rows, B, g_, r0_, r1);
    R_ = r1 - r0_;
    c0_ = t_ * VEC;
    last_ = (cols - 1) / VEC;  // the last thread holding columns
    active_ = c0_ < cols;
    pitch_ = args.pitch;
    // Shared memory: the side columns, side[parity][slot][kSide]: thread t's slot is t + 1 (row
    // r's first column at 2 r, its last at 2 r + 1), slot 0 holds the grid's column -1 (at 2 r +
    // 1) and slot last + 2 its column `cols` (at 2 r), set once: a thread reads its neighbours at
    // fixed offsets. Then the fixed rows above (s = 0) and below (1), frow[s][j + 1] for j in
    // [-1, threads * VEC].
    slots_ = threads + 2;
    side_ = reinterpret_cast<T*>(smem);
    frow_n_ = threads * VEC + 2;
    frow_ = side_ + 2 * slots_ * kSide;

    // Neighbour blocks: the one above (its "from below" inbox side) and below ("from above").
    up_pe_ = pe.id, up_g_ = g_ - 1, dn_pe_ = pe.id, dn_g_ = g_ + 1;
    if (g_ == 0) up_pe_ = args.up, up_g_ = B - 1;
    if (g_ == B - 1) dn_pe_ = args.down, dn_g_ = 0;
    has_up_ = up_pe_ >= 0, has_dn_ = dn_pe_ >= 0;
    up_rows_ = has_up_ ? pe.remote(args.inbox, up_pe_) + static_cast<long>(up_g_) * 4 * pitch_ : nullptr;
    dn_rows_ = has_dn_ ? pe.remote(args.inbox, dn_pe_) + static_cast<long>(dn_g_) * 4 * pitch_ : nullptr;
    up_flag_ = has_up_ ? args.flags + (up_g_ * 2 + 1) * kRegsFlagStride : nullptr;  // symmetric, on up_pe
    dn_flag_ = has_dn_ ? args.flags + (dn_g_ * 2 + 0) * kRegsFlagStride : nullptr;
    my_rows_ = args.inbox + static_cast<long>(g_) * 4 * pitch_;
    my_flags_ = args.flags + g_ * 2 * kRegsFlagStride;

    // Cell (i, j): in the grids' allocation (halos included); written by the update; a fixed
    // cell's value (the grid's, the same in a and b; 0 outside the allocation, never read).
    auto allocated = [&](int i, int j) {
      return i >= -a.halo_lo[0] && i < rows + a.halo_hi[0] && j >= -a.halo_lo[1] && j < cols + a.halo_hi[1];
    };
    auto updated = [&](int i, int j) { return i >= args.row_lo && i < args.row_hi && j >= args.col_lo && j < args.col_hi; };
    auto fixed = [&](int i, int j) { return allocated(i, j) ? a(i, j) : T(0); };
    // The band: column j < cols from a; past the columns what is there (column `cols`'s fixed
    // cell, then 0), never updated, so that every copy of a row, pushed ones too, reads the same
    // there. Rows past the band: 0.
#pragma unroll
    for (int r = 0; r < RMAX; ++r) {
      T x[VEC];
#pragma unroll
      for (int c = 0; c < VEC; ++c) x[c] = r < R_ && c0_ + c <= cols ? fixed(r0_ + r, c0_ + c) : T(0);
      put_row(r, x);
    }
    // What never changes around the band, into shared memory: the grid's columns -1 and cols of
    // the band's rows (both parities), and its rows past a fixed edge.
    for (int k = t_; k < 2 * 2 * RMAX; k += threads) {
      const int par = k / (2 * RMAX), r = k % RMAX, right = (k / RMAX) % 2;
      const T x = r < R_ ? fixed(r0_ + r, right ? cols : -1) : T(0);
      side_[(par * slots_ + (right ? last_ + 2 : 0)) * kSide + r * 2 + (right ? 0 : 1)] = x;
    }
    for (int s = 0; s < 2; ++s) {
      if (s == 0 ? has_up_ : has_dn_) continue;
      for (int k = t_; k < frow_n_; k += threads) frow_[s * frow_n_ + k] = fixed(s == 0 ? r0_ - 1 : r1, k - 1);
    }
    // The contract: the fixed cells this block reads are the same in a and b.
    bool differ = false;
    for (int r = -1; r <= R_; ++r) {
      const int i = r0_ + r;
      if ((r == -1 && has_up_) || (r == R_ && has_dn_)) continue;  // another block's row (from the inbox)
      for (int j = c0_ - 1; j <= c0_ + VEC && j <= cols; ++j) {
        if (!allocated(i, j) || updated(i, j)) continue;
        const T x = a(i, j), y = b(i, j);
        differ = differ || !(x == y || (x != x && y != y));
      }
    }
    contract_ = !__syncthreads_or(differ);  // also orders the shared memory above before its reads
    // The update's cells: the band's rows [rlo, rhi), the thread's columns in cmask; `plain`: all
    // of the thread's cells of the band's rows.
    rlo_ = args.row_lo - r0_, rhi_ = args.row_hi - r0_;
    cmask_ = 0;
#pragma unroll
    for (int c = 0; c < VEC; ++c) cmask_ |= (c0_ + c >= args.col_lo && c0_ + c < args.col_hi ? 1u : 0u) << c;
    plain_ = rlo_ <= 0 && rhi_ >= R_ && cmask_ == kAllColumns;
    // Where a thread reads an inbox row's cells left and right of its columns (the row's fixed
    // cells at its end).
    left_at_ = c0_ > 0 ? c0_ - 1 : pitch_ - 2;
    right_at_ = c0_ + VEC < cols ? c0_ + VEC : pitch_ - 1;
  }

  // Whether the cells the update does not write that this block reads are the same in a and b
  // (the form's contract: the band holds one copy of them for both grids). Block-uniform.
  __device__ __forceinline__ bool contract_holds() const { return contract_; }

  // The contract, or a message and status 2.
  __device__ __forceinline__ void require_contract() const {
    if (contract_) return;
    if (t_ == 0) {
      const char* what = what_;
      const int g = g_;
      pe_.fatal_with([what, g](detail::Message& m) {
        m.str(what).str(": the register-resident form needs the cells the update does not write to be the same in both "
                        "grids, and in block ")
            .num(g).str("'s rows they differ");
      });  // traps
    }
    __syncthreads();  // the others wait here for thread 0's record and trap
    __trap();
  }

  // One step: the edge rows to the neighbours, the flags, the update. `in`: the grid the step
  // reads (where the serial program leaves its values; `last`: the loop's last step, whose
  // values before the step go there).
  template <class Update, class Fold, class Acc>
  __device__ __forceinline__ void step(const Update& update, const Fold& fold, Acc& acc, bool fold_on, const DBlock<T, 2>& in,
                                       bool last) {
    const int step = ++steps_, par = step & 1, t = t_;
    T* const sb = side_ + par * slots_ * kSide;  // this step's side columns
    T* const mine = sb + (t + 1) * kSide;        // this thread's; its neighbours' at -+kSide
    if (last) store(in);
    // 1. The edge rows to the neighbours (thread 0 adds their fixed cells at the row's end, in
    // the first two steps: both parities' buffers keep them), the side columns to shared memory.
    if (active_) {
      if (has_up_) {
        T* const dst = up_rows_ + (par * 2 + 1) * pitch_;
        Vector::store(dst + c0_, v_[0]);
        if (t == 0 && step <= 2) dst[pitch_ - 2] = sb[1], dst[pitch_ - 1] = sb[(last_ + 2) * kSide];
      }
      if (has_dn_) {
        T* const dst = dn_rows_ + (par * 2 + 0) * pitch_;
        // The band's last row by selects the compiler cannot see through: a store under
        // `r == R - 1` in the unrolled loop, or plain selects, become v[R - 1], a run-time index
        // that puts v in local memory.
        T out[VEC];
#pragma unroll
        for (int c = 0; c < VEC; ++c) out[c] = v_[RMAX - 1][c];
#pragma unroll
        for (int r = RMAX - 2; r >= 0; --r) {
#pragma unroll
          for (int c = 0; c < VEC; ++c) out[c] = detail::regs_pick(r == R_ - 1, v_[r][c], out[c]);
        }
        Vector::store(dst + c0_, out);
        if (t == 0 && step <= 2)
          dst[pitch_ - 2] = sb[(R_ - 1) * 2 + 1], dst[pitch_ - 1] = sb[(last_ + 2) * kSide + (R_ - 1) * 2];
      }
#pragma unroll
      for (int r = 0; r < RMAX; ++r) {
        mine[r * 2 + 0] = v_[r][0];
        mine[r * 2 + 1] = v_[r][VEC - 1];
      }
    }
    // 2. The flags.
    __syncthreads();
    if (t == 0) {
      const std::uint64_t want = static_cast<std::uint64_t>(step);
      // A neighbour on this PE (this GPU) takes a GPU-scope release and acquire, one on another
      // PE the team's system-scope signal; a short spin first, then the team's bounded wait.
      // The peer comes resolved from its inbox rows (resolved before the loop; the flags are in
      // the same symmetric heap, as far from their copies): no peer table a step.
      auto release = [&](std::uint64_t* flag, int peer, int peer_g, const T* rows) {
        if (peer == pe_.id) {
          detail::store_release_gpu(flag, want);
        } else {
          const T* const sym_rows = my_rows_ + static_cast<long>(peer_g - g_) * 4 * pitch_;
          const PeerRef to{peer, reinterpret_cast<const char*>(rows) - reinterpret_cast<const char*>(sym_rows)};
          pe_.signal_set(flag, want, to);
        }
      };
      if (has_up_) release(up_flag_, up_pe_, up_g_, up_rows_);
      if (has_dn_) release(dn_flag_, dn_pe_, dn_g_, dn_rows_);
      // The description of a stalled wait takes its values by copy: nothing of the loop's has its
      // address taken (a reference would keep it in local memory on the hot path).
      auto wait = [&](int s, int peer, int peer_g) {
        const std::uint64_t* flag = my_flags_ + s * kRegsFlagStride;
        const bool polled = peer == pe_.id ? detail::poll_at_least<MemScope::gpu>(flag, want, 4096, 0)
                                           : detail::poll_at_least<MemScope::sys>(flag, want, 4096, 0);
        if (polled) return;
        const char* what = what_;
        const int g = g_;
        pe_.wait_with(flag, Cmp::GE, want, [what, step, g, s, peer, peer_g](detail::Message& m) {
          m.str(what).str(": register-resident step ").num(step).str(": block ").num(g).str(" waits for the row from ")
              .str(s == 0 ? "above (PE " : "below (PE ").num(peer).str(", block ").num(peer_g).str(")");
        });
      };
      if (has_up_) wait(0, up_pe_, up_g_);
      if (has_dn_) wait(1, dn_pe_, dn_g_);
    }
    __syncthreads();
    // 3. The update, row by row: w holds rows r - 1, r, r + 1 with a column each side.
    if (!active_) return;
    // Row -1 (s = 0) or R (s = 1): the neighbour's pushed row or the fixed row.
    auto outer_row = [&](T (&row)[VEC + 2], int s) {
      if (s == 0 ? has_up_ : has_dn_) {
        const T* const src = my_rows_ + (par * 2 + s) * pitch_;
        Vector::load(src + c0_, row, 1);
        row[0] = __ldcg(src + left_at_);
        row[VEC + 1] = __ldcg(src + right_at_);
      } else {
        const T* const f = frow_ + s * frow_n_ + c0_;  // f[k]: column c0 - 1 + k
#pragma unroll
        for (int k = 0; k < VEC + 2; ++k) row[k] = f[k];
      }
    };
    T above[VEC + 2], below[VEC + 2];
    outer_row(above, 0);
    outer_row(below, 1);
    // The rows of the band, straight-line: row R - 1's inputs below are `below`; a block of fewer
    // rows than RMAX stops after them (a uniform branch a row).
    auto rows_loop = [&](auto checked, auto folded) {
      T w[3][VEC + 2];
#pragma unroll
      for (int k = 0; k < VEC + 2; ++k) w[0][k] = above[k];
      w[1][0] = mine[1 - kSide];
#pragma unroll
      for (int c = 0; c < VEC; ++c) w[1][c + 1] = v_[0][c];
      w[1][VEC + 1] = mine[kSide];
      T res[VEC];  // a row's new values
#pragma unroll
      for (int r = 0; r < RMAX; ++r) {
        if (r > 0 && r >= R_) break;  // a band of fewer rows (a launch of more blocks): nothing past it
        if (r + 1 < RMAX) {
          const bool inside = r + 1 < R_;
          const int n = r + 1;
          w[2][0] = inside ? mine[n * 2 + 1 - kSide] : below[0];
#pragma unroll
          for (int c = 0; c < VEC; ++c) w[2][c + 1] = inside ? v_[n][c] : below[c + 1];
          w[2][VEC + 1] = inside ? mine[n * 2 + kSide] : below[VEC + 1];
        } else {
#pragma unroll
          for (int k = 0; k < VEC + 2; ++k) w[2][k] = below[k];
        }
        if constexpr (decltype(checked)::value) {
          // r < R_ holds after the break above; said again, the kernel spills less (jacobi2d: 96 -> 44 bytes).
          const bool row_updated = r >= rlo_ && r < rhi_ && r < R_;
#pragma unroll
          for (int c = 0; c < VEC; ++c) {
            const bool cell = row_updated && ((cmask_ >> c) & 1u) != 0;
            res[c] = cell ? update(w, c, r0_ + r, c0_ + c) : w[1][c + 1];
            if constexpr (decltype(folded)::value) {
              if (cell) fold(acc, res[c], w[1][c + 1], r0_ + r, c0_ + c);
            }
          }
        } else {
#pragma unroll
          for (int c = 0; c < VEC; ++c) res[c] = update(w, c, r0_ + r, c0_ + c);
        }
        put_row(r, res);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
#pragma unroll
          for (int c = 0; c < VEC + 2; ++c) w[k][c] = w[k + 1][c];
        }
      }
    };
    if constexpr (!std::is_same_v<Fold, RegsNoFold>) {
      if (fold_on) return rows_loop(std::true_type{}, std::true_type{});
    } else {
      (void)fold, (void)acc, (void)fold_on;
    }
    if (plain_) {
      rows_loop(std::false_type{}, std::false_type{});
    } else {
      rows_loop(std::true_type{}, std::false_type{});
    }
  }

  // The band's updated cells into `grid` (after the loop: the grid its last step wrote, where the
  // serial program leaves them).
  __device__ __forceinline__ void finish(const DBlock<T, 2>& grid) { store(grid); }

 private:
  // The update's cells of the band into `grid` (no other block reads them there during the loop).
  __device__ __forceinline__ void store(const DBlock<T, 2>& grid) {
#pragma unroll
    for (int r = 0; r < RMAX; ++r) {
      if (r >= R_) break;
#pragma unroll
      for (int c = 0; c < VEC; ++c)
        if (r >= rlo_ && r < rhi_ && ((cmask_ >> c) & 1u) != 0) grid(r0_ + r, c0_ + c) = v_[r][c];
    }
  }

  // Row r of the band (r a constant once unrolled).
  __device__ __forceinline__ void put_row(int r, const T (&x)[VEC]) {
#pragma unroll
    for (int c = 0; c < VEC; ++c) v_[r][c] = x[c];
  }

  const Pe& pe_;
  const char* what_;
  T v_[RMAX][VEC];  // the band's rows
  int g_, t_, r0_, R_, c0_, last_, pitch_, slots_, frow_n_;
  bool active_, has_up_, has_dn_, contract_, plain_;
  int up_pe_, up_g_, dn_pe_, dn_g_, rlo_, rhi_, left_at_, right_at_;
  unsigned cmask_;
  int steps_ = 0;
  T *side_, *frow_, *up_rows_, *dn_rows_;
  std::uint64_t *up_flag_, *dn_flag_;
  const T* my_rows_;
  const std::uint64_t* my_flags_;
};

// The whole loop on this block: `steps` steps from a into b, swapping (a RegsBand's use; the
// contract required: a message and status 2 where it does not hold). After it the grid names
// follow `steps` swaps (the caller swaps its DBlocks).
template <int VEC, int RMAX, class T, class Pe, class Update>
__device__ void regs_loop(const Pe& pe, const RegsArgs<T>& args, const DBlock<T, 2>& a, const DBlock<T, 2>& b, int steps,
                          unsigned char* smem, const Update& update, const char* what) {
  RegsBand<VEC, RMAX, T, Pe> band(pe, args, a, b, smem, what);
  band.require_contract();
  const DBlock<T, 2>* in = &a;  // the grid a step reads (pointers: two DBlocks swapped would take registers)
  const DBlock<T, 2>* out = &b;
  int acc = 0;
  for (int s = 1; s <= steps; ++s) {
    band.step(update, RegsNoFold{}, acc, false, *in, s == steps);
    const DBlock<T, 2>* x = in;
    in = out;
    out = x;
  }
  if (steps > 0) band.finish(*in);  // after the swaps, `in` names the grid the last step wrote
}

#endif  // __CUDACC__

}  // namespace stencilc::rt::cuda
