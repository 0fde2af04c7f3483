// The device halo exchange cell by cell (the GPU counterpart of the host backend's halo tests):
// N = 1, 2 and 3 on 13 (x 7 (x 5)) grids, every process grid of the PE count that fits, periodic and
// fixed mixes, halos (1, 1), (2, 1) and one-sided (0, 2), corners on and off, and grids with
// enough blocks for every channel or only 2 blocks (channels run one after the other). Each of
// 6 epochs writes owned cells from a function of the global index and the epoch, exchanges, and
// checks every cell of the block: owned cells unchanged, halo cells with a source equal to the
// source's value, halo cells without one (fixed edges, corners when corners are off) still
// holding the poison the host wrote. Each configuration runs two ways: the exchange protocol
// (send, recv); and every cell through a FaceWriter of every send channel (the dataflow loop's
// face stores: the channels staged in shared memory first), then barrier_all.
//
//   halo_check --pes=1|2
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

// Faces are cut into pieces of 16 KiB, at most 16 (checked when this compiles, in CI too).
static_assert(HaloPlan<float, 2>::pieces_of(1) == 1 && HaloPlan<float, 2>::pieces_of(256) == 1);
static_assert(HaloPlan<float, 2>::pieces_of(4096) == 1 && HaloPlan<float, 2>::pieces_of(4097) == 2);
static_assert(HaloPlan<float, 2>::pieces_of(16384) == 4);                // a 16384^2 row
static_assert(HaloPlan<double, 3>::pieces_of(48 * 48) == 2);              // heat3d's test face
static_assert(HaloPlan<double, 3>::pieces_of(256 * 256) == 16);           // a 512 KiB plane
static_assert(HaloPlan<double, 3>::pieces_of(512 * 512) == HaloPlan<double, 3>::kMaxPieces);

namespace {

constexpr int kEpochs = 6;
constexpr double kPoison = -777.0;
enum Mode { kExchange = 0, kFaceWriter = 1 };
const char* const kModeName[] = {"exchange", "FaceWriter"};

template <class T, int N>
struct HaloArgs {
  DBlock<T, N> b;
  DHaloExchange<T, N> halo;
  bool periodic[N];
  bool corners;
  int first_block;
  int mode;  // Mode
  unsigned long long* errors;  // [0]: count; [1..]: the first error (local index, got, expected)
};

__host__ __device__ inline double cell_value(const int* g, int n, int epoch) {
  double v = epoch * 10000.0;
  const double weight[3] = {100.0, 10.0, 1.0};
  for (int d = 0; d < n; ++d) v += g[d] * weight[3 - n + d];
  return v;
}

template <class T, int N>
__global__ void halo_kernel(const __grid_constant__ DevicePe pe,
                            const __grid_constant__ HaloArgs<T, N> a) {
  const DBlock<T, N>& b = a.b;
  long total = 1, owned = 1;
  for (int d = 0; d < N; ++d) {
    total *= b.extent_with_halos(d);
    owned *= b.extent[d];
  }
  const long tid = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long threads = static_cast<long>(gridDim.x) * blockDim.x;
  const unsigned all_channels = (1u << a.halo.n_send) - 1u;
  __shared__ FaceChannel staged[kMaxFaceChannels];
  const FaceWriter<T, N> writer = face_writer(pe, a.halo, b, a.mode == kExchange ? 0u : all_channels, staged);
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    for (long i = tid; i < owned; i += threads) {
      int local[N], g[N];
      long rest = i;
      for (int d = N - 1; d >= 0; --d) {
        local[d] = static_cast<int>(rest % b.extent[d]);
        rest /= b.extent[d];
        g[d] = b.origin[d] + local[d];
      }
      long offset = 0;
      for (int d = 0; d < N; ++d) offset += local[d] * b.stride[d];
      const T value = static_cast<T>(cell_value(g, N, epoch));
      b.data[offset] = value;
      if (a.mode == kFaceWriter) writer.store(b, local, value);
    }
    if (a.mode == kExchange) {
      pe.grid_barrier();
      a.halo.send(pe, b, epoch, a.first_block);
      a.halo.recv(pe, b, epoch, a.first_block);
      pe.grid_barrier();
    } else {
      pe.barrier_all("halo_check: the stores into the halos");
    }
    for (long i = tid; i < total; i += threads) {
      int local[N], g[N];
      long rest = i;
      for (int d = N - 1; d >= 0; --d) {
        local[d] = static_cast<int>(rest % b.extent_with_halos(d)) - b.halo_lo[d];
        rest /= b.extent_with_halos(d);
      }
      bool source = true;
      int outside = 0;
      for (int d = 0; d < N; ++d) {
        g[d] = b.origin[d] + local[d];
        if (local[d] < 0 || local[d] >= b.extent[d]) ++outside;
        if (g[d] < 0 || g[d] >= b.global_extent[d]) {
          if (a.periodic[d]) {
            g[d] = (g[d] % b.global_extent[d] + b.global_extent[d]) % b.global_extent[d];
          } else {
            source = false;
          }
        }
      }
      if (outside >= 2 && !a.corners) source = false;
      const T expected = static_cast<T>(source ? cell_value(g, N, epoch) : kPoison);
      long offset = 0;
      for (int d = 0; d < N; ++d) offset += local[d] * b.stride[d];
      const T got = b.data[offset];
      if (got != expected) {
        if (atomicAdd(&a.errors[0], 1ULL) == 0) {
          for (int d = 0; d < N; ++d) a.errors[1 + d] = static_cast<unsigned long long>(local[d] + 1000);
          a.errors[4] = static_cast<unsigned long long>(static_cast<long long>(got));
          a.errors[5] = static_cast<unsigned long long>(static_cast<long long>(expected));
          a.errors[6] = static_cast<unsigned long long>(epoch);
        }
      }
    }
    // Every check is done before the next epoch rewrites the cells (FaceWriter: the neighbours'
    // halos too).
    if (a.mode == kExchange) pe.grid_barrier(); else pe.barrier_all("halo_check: the checks");
  }
}

