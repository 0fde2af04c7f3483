// Test: the register-resident form's loop (regs.cuh), the runtime the compiler's third form of a
// 2-D loop will call. Two problems, each on uneven sizes, odd and even step counts, and several
// block counts, compared bit for bit with a serial reference (no contraction in the updates:
// sums, then one multiply), both grids (the last step's values and the step's before):
//   - jacobi: float, 5 points, dimension 0 periodic across the PEs (a ring: the first block of
//     PE 0 takes its row from the last block of the last PE, itself on one PE), dimension 1 with
//     fixed boundary cells inside the extent (columns 0 and cols - 1 not updated), no halo columns;
//   - box9: double, 9 points (corners read), dimension 0 fixed (rows 0 and rows - 1 not updated:
//     the PEs at the ends have no neighbour there), halo columns of fixed values read by the
//     columns' ends.
// Then a contract violation (the fixed cells differ between the two grids): status 2 and a
// message, checked by run.sh.
//
//   regs --pes=N [--mode=check|differ|perf]   (perf: us a step at the PERKS target's shape, 2048^2, 256^2)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "stencilc/runtime/cuda/regs.cuh"
#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

constexpr int kVec = 4, kRmax = 8, kThreads = 64;  // up to 256 columns, 8 rows a block

template <class T>
struct Args {
  DBlock<T, 2> a, b;
  RegsArgs<T> regs;
  int steps;
};

template <class T>
struct JacobiUpdate {
  __device__ T operator()(const T (&w)[3][kVec + 2], int c, int, int) const {
    return T(0.25) * (((w[0][c + 1] + w[2][c + 1]) + w[1][c]) + w[1][c + 2]);
  }
};
template <class T>
struct Box9Update {
  __device__ T operator()(const T (&w)[3][kVec + 2], int c, int, int) const {
    const T edges = ((w[0][c + 1] + w[2][c + 1]) + w[1][c]) + w[1][c + 2];
    const T corners = ((w[0][c] + w[0][c + 2]) + w[2][c]) + w[2][c + 2];
    return T(0.1) * ((edges + corners) + w[1][c + 1]);
  }
};

template <class T, class Update>
__global__ void __launch_bounds__(kThreads, 1) regs_kernel(const __grid_constant__ DevicePe pe, const __grid_constant__ Args<T> args) {
  extern __shared__ __align__(16) unsigned char smem[];
  regs_loop<kVec, kRmax>(pe, args.regs, args.a, args.b, args.steps, smem, Update{}, "regs test");
}

// --mode=perf: the PERKS target's shape (one GPU's share of jacobi2d 2048^2 on two: 1024 x 2048
// fp32), 512 threads of 4 columns, 8 rows a block at most.
constexpr int kPerfThreads = 512, kPerfVec = 4, kPerfRmax = 8;
struct PerfUpdate {
  __device__ float operator()(const float (&w)[3][kPerfVec + 2], int c, int, int) const {
    return 0.25f * (((w[0][c + 1] + w[2][c + 1]) + w[1][c]) + w[1][c + 2]);
  }
};
__global__ void __launch_bounds__(kPerfThreads, 1) regs_perf_kernel(const __grid_constant__ DevicePe pe,
                                                                    const __grid_constant__ Args<float> args) {
  extern __shared__ __align__(16) unsigned char smem[];
  regs_loop<kPerfVec, kPerfRmax>(pe, args.regs, args.a, args.b, args.steps, smem, PerfUpdate{}, "regs perf");
}

