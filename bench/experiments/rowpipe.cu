// Experiment (issue 5, session 16): can the persistent kernel's inner-part streaming reach 85% of
// the copy bandwidth at the generated kernel's occupancy (2 blocks of 256 threads a SM, 128
// registers) if its loads go through shared memory asynchronously instead of through registers?
//
// Why: the generated barrier form streams jacobi2d at 70-73% of the copy bandwidth (16384^2,
// and 4096^2's inner part on 2 GPUs: docs/BENCHMARKS.md, sessions 13-15). Its wide strips keep
// their loads in registers, so the bytes a SM has in flight are bounded by 16 warps' registers;
// session 5's pointloop.cu reached 85-90% only at 4 blocks a SM, which the fused kernel cannot
// have. Little's law at ~4.3 TB/s and ~1 us loaded latency wants ~33 KB in flight a SM.
//
// The form measured here ("row pipe"): a block owns a tile of TW columns x `band` rows and walks
// it row by row; the rows it reads (its band plus one row above and below, and 16 bytes past
// each side) stream into a ring of R row slots in shared memory, R - 3 rows ahead of the row being
// computed, so a block has (R - 3) * TW * 4 bytes in flight without holding them in registers.
// A thread owns one 4-column quad of the tile for the whole band: the rows above and at the quad
// stay in registers from the previous row, so a row costs one 16-byte and two 4-byte shared loads
// and one 16-byte global store a thread. Two ways to fill the ring:
//   - "cpa": cp.async (16 bytes a thread, commit groups, wait_group R - 4);
//   - "bulk": cp.async.bulk (one thread issues a row's copy; an mbarrier a slot, complete_tx).
// Compared in the same run, same layout (rows of n1 + 8 floats, interior column 1 16-byte
// aligned, as DBlock lays them out): pointloop.cu's vec2d<2> at 2 blocks a SM (the generated
// wide strips' form) and at 4, and the device-to-device copy (bench/bandwidth.cu's measure).
// Every kernel here is checked against pointloop.cu's flat2d on random data with uneven tiles and
// bands before it is timed.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 rowpipe.cu -o rowpipe; run: ./rowpipe
#define POINTLOOP_NO_MAIN
#include "pointloop.cu"

#include <cstdint>

namespace {

__device__ inline unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ inline void cp_async16(float* dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ inline void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// One thread: expect `bytes` on the barrier and start the copy that delivers them.
__device__ inline void bulk_row(float* dst, const float* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}
__device__ inline void mbar_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  }
}

constexpr int kThreads = 256;
constexpr int kTile = 4 * kThreads;  // TW: a quad a thread
constexpr int kSlot = kTile + 8;     // a slot: 16 bytes either side of the tile's row

// The tiles: ceil(n1 / kTile) along a row times ceil(n0 / band) bands, walked grid-stride.
struct Tiles {
  int n0, n1, s, band, across, count;
  __device__ void tile(int t, int* i0, int* i1, int* x0, int* w) const {
    const int by = t / across, tx = t - by * across;
    *i0 = 1 + by * band;
    *i1 = min(*i0 + band, n0 + 1);
    *x0 = tx * kTile;
    *w = min(kTile, n1 - *x0);
  }
};

// A row of the tile from its ring slots: up and mid carried in registers, down and mid's sides
// read here; the quad's result stored 16 bytes wide.
__device__ inline void row_update(const float* mid_slot, const float* down_slot, int q, float4& up, float4& mid,
                                  float* out_row) {
  const float4 down = *reinterpret_cast<const float4*>(down_slot + 4 + 4 * q);
  const float w = mid_slot[3 + 4 * q], e = mid_slot[8 + 4 * q];
  float4 o;
  o.x = 0.25f * (w + mid.y + up.x + down.x);
  o.y = 0.25f * (mid.x + mid.z + up.y + down.y);
  o.z = 0.25f * (mid.y + mid.w + up.z + down.z);
  o.w = 0.25f * (mid.z + e + up.w + down.w);
  *reinterpret_cast<float4*>(out_row + 4 * q) = o;
  up = mid;
  mid = down;
}

