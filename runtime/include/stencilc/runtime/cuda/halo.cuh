// The lowered `exchange` of one grid on the GPUs (p2p and NVSHMEM backends): the host backend's
// protocol (halo.hpp, docs/RUNTIME.md) run by thread blocks of the persistent kernel.
//
// Per direction code, in symmetric memory of every PE: two slots of the largest face any PE
// receives from that direction (double-buffered by epoch parity), and per piece of the face a
// data-ready signal (on the receiver, indexed by the direction as the receiver sees it) and an
// ack signal (on the sender, indexed by its send direction). A face is cut into `pieces` equal
// runs of its elements (Channel::pieces, from its size: one piece per kPieceBytes, at most
// kMaxPieces) so that several thread blocks move a large face together; each piece runs the
// protocol on its own. send(epoch), per piece of each send direction: pack the piece straight
// into the receiver's slot over NVLink (p2p; NVSHMEM packs into a staging slot and puts it with
// the signal: DevicePe::pack_target and deliver_signal_block), release-store the receiver's ready
// signal of the piece = epoch, then wait until the receiver has acked epoch - 1 for the piece
// (the slot epoch + 1 will use: the wait is off the signal's path, and the barrier the caller
// puts before the next send() orders it before that send's packing). recv(epoch), per piece of
// each receive direction: wait until its ready >= epoch, unpack it into the halo, release-store
// the sender's ack of the piece = epoch. One release per signal, no separate fence.
//
// Host: HaloExchange<T, N> ex(team, grid, blocks, periodic, corners, "a");   // before launch
// Device (every thread of the grid; see send() for the barriers around it):
//   pe.grid_barrier();                 // the owned cells of `b` are written
//   halo.send(pe, b, epoch); halo.recv(pe, b, epoch);
//   pe.grid_barrier();                 // the halos of `b` are visible to every block
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/cuda/common.cuh"
#include "stencilc/runtime/cuda/dblock.cuh"
#include "stencilc/runtime/cuda/p2p.cuh"
#include "stencilc/runtime/decomposition.hpp"

namespace stencilc::rt::cuda {

// One PE's part of one exchange, in that PE's device memory.
template <class T, int N>
struct HaloPlan {
  static constexpr int kCodes = N == 1 ? 3 : N == 2 ? 9 : 27;  // 3^N directions, 0 included
  static constexpr int kMaxPieces = 16;     // a face is moved by at most this many blocks
  static constexpr long long kPieceBytes = 16 << 10;  // and each moves at least this much
  static constexpr int kReady = 0;                     // signals[kReady + code * kMaxPieces + piece]
  static constexpr int kAck = kCodes * kMaxPieces;     // signals[kAck + code * kMaxPieces + piece]
  static constexpr int kSignals = 2 * kCodes * kMaxPieces;

  // The pieces of a face of `elements` elements (sender and receiver count the same face).
  static constexpr int pieces_of(long long elements) {
    const long long bytes = elements * static_cast<long long>(sizeof(T));
    const long long pieces = (bytes + kPieceBytes - 1) / kPieceBytes;
    return pieces < 1 ? 1 : pieces > kMaxPieces ? kMaxPieces : static_cast<int>(pieces);
  }

  // One direction with a neighbour: the box of my block that is sent (owned cells) or received
  // (halo cells), in local indices, as a 3-D box whose leading dimensions are 1 thick.
  struct Channel {
    int code;  // the direction as this PE sees it
    int peer;
    // Bytes from this PE's symmetric heap to the peer's as this GPU addresses them (0 where
    // NVSHMEM reaches the peer only through its proxy): the peer resolved on the host, so a send
    // or recv reads no peer table (PeerRef).
    long long peer_delta;
    int lo[3];
    int count[3];
    long long elements;
    int pieces;  // pieces_of(elements)
    // Send channels, for face stores (FaceWriter): where the receiver keeps the face, as its halo
    // cells of the same buffer. Receiver's local index = mine + shift; its element = its allocation's
    // start + peer_data_offset + sum of (index * peer_step) (3-D view, leading dimensions 0).
    int shift[3];
    long peer_step[3];
    long long peer_data_offset;
  };

