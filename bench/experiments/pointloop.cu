// Experiment (issue 5): which point-loop form reaches the most memory bandwidth in a persistent
// kernel, for the 2-D 5-point fp32 Jacobi update and the 3-D 7-point fp64 heat update, on one GPU.
// Forms: "flat" (what codegen/CudaEmitter emitted until 2026-11-22: one point per iteration of a
// grid-stride loop over the flattened box, a multiply-high division per point) and "strip R" (a
// thread owns a column of R consecutive points along dimension 0 and walks it with the loads of
// the whole strip issued together: R + 2 loads in flight per thread and the dimension-0 neighbours
// reused from registers). Each kernel runs `steps` steps with a grid barrier per step (as the
// generated kernel does) and is timed with CUDA events; bandwidth = 2 * bytes/point / time.
// Session 4 added (not yet run on a GPU; docs/BENCHMARKS.md, session 4, plan item 2): "strip R
// i32" (32-bit offsets instead of int * long), "vec R" (register blocking along the fastest
// dimension: a thread owns R rows x 4 columns (2-D fp32) or R planes x 2 columns (3-D fp64),
// 16-byte loads and stores of the owned columns, scalar loads of the two side neighbours; rows
// padded so the interior starts 16-byte aligned) and ".b2" runs at 2 blocks per SM, the
// generated kernel's occupancy.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 pointloop.cu -o pointloop; run: ./pointloop
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

struct FastDiv {
  unsigned d = 1, m = 1, s = 0;
  __host__ __device__ explicit FastDiv(unsigned divisor) : d(divisor) {
    while (s < 31 && (1u << s) < d) ++s;
    m = static_cast<unsigned>(((1ull << 32) * ((1ull << s) - d)) / d + 1);
  }
  __device__ unsigned div(unsigned n) const { return (__umulhi(n, m) + n) >> s; }
};

// 2-D: interior n0 x n1, halo 1, row stride s.
__global__ void __launch_bounds__(256, 4) flat2d(float* a, float* b, int n0, int n1, long s, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div1(n1);
  const unsigned points = unsigned(n0) * unsigned(n1);
  for (int t = 0; t < steps; ++t) {
    float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
#pragma unroll 4
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < points; p += gridDim.x * blockDim.x) {
      const unsigned q = div1.div(p);
      const int j = 1 + int(p - q * n1), i = 1 + int(q);
      out[i * s + j] = 0.25f * (in[i * s + j + 1] + in[i * s + j - 1] + in[(i + 1) * s + j] + in[(i - 1) * s + j]);
    }
    g.sync();
  }
}

// S: the stride's type; long as the generated loop has it (64-bit int * long offsets), int for
// 32-bit offsets (a block below 2^31 elements).
template <int R, class S = long>
__global__ void __launch_bounds__(256, 4) strip2d(float* a, float* b, int n0, int n1, S s, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div1(n1);
  const unsigned strips = unsigned((n0 + R - 1) / R);
  const unsigned items = strips * unsigned(n1);
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < items; p += gridDim.x * blockDim.x) {
      const unsigned q = div1.div(p);
      const int j = 1 + int(p - q * n1), i0 = 1 + int(q) * R;
      if (i0 + R - 1 <= n0) {
        float c[R + 2];
#pragma unroll
        for (int r = 0; r < R + 2; ++r) c[r] = in[(i0 - 1 + r) * s + j];
        float w[R], e[R];
#pragma unroll
        for (int r = 0; r < R; ++r) { w[r] = in[(i0 + r) * s + j - 1]; e[r] = in[(i0 + r) * s + j + 1]; }
#pragma unroll
        for (int r = 0; r < R; ++r) out[(i0 + r) * s + j] = 0.25f * (e[r] + w[r] + c[r + 2] + c[r]);
      } else {
        for (int i = i0; i <= n0; ++i)
          out[i * s + j] = 0.25f * (in[i * s + j + 1] + in[i * s + j - 1] + in[(i + 1) * s + j] + in[(i - 1) * s + j]);
      }
    }
    g.sync();
  }
}