template <int R>
__global__ void __launch_bounds__(kThreads, 2) rowpipe_cpa(float* a, float* b, Tiles tl, int steps) {
  static_assert(R >= 4, "rows r, r + 1, r + 2 and one in flight");
  cg::grid_group g = cg::this_grid();
  extern __shared__ float4 sc_smem[];
  float* const ring = reinterpret_cast<float*>(sc_smem);
  const int q = threadIdx.x;
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (int tile = blockIdx.x; tile < tl.count; tile += gridDim.x) {
      int i0, i1, x0, w;
      tl.tile(tile, &i0, &i1, &x0, &w);
      const int rows = i1 - i0 + 2, chunks = w / 4 + 2;
      auto issue = [&](int l) {  // loaded row l = row i0 - 1 + l
        if (l < rows) {
          const float* src = in + long(i0 - 1 + l) * tl.s + x0;
          float* dst = ring + (l % R) * kSlot;
          for (int k = threadIdx.x; k < chunks; k += kThreads) cp_async16(dst + 4 * k, src + 4 * k);
        }
        cp_async_commit();
      };
      for (int l = 0; l < R - 1; ++l) issue(l);
      float4 up{}, mid{};
      for (int r = 0; r + 2 < rows; ++r) {
        cp_async_wait<R - 4>();
        __syncthreads();  // every thread's rows up to r + 2 landed; row r - 1's slot is free
        issue(r + R - 1);
        if (4 * q < w) {
          if (r == 0) {
            up = *reinterpret_cast<const float4*>(ring + 4 + 4 * q);
            mid = *reinterpret_cast<const float4*>(ring + kSlot + 4 + 4 * q);
          }
          row_update(ring + ((r + 1) % R) * kSlot, ring + ((r + 2) % R) * kSlot, q, up, mid,
                     out + long(i0 + r) * tl.s + x0 + 4);
        }
      }
      cp_async_wait<0>();
      __syncthreads();  // the next tile's first copies go into slots read above
    }
    g.sync();
  }
}

template <int R>
__global__ void __launch_bounds__(kThreads, 2) rowpipe_bulk(float* a, float* b, Tiles tl, int steps) {
  static_assert(R >= 4, "rows r, r + 1, r + 2 and one in flight");
  cg::grid_group g = cg::this_grid();
  extern __shared__ float4 sc_smem[];
  float* const ring = reinterpret_cast<float*>(sc_smem);
  __shared__ std::uint64_t full[R];
  if (threadIdx.x == 0) {
    for (int k = 0; k < R; ++k) mbar_init(&full[k], 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int q = threadIdx.x;
  unsigned filled = 0;  // rows this block has loaded so far: row number g goes to slot g % R, phase (g / R) & 1
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (int tile = blockIdx.x; tile < tl.count; tile += gridDim.x) {
      int i0, i1, x0, w;
      tl.tile(tile, &i0, &i1, &x0, &w);
      const int rows = i1 - i0 + 2;
      const unsigned bytes = unsigned(w + 8) * 4;
      const unsigned base = filled;
      auto issue = [&](int l) {
        if (threadIdx.x == 0 && l < rows) {
          const unsigned gl = base + l;
          bulk_row(ring + (gl % R) * kSlot, in + long(i0 - 1 + l) * tl.s + x0, bytes, &full[gl % R]);
        }
      };
      for (int l = 0; l < R - 1; ++l) issue(l);
      float4 up{}, mid{};
      for (int r = 0; r + 2 < rows; ++r) {
        __syncthreads();  // row r - 1's slot is read by every thread: it may be filled again
        issue(r + R - 1);
        const unsigned g0 = base + r;
        if (r == 0) {
          mbar_wait(&full[g0 % R], (g0 / R) & 1);
          mbar_wait(&full[(g0 + 1) % R], ((g0 + 1) / R) & 1);
        }
        mbar_wait(&full[(g0 + 2) % R], ((g0 + 2) / R) & 1);
        if (4 * q < w) {
          if (r == 0) {
            up = *reinterpret_cast<const float4*>(ring + (g0 % R) * kSlot + 4 + 4 * q);
            mid = *reinterpret_cast<const float4*>(ring + ((g0 + 1) % R) * kSlot + 4 + 4 * q);
          }
          row_update(ring + ((g0 + 1) % R) * kSlot, ring + ((g0 + 2) % R) * kSlot, q, up, mid,
                     out + long(i0 + r) * tl.s + x0 + 4);
        }
      }
      filled = base + rows;
      __syncthreads();  // the next tile's first copies go into slots read above
    }
    g.sync();
  }
}

Tiles make_tiles(int n0, int n1, int s, int blocks) {
  Tiles tl{n0, n1, s, 0, (n1 + kTile - 1) / kTile, 0};
  const int bands = std::max(1, std::min(n0, blocks / tl.across));  // a tile a block at most, where it can
  tl.band = (n0 + bands - 1) / bands;
  tl.count = tl.across * ((n0 + tl.band - 1) / tl.band);
  return tl;
}

int grid_of(const void* kernel, int per_sm, int smem) {
  int dev = 0, sms = 0, fit = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, kThreads, smem);
  return sms * std::min(per_sm, fit);
}