std::vector<std::array<int, 3>> factorizations(int n, int rank) {
  std::vector<std::array<int, 3>> out;
  for (int a = 1; a <= n; ++a) {
    for (int b = 1; b <= n; ++b) {
      for (int c = 1; c <= n; ++c) {
        if (a * b * c != n) continue;
        if ((rank < 2 && b != 1) || (rank < 3 && c != 1)) continue;
        out.push_back({a, b, c});
      }
    }
  }
  return out;
}

template <class T, int N>
void run(P2PTeam& team, std::array<int, N> extent, std::array<int, N> lo, std::array<int, N> hi,
         std::array<bool, N> periodic, bool corners, int max_blocks, gputest::Checker& check,
         int* cases) {
  const int n = team.n();
  std::array<int, 3> e3{1, 1, 1}, lo3{0, 0, 0}, hi3{0, 0, 0};
  for (int d = 0; d < N; ++d) {
    e3[d] = extent[d];
    lo3[d] = lo[d];
    hi3[d] = hi[d];
  }
  for (const std::array<int, 3>& dims : factorizations(n, N)) {
    const std::string spec = format_dims(dims.data(), N, "x");
    std::string error;
    const std::optional<ProcessGrid> grid = choose_process_grid(n, N, e3, lo3, hi3, spec, &error);
    if (!grid) continue;  // too thin for this halo
    std::vector<DBlock<T, N>> blocks = alloc_blocks<T, N>(team, *grid, extent, lo, hi);
    HaloExchange<T, N> exchange(team, *grid, blocks, periodic, corners, "h");
    for (const int mode : {kExchange, kFaceWriter}) {
      Sym<unsigned long long> errors = team.alloc<unsigned long long>(8);
      for (int pe = 0; pe < n; ++pe) {
        std::vector<T> poison(static_cast<std::size_t>(blocks[pe].allocated()), static_cast<T>(kPoison));
        team.upload(pe, blocks[pe].data - blocks[pe].data_offset(), poison.data(), poison.size());
      }
      LaunchConfig config;
      config.block_threads = 128;
      config.blocks_per_sm = 1;
      config.max_blocks = max_blocks;
      const int first_block = max_blocks > 0 ? 1 : 3;
      team.launch_cooperative(
          halo_kernel<T, N>,
          [&](int pe) {
            HaloArgs<T, N> args{};
            args.b = blocks[pe];
            args.halo = exchange.device(pe);
            for (int d = 0; d < N; ++d) args.periodic[d] = periodic[d];
            args.corners = corners;
            args.first_block = first_block;
            args.mode = mode;
            args.errors = errors.on(pe);
            return std::make_tuple(team.device_pe(pe), args);
          },
          config);
      ++*cases;
      for (int pe = 0; pe < n; ++pe) {
        unsigned long long e[8];
        team.download(pe, e, errors.on(pe), 8);
        std::string where = "(";
        for (int d = 0; d < N; ++d) where += (d ? ", " : "") + std::to_string(static_cast<long long>(e[1 + d]) - 1000);
        where += ")";
        check.expect(e[0] == 0,
                     "%s: N=%d extent %s halos lo (%s) hi (%s) periodic (%s) corners %d grid %s "
                     "blocks %d: PE %d has %llu wrong cells; first %s at epoch %llu: %lld, "
                     "expected %lld",
                     kModeName[mode], N, format_dims(extent.data(), N).c_str(), format_dims(lo.data(), N, ", ").c_str(),
                     format_dims(hi.data(), N, ", ").c_str(),
                     [&] {
                       std::string p;
                       for (int d = 0; d < N; ++d) p += periodic[d] ? "P" : "F";
                       return p;
                     }().c_str(),
                     corners, spec.c_str(), max_blocks, pe, e[0], where.c_str(), e[6],
                     static_cast<long long>(e[4]), static_cast<long long>(e[5]));
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  P2PTeam team(n);
  gputest::Checker check;
  int cases = 0;
  for (int h = 0; h < 3; ++h) {
    const std::array<int, 3> lo1{1, 2, 0}, hi1{1, 1, 2};
    for (int periodic = 0; periodic < 2; ++periodic) {
      run<float, 1>(team, {13}, {lo1[h]}, {hi1[h]}, {periodic != 0}, false, 0, check, &cases);
    }
  }
  const std::array<std::array<int, 2>, 3> lo2{{{1, 1}, {2, 1}, {0, 1}}};
  const std::array<std::array<int, 2>, 3> hi2{{{1, 1}, {1, 2}, {2, 1}}};
  const std::array<std::array<bool, 2>, 3> periodic2{{{true, false}, {false, true}, {true, true}}};
  for (int h = 0; h < 3; ++h) {
    for (const auto& periodic : periodic2) {
      for (int corners = 0; corners < 2; ++corners) {
        run<float, 2>(team, {13, 7}, lo2[h], hi2[h], periodic, corners != 0, 0, check, &cases);
      }
    }
  }
  // Two blocks only: every block runs several channels in turn.
  run<float, 2>(team, {13, 7}, {1, 1}, {1, 1}, {true, true}, true, 2, check, &cases);
  const std::array<std::array<int, 3>, 2> lo3{{{1, 1, 1}, {2, 0, 1}}};
  const std::array<std::array<int, 3>, 2> hi3{{{1, 1, 1}, {1, 2, 1}}};
  const std::array<std::array<bool, 3>, 2> periodic3{{{true, false, true}, {false, true, false}}};
  for (int h = 0; h < 2; ++h) {
    for (const auto& periodic : periodic3) {
      for (int corners = 0; corners < 2; ++corners) {
        run<double, 3>(team, {13, 7, 5}, lo3[h], hi3[h], periodic, corners != 0, 0, check, &cases);
      }
    }
  }
  run<double, 3>(team, {13, 7, 5}, {1, 1, 1}, {1, 1, 1}, {true, true, true}, true, 2, check,
                 &cases);
  std::printf("  %d configurations (exchange, FaceWriter) x %d epochs, every cell checked\n", cases, kEpochs);
  char name[64];
  std::snprintf(name, sizeof name, "halo_check (%d GPU%s)", n, n > 1 ? "s" : "");
  return gputest::finish(name, check);
}