// The strip form written as a generator would write it: the point body repeated R times with
// the row index r, loads left to the compiler (CSE across the unrolled body, __restrict__).
template <int R>
__global__ void __launch_bounds__(256, 4) stripcse2d(float* a, float* b, int n0, int n1, long s, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div1(n1);
  const unsigned strips = unsigned((n0 + R - 1) / R);
  const unsigned items = strips * unsigned(n1);
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < items; p += gridDim.x * blockDim.x) {
      const unsigned q = div1.div(p);
      const int j = 1 + int(p - q * n1), i0 = 1 + int(q) * R;
      if (i0 + R - 1 <= n0) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int i = i0 + r;
          out[i * s + j] = 0.25f * (in[i * s + j + 1] + in[i * s + j - 1] + in[(i + 1) * s + j] + in[(i - 1) * s + j]);
        }
      } else {
        for (int i = i0; i <= n0; ++i)
          out[i * s + j] = 0.25f * (in[i * s + j + 1] + in[i * s + j - 1] + in[(i + 1) * s + j] + in[(i - 1) * s + j]);
      }
    }
    g.sync();
  }
}

// Register blocking along dimension 1: a thread owns R rows x 4 columns. The layout puts the
// interior's first column 16-byte aligned: element (i, j), j = 0..n1+1 (halo columns 0, n1+1),
// at in[i * s + j + 3] with s a multiple of 4, so columns 1..4 of a row are one float4. n1 must be
// a multiple of 4. Loads per item: R + 2 float4 (the owned columns of R + 2 rows) and 2R scalars
// (the side neighbours): 6R + 8 values in flight for 4R points.
template <int R>
__global__ void __launch_bounds__(256, 4) vec2d(float* a, float* b, int n0, int n1, int s, int steps) {
  cg::grid_group g = cg::this_grid();
  const int quads = n1 / 4;
  const FastDiv divq(quads);
  const unsigned items = unsigned((n0 + R - 1) / R) * unsigned(quads);
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < items; p += gridDim.x * blockDim.x) {
      const unsigned q = divq.div(p);
      const int j = 1 + 4 * int(p - q * quads), i0 = 1 + int(q) * R;
      const int base = i0 * s + j + 3;  // (i0, j): 16-byte aligned
      if (i0 + R - 1 <= n0) {
        float4 c[R + 2];
#pragma unroll
        for (int r = 0; r < R + 2; ++r) c[r] = *reinterpret_cast<const float4*>(in + base + (r - 1) * s);
        float w[R], e[R];
#pragma unroll
        for (int r = 0; r < R; ++r) { w[r] = in[base + r * s - 1]; e[r] = in[base + r * s + 4]; }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const float4 up = c[r], mid = c[r + 1], down = c[r + 2];
          float4 o;
          o.x = 0.25f * (w[r] + mid.y + up.x + down.x);
          o.y = 0.25f * (mid.x + mid.z + up.y + down.y);
          o.z = 0.25f * (mid.y + mid.w + up.z + down.z);
          o.w = 0.25f * (mid.z + e[r] + up.w + down.w);
          *reinterpret_cast<float4*>(out + base + r * s) = o;
        }
      } else {
        for (int i = i0; i <= n0; ++i)
          for (int k = 0; k < 4; ++k) {
            const int c = i * s + j + k + 3;
            out[c] = 0.25f * (in[c + 1] + in[c - 1] + in[c + s] + in[c - s]);
          }
      }
    }
    g.sync();
  }
}