  int n_send = 0;
  int n_recv = 0;
  Channel send[kCodes] = {};
  Channel recv[kCodes] = {};
  long long slot_offset[kCodes] = {};  // elements, per code: two slots of slot_size each
  long long slot_size[kCodes] = {};
  T* slots = nullptr;                   // this PE's symmetric slots
  T* staging = nullptr;                 // symmetric, laid out like slots: faces packed before a put
                                        // (backends whose puts need a local source: NVSHMEM)
  std::uint64_t* signals = nullptr;     // this PE's symmetric signals: ready, then ack (kSignals)
  unsigned long long* last = nullptr;   // last epoch per send channel, then per recv channel
  int extent[N] = {};
  int halo_lo[N] = {};
  int halo_hi[N] = {};
  char name[64] = {};
};

// The device handle of one PE's exchange (trivially copyable, a kernel argument).
//
// Who calls: EVERY thread of the grid calls send() and recv() (block-uniform arguments); each
// piece of a channel (an item) is run by one thread block: the send items, numbered k = 0, 1, ...
// over the send channels' pieces in order, by block (first_block + k) % gridDim, the recv items
// by block (first_block + send_items + k) % gridDim (or, given a group of n_blocks blocks, by
// block first_block + (k or send_items + k) % n_blocks); the other blocks return at once.
// With gridDim >= blocks_needed() every item has its own block and all run in parallel; fewer
// blocks run several items one after the other (still deadlock free: a recv only waits for a
// peer's send of this epoch, and a send only for acks of epoch - 2).
//
// Barriers (the caller's): a grid_barrier() between the writes of the owned cells and send()
// (the sending block reads cells other blocks wrote), and a grid_barrier() between recv() and
// the first read of the halos (the receiving block wrote them). None is needed between send()
// and recv(). Epochs count 1, 2, 3, ... per exchange, across launches too (checked on the
// device: a fatal error, status 2).
template <class T, int N>
class FaceWriter;  // a block's face channels staged in shared memory (below)

template <class T, int N>
struct DHaloExchange {
  using Plan = HaloPlan<T, N>;
  static constexpr int kCodes = Plan::kCodes;

  const Plan* plan = nullptr;
  int n_send = 0;
  int n_recv = 0;
  int send_items = 0;  // pieces of all send channels
  int recv_items = 0;  // pieces of all recv channels
  unsigned faces = 0;  // the block's faces that send or receive: bit 2d below, 2d + 1 above in dimension d
  // Pieces per send and per recv channel (Plan::Channel::pieces), here in the kernel parameter so
  // that the blocks that run no piece skip the loops below without reading the plan (global
  // memory: a load's round trip per channel, ~0.9 us per step on every comm block at 256^2).
  static_assert(Plan::kMaxPieces < 256, "pieces per channel are kept in a byte");
  unsigned char send_pieces[kCodes] = {};
  unsigned char recv_pieces[kCodes] = {};

  __host__ __device__ int blocks_needed() const { return send_items + recv_items; }

#if defined(__CUDACC__)
  // Sends epoch `epoch` of my owned cells of `block` to every neighbour.
  // `n_blocks` > 0: only blocks [first_block, first_block + n_blocks) run channels (a role's
  // group), channel k on block first_block + k % n_blocks. Only a block that holds an item
  // makes the call (STENCILC_STEP_FN).
  template <class Pe>
  __device__ __forceinline__ void send(const Pe& pe, const DBlock<T, N>& block,
                                       std::uint64_t epoch, int first_block = 0,
                                       int n_blocks = 0) const {
    if (holds_item(0, send_items, first_block, n_blocks))
      send_items_of_block(pe, block, epoch, first_block, n_blocks);
  }

  // Receives epoch `epoch` into my halos of `block`, then acks each neighbour.
  template <class Pe>
  __device__ __forceinline__ void recv(const Pe& pe, const DBlock<T, N>& block,
                                       std::uint64_t epoch, int first_block = 0,
                                       int n_blocks = 0) const {
    if (holds_item(send_items, recv_items, first_block, n_blocks))
      recv_items_of_block(pe, block, epoch, first_block, n_blocks);
  }

  // The dataflow loop's face stores (flow.cuh): the send channels whose boxes hold cells of rows
  // [row_lo, row_hi) of dimension 0 (local indices), as a mask over send[]. A block works this
  // out once, before the loop, for the rows it owns, and stages them in a FaceWriter (below),
  // whose store() on each point it writes puts the point's value into the neighbours' halos as
  // it goes (a block without face rows has an empty mask and does nothing per point).
  __device__ unsigned channels_of_rows(int row_lo, int row_hi) const {
    constexpr int d0 = 3 - N;  // dimension 0 in the 3-D view
    unsigned mask = 0;
    for (int s = 0; s < n_send; ++s) {
      const typename Plan::Channel& c = plan->send[s];
      if (c.lo[d0] < row_hi && c.lo[d0] + c.count[d0] > row_lo) mask |= 1u << s;
    }
    return mask;
  }

  // send() then recv() (the same requirements).
  template <class Pe>
  __device__ void exchange(const Pe& pe, const DBlock<T, N>& block, std::uint64_t epoch,
                           int first_block = 0) const {
    send(pe, block, epoch, first_block);
    recv(pe, block, epoch, first_block);
  }

