// Test 2: a persistent-kernel Jacobi 2-D, hand-written against the device API the generated code
// will use: one cooperative kernel per GPU runs the whole time loop; per step a point update of
// the owned cells, a grid barrier, the halo exchange (HaloExchange), the max |a_new - a| through
// a block reduction and allreduce (whose grid barriers publish the halos), and a swap of the two
// block pointers. Dimension 0 is fixed (rows 0 and R-1 are Dirichlet data), dimension 1 periodic.
// The size is uneven (203 x 157). Halos start as NaN: only the exchange may fill them. The
// result and the max-delta of every step are compared bit for bit with a serial CPU reference
// (the update has no contraction opportunity, so float arithmetic matches exactly).
//
// Then timings: microseconds per step (the GPU's global timer around the loop) for a few sizes.
//
//   jacobi2d --pes=1|2 [--perf=0]
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

struct JacobiArgs {
  DBlock<float, 2> a, b;
  DHaloExchange<float, 2> halo;
  float* partial;               // per block of this GPU
  float* deltas;                // [iters]: max |a_new - a| over the whole grid, per step
  int iters;
  int row_lo, row_hi;           // local rows this PE updates (Dirichlet rows excluded)
  int norm_every;               // 0: no reduction; k: every k-th step
  unsigned long long* clock;    // start, end of the time loop
};

__global__ void jacobi_kernel(const __grid_constant__ DevicePe pe,
                              const __grid_constant__ JacobiArgs args) {
  __shared__ float block_max[32];
  DBlock<float, 2> a = args.a, b = args.b;
  const int cols = a.extent[1];
  const long points = static_cast<long>(args.row_hi - args.row_lo) * cols;
  const long first = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  // The halos of the initial state (epoch 1); the steps are epochs 2, 3, ...
  args.halo.exchange(pe, a, 1);
  pe.grid_barrier();
  if (is_leader()) args.clock[0] = global_timer_ns();
  for (int t = 0; t < args.iters; ++t) {
    float local = 0.0f;
    for (long p = first; p < points; p += stride) {
      const int i = args.row_lo + static_cast<int>(p / cols);
      const int j = static_cast<int>(p % cols);
      const float v = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
      b(i, j) = v;
      local = fmaxf(local, fabsf(v - a(i, j)));
    }
    const bool norm = args.norm_every > 0 && (t + 1) % args.norm_every == 0;
    if (norm) {
      for (int offset = 16; offset > 0; offset /= 2) {
        local = fmaxf(local, __shfl_down_sync(0xffffffffu, local, offset));
      }
      if (threadIdx.x % 32 == 0) block_max[threadIdx.x / 32] = local;
      __syncthreads();
      if (threadIdx.x == 0) {
        float m = 0.0f;
        for (int w = 0; w < static_cast<int>(blockDim.x + 31) / 32; ++w) m = fmaxf(m, block_max[w]);
        args.partial[blockIdx.x] = m;
      }
    }
    pe.grid_barrier();                   // b's owned cells are written
    args.halo.exchange(pe, b, t + 2);    // designated blocks send and receive
    if (norm) {
      float m = 0.0f;
      if (is_leader()) {
        for (int k = 0; k < static_cast<int>(gridDim.x); ++k) m = fmaxf(m, args.partial[k]);
      }
      m = pe.allreduce(m, ReduceOp::Max);  // its grid barriers also publish the halos
      if (is_leader()) args.deltas[t] = m;
    } else {
      pe.grid_barrier();                   // b's halos are visible to every block
    }
    swap(a, b);
  }
  if (is_leader()) args.clock[1] = global_timer_ns();
}

float initial(int i, int j, int rows) {
  if (i == 0) return 1.0f + 0.001f * j;              // Dirichlet rows
  if (i == rows - 1) return -0.5f + 0.002f * (j % 13);
  return static_cast<float>(gputest::hash32(static_cast<std::uint32_t>(i * 7919 + j)) % 100000) /
         100000.0f;
}