// Strips batched per warp (session 5): a warp owns 32 * U consecutive items along dimension 1,
// a thread the U items lane + 32 k; every load of the U strips is issued before the first store
// ((R + 2) * U centre loads in flight per thread, all coalesced), the form the emitter can
// generate for any body without changing the layout. 2 blocks per SM (128 registers), as the
// generated kernel runs.
template <int R, int U>
__global__ void __launch_bounds__(256, 2) wstrip2d(float* a, float* b, int n0, int n1, int s, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div1(n1);
  const unsigned items = unsigned((n0 + R - 1) / R) * unsigned(n1);
  const unsigned lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned warps = gridDim.x * blockDim.x / 32;
  for (int t = 0; t < steps; ++t) {
    const float* __restrict__ in = (t & 1) ? b : a;
    float* __restrict__ out = (t & 1) ? a : b;
    for (unsigned base = warp * 32 * U + lane; base < items; base += warps * 32 * U) {
      float v[U][R];
      int at[U];
      bool full[U];
#pragma unroll
      for (int k = 0; k < U; ++k) {
        const unsigned p = base + 32 * k;
        const unsigned q = div1.div(p);
        const int j = 1 + int(p - q * n1), i0 = 1 + int(q) * R;
        at[k] = i0 * s + j;
        full[k] = p < items && i0 + R - 1 <= n0;
        if (full[k]) {
#pragma unroll
          for (int r = 0; r < R; ++r) {
            const int c = at[k] + r * s;
            v[k][r] = 0.25f * (in[c + 1] + in[c - 1] + in[c + s] + in[c - s]);
          }
        }
      }
#pragma unroll
      for (int k = 0; k < U; ++k) {
        if (full[k]) {
#pragma unroll
          for (int r = 0; r < R; ++r) out[at[k] + r * s] = v[k][r];
        } else if (base + 32 * k < items) {
          for (int c = at[k]; c < (n0 + 1) * s; c += s) out[c] = 0.25f * (in[c + 1] + in[c - 1] + in[c + s] + in[c - s]);
        }
      }
    }
    g.sync();
  }
}

// 3-D fp64 7-point: interior n^3, halo 1, strides s0 (plane), s1 (row).
__device__ __forceinline__ double heat(const double* __restrict__ in, long c, long s0, long s1) {
  return 0.125 * (in[c + s0] - 2.0 * in[c] + in[c - s0]) + 0.125 * (in[c + s1] - 2.0 * in[c] + in[c - s1]) +
         0.125 * (in[c + 1] - 2.0 * in[c] + in[c - 1]) + in[c];
}
__global__ void __launch_bounds__(256, 4) flat3d(double* a, double* b, int n, long s0, long s1, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div2(n), div1(n);
  const unsigned points = unsigned(n) * n * n;
  for (int t = 0; t < steps; ++t) {
    const double* __restrict__ in = (t & 1) ? b : a;
    double* __restrict__ out = (t & 1) ? a : b;
#pragma unroll 4
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < points; p += gridDim.x * blockDim.x) {
      const unsigned q = div2.div(p), k = p - q * n, h = div1.div(q), j = q - h * n;
      const long c = (1 + h) * s0 + (1 + j) * s1 + 1 + k;
      out[c] = heat(in, c, s0, s1);
    }
    g.sync();
  }
}
template <int R>
__global__ void __launch_bounds__(256, 4) stripcse3d(double* a, double* b, int n, long s0, long s1, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div2(n), div1(n);
  const unsigned items = unsigned((n + R - 1) / R) * n * n;
  for (int t = 0; t < steps; ++t) {
    const double* __restrict__ in = (t & 1) ? b : a;
    double* __restrict__ out = (t & 1) ? a : b;
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < items; p += gridDim.x * blockDim.x) {
      const unsigned q = div2.div(p), k = p - q * n, h = div1.div(q), j = q - h * n;
      const int i0 = 1 + int(h) * R;
      if (i0 + R - 1 <= n) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const long c = (i0 + r) * s0 + (1 + j) * s1 + 1 + k;
          out[c] = heat(in, c, s0, s1);
        }
      } else {
        for (int i = i0; i <= n; ++i) {
          const long c = i * s0 + (1 + j) * s1 + 1 + k;
          out[c] = heat(in, c, s0, s1);
        }
      }
    }
    g.sync();
  }
}