 private:
  static __device__ int item_block(int k, int first_block, int n_blocks) {
    return n_blocks > 0 ? first_block + k % n_blocks : (first_block + k) % grid_blocks();
  }
  // Whether this block may hold an item k in [first_k, first_k + count): exact for the whole
  // grid's items (no group, fewer items than blocks), else true (the call finds out).
  static __device__ bool holds_item(int first_k, int count, int first_block, int n_blocks) {
    if (count <= 0) return false;
    if (n_blocks > 0 || first_block != 0 || first_k + count > grid_blocks()) return true;
    return block_rank() >= first_k && block_rank() < first_k + count;
  }
  template <class Pe>
  __device__ STENCILC_STEP_FN void send_items_of_block(const Pe& pe,
                                                       const DBlock<T, N>& block,
                                                       std::uint64_t epoch, int first_block,
                                                       int n_blocks) const {
    for (int s = 0, k = 0; s < n_send; ++s) {
      const int pieces = send_pieces[s];
      for (int piece = 0; piece < pieces; ++piece, ++k) {
        if (item_block(k, first_block, n_blocks) == block_rank())
          send_piece(pe, block, s, piece, epoch);
      }
    }
  }
  template <class Pe>
  __device__ STENCILC_STEP_FN void recv_items_of_block(const Pe& pe,
                                                       const DBlock<T, N>& block,
                                                       std::uint64_t epoch, int first_block,
                                                       int n_blocks) const {
    for (int r = 0, k = send_items; r < n_recv; ++r) {
      const int pieces = recv_pieces[r];
      for (int piece = 0; piece < pieces; ++piece, ++k) {
        if (item_block(k, first_block, n_blocks) == block_rank())
          recv_piece(pe, block, r, piece, epoch);
      }
    }
  }
  static __device__ int opposite(int code) { return kCodes - 1 - code; }
  static __device__ void dir_of(int code, int* dir) {
    for (int d = N - 1; d >= 0; --d, code /= 3) dir[d] = code % 3 - 1;
  }

  __device__ T* slot(int code, std::uint64_t epoch) const {
    return plan->slots + plan->slot_offset[code] +
           static_cast<long long>(epoch % 2) * plan->slot_size[code];
  }
  __device__ std::uint64_t* ready(int code, int piece) const {
    return &plan->signals[Plan::kReady + code * Plan::kMaxPieces + piece];
  }
  __device__ std::uint64_t* ack(int code, int piece) const {
    return &plan->signals[Plan::kAck + code * Plan::kMaxPieces + piece];
  }
  // Piece `piece` of a channel: its elements [*begin, *end) of the face's row-major order.
  static __device__ void piece_range(const typename Plan::Channel& c, int piece, unsigned* begin,
                                     unsigned* end) {
    const unsigned long long total = static_cast<unsigned long long>(c.elements);
    *begin = static_cast<unsigned>(total * piece / c.pieces);
    *end = static_cast<unsigned>(total * (piece + 1) / c.pieces);
  }
  // The block's element of face element i (row-major over c.count) of channel c.
  static __device__ long face_offset(const typename Plan::Channel& c, const long* step,
                                     const FastDiv& div2, const FastDiv& div1, unsigned i) {
    const unsigned row = div2.div(i);
    const unsigned k = i - row * static_cast<unsigned>(c.count[2]);
    const unsigned h = div1.div(row);
    const unsigned j = row - h * static_cast<unsigned>(c.count[1]);
    return (c.lo[0] + static_cast<long>(h)) * step[0] + (c.lo[1] + static_cast<long>(j)) * step[1] +
           (c.lo[2] + static_cast<long>(k)) * step[2];
  }

  // Elements [begin, end) of channel c's face, between the block's cells (`data`, at their
  // face_offset) and the contiguous `buffer` (a slot or staging): into the buffer when kPack,
  // out of it otherwise. Every thread of the block. Each thread issues kCopyBatch loads before
  // their stores: a loop of one load and its store per element waits a load's round trip per
  // element, and the comm group is only a few blocks (measured: ~3.6 us
  // per 16 KiB piece on one comm block that way).
  static constexpr int kCopyBatch = 8;
  template <bool kPack>
  static __device__ void copy_face(const typename Plan::Channel& c, T* data, T* buffer,
                                   const long* step, unsigned begin, unsigned end) {
    const FastDiv div2(static_cast<unsigned>(c.count[2])), div1(static_cast<unsigned>(c.count[1]));
    const unsigned stride = block_threads();
    for (unsigned base = begin + thread_rank(); base < end; base += kCopyBatch * stride) {
      T value[kCopyBatch];
#pragma unroll
      for (int u = 0; u < kCopyBatch; ++u) {
        const unsigned i = base + u * stride;
        if (i < end) value[u] = kPack ? data[face_offset(c, step, div2, div1, i)] : buffer[i];
      }
#pragma unroll
      for (int u = 0; u < kCopyBatch; ++u) {
        const unsigned i = base + u * stride;
        if (i >= end) continue;
        if (kPack) {
          buffer[i] = value[u];
        } else {
          data[face_offset(c, step, div2, div1, i)] = value[u];
        }
      }
    }
  }

  // The block's strides as a 3-D box whose leading dimensions are 1 thick.
  static __device__ void steps3(const DBlock<T, N>& block, long* step) {
    step[0] = step[1] = step[2] = 0;
    for (int d = 0; d < N; ++d) step[3 - N + d] = block.stride[d];
  }

