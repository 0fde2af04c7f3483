// The memory-bandwidth ceiling every benchmark here divides by (docs/BENCHMARKS.md, "Method"):
// a large device-to-device copy on one GPU, timed with CUDA events, the median of 10 after 2
// warm-up copies, counting bytes read plus bytes written. bench/bandwidth.cu prints it for
// bench/run.sh.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace copy_bandwidth {

inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "copy bandwidth: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(2);
}

// GB/s of a 1 GiB copy each way on GPU `device` (far past the L2); leaves `device` current.
inline double measure_gbs(int device) {
  const size_t bytes = size_t{1} << 30;
  check(cudaSetDevice(device), "cudaSetDevice");
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc");
  check(cudaMalloc(&dst, bytes), "cudaMalloc");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms;
  for (int rep = 0; rep < 12; ++rep) {
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (rep >= 2) ms.push_back(t);  // two warm-up copies
  }
  std::sort(ms.begin(), ms.end());
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  check(cudaFree(src), "cudaFree");
  check(cudaFree(dst), "cudaFree");
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

}  // namespace copy_bandwidth