// Register blocking along dimension 2 for the 3-D fp64 update: a thread owns R planes x 2
// columns (one double2), the interior's first column 16-byte aligned (element (i, j, k),
// k = 0..n+1, at in[i * s0 + j * s1 + k + 1] with s1 even). n must be even.
template <int R>
__global__ void __launch_bounds__(256, 4) vec3d(double* a, double* b, int n, long s0, long s1, int steps) {
  cg::grid_group g = cg::this_grid();
  const int pairs = n / 2;
  const FastDiv divp(pairs), div1(n);
  const unsigned items = unsigned((n + R - 1) / R) * n * pairs;
  for (int t = 0; t < steps; ++t) {
    const double* __restrict__ in = (t & 1) ? b : a;
    double* __restrict__ out = (t & 1) ? a : b;
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < items; p += gridDim.x * blockDim.x) {
      const unsigned q = divp.div(p), kp = p - q * pairs, h = div1.div(q), j = q - h * n;
      const int i0 = 1 + int(h) * R;
      const long row = (1 + long(j)) * s1 + 1 + 2 * long(kp) + 1;  // (., 1 + j, 1 + 2 kp): aligned
      if (i0 + R - 1 <= n) {
        double2 c[R + 2];
#pragma unroll
        for (int r = 0; r < R + 2; ++r) c[r] = *reinterpret_cast<const double2*>(in + (i0 - 1 + r) * s0 + row);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const long o = (i0 + r) * s0 + row;
          const double2 n_ = *reinterpret_cast<const double2*>(in + o - s1);
          const double2 s_ = *reinterpret_cast<const double2*>(in + o + s1);
          const double w = in[o - 1], e = in[o + 2];
          const double2 m = c[r + 1];
          double2 res;
          res.x = 0.125 * (c[r + 2].x - 2.0 * m.x + c[r].x) + 0.125 * (s_.x - 2.0 * m.x + n_.x) +
                  0.125 * (m.y - 2.0 * m.x + w) + m.x;
          res.y = 0.125 * (c[r + 2].y - 2.0 * m.y + c[r].y) + 0.125 * (s_.y - 2.0 * m.y + n_.y) +
                  0.125 * (e - 2.0 * m.y + m.x) + m.y;
          *reinterpret_cast<double2*>(out + o) = res;
        }
      } else {
        for (int i = i0; i <= n; ++i)
          for (int k = 0; k < 2; ++k) {
            const long c = i * s0 + row + k;
            out[c] = heat(in, c, s0, s1);
          }
      }
    }
    g.sync();
  }
}

// wstrip2d's form for the 3-D update: a thread owns U strips of R planes, 32 apart along k.
template <int R, int U>
__global__ void __launch_bounds__(256, 2) wstrip3d(double* a, double* b, int n, long s0, long s1, int steps) {
  cg::grid_group g = cg::this_grid();
  const FastDiv div2(n), div1(n);
  const unsigned items = unsigned((n + R - 1) / R) * n * n;
  const unsigned lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned warps = gridDim.x * blockDim.x / 32;
  for (int t = 0; t < steps; ++t) {
    const double* __restrict__ in = (t & 1) ? b : a;
    double* __restrict__ out = (t & 1) ? a : b;
    for (unsigned base = warp * 32 * U + lane; base < items; base += warps * 32 * U) {
      double v[U][R];
      long at[U];
      bool full[U];
      int last[U];
#pragma unroll
      for (int k = 0; k < U; ++k) {
        const unsigned p = base + 32 * k;
        const unsigned q = div2.div(p), kk = p - q * n, h = div1.div(q), j = q - h * n;
        const int i0 = 1 + int(h) * R;
        at[k] = i0 * s0 + (1 + long(j)) * s1 + 1 + kk;
        last[k] = n - i0;
        full[k] = p < items && i0 + R - 1 <= n;
        if (full[k]) {
#pragma unroll
          for (int r = 0; r < R; ++r) v[k][r] = heat(in, at[k] + r * s0, s0, s1);
        }
      }
#pragma unroll
      for (int k = 0; k < U; ++k) {
        if (full[k]) {
#pragma unroll
          for (int r = 0; r < R; ++r) out[at[k] + r * s0] = v[k][r];
        } else if (base + 32 * k < items) {
          for (int r = 0; r <= last[k]; ++r) out[at[k] + r * s0] = heat(in, at[k] + r * s0, s0, s1);
        }
      }
    }
    g.sync();
  }
}