  // Thread 0 of the channel's block: epochs count 1, 2, 3, ... and the block has the layout the
  // exchange was made for.
  template <class Pe>
  __device__ void check(const Pe& pe, const DBlock<T, N>& block, int index,
                        std::uint64_t epoch, const char* operation) const {
    unsigned long long* last = &plan->last[index];
    if (epoch != *last + 1) {
      const unsigned long long previous = *last;
      pe.fatal_with([&](detail::Message& m) {
        m.str("halo exchange of grid '").str(plan->name).str("' on PE ").num(pe.id).str(": ");
        m.str(operation).str(" of epoch ").num(static_cast<long long>(epoch)).str(" after epoch ");
        m.num(static_cast<long long>(previous)).str(" (epochs count 1, 2, 3, ...)");
      });
    }
    for (int d = 0; d < N; ++d) {
      if (block.extent[d] != plan->extent[d] || block.halo_lo[d] != plan->halo_lo[d] ||
          block.halo_hi[d] != plan->halo_hi[d]) {
        pe.fatal_with([&](detail::Message& m) {
          m.str("halo exchange of grid '").str(plan->name).str("' on PE ").num(pe.id).str(": ");
          m.str(operation).str(" of a block with another layout");
        });
      }
    }
    *last = epoch;
  }

  template <class Pe>
  __device__ void send_piece(const Pe& pe, const DBlock<T, N>& block, int s, int piece,
                             std::uint64_t epoch) const {
    const typename Plan::Channel c = plan->send[s];  // a copy: the stores below may alias
    const int theirs = opposite(c.code);  // my send direction, as the receiver sees it
    // The slot of this parity is free: the wait for the receiver's ack of epoch - 2 ran after
    // the send of epoch - 1 (below), and a barrier lies between (the caller's, before send()).
    // Pack into the backend's target: on p2p straight into the receiver's slot (strided reads
    // here, contiguous stores over NVLink), on NVSHMEM into the local staging slot that is put.
    T* const dst = slot(theirs, epoch);
    const PeerRef to{c.peer, c.peer_delta};
    T* out = pe.pack_target(dst, plan->staging + (dst - plan->slots), to);
    long step[3];
    steps3(block, step);
    unsigned begin = 0, end = 0;
    piece_range(c, piece, &begin, &end);
    copy_face<true>(c, block.data, out, step, begin, end);
    pe.deliver_signal_block(dst + begin, out + begin, static_cast<std::size_t>(end - begin),
                            ready(theirs, piece), epoch, to);
    // Off the signal's path: the checks, and the wait that frees the other parity's slot for
    // epoch + 1 (the receiver acks epoch - 1 in its recv of epoch - 1, which waits for nothing
    // but my earlier sends, so this cannot deadlock).
    if (thread_rank() == 0) {
      if (piece == 0) check(pe, block, s, epoch, "send");
      if (epoch > 1) wait_ack(pe, c, piece, epoch - 1);
    }
  }

  // Thread 0 of a send item's block: the receiver has unpacked `epoch` of the piece.
  template <class Pe>
  __device__ void wait_ack(const Pe& pe, const typename Plan::Channel& c, int piece,
                           std::uint64_t epoch) const {
    pe.wait_with(ack(c.code, piece), Cmp::GE, epoch, [&](detail::Message& m) {
      int dir[N];
      dir_of(c.code, dir);
      m.str("PE ").num(c.peer).str(" to unpack the previous halo of grid '");
      m.str(plan->name).str("' sent in direction ").dir(dir, N).str(", piece ").num(piece);
    });
  }