// Microseconds a step of regs_perf_kernel on `n` PEs for rows x cols (a periodic ring, fixed
// columns 0 and cols - 1): the kernel time of two step counts (launch and setup cancel), median of 5.
double perf(int n, int rows, int cols) {
  P2PTeam team(n);
  ProcessGrid grid;
  grid.rank = 2;
  grid.dims = {n, 1, 1};
  std::vector<DBlock<float, 2>> a = alloc_blocks<float, 2>(team, grid, {rows, cols}, {1, 0}, {1, 0});
  std::vector<DBlock<float, 2>> b = alloc_blocks<float, 2>(team, grid, {rows, cols}, {1, 0}, {1, 0});
  LaunchConfig config;
  config.block_threads = kPerfThreads;
  config.dynamic_smem = regs_smem_bytes<float>(kPerfRmax, kPerfThreads, kPerfVec);
  const int max_rows = (rows + n - 1) / n;
  int blocks = (max_rows + kPerfRmax - 1) / kPerfRmax;
  const int resident = team.cooperative_blocks(0, regs_perf_kernel, config);
  if (blocks > resident || !regs_fits(max_rows, cols, blocks, kPerfThreads, kPerfVec, kPerfRmax)) {
    fatal("regs perf: %d x %d does not fit on %d resident blocks", rows, cols, resident);
  }
  config.max_blocks = blocks;
  Sym<float> inbox = team.alloc<float>(regs_inbox_elements(blocks, regs_pitch(cols, kPerfVec, sizeof(float))));
  Sym<std::uint64_t> flags = team.alloc<std::uint64_t>(regs_flag_words(blocks));
  auto time = [&](int steps) {
    for (int pe = 0; pe < n; ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(team.device(pe)));
      STENCILC_CUDA_CHECK(cudaMemset(flags.on(pe), 0, regs_flag_words(blocks) * sizeof(std::uint64_t)));
    }
    return team.launch_cooperative(
        regs_perf_kernel,
        [&](int pe) {
          Args<float> args{};
          args.a = a[pe];
          args.b = b[pe];
          args.steps = steps;
          args.regs = regs_args<kPerfVec>(inbox.on(pe), flags.on(pe), pe, n, blocks, a[pe], true, 0, rows, 1, cols - 1);
          return std::make_tuple(team.device_pe(pe), args);
        },
        config).kernel_ms;
  };
  std::vector<double> per_step;
  const int lo = 1000, hi = 11000;
  for (int k = 0; k < 5; ++k) per_step.push_back((time(hi) - time(lo)) * 1000.0 / (hi - lo));
  std::sort(per_step.begin(), per_step.end());
  std::printf("  perf regs %dx%d fp32 on %d PE%s, %d blocks of %d threads: %.2f us/step (median of 5)\n", rows, cols, n,
              n > 1 ? "s" : "", blocks, kPerfThreads, per_step[2]);
  return per_step[2];
}

// The serial reference: b(i, j) = f(a around (i, j)) on the update box, swap, `steps` times.
template <class T, class F>
void reference(std::vector<T>& a, std::vector<T>& b, int rows, int cols, int pitch, int halo, bool periodic, int steps, F f) {
  auto at = [&](std::vector<T>& g, int i, int j) -> T& {
    if (periodic) i = (i + rows) % rows;
    return g[static_cast<std::size_t>(i + 1) * pitch + (j + halo)];  // a halo of one row, `halo` columns
  };
  const int row_lo = periodic ? 0 : 1, row_hi = periodic ? rows : rows - 1;
  const int col_lo = halo > 0 ? 0 : 1, col_hi = halo > 0 ? cols : cols - 1;
  for (int s = 0; s < steps; ++s) {
    for (int i = row_lo; i < row_hi; ++i) {
      for (int j = col_lo; j < col_hi; ++j) {
        T w[3][3];
        for (int di = -1; di <= 1; ++di)
          for (int dj = -1; dj <= 1; ++dj) w[di + 1][dj + 1] = at(a, i + di, j + dj);
        at(b, i, j) = f(w);
      }
    }
    a.swap(b);
  }
}

template <class T>
T initial(int i, int j, int salt) {
  const std::uint32_t h = gputest::hash32(static_cast<std::uint32_t>(i * 7919 + j * 104729 + salt));
  return static_cast<T>(h % 100000) / T(1000) - T(50);
}

enum class Problem { Jacobi, Box9 };