template <class K, class... A>
float time_kernel(K kernel, int blocks_per_sm, int steps, A... args) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  int fit = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, 256, 0);
  const int per_sm = blocks_per_sm < fit ? blocks_per_sm : fit;
  dim3 grid(sms * per_sm), block(256);
  float ms = 0;
  for (int rep = 0; rep < 2; ++rep) {  // the first is a warm-up
    void* argv[] = {&args..., &steps};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), grid, block, argv, 0, 0);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    if (err != cudaSuccess || cudaGetLastError() != cudaSuccess) { std::printf("launch failed: %s\n", cudaGetErrorString(err)); return -1; }
    cudaEventElapsedTime(&ms, e0, e1);
  }
  return ms * 1000.0f / steps;  // us per step
}

// Runs `kernel` once for `steps` steps (a cooperative launch, 4 blocks per SM at most).
template <class K, class... A>
void run_once(K kernel, int steps, A... args) {
  int dev = 0, sms = 0, fit = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, 256, 0);
  void* argv[] = {&args..., &steps};
  cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(sms * (fit < 4 ? fit : 4)), dim3(256), argv, 0, 0);
  cudaDeviceSynchronize();
}

// A 2-D check's data: random cells `h` in flat2d's layout (rows of n1 + 2), copies in that layout
// (a, b) and in vec2d's aligned one (va, vb: rows of n1 + 8, column 1 16-byte aligned), and flat2d's
// values after `steps` steps (`want`, flat's layout; an odd count ends in b).
struct Check2D {
  int n0, n1, s, sv;
  std::vector<float> h, want, got;
  float *a = nullptr, *b = nullptr, *va = nullptr, *vb = nullptr;
  Check2D(int rows, int cols, int steps) : n0(rows), n1(cols), s(cols + 2), sv(cols + 8), h(size_t(rows + 2) * (cols + 2)) {
    for (size_t k = 0; k < h.size(); ++k) h[k] = float((k * 2654435761u) % 1000) / 1000.0f;
    cudaMalloc(&a, sizeof(float) * h.size());
    cudaMalloc(&b, sizeof(float) * h.size());
    cudaMalloc(&va, sizeof(float) * size_t(sv) * (n0 + 2));
    cudaMalloc(&vb, sizeof(float) * size_t(sv) * (n0 + 2));
    load_flat();
    load_vec();
    run_once(flat2d, steps, a, b, n0, n1, long(s));
    want.resize(h.size());
    got.resize(h.size());
    cudaMemcpy(want.data(), b, sizeof(float) * h.size(), cudaMemcpyDeviceToHost);
  }
  ~Check2D() { cudaFree(a), cudaFree(b), cudaFree(va), cudaFree(vb); }
  void load_flat() {
    cudaMemcpy(a, h.data(), sizeof(float) * h.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(b, h.data(), sizeof(float) * h.size(), cudaMemcpyHostToDevice);
  }
  void load_vec() {
    for (float* v : {va, vb})
      cudaMemcpy2D(v + 3, sizeof(float) * sv, h.data(), sizeof(float) * s, sizeof(float) * s, n0 + 2, cudaMemcpyHostToDevice);
  }
  // The largest difference over the interior between `want` and b (flat's layout) or vb (aligned).
  double worst(bool aligned) {
    if (aligned) {
      cudaMemcpy2D(got.data(), sizeof(float) * s, vb + 3, sizeof(float) * sv, sizeof(float) * s, n0 + 2, cudaMemcpyDeviceToHost);
    } else {
      cudaMemcpy(got.data(), b, sizeof(float) * h.size(), cudaMemcpyDeviceToHost);
    }
    double w = 0;
    for (int i = 1; i <= n0; ++i)
      for (int j = 1; j <= n1; ++j) w = std::max(w, double(std::fabs(got[size_t(i) * s + j] - want[size_t(i) * s + j])));
    return w;
  }
};

// The vectorised kernels use their own (aligned) layouts: before timing them, check that 3 steps
// of each give flat's values on random data (largest difference printed; a timing of a wrong
// kernel would mean nothing).
void check_vec(int n0, int n1, int n) {
  Check2D c2(n0, n1, 3);
  double worst2 = 0;
  for (auto kernel : {wstrip2d<2, 2>, wstrip2d<2, 4>, wstrip2d<4, 2>}) {  // flat's layout
    c2.load_flat();
    run_once(kernel, 3, c2.a, c2.b, n0, n1, c2.s);
    worst2 = std::max(worst2, c2.worst(false));
  }
  for (auto kernel : {vec2d<1>, vec2d<2>, vec2d<4>}) {
    c2.load_vec();
    run_once(kernel, 3, c2.va, c2.vb, n0, n1, c2.sv);
    worst2 = std::max(worst2, c2.worst(true));
  }
  // 3-D: n^3 interior, flat3d's layout (rows of n + 2) against vec3d's (rows of n + 4).
  const long s1 = n + 2, s0 = s1 * s1, v1 = n + 4, v0 = v1 * (n + 2);
  std::vector<double> h3(size_t(s0) * (n + 2));
  for (size_t k = 0; k < h3.size(); ++k) h3[k] = double((k * 2654435761u) % 1000) / 1000.0;
  double *c, *d, *vc, *vd;
  cudaMalloc(&c, sizeof(double) * h3.size());
  cudaMalloc(&d, sizeof(double) * h3.size());
  cudaMalloc(&vc, sizeof(double) * size_t(v0) * (n + 2));
  cudaMalloc(&vd, sizeof(double) * size_t(v0) * (n + 2));
  cudaMemcpy(c, h3.data(), sizeof(double) * h3.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(d, h3.data(), sizeof(double) * h3.size(), cudaMemcpyHostToDevice);
  run_once(flat3d, 3, c, d, n, s0, s1);
  std::vector<double> want3(h3.size()), got3(h3.size());
  cudaMemcpy(want3.data(), d, sizeof(double) * h3.size(), cudaMemcpyDeviceToHost);
  double worst3 = 0;
  for (auto kernel : {wstrip3d<2, 2>, wstrip3d<4, 2>}) {  // flat's layout
    cudaMemcpy(c, h3.data(), sizeof(double) * h3.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(d, h3.data(), sizeof(double) * h3.size(), cudaMemcpyHostToDevice);
    run_once(kernel, 3, c, d, n, s0, s1);
    cudaMemcpy(got3.data(), d, sizeof(double) * h3.size(), cudaMemcpyDeviceToHost);
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= n; ++j)
        for (int k = 1; k <= n; ++k) {
          const size_t at = size_t(i) * s0 + size_t(j) * s1 + k;
          worst3 = std::max(worst3, std::fabs(got3[at] - want3[at]));
        }
  }
  for (auto kernel : {vec3d<2>, vec3d<4>}) {
    for (double* v : {vc, vd})
      cudaMemcpy2D(v + 1, sizeof(double) * v1, h3.data(), sizeof(double) * s1, sizeof(double) * s1, size_t(n + 2) * (n + 2),
                   cudaMemcpyHostToDevice);
    run_once(kernel, 3, vc, vd, n, v0, v1);
    cudaMemcpy2D(got3.data(), sizeof(double) * s1, vd + 1, sizeof(double) * v1, sizeof(double) * s1, size_t(n + 2) * (n + 2),
                 cudaMemcpyDeviceToHost);
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= n; ++j)
        for (int k = 1; k <= n; ++k) {
          const size_t at = size_t(i) * s0 + size_t(j) * s1 + k;
          worst3 = std::max(worst3, std::fabs(got3[at] - want3[at]));
        }
  }
  cudaFree(c), cudaFree(d), cudaFree(vc), cudaFree(vd);
  std::printf("check: wstrip2d, vec2d vs flat2d (%dx%d, 3 steps) max |diff| %.3g; wstrip3d, vec3d vs flat3d (%d^3) max |diff| %.3g%s\n", n0, n1,
              worst2, n, worst3, worst2 < 1e-5 && worst3 < 1e-12 ? "" : "  <-- WRONG: do not trust the vec timings");
}

#ifndef POINTLOOP_NO_MAIN  // rowpipe.cu includes the kernels above without this main
int main() {
  check_vec(67, 132, 30);  // uneven strips: the remainder paths run too
  const double bw = 4205e9;  // bytes/s, bench/bandwidth.cu on this machine (2026-11-22)
  for (int n : {4096, 16384}) {
    const long s = n + 2;
    float *a, *b;
    cudaMalloc(&a, sizeof(float) * s * s);
    cudaMalloc(&b, sizeof(float) * s * s);
    cudaMemset(a, 0, sizeof(float) * s * s);
    cudaMemset(b, 0, sizeof(float) * s * s);
    const int steps = n == 4096 ? 400 : 40;
    const double bytes = 8.0 * n * n;
    auto report = [&](const char* name, float us) {
      std::printf("jacobi2d %5d^2 %-14s %8.2f us/step %5.1f%% of %.0f GB/s\n", n, name, us, 100.0 * bytes / (us * 1e-6) / bw, bw / 1e9);
    };
    report("flat", time_kernel(flat2d, 4, steps, a, b, n, n, s));
    report("strip2", time_kernel(strip2d<2>, 4, steps, a, b, n, n, s));
    report("strip4", time_kernel(strip2d<4>, 4, steps, a, b, n, n, s));
    report("strip8", time_kernel(strip2d<8>, 4, steps, a, b, n, n, s));
    report("stripcse4", time_kernel(stripcse2d<4>, 4, steps, a, b, n, n, s));
    report("stripcse8", time_kernel(stripcse2d<8>, 4, steps, a, b, n, n, s));
    report("stripcse4.b8", time_kernel(stripcse2d<4>, 8, steps, a, b, n, n, s));
    report("strip2.b2", time_kernel(strip2d<2>, 2, steps, a, b, n, n, s));
    report("strip2 i32", time_kernel(strip2d<2, int>, 4, steps, a, b, n, n, int(s)));
    report("strip4 i32", time_kernel(strip2d<4, int>, 4, steps, a, b, n, n, int(s)));
    report("wstrip2x2.b2", time_kernel(wstrip2d<2, 2>, 2, steps, a, b, n, n, int(s)));
    report("wstrip2x4.b2", time_kernel(wstrip2d<2, 4>, 2, steps, a, b, n, n, int(s)));
    report("wstrip2x8.b2", time_kernel(wstrip2d<2, 8>, 2, steps, a, b, n, n, int(s)));
    report("wstrip4x4.b2", time_kernel(wstrip2d<4, 4>, 2, steps, a, b, n, n, int(s)));
    report("wstrip1x8.b2", time_kernel(wstrip2d<1, 8>, 2, steps, a, b, n, n, int(s)));
    cudaFree(a);
    cudaFree(b);
    // The aligned layout of vec2d: rows of n + 8 floats, interior column 1 at offset 4.
    const int sv = n + 8;
    cudaMalloc(&a, sizeof(float) * long(sv) * (n + 2));
    cudaMalloc(&b, sizeof(float) * long(sv) * (n + 2));
    cudaMemset(a, 0, sizeof(float) * long(sv) * (n + 2));
    cudaMemset(b, 0, sizeof(float) * long(sv) * (n + 2));
    report("vec1", time_kernel(vec2d<1>, 4, steps, a, b, n, n, sv));
    report("vec2", time_kernel(vec2d<2>, 4, steps, a, b, n, n, sv));
    report("vec4", time_kernel(vec2d<4>, 4, steps, a, b, n, n, sv));
    report("vec2.b2", time_kernel(vec2d<2>, 2, steps, a, b, n, n, sv));
    report("vec2.b8", time_kernel(vec2d<2>, 8, steps, a, b, n, n, sv));
    cudaFree(a);
    cudaFree(b);
  }
  for (int n : {256, 512}) {
    const long s1 = n + 2, s0 = s1 * s1;
    double *a, *b;
    cudaMalloc(&a, sizeof(double) * s0 * s1);
    cudaMalloc(&b, sizeof(double) * s0 * s1);
    cudaMemset(a, 0, sizeof(double) * s0 * s1);
    cudaMemset(b, 0, sizeof(double) * s0 * s1);
    const int steps = n == 256 ? 100 : 20;
    const double bytes = 16.0 * n * n * n;
    auto report = [&](const char* name, float us) {
      std::printf("heat3d   %5d^3 %-14s %8.2f us/step %5.1f%% of %.0f GB/s\n", n, name, us, 100.0 * bytes / (us * 1e-6) / bw, bw / 1e9);
    };
    report("flat", time_kernel(flat3d, 4, steps, a, b, n, s0, s1));
    report("stripcse2", time_kernel(stripcse3d<2>, 4, steps, a, b, n, s0, s1));
    report("stripcse4", time_kernel(stripcse3d<4>, 4, steps, a, b, n, s0, s1));
    report("stripcse8", time_kernel(stripcse3d<8>, 4, steps, a, b, n, s0, s1));
    report("stripcse4.b2", time_kernel(stripcse3d<4>, 2, steps, a, b, n, s0, s1));
    report("wstrip2x4.b2", time_kernel(wstrip3d<2, 4>, 2, steps, a, b, n, s0, s1));
    report("wstrip4x2.b2", time_kernel(wstrip3d<4, 2>, 2, steps, a, b, n, s0, s1));
    report("wstrip4x4.b2", time_kernel(wstrip3d<4, 4>, 2, steps, a, b, n, s0, s1));
    cudaFree(a);
    cudaFree(b);
    // The aligned layout of vec3d: rows of n + 4 doubles (even), interior column 1 at offset 2.
    const long v1 = n + 4, v0 = v1 * (n + 2);
    cudaMalloc(&a, sizeof(double) * v0 * (n + 2));
    cudaMalloc(&b, sizeof(double) * v0 * (n + 2));
    cudaMemset(a, 0, sizeof(double) * v0 * (n + 2));
    cudaMemset(b, 0, sizeof(double) * v0 * (n + 2));
    report("vec2", time_kernel(vec3d<2>, 4, steps, a, b, n, v0, v1));
    report("vec4", time_kernel(vec3d<4>, 4, steps, a, b, n, v0, v1));
    report("vec4.b2", time_kernel(vec3d<4>, 2, steps, a, b, n, v0, v1));
    cudaFree(a);
    cudaFree(b);
  }
  return 0;
}
#endif  // POINTLOOP_NO_MAIN