  template <class Pe>
  __device__ void recv_piece(const Pe& pe, const DBlock<T, N>& block, int r, int piece,
                             std::uint64_t epoch) const {
    const typename Plan::Channel c = plan->recv[r];
    if (thread_rank() == 0) {
      if (piece == 0) check(pe, block, kCodes + r, epoch, "recv");
      pe.wait_with(ready(c.code, piece), Cmp::GE, epoch, [&](detail::Message& m) {
        int dir[N];
        dir_of(c.code, dir);
        m.str("the halo of grid '").str(plan->name).str("' from PE ").num(c.peer);
        m.str(", direction ").dir(dir, N).str(", piece ").num(piece);
      });
    }
    __syncthreads();
    T* const in = slot(c.code, epoch);  // read only here
    long step[3];
    steps3(block, step);
    unsigned begin = 0, end = 0;
    piece_range(c, piece, &begin, &end);
    copy_face<false>(c, block.data, in, step, begin, end);
    // The slot's reads are done before the ack lets the sender overwrite it: the barrier orders
    // every thread's reads before thread 0's signal, a release (no further fence needed).
    __syncthreads();
    if (thread_rank() == 0) pe.signal_set(ack(opposite(c.code), piece), epoch, PeerRef{c.peer, c.peer_delta});
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
// Face stores (the dataflow loop's, flow.cuh), with the channels a block feeds read once, before
// the loop. A FaceWriter stages the channels of `channels` (a mask over the plan's send channels:
// DHaloExchange::channels_of_rows for the rows a dataflow block owns) in shared memory, with the peer's
// address as a byte distance from this PE's buffer (the buffers are symmetric: the same distance
// for both of a swapped pair) and the offset of local index 0 in the peer's buffer; store() then
// reads no plan from global memory. Without it, a face store read
// each channel's box, peer and steps from the plan in global memory at every point: the face
// blocks of jacobi2d 256^2 took 0.65-0.9 us longer over their update than the other blocks
// (measured phases), and they set the step's pace. Measured on 2 x H200: jacobi2d
// 256^2 3.98 -> 3.51 us a step on 2 GPUs, 1024^2 8.32 -> 5.97, heat3d 64^3 12.96 -> 9.89.
inline constexpr int kMaxFaceChannels = 27;  // a block's face channels at most (3-D: 26 neighbours)

struct FaceChannel {
  int lo[3];               // the cells sent: local indices [lo, hi) in the 3-D view
  int hi[3];
  long long delta_bytes;   // from this PE's allocation of a buffer to the peer's
  long long offset;        // the peer's element of local index 0: its data offset plus shift . step
  long long step[3];       // the peer's steps in the 3-D view
};

template <class T, int N>
class FaceWriter {
 public:
  static_assert(HaloPlan<T, N>::kCodes <= kMaxFaceChannels, "a staged channel a send direction");

  // Every thread of the block, before the loop (a __syncthreads inside): the channels of
  // `channels` into `staged` (kMaxFaceChannels entries of the block's shared memory), in mask order.
  // `block`: either buffer of the exchanged pair (the distances hold for both).
  template <class Pe>
  __device__ FaceWriter(const Pe& pe, const DHaloExchange<T, N>& exchange, const DBlock<T, N>& block,
                        unsigned channels, FaceChannel* staged)
      : staged_(staged) {
    count_ = __popc(channels);
    if (static_cast<int>(threadIdx.x) < count_) {
      unsigned rest = channels;
      for (unsigned k = 0; k < threadIdx.x; ++k) rest &= rest - 1;  // drop the channels before this thread's
      const int s = __ffs(rest) - 1;
      const typename HaloPlan<T, N>::Channel& c = exchange.plan->send[s];
      T* const mine = block.data - block.data_offset();
      T* const there = pe.remote(mine, c.peer);
      if (there == nullptr) {
        pe.fatal_with([&](detail::Message& m) {
          m.str("the face stores of grid '").str(exchange.plan->name).str("': PE ").num(c.peer);
          m.str(" cannot be reached with loads and stores from PE ").num(pe.id);
        });
      }
      FaceChannel& f = staged[threadIdx.x];
      f.delta_bytes = reinterpret_cast<const char*>(there) - reinterpret_cast<const char*>(mine);
      f.offset = c.peer_data_offset;
      for (int k = 0; k < 3; ++k) {
        f.lo[k] = c.lo[k];
        f.hi[k] = c.lo[k] + c.count[k];
        f.step[k] = c.peer_step[k];
        f.offset += static_cast<long long>(c.shift[k]) * c.peer_step[k];
      }
    }
    __syncthreads();  // staged before any thread's first store()
  }

  // Cell `l` (local indices) of `block` (either buffer) has just been given `value`: into the
  // halo of the same buffer of each neighbour whose staged channel holds it. Any thread of the
  // block, for its own cells; plain stores, ordered by the caller's release (flow.cuh's publish)
  // or a barrier.
  __device__ void store(const DBlock<T, N>& block, const int* l, T value) const {
    long long l3[3] = {0, 0, 0};
    for (int d = 0; d < N; ++d) l3[3 - N + d] = l[d];
    char* const mine = reinterpret_cast<char*>(block.data - block.data_offset());
    for (int k = 0; k < count_; ++k) {
      const FaceChannel& f = staged_[k];
      bool inside = true;
      for (int d = 0; d < 3; ++d) inside = inside && l3[d] >= f.lo[d] && l3[d] < f.hi[d];
      if (!inside) continue;
      long long element = f.offset;
      for (int d = 0; d < 3; ++d) element += l3[d] * f.step[d];
      reinterpret_cast<T*>(mine + f.delta_bytes)[element] = value;
    }
  }

  // The cells of box [lo, hi) (local indices) of `block` that the staged channels hold, already
  // written by this block (a __syncthreads between those stores and this): into the neighbours'
  // halos, as store() would have put them one by one. Every thread of the block, a share of each
  // channel's cells, consecutive threads on consecutive cells of the last dimension. The dataflow
  // loop's face blocks that walk in strips: their rows in wide strips first, then this (the point
  // walk with a store() a point made those blocks, and so every block behind them in the flag
  // chain, 2x slower a row than the others).
  __device__ void copy(const DBlock<T, N>& block, const int* lo, const int* hi) const {
    int lo3[3] = {0, 0, 0}, hi3[3] = {1, 1, 1};
    for (int d = 0; d < N; ++d) {
      lo3[3 - N + d] = lo[d];
      hi3[3 - N + d] = hi[d];
    }
    long long stride3[3] = {0, 0, 0};
    for (int d = 0; d < N; ++d) stride3[3 - N + d] = block.stride[d];
    char* const mine = reinterpret_cast<char*>(block.data - block.data_offset());
    for (int k = 0; k < count_; ++k) {
      const FaceChannel& f = staged_[k];
      int a[3];
      unsigned n[3], cells = 1;  // a block's face cells of one channel: far below 2^32
      for (int d = 0; d < 3; ++d) {
        a[d] = max(lo3[d], f.lo[d]);
        n[d] = static_cast<unsigned>(max(0, min(hi3[d], f.hi[d]) - a[d]));
        cells *= n[d];
      }
      T* const there = reinterpret_cast<T*>(mine + f.delta_bytes);
      for (unsigned c = threadIdx.x; c < cells; c += blockDim.x) {  // 32-bit division: no 64-bit emulation
        const unsigned rest = c / n[2], q = rest / n[1];
        const long long l2 = a[2] + static_cast<int>(c - rest * n[2]);
        const long long l1 = a[1] + static_cast<int>(rest - q * n[1]), l0 = a[0] + static_cast<int>(q);
        const T value = block.data[l0 * stride3[0] + l1 * stride3[1] + l2 * stride3[2]];
        there[f.offset + l0 * f.step[0] + l1 * f.step[1] + l2 * f.step[2]] = value;
      }
    }
  }

 private:
  const FaceChannel* staged_;
  int count_ = 0;
};

// A FaceWriter for `exchange`'s grid (the type and rank deduced).
template <class T, int N, class Pe>
__device__ FaceWriter<T, N> face_writer(const Pe& pe, const DHaloExchange<T, N>& exchange, const DBlock<T, N>& block,
                                        unsigned channels, FaceChannel* staged) {
  return FaceWriter<T, N>(pe, exchange, block, channels, staged);
}
#endif  // __CUDACC__

// The host side: made once per exchanged grid before the launch; builds every PE's plan and
// allocates the slots and signals in symmetric memory. With P2PTeam one process does it for all
// GPUs; with NvshmemTeam every process runs it (the allocations are collective) and uploads the
// plan of the PE it holds.
template <class T, int N>
class HaloExchange {
 public:
  using Dir = std::array<int, N>;
  using Plan = HaloPlan<T, N>;
  static constexpr int kCodes = Plan::kCodes;

  // `blocks`: every PE's block (alloc_blocks), or blocks with their layout: the two buffers of a
  // swapped pair share it. `corners`: also exchange diagonal directions.
  template <class Team>
  HaloExchange(Team& team, const ProcessGrid& grid, const std::vector<DBlock<T, N>>& blocks,
               std::array<bool, N> periodic, bool corners, const char* name)
      : name_(name != nullptr ? name : "?"), n_(team.n()) {
    check_layouts(team, grid, blocks);
    const DBlock<T, N>& first = blocks[0];
    for (int d = 0; d < N; ++d) {
      halo_lo_[d] = first.halo_lo[d];
      halo_hi_[d] = first.halo_hi[d];
      global_extent_[d] = first.global_extent[d];
    }
    std::array<long long, kCodes> slot_offset{}, slot_size{};
    long long slot_elements = 0;
    for (int code = 0; code < kCodes; ++code) {
      slot_offset[code] = slot_elements;
      slot_size[code] =
          exchanged(dir_of(code), corners) ? largest_face(grid, dir_of(code)) : 0;
      slot_elements += 2 * slot_size[code];
    }
    std::array<bool, 3> periodic3{false, false, false};
    for (int d = 0; d < N; ++d) periodic3[d] = periodic[d];
    plans_.resize(static_cast<std::size_t>(n_));
    for (int pe = 0; pe < n_; ++pe) {
      Plan& plan = plans_[pe];
      for (int d = 0; d < N; ++d) {
        plan.extent[d] = blocks[pe].extent[d];
        plan.halo_lo[d] = halo_lo_[d];
        plan.halo_hi[d] = halo_hi_[d];
      }
      for (int code = 0; code < kCodes; ++code) {
        plan.slot_offset[code] = slot_offset[code];
        plan.slot_size[code] = slot_size[code];
        const Dir dir = dir_of(code);
        const int peer = neighbor(grid, pe, dir3(dir), periodic3);
        if (peer < 0) continue;
        if (exchanged(dir, corners)) {
          plan.recv[plan.n_recv++] = make_channel(pe, blocks[pe], dir, peer, false);
        }
        if (exchanged(dir_of(kCodes - 1 - code), corners)) {
          typename Plan::Channel channel = make_channel(pe, blocks[pe], dir, peer, true);
          // The receiver's view of this face: its halo from the opposite direction.
          Dir back{};
          for (int d = 0; d < N; ++d) back[d] = -dir[d];
          const typename Plan::Channel theirs = make_channel(peer, blocks[peer], back, pe, false);
          for (int k = 0; k < 3; ++k) {
            channel.shift[k] = theirs.lo[k] - channel.lo[k];
            channel.peer_step[k] = 0;
          }
          for (int d = 0; d < N; ++d) channel.peer_step[3 - N + d] = blocks[peer].stride[d];
          channel.peer_data_offset = blocks[peer].data_offset();
          if (channel.elements > slot_size[kCodes - 1 - code]) {
            fatal("halo exchange of grid '%s': internal error: face of %lld elements, slot of %lld",
                  name_.c_str(), channel.elements, slot_size[kCodes - 1 - code]);
          }
          plan.send[plan.n_send++] = channel;
        }
      }
      std::strncpy(plan.name, name_.c_str(), sizeof plan.name - 1);
    }
    const Sym<T> slots = team.template alloc<T>(static_cast<std::size_t>(slot_elements));
    const Sym<T> staging = team.template alloc<T>(static_cast<std::size_t>(slot_elements));
    const Sym<std::uint64_t> signals = team.template alloc<std::uint64_t>(Plan::kSignals);
    const Sym<unsigned long long> last = team.template alloc<unsigned long long>(2 * kCodes);
    plan_memory_ = team.template alloc<Plan>(1);
    for (int pe = 0; pe < n_; ++pe) {
      Plan& plan = plans_[pe];
      plan.slots = slots.on(pe);
      plan.staging = staging.on(pe);
      plan.signals = signals.on(pe);
      plan.last = last.on(pe);
      // Every symmetric object lies as far from its copy on the peer as the heaps do.
      if (team.holds(pe)) {
        for (int s = 0; s < plan.n_send; ++s) plan.send[s].peer_delta = team.heap_distance(pe, plan.send[s].peer);
        for (int r = 0; r < plan.n_recv; ++r) plan.recv[r].peer_delta = team.heap_distance(pe, plan.recv[r].peer);
        team.upload(pe, plan_memory_.on(pe), &plan, 1);
      }
    }
  }

  // PE `pe`'s device handle.
  DHaloExchange<T, N> device(int pe) const {
    DHaloExchange<T, N> handle;
    handle.plan = plan_memory_.on(pe);
    handle.n_send = plans_[pe].n_send;
    handle.n_recv = plans_[pe].n_recv;
    handle.send_items = items(plans_[pe].send, plans_[pe].n_send);
    handle.recv_items = items(plans_[pe].recv, plans_[pe].n_recv);
    handle.faces = faces(pe);
    for (int s = 0; s < plans_[pe].n_send; ++s) handle.send_pieces[s] = static_cast<unsigned char>(plans_[pe].send[s].pieces);
    for (int r = 0; r < plans_[pe].n_recv; ++r) handle.recv_pieces[r] = static_cast<unsigned char>(plans_[pe].recv[r].pieces);
    return handle;
  }

  // The faces of PE `pe`'s block that receive halos or whose owned layers are sent (a corner
  // direction counts for each of its faces): bit 2d for the face below in dimension d, 2d + 1
  // above. A split point update needs no boundary part at the others (docs/PASSES.md,
  // split-boundary: its widths cover the layers a send packs and the cells next to received
  // halos; with halo_lo != halo_hi a PE can send from a face it receives nothing at).
  unsigned faces(int pe) const {
    unsigned sides = 0;
    auto add = [&](const typename Plan::Channel* channels, int count) {
      for (int i = 0; i < count; ++i) {
        const Dir dir = dir_of(channels[i].code);
        for (int d = 0; d < N; ++d) {
          if (dir[d] < 0) sides |= 1u << (2 * d);
          if (dir[d] > 0) sides |= 1u << (2 * d + 1);
        }
      }
    };
    add(plans_[pe].recv, plans_[pe].n_recv);
    add(plans_[pe].send, plans_[pe].n_send);
    return sides;
  }

  // Blocks that run every piece of every channel of PE `pe` in parallel.
  int blocks_needed(int pe) const {
    return items(plans_[pe].send, plans_[pe].n_send) + items(plans_[pe].recv, plans_[pe].n_recv);
  }

  // Elements PE `pe` packs into its neighbours' slots and unpacks from its own, per exchange
  // (the block-role cost model's transfer bytes: each element is read once and written once).
  long long moved_elements(int pe) const {
    long long count = 0;
    for (int s = 0; s < plans_[pe].n_send; ++s) count += plans_[pe].send[s].elements;
    for (int r = 0; r < plans_[pe].n_recv; ++r) count += plans_[pe].recv[r].elements;
    return count;
  }

  // The directions PE `pe` receives halos from and sends faces towards.
  std::vector<Dir> recv_directions(int pe) const {
    return directions_of(plans_[pe].recv, plans_[pe].n_recv);
  }
  std::vector<Dir> send_directions(int pe) const {
    return directions_of(plans_[pe].send, plans_[pe].n_send);
  }

 private:
  static Dir dir_of(int code) {
    Dir dir{};
    for (int d = N - 1; d >= 0; --d, code /= 3) dir[d] = code % 3 - 1;
    return dir;
  }
  static int code_of(const Dir& dir) {
    int code = 0;
    for (int d = 0; d < N; ++d) code = code * 3 + dir[d] + 1;
    return code;
  }
  static std::array<int, 3> dir3(const Dir& dir) {
    std::array<int, 3> out{0, 0, 0};
    for (int d = 0; d < N; ++d) out[d] = dir[d];
    return out;
  }
  static int items(const typename Plan::Channel* channels, int count) {
    int total = 0;
    for (int i = 0; i < count; ++i) total += channels[i].pieces;
    return total;
  }
  static std::vector<Dir> directions_of(const typename Plan::Channel* channels, int count) {
    std::vector<Dir> dirs;
    for (int i = 0; i < count; ++i) dirs.push_back(dir_of(channels[i].code));
    return dirs;
  }

  // Whether halos come from direction dir: dir[d] == -1 fills my low halo, so needs halo_lo[d].
  bool exchanged(const Dir& dir, bool corners) const {
    int nonzero = 0;
    for (int d = 0; d < N; ++d) {
      if (dir[d] != 0) ++nonzero;
      if ((dir[d] == -1 && halo_lo_[d] == 0) || (dir[d] == 1 && halo_hi_[d] == 0)) return false;
    }
    return nonzero == 1 || (nonzero > 1 && corners);
  }

  // As in halo.hpp: halo cells from dir (receive), or the owned cells the PE at +dir needs in
  // its halo on side -dir (send: towards +1 my top halo_lo layers, towards -1 my bottom halo_hi).
  typename Plan::Channel make_channel(int pe, const DBlock<T, N>& block, const Dir& dir, int peer,
                                      bool sending) const {
    typename Plan::Channel channel{};
    channel.code = code_of(dir);
    channel.peer = peer;
    channel.elements = 1;
    for (int d = 0; d < 3; ++d) {
      channel.lo[d] = 0;
      channel.count[d] = 1;
    }
    for (int d = 0; d < N; ++d) {
      const int extent = block.extent[d];
      int lo = 0, hi = 0;
      if (dir[d] == 0) {
        lo = 0;
        hi = extent;
      } else if (sending) {
        const int layers = dir[d] > 0 ? halo_lo_[d] : halo_hi_[d];
        if (layers > extent) {
          fatal(
              "halo exchange of grid '%s': PE %d's block is %d thick in dimension %d but must "
              "supply %d halo layers to PE %d; use fewer PEs or another decomposition",
              name_.c_str(), pe, extent, d, layers, peer);
        }
        lo = dir[d] > 0 ? extent - layers : 0;
        hi = dir[d] > 0 ? extent : layers;
      } else {
        lo = dir[d] < 0 ? -halo_lo_[d] : extent;
        hi = dir[d] < 0 ? 0 : extent + halo_hi_[d];
      }
      channel.lo[3 - N + d] = lo;
      channel.count[3 - N + d] = hi - lo;
      channel.elements *= hi - lo;
    }
    if (channel.elements > 0x7fffffffLL) {
      fatal("halo exchange of grid '%s': a face of %lld elements is too large", name_.c_str(),
            channel.elements);
    }
    channel.pieces = Plan::pieces_of(channel.elements);
    return channel;
  }

  // The largest face from direction dir over all PEs: the slot size (one size on every PE).
  long long largest_face(const ProcessGrid& grid, const Dir& dir) const {
    long long largest = 0;
    std::array<int, N> global{};
    for (int d = 0; d < N; ++d) global[d] = global_extent_[d];
    for (int pe = 0; pe < grid.size(); ++pe) {
      const BlockLayout<N> theirs = block_layout<N>(grid, pe, global);
      long long face = 1;
      for (int d = 0; d < N; ++d) {
        face *= dir[d] < 0 ? halo_lo_[d] : dir[d] > 0 ? halo_hi_[d] : theirs.extent[d];
      }
      largest = face > largest ? face : largest;
    }
    return largest;
  }

  template <class Team>
  void check_layouts(Team& team, const ProcessGrid& grid,
                     const std::vector<DBlock<T, N>>& blocks) const {
    if (grid.size() != team.n() || grid.rank != N) {
      fatal("halo exchange of grid '%s': a %s process grid does not fit %d PEs and %d dimensions",
            name_.c_str(), format_dims(grid.dims.data(), grid.rank).c_str(), team.n(), N);
    }
    if (static_cast<int>(blocks.size()) != team.n()) {
      fatal("halo exchange of grid '%s': %zu blocks for %d PEs", name_.c_str(), blocks.size(),
            team.n());
    }
    for (int pe = 0; pe < team.n(); ++pe) {
      std::array<int, N> global{};
      for (int d = 0; d < N; ++d) global[d] = blocks[pe].global_extent[d];
      const BlockLayout<N> mine = block_layout<N>(grid, pe, global);
      for (int d = 0; d < N; ++d) {
        if (mine.extent[d] != blocks[pe].extent[d] || mine.origin[d] != blocks[pe].origin[d] ||
            blocks[pe].global_extent[d] != blocks[0].global_extent[d] ||
            blocks[pe].halo_lo[d] != blocks[0].halo_lo[d] ||
            blocks[pe].halo_hi[d] != blocks[0].halo_hi[d]) {
          fatal(
              "halo exchange of grid '%s': block %d is not PE %d's block of the process grid "
              "(or its halos differ from PE 0's)",
              name_.c_str(), pe, pe);
        }
      }
    }
  }

  std::string name_;
  int n_;
  int halo_lo_[N] = {}, halo_hi_[N] = {}, global_extent_[N] = {};
  std::vector<Plan> plans_;
  Sym<Plan> plan_memory_;
};

}  // namespace stencilc::rt::cuda