// The serial reference: same expression, same order.
void reference(std::vector<float>& a, int rows, int cols, int iters, std::vector<float>* deltas) {
  std::vector<float> b = a;
  for (int t = 0; t < iters; ++t) {
    float m = 0.0f;
    for (int i = 1; i < rows - 1; ++i) {
      for (int j = 0; j < cols; ++j) {
        const float v = 0.25f * (a[i * cols + (j + 1) % cols] + a[i * cols + (j + cols - 1) % cols] +
                                 a[(i + 1) * cols + j] + a[(i - 1) * cols + j]);
        b[i * cols + j] = v;
        m = std::fmax(m, std::fabs(v - a[i * cols + j]));
      }
    }
    (*deltas)[t] = m;
    a.swap(b);
  }
}

struct Run {
  double us_per_step = 0;
  int blocks = 0;
  std::string grid;
};

// One run on a fresh team. With `check`, compares with the reference.
Run run(int n, int rows, int cols, int iters, const char* decomp, int norm_every,
        const LaunchConfig& config, bool check_result, gputest::Checker& check,
        const std::string& label) {
  P2PTeam team(n);
  std::string error;
  const std::optional<ProcessGrid> grid =
      choose_process_grid(n, 2, {rows, cols, 1}, {1, 1, 0}, {1, 1, 0}, decomp, &error);
  if (!grid) fatal("%s", error.c_str());
  std::vector<DBlock<float, 2>> a = alloc_blocks<float, 2>(team, *grid, {rows, cols}, {1, 1}, {1, 1});
  std::vector<DBlock<float, 2>> b = alloc_blocks<float, 2>(team, *grid, {rows, cols}, {1, 1}, {1, 1});
  HaloExchange<float, 2> halo(team, *grid, a, {false, true}, false, "a");
  Sym<float> partial = team.alloc<float>(1 << 16);
  Sym<float> deltas = team.alloc<float>(static_cast<std::size_t>(iters));
  Sym<unsigned long long> clock = team.alloc<unsigned long long>(2);
  for (int pe = 0; pe < n; ++pe) {
    // Owned cells from the initial state, halos NaN (both buffers: b's Dirichlet rows too).
    const DBlock<float, 2>& blk = a[pe];
    std::vector<float> host(static_cast<std::size_t>(blk.allocated()), std::nanf(""));
    for (int i = 0; i < blk.extent[0]; ++i) {
      for (int j = 0; j < blk.extent[1]; ++j) {
        host[blk.data_offset() + i * blk.stride[0] + j] = initial(blk.origin[0] + i, blk.origin[1] + j, rows);
      }
    }
    team.upload(pe, a[pe].data - a[pe].data_offset(), host.data(), host.size());
    team.upload(pe, b[pe].data - b[pe].data_offset(), host.data(), host.size());
  }
  const LaunchResult launched = team.launch_cooperative(
      jacobi_kernel,
      [&](int pe) {
        JacobiArgs args{};
        args.a = a[pe];
        args.b = b[pe];
        args.halo = halo.device(pe);
        args.partial = partial.on(pe);
        args.deltas = deltas.on(pe);
        args.iters = iters;
        const int top = a[pe].origin[0], extent = a[pe].extent[0];
        args.row_lo = top == 0 ? 1 : 0;
        args.row_hi = top + extent == rows ? extent - 1 : extent;
        args.norm_every = norm_every;
        args.clock = clock.on(pe);
        return std::make_tuple(team.device_pe(pe), args);
      },
      config);
  Run result;
  result.blocks = launched.blocks[0];
  result.grid = format_dims(grid->dims.data(), 2, "x");
  unsigned long long clocks[2];
  team.download(0, clocks, clock.on(0), 2);
  result.us_per_step = (clocks[1] - clocks[0]) / 1000.0 / iters;
  if (!check_result) return result;

  std::vector<float> expected(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) expected[i * cols + j] = initial(i, j, rows);
  }
  std::vector<float> expected_deltas(static_cast<std::size_t>(iters));
  reference(expected, rows, cols, iters, &expected_deltas);
  int wrong = 0;
  for (int pe = 0; pe < n; ++pe) {
    const DBlock<float, 2>& blk = (iters % 2 == 0 ? a : b)[pe];  // the latest state
    const std::vector<float> cells = gputest::owned_cells(team, pe, blk);
    for (int i = 0; i < blk.extent[0]; ++i) {
      for (int j = 0; j < blk.extent[1]; ++j) {
        const int gi = blk.origin[0] + i, gj = blk.origin[1] + j;
        const float got = cells[static_cast<std::size_t>(i) * blk.extent[1] + j];
        const float want = expected[gi * cols + gj];
        if (std::memcmp(&got, &want, sizeof got) != 0) {
          ++wrong;
          check.expect(false, "%s: PE %d cell (%d, %d) is %.9g, expected %.9g", label.c_str(), pe,
                       gi, gj, got, want);
        }
      }
    }
    if (norm_every == 1) {
      std::vector<float> got(static_cast<std::size_t>(iters));
      team.download(pe, got.data(), deltas.on(pe), got.size());
      for (int t = 0; t < iters; ++t) {
        check.expect(std::memcmp(&got[t], &expected_deltas[t], sizeof(float)) == 0,
                     "%s: PE %d step %d max delta %.9g, expected %.9g", label.c_str(), pe, t,
                     got[t], expected_deltas[t]);
      }
    }
  }
  std::printf("  %-58s %s (%d wrong cells; last delta %.6g)\n", label.c_str(),
              wrong == 0 ? "ok" : "FAILED", wrong, expected_deltas[iters - 1]);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  const bool perf = gputest::arg_int(argc, argv, "--perf", 1) != 0;
  gputest::Checker check;
  const int rows = 203, cols = 157, iters = 100;
  std::vector<std::string> decomps;
  if (n == 1) decomps = {"1x1"};
  if (n == 2) decomps = {"2x1", "1x2"};  // cut the fixed dimension; cut the periodic one
  if (n > 2) decomps = {""};
  for (const std::string& decomp : decomps) {
    LaunchConfig full;  // as many blocks as fit
    run(n, rows, cols, iters, decomp.c_str(), 1, full, true, check,
        format("%dx%d, %s, every step reduced, full grid", rows, cols, decomp.c_str()));
    LaunchConfig few;
    few.max_blocks = 3;  // channels share blocks; long grid-stride loops
    run(n, rows, cols, iters + 1, decomp.c_str(), 0, few, true, check,
        format("%dx%d, %s, no reduction, 3 blocks, odd steps", rows, cols, decomp.c_str()));
  }
  if (perf) {
    struct Size { int rows, cols, iters; };
    const Size sizes[] = {{256, 256, 5000}, {1024, 1024, 2000}, {4096, 4096, 500}};
    for (const Size& s : sizes) {
      for (int norm : {0, 1}) {
        for (int per_sm : {1, 0}) {
          LaunchConfig config;
          config.blocks_per_sm = per_sm;
          const Run r = run(n, s.rows, s.cols, s.iters, "", norm, config, false, check, "");
          std::printf("  perf %4dx%-4d %s on %d GPU%s (%s), %4d blocks x 256: %8.2f us/step\n",
                      s.rows, s.cols, norm ? "with max-norm allreduce" : "no reduction           ",
                      n, n > 1 ? "s" : " ", r.grid.c_str(), r.blocks, r.us_per_step);
        }
      }
    }
  }
  char name[64];
  std::snprintf(name, sizeof name, "jacobi2d (%d GPU%s)", n, n > 1 ? "s" : "");
  return gputest::finish(name, check);
}
