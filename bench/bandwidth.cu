// The memory-bandwidth ceiling bench/run.sh divides by (copy_bandwidth.cuh): one line per visible
// GPU, "gpu <i> copy_gbs <GB/s>".
#include <cstdio>

#include "copy_bandwidth.cuh"

int main() {
  int gpus = 0;
  copy_bandwidth::check(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
  for (int g = 0; g < gpus; ++g) std::printf("gpu %d copy_gbs %.1f\n", g, copy_bandwidth::measure_gbs(g));
  return 0;
}
