// Experiment (issue 5): which point-loop form reaches the most memory bandwidth in a persistent
// kernel, for the 2-D 5-point fp32 Jacobi update and the 3-D 7-point fp64 heat update, on one GPU.
// Forms: "flat" (what codegen/CudaEmitter emitted until 2026-11-22: one point per iteration of a
// grid-stride loop over the flattened box, a multiply-high division per point) and "strip R" (a
// thread owns a column of R consecutive points along dimension 0 and walks it with the loads of
// the whole strip issued together: R + 2 loads in flight per thread and the dimension-0 neighbours
// reused from registers). Each kernel runs `steps` steps with a grid barrier per step (as the
// generated kernel does) and is timed with CUDA events; bandwidth = 2 * bytes/point / time.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 pointloop.cu -o pointloop; run: ./pointloop
#include <cooperative_groups.h>
#include <cuda_runtime.h>

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

template <int R>
__global__ void __launch_bounds__(256, 4) strip2d(float* a, float* b, int n0, int n1, long s, int steps) {
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

int main() {
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
    cudaFree(a);
    cudaFree(b);
  }
  return 0;
}
