// The memory-bandwidth ceiling bench/run.sh divides by: a large device-to-device copy on each
// visible GPU, timed with CUDA events, median of several, counting bytes read plus bytes written
// (docs/BENCHMARKS.md; device/METHOD.md). Prints one line per GPU: "gpu <i> copy_gbs <GB/s>".
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e = (call);                                                              \
    if (e != cudaSuccess) {                                                              \
      std::fprintf(stderr, "bandwidth: %s: %s\n", #call, cudaGetErrorString(e));         \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

int main() {
  int gpus = 0;
  CHECK(cudaGetDeviceCount(&gpus));
  const size_t bytes = size_t{1} << 30;  // 1 GiB each way: far past the L2
  for (int g = 0; g < gpus; ++g) {
    CHECK(cudaSetDevice(g));
    void *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 1, bytes));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int rep = 0; rep < 12; ++rep) {
      CHECK(cudaEventRecord(start));
      CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (rep >= 2) ms.push_back(t);  // two warm-up copies
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("gpu %d copy_gbs %.1f\n", g, 2.0 * bytes / (median * 1e-3) / 1e9);
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
  }
  return 0;
}