// us per step, median of `runs` launches after a warm-up; -1 if a launch failed.
template <class K>
float time_pipe(K kernel, int smem, float* a, float* b, Tiles tl, int steps, int runs = 5) {
  const int grid = grid_of(reinterpret_cast<const void*>(kernel), 2, smem);
  std::vector<float> us;
  for (int rep = 0; rep <= runs; ++rep) {
    void* argv[] = {&a, &b, &tl, &steps};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(grid), dim3(kThreads), argv, smem, 0);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    if (err != cudaSuccess || cudaGetLastError() != cudaSuccess) {
      std::printf("launch failed: %s\n", cudaGetErrorString(err));
      return -1;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (rep > 0) us.push_back(ms * 1000.0f / steps);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

template <class K>
float time_vec(K kernel, int per_sm, float* a, float* b, int n0, int n1, int s, int steps, int runs = 5) {
  std::vector<float> us;
  for (int rep = 0; rep < runs; ++rep) us.push_back(time_kernel(kernel, per_sm, steps, a, b, n0, n1, s));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

double copy_bandwidth() {  // bytes read + written per second, median of 12 (bench/bandwidth.cu's measure)
  const size_t bytes = size_t{1} << 30;
  void *src, *dst;
  cudaMalloc(&src, bytes);
  cudaMalloc(&dst, bytes);
  cudaMemset(src, 1, bytes);
  std::vector<float> ms;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int rep = 0; rep < 12; ++rep) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  cudaFree(src);
  cudaFree(dst);
  std::sort(ms.begin(), ms.end());
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3);
}

// 5 steps of `kernel` on random data in the aligned layout against flat2d in its own: the
// largest difference over the interior.
template <class K>
double check_pipe(K kernel, int smem, int n0, int n1, int band_blocks) {
  Check2D c(n0, n1, 5);
  // Fewer blocks than tiles (band_blocks sets the bands): a block walks several tiles and steps.
  const Tiles tl = make_tiles(n0, n1, c.sv, band_blocks);
  const int grid = std::min(grid_of(reinterpret_cast<const void*>(kernel), 2, smem), std::max(1, tl.count / 3));
  int steps = 5;
  void* argv[] = {&c.va, &c.vb, const_cast<Tiles*>(&tl), &steps};
  cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(grid), dim3(kThreads), argv, smem, 0);
  cudaDeviceSynchronize();
  if (err != cudaSuccess || cudaGetLastError() != cudaSuccess) {
    std::printf("check launch failed: %s\n", cudaGetErrorString(err));
    return 1e30;
  }
  return c.worst(true);
}

