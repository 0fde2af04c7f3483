// The generated code's float division on a GPU: stencilc::rt::cuda::div_rn (binary64's quotient
// rounded to binary32 on sm_90) must give CUDA's correctly rounded float division, __fdiv_rn,
// bit for bit on every case of tests/runtime/div_rn_cases.h (subnormal numerators and quotients,
// ties of the subnormal grid, overflow, specials; the host-side check of the same identity is
// tests/runtime/div_rn.cu). Prints PASS or FAIL with the first differences; exits non-zero on one.

#include <cstdio>
#include <vector>

#include "../runtime/div_rn_cases.h"
#include "stencilc/runtime/cuda/generated.cuh"

namespace {

__global__ void divide(const float* a, const float* b, float* mine, float* cuda, int n) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    mine[k] = stencilc::rt::cuda::div_rn(a[k], b[k]);
    cuda[k] = __fdiv_rn(a[k], b[k]);
  }
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  std::vector<float> a, b;
  div_rn_cases::make(&a, &b);
  const int n = static_cast<int>(a.size());
  const std::size_t bytes = a.size() * sizeof(float);
  float *da = nullptr, *db = nullptr, *dm = nullptr, *dc = nullptr;
  if (!ok(cudaMalloc(&da, bytes), "cudaMalloc") || !ok(cudaMalloc(&db, bytes), "cudaMalloc") ||
      !ok(cudaMalloc(&dm, bytes), "cudaMalloc") || !ok(cudaMalloc(&dc, bytes), "cudaMalloc") ||
      !ok(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice), "upload") ||
      !ok(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice), "upload"))
    return 1;
  divide<<<1024, 256>>>(da, db, dm, dc, n);
  if (!ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "divide")) return 1;
  std::vector<float> mine(a.size()), cuda(a.size());
  if (!ok(cudaMemcpy(mine.data(), dm, bytes, cudaMemcpyDeviceToHost), "download") ||
      !ok(cudaMemcpy(cuda.data(), dc, bytes, cudaMemcpyDeviceToHost), "download"))
    return 1;
  long long wrong = 0;
  for (int k = 0; k < n; ++k) {
    if (div_rn_cases::same(mine[k], cuda[k])) continue;
    if (++wrong <= 5)
      std::printf("  %a / %a: div_rn %a, __fdiv_rn %a\n", a[k], b[k], mine[k], cuda[k]);
  }
  std::printf("%s div_rn against __fdiv_rn: %lld of %d quotients differ\n", wrong == 0 ? "PASS" : "FAIL",
              wrong, n);
  return wrong == 0 ? 0 : 1;
}
