// The lowered `exchange` of one grid: every PE sends the layers of its owned block that its
// neighbours' halos need and receives its own halos, through double-buffered symmetric slots,
// a data-ready signal per direction on the receiver and an ack signal per direction on the
// sender. docs/RUNTIME.md describes the protocol and why it is safe.
//
// Generated code makes one HaloExchange per exchanged grid (collectively, before the time loop)
// and calls send(epoch) then recv(epoch) with epochs 1, 2, 3, ... The same code runs on every
// backend: the calls below are sym_alloc, put_signal, wait_until and signal_set.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "stencilc/runtime/block.hpp"
#include "stencilc/runtime/common.hpp"
#include "stencilc/runtime/decomposition.hpp"
#include "stencilc/runtime/host.hpp"

namespace stencilc::rt {

template <class T, int N>
class HaloExchange {
 public:
  using Dir = std::array<int, N>;

  // Collective. `layout` is this PE's block (or any block with its layout: swapped buffers
  // share it). `corners`: also exchange diagonal directions (stencils that read them).
  HaloExchange(Pe& pe, const ProcessGrid& grid, const Block<T, N>& layout,
               std::array<bool, N> periodic, bool corners, const char* name)
      : name_(name != nullptr ? name : "?"),
        extent_(layout.extent),
        halo_lo_(layout.halo_lo),
        halo_hi_(layout.halo_hi) {
    check_layout(pe, grid, layout);
    std::size_t slot_elements = 0;
    for (int code = 0; code < kCodes; ++code) {
      slot_offset_[code] = slot_elements;
      const Dir dir = dir_of(code);
      slot_size_[code] = exchanged(dir, corners) ? largest_face(grid, layout, dir) : 0;
      slot_elements += 2 * slot_size_[code];
    }
    std::array<bool, 3> periodic3{false, false, false};
    for (int d = 0; d < N; ++d) periodic3[d] = periodic[d];
    for (int code = 0; code < kCodes; ++code) {
      const Dir dir = dir_of(code);
      const int peer = neighbor(grid, pe.id(), dir3(dir), periodic3);
      if (peer < 0) continue;
      // I receive from dir if my halo on side dir is exchanged; I send towards dir if the
      // neighbour there receives from -dir (they differ when halo_lo != halo_hi).
      if (exchanged(dir, corners)) recvs_.push_back(make_channel(pe, dir, peer, false));
      if (exchanged(dir_of(opposite(code)), corners)) {
        sends_.push_back(make_channel(pe, dir, peer, true));
      }
    }
    slots_ = pe.sym_alloc_array<T>(slot_elements);
    signals_ = pe.sym_alloc_array<std::uint64_t>(2 * kCodes);
  }

  // Sends epoch `epoch` (1, 2, 3, ...) of my owned cells to every neighbour. Waits, per
  // direction, until the neighbour has unpacked epoch - 2, whose slot this one reuses.
  void send(Pe& pe, const Block<T, N>& block, std::uint64_t epoch) {
    check_epoch(pe, block, epoch, &last_send_, "send");
    for (const Channel& channel : sends_) {
      const int theirs = opposite(channel.code);  // my send direction, as the receiver sees it
      if (epoch > 2) {
        pe.wait_until(&signals_[kAck + channel.code], Cmp::GE, epoch - 2, channel.what.c_str());
      }
      staging_.resize(channel.elements);
      T* out = staging_.data();
      for_rows(block, channel, [&](const T* row, int length) {
        std::memcpy(out, row, sizeof(T) * static_cast<std::size_t>(length));
        out += length;
      });
      pe.put_signal(slot(theirs, epoch), staging_.data(), sizeof(T) * channel.elements,
                    &signals_[kReady + theirs], epoch, channel.peer);
    }
  }

  // Receives epoch `epoch` into my halos, then tells each neighbour its slot is free again.
  void recv(Pe& pe, Block<T, N>& block, std::uint64_t epoch) {
    check_epoch(pe, block, epoch, &last_recv_, "recv");
    for (const Channel& channel : recvs_) {
      pe.wait_until(&signals_[kReady + channel.code], Cmp::GE, epoch, channel.what.c_str());
      const T* in = slot(channel.code, epoch);
      for_rows(block, channel, [&](T* row, int length) {
        std::memcpy(row, in, sizeof(T) * static_cast<std::size_t>(length));
        in += length;
      });
      pe.signal_set(&signals_[kAck + opposite(channel.code)], epoch, channel.peer);
    }
  }