template <int R>
int ring_bytes() {
  return R * kSlot * int(sizeof(float));
}

}  // namespace

int main() {
  // Uneven: a partial last tile (1100 = 1024 + 76 columns), bands of unequal rows, a grid of a
  // third of the tiles (each block walks three), 5 steps.
  struct Check {
    const char* name;
    double worst;
  } checks[] = {
      {"cpa R=6", check_pipe(rowpipe_cpa<6>, ring_bytes<6>(), 67, 1100, 40)},
      {"cpa R=8", check_pipe(rowpipe_cpa<8>, ring_bytes<8>(), 203, 2052, 61)},
      {"bulk R=4", check_pipe(rowpipe_bulk<4>, ring_bytes<4>(), 67, 1100, 40)},
      {"bulk R=8", check_pipe(rowpipe_bulk<8>, ring_bytes<8>(), 203, 2052, 61)},
  };
  bool ok = true;
  for (const Check& c : checks) {
    std::printf("check %-9s vs flat2d: max |diff| %.3g\n", c.name, c.worst);
    ok = ok && c.worst < 1e-5;
  }
  if (!ok) {
    std::printf("WRONG: a row-pipe kernel disagrees with flat2d; timings not taken\n");
    return 1;
  }
  const double bw = copy_bandwidth();
  std::printf("copy bandwidth %.0f GB/s (read + write, cudaMemcpy D2D 1 GiB, median of 12)\n", bw / 1e9);
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  // n0 x n1 interior: one GPU's block of jacobi2d on 1 and 2 GPUs (rows split).
  const int sizes[][2] = {{2048, 2048}, {1024, 4096}, {4096, 4096}, {2048, 8192}, {8192, 8192}, {8192, 16384}, {16384, 16384}};
  for (const auto& size : sizes) {
    const int n0 = size[0], n1 = size[1], sv = n1 + 8;
    float *a, *b;
    cudaMalloc(&a, sizeof(float) * long(sv) * (n0 + 2));
    cudaMalloc(&b, sizeof(float) * long(sv) * (n0 + 2));
    cudaMemset(a, 0, sizeof(float) * long(sv) * (n0 + 2));
    cudaMemset(b, 0, sizeof(float) * long(sv) * (n0 + 2));
    const double points = double(n0) * n1, bytes = 8.0 * points;
    const int steps = std::max(20, int(2e10 / bytes));  // ~5 ms a launch at least
    const Tiles tl = make_tiles(n0, n1, sv, 2 * sms);
    auto report = [&](const char* name, float us) {
      std::printf("jacobi2d %5d x %5d %-12s %9.2f us/step %5.1f%% of copy\n", n0, n1, name, us, 100.0 * bytes / (us * 1e-6) / bw);
    };
    std::printf("-- %d x %d: tiles %d x %d rows (%d tiles, %d blocks), %d steps\n", n0, n1, kTile, tl.band, tl.count, 2 * sms, steps);
    report("vec2.b2", time_vec(vec2d<2>, 2, a, b, n0, n1, sv, steps));
    report("vec2.b4", time_vec(vec2d<2>, 4, a, b, n0, n1, sv, steps));
    report("cpa R=6", time_pipe(rowpipe_cpa<6>, ring_bytes<6>(), a, b, tl, steps));
    report("cpa R=8", time_pipe(rowpipe_cpa<8>, ring_bytes<8>(), a, b, tl, steps));
    report("cpa R=12", time_pipe(rowpipe_cpa<12>, ring_bytes<12>(), a, b, tl, steps));
    report("bulk R=4", time_pipe(rowpipe_bulk<4>, ring_bytes<4>(), a, b, tl, steps));
    report("bulk R=8", time_pipe(rowpipe_bulk<8>, ring_bytes<8>(), a, b, tl, steps));
    report("bulk R=12", time_pipe(rowpipe_bulk<12>, ring_bytes<12>(), a, b, tl, steps));
    cudaFree(a);
    cudaFree(b);
  }
  return 0;
}