template <class T, class Update, class F>
void run(int n, Problem problem, int rows, int cols, int steps, int max_blocks, bool differ, gputest::Checker& check, F f) {
  const bool periodic = problem == Problem::Jacobi;
  const int halo_c = problem == Problem::Box9 ? 1 : 0;
  const std::string label = format("%s %dx%d, %d steps, %s blocks, %d PE%s", periodic ? "jacobi" : "box9", rows, cols,
                                   steps, max_blocks > 0 ? std::to_string(max_blocks).c_str() : "most", n, n > 1 ? "s" : "");
  P2PTeam team(n);
  ProcessGrid grid;
  grid.rank = 2;
  grid.dims = {n, 1, 1};
  std::vector<DBlock<T, 2>> a = alloc_blocks<T, 2>(team, grid, {rows, cols}, {1, halo_c}, {1, halo_c});
  std::vector<DBlock<T, 2>> b = alloc_blocks<T, 2>(team, grid, {rows, cols}, {1, halo_c}, {1, halo_c});
  // Whole global grids with a halo of 1 row and halo_c columns (rows' halos NaN in the periodic
  // case: the form must never read them), the same fixed cells in both, different update cells.
  const int gp = cols + 2 * halo_c, grows = rows + 2;
  std::vector<T> ga(static_cast<std::size_t>(grows) * gp), gb(ga.size());
  for (int i = -1; i <= rows; ++i) {
    for (int j = -halo_c; j < cols + halo_c; ++j) {
      const bool fixed_cell = i < 0 || i >= rows || j < 0 || j >= cols || (!periodic && (i == 0 || i == rows - 1)) ||
                              (halo_c == 0 && (j == 0 || j == cols - 1));
      T x = initial<T>(i, j, 1), y = fixed_cell ? x : initial<T>(i, j, 2);
      if (periodic && (i < 0 || i >= rows)) x = y = std::nan("");
      if (differ && i == rows / 2 && j == (halo_c ? -1 : 0)) y = x + T(1);
      ga[static_cast<std::size_t>(i + 1) * gp + j + halo_c] = x;
      gb[static_cast<std::size_t>(i + 1) * gp + j + halo_c] = y;
    }
  }
  auto upload = [&](const DBlock<T, 2>& blk, int pe, const std::vector<T>& g) {
    std::vector<T> host(static_cast<std::size_t>(blk.allocated()), T(0));
    for (int i = -1; i <= blk.extent[0]; ++i)
      for (int j = -halo_c; j < cols + halo_c; ++j)
        host[blk.data_offset() + i * blk.stride[0] + j] = g[static_cast<std::size_t>(blk.origin[0] + i + 1) * gp + j + halo_c];
    team.upload(pe, blk.data - blk.data_offset(), host.data(), host.size());
  };
  for (int pe = 0; pe < n; ++pe) upload(a[pe], pe, ga), upload(b[pe], pe, gb);

  // Blocks: the same on every PE, rows / RMAX at least, the PE with the fewest rows at most.
  const int min_rows = rows / n, max_rows = (rows + n - 1) / n;
  LaunchConfig config;
  config.block_threads = kThreads;
  config.dynamic_smem = regs_smem_bytes<T>(kRmax, kThreads, kVec);
  int blocks = max_blocks > 0 ? max_blocks : min_rows;
  for (int pe = 0; pe < n; ++pe) blocks = std::min(blocks, team.cooperative_blocks(pe, regs_kernel<T, Update>, config));
  if (!regs_fits(max_rows, cols, blocks, kThreads, kVec, kRmax) || !regs_fits(min_rows, cols, blocks, kThreads, kVec, kRmax)) {
    check.expect(false, "%s: does not fit on %d blocks", label.c_str(), blocks);
    return;
  }
  config.max_blocks = blocks;
  Sym<T> inbox = team.alloc<T>(regs_inbox_elements(blocks, regs_pitch(cols, kVec, sizeof(T))));
  Sym<std::uint64_t> flags = team.alloc<std::uint64_t>(regs_flag_words(blocks));
  team.launch_cooperative(
      regs_kernel<T, Update>,
      [&](int pe) {
        Args<T> args{};
        args.a = a[pe];
        args.b = b[pe];
        args.steps = steps;
        args.regs = regs_args<kVec>(inbox.on(pe), flags.on(pe), pe, n, blocks, a[pe], periodic, periodic ? 0 : 1,
                              periodic ? rows : rows - 1, halo_c ? 0 : 1, halo_c ? cols : cols - 1);
        return std::make_tuple(team.device_pe(pe), args);
      },
      config);

  reference(ga, gb, rows, cols, gp, halo_c, periodic, steps, f);
  // After the swaps ga holds the last step's values and gb the step's before; on the device the
  // grid names followed `steps` swaps too: the last values in b when steps is odd.
  int wrong = 0;
  for (int pe = 0; pe < n; ++pe) {
    for (int which = 0; which < 2; ++which) {
      const DBlock<T, 2>& blk = ((steps % 2 == 1) == (which == 0) ? b : a)[pe];
      const std::vector<T>& want = which == 0 ? ga : gb;
      const std::vector<T> cells = gputest::owned_cells(team, pe, blk);
      for (int i = 0; i < blk.extent[0]; ++i) {
        for (int j = 0; j < cols; ++j) {
          const int gi = blk.origin[0] + i;
          const T got = cells[static_cast<std::size_t>(i) * cols + j];
          const T exp = want[static_cast<std::size_t>(gi + 1) * gp + j + halo_c];
          if (std::memcmp(&got, &exp, sizeof got) != 0 && wrong++ < 10) {
            check.expect(false, "%s: PE %d, %s grid, cell (%d, %d) is %.17g, expected %.17g", label.c_str(), pe,
                         which == 0 ? "last" : "previous", gi, j, static_cast<double>(got), static_cast<double>(exp));
          }
        }
      }
    }
  }
  check.expect(wrong == 0, "%s: %d wrong cells", label.c_str(), wrong);
  std::printf("  %-60s %s (%d blocks a PE)\n", label.c_str(), wrong == 0 ? "ok" : "FAILED", blocks);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 1);
  const std::string mode = gputest::arg(argc, argv, "--mode", "check");
  gputest::Checker check;
  auto jacobi = [](const float (&w)[3][3]) { return 0.25f * (((w[0][1] + w[2][1]) + w[1][0]) + w[1][2]); };
  auto box9 = [](const double (&w)[3][3]) {
    const double edges = ((w[0][1] + w[2][1]) + w[1][0]) + w[1][2];
    const double corners = ((w[0][0] + w[0][2]) + w[2][0]) + w[2][2];
    return 0.1 * ((edges + corners) + w[1][1]);
  };
  if (mode == "perf") {
    perf(n, 1024, 2048);
    perf(n, 512, 2048);
    perf(n, 256, 256);
    return 0;
  }
  if (mode == "differ") {  // must stop with status 2 and a message
    run<double, Box9Update<double>>(n, Problem::Box9, 61, 37, 4, 0, true, check, box9);
    return gputest::finish("regs differ (should not get here)", check);
  }
  for (int steps : {7, 10}) {
    run<float, JacobiUpdate<float>>(n, Problem::Jacobi, 203, 157, steps, 0, false, check, jacobi);
    run<float, JacobiUpdate<float>>(n, Problem::Jacobi, 203, 157, steps, ((203 + n - 1) / n + kRmax - 1) / kRmax + 1, false, check, jacobi);
    run<float, JacobiUpdate<float>>(n, Problem::Jacobi, 37 * n + 3, 250, steps, 0, false, check, jacobi);
    run<double, Box9Update<double>>(n, Problem::Box9, 130, 61, steps, 0, false, check, box9);
    run<double, Box9Update<double>>(n, Problem::Box9, 130, 61, steps, ((130 + n - 1) / n + kRmax - 1) / kRmax, false, check, box9);
  }
  char name[64];
  std::snprintf(name, sizeof name, "regs (%d PE%s)", n, n > 1 ? "s" : "");
  return gputest::finish(name, check);
}