  HaloExchange(const HaloExchange&) = delete;  // one epoch count per set of symmetric slots
  HaloExchange& operator=(const HaloExchange&) = delete;
  HaloExchange(HaloExchange&&) = default;
  HaloExchange& operator=(HaloExchange&&) = default;

  // The directions this PE receives halos from and sends faces towards (with a neighbour there).
  std::vector<Dir> recv_directions() const { return directions_of(recvs_); }
  std::vector<Dir> send_directions() const { return directions_of(sends_); }

 private:
  static constexpr int kCodes = N == 1 ? 3 : N == 2 ? 9 : 27;  // 3^N directions, 0 included
  static constexpr int kReady = 0;                             // signals_[kReady + code]
  static constexpr int kAck = kCodes;                          // signals_[kAck + code]

  // One direction with a neighbour: the box of my block that is sent (owned cells) or
  // received (halo cells), in local indices.
  struct Channel {
    Dir dir;
    int code;
    int peer;
    std::array<int, N> lo, hi;
    std::string what;  // the wait, for timeout reports
    std::size_t elements;
  };

  static std::vector<Dir> directions_of(const std::vector<Channel>& channels) {
    std::vector<Dir> dirs;
    for (const Channel& channel : channels) dirs.push_back(channel.dir);
    return dirs;
  }
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
  static int opposite(int code) { return kCodes - 1 - code; }
  static std::array<int, 3> dir3(const Dir& dir) {
    std::array<int, 3> out{0, 0, 0};
    for (int d = 0; d < N; ++d) out[d] = dir[d];
    return out;
  }
  static std::string format_dir(const Dir& dir) {
    std::string text = "(";
    for (int d = 0; d < N; ++d) {
      if (d > 0) text += ", ";
      text += dir[d] > 0 ? "+1" : dir[d] < 0 ? "-1" : "0";
    }
    return text + ")";
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

  // Halo cells from direction dir (receive), or my owned cells the PE at +dir needs in its halo
  // on side -dir (send: towards +1 my top halo_lo layers, towards -1 my bottom halo_hi layers).
  Channel make_channel(Pe& pe, const Dir& dir, int peer, bool sending) const {
    Channel channel{dir, code_of(dir), peer, {}, {}, std::string(), 1};
    for (int d = 0; d < N; ++d) {
      int& lo = channel.lo[d];
      int& hi = channel.hi[d];
      if (dir[d] == 0) {
        lo = 0;
        hi = extent_[d];
      } else if (sending) {
        const int layers = dir[d] > 0 ? halo_lo_[d] : halo_hi_[d];
        check_thick_enough(pe, d, layers, peer);
        lo = dir[d] > 0 ? extent_[d] - layers : 0;
        hi = dir[d] > 0 ? extent_[d] : layers;
      } else {
        lo = dir[d] < 0 ? -halo_lo_[d] : extent_[d];
        hi = dir[d] < 0 ? 0 : extent_[d] + halo_hi_[d];
      }
      channel.elements *= static_cast<std::size_t>(hi - lo);
    }
    const char* name = name_.c_str();
    const std::string direction = format_dir(dir);
    if (sending) {
      channel.what = format("PE %d to unpack the previous halo of grid '%s' sent in direction %s",
                            peer, name, direction.c_str());
      // My face towards dir is the neighbour's face from -dir: the slot was sized for it.
      if (channel.elements > slot_size_[opposite(channel.code)]) {
        fatal("halo exchange of grid '%s': internal error: face of %zu elements, slot of %zu", name,
              channel.elements, slot_size_[opposite(channel.code)]);
      }
    } else {
      channel.what =
          format("the halo of grid '%s' from PE %d, direction %s", name, peer, direction.c_str());
    }
    return channel;
  }

  // The largest face from direction dir over all PEs: the slot size (one size on every PE).
  std::size_t largest_face(const ProcessGrid& grid, const Block<T, N>& layout,
                           const Dir& dir) const {
    std::size_t largest = 0;
    for (int pe = 0; pe < grid.size(); ++pe) {
      const BlockLayout<N> theirs = block_layout<N>(grid, pe, layout.global_extent);
      std::size_t face = 1;
      for (int d = 0; d < N; ++d) {
        face *= static_cast<std::size_t>(dir[d] < 0   ? halo_lo_[d]
                                         : dir[d] > 0 ? halo_hi_[d]
                                                      : theirs.extent[d]);
      }
      largest = face > largest ? face : largest;
    }
    return largest;
  }

  T* slot(int code, std::uint64_t epoch) {
    return slots_ + slot_offset_[code] + (epoch % 2) * slot_size_[code];
  }

  // Calls row(pointer, length) for each row (last dimension, contiguous) of the channel's box.
  template <class Pointer, class Row>
  static void for_rows_of(Pointer data, const std::array<long, N>& stride, const Channel& channel,
                          Row&& row) {
    std::array<int, 3> lo{0, 0, 0}, hi{1, 1, 1};
    std::array<long, 3> step{0, 0, 0};
    for (int d = 0; d < N; ++d) {  // as a 3-D box whose leading dimensions are 1 thick
      lo[3 - N + d] = channel.lo[d];
      hi[3 - N + d] = channel.hi[d];
      step[3 - N + d] = stride[d];
    }
    const int length = hi[2] - lo[2];
    if (length <= 0) return;
    for (int i = lo[0]; i < hi[0]; ++i) {
      for (int j = lo[1]; j < hi[1]; ++j) {
        row(data + i * step[0] + j * step[1] + lo[2] * step[2], length);
      }
    }
  }
  template <class Row>
  static void for_rows(const Block<T, N>& block, const Channel& channel, Row&& row) {
    for_rows_of(block.data, block.stride, channel, row);
  }

  void check_layout(Pe& pe, const ProcessGrid& grid, const Block<T, N>& layout) const {
    if (grid.size() != pe.n() || grid.rank != N) {
      fatal("halo exchange of grid '%s': a %s process grid does not fit %d PEs and %d dimensions",
            name_.c_str(), format_dims(grid.dims.data(), grid.rank).c_str(), pe.n(), N);
    }
    const BlockLayout<N> mine = block_layout<N>(grid, pe.id(), layout.global_extent);
    if (mine.extent != layout.extent || mine.origin != layout.origin) {
      fatal(
          "halo exchange of grid '%s' on PE %d: the block is not this PE's block of the "
          "process grid",
          name_.c_str(), pe.id());
    }
  }

  void check_thick_enough(Pe& pe, int d, int layers, int peer) const {
    if (layers <= extent_[d]) return;
    fatal(
        "halo exchange of grid '%s': PE %d's block is %d thick in dimension %d but must supply "
        "%d halo layers to PE %d; use fewer PEs or another decomposition",
        name_.c_str(), pe.id(), extent_[d], d, layers, peer);
  }

  // Generated code counts epochs 1, 2, 3, ... per grid; anything else breaks the slot protocol.
  void check_epoch(Pe& pe, const Block<T, N>& block, std::uint64_t epoch, std::uint64_t* last,
                   const char* operation) const {
    if (epoch != *last + 1) {
      fatal(
          "halo exchange of grid '%s' on PE %d: %s of epoch %llu after epoch %llu (epochs "
          "count 1, 2, 3, ...)",
          name_.c_str(), pe.id(), operation, static_cast<unsigned long long>(epoch),
          static_cast<unsigned long long>(*last));
    }
    if (block.extent != extent_ || block.halo_lo != halo_lo_ || block.halo_hi != halo_hi_) {
      fatal("halo exchange of grid '%s' on PE %d: %s of a block with another layout", name_.c_str(),
            pe.id(), operation);
    }
    *last = epoch;
  }

  std::string name_;
  std::array<int, N> extent_, halo_lo_, halo_hi_;
  std::vector<Channel> sends_, recvs_;
  std::array<std::size_t, kCodes> slot_offset_{}, slot_size_{};
  T* slots_ = nullptr;                // symmetric: per code, two slots of slot_size_[code]
  std::uint64_t* signals_ = nullptr;  // symmetric: data-ready and ack per code
  std::vector<T> staging_;            // one face, packed for put_signal
  std::uint64_t last_send_ = 0, last_recv_ = 0;
};

}  // namespace stencilc::rt
