"""Takes one program's kernels out of stencilc's host-controlled CUDA and rewrites them as host
functions that harness.cuh runs thread by thread: __global__ becomes inline, the built-in index
variables (blockIdx, threadIdx, blockDim, gridDim) emu:: globals, STENCILC_GLOBAL_VIEW nothing,
and a reduction's block_partial emu::partial (each thread's value, in thread order).
Usage: extract.py GENERATED.cu sc_<program> OUT.inc"""
import re, sys
src, ns, out = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(src).read()
a = t.index('namespace %s {' % ns)
b = t.index('}  // namespace %s' % ns) + len('}  // namespace %s' % ns)
k = t[a:b]
k = re.sub(r'^#line .*\n', '', k, flags=re.M)
k = k.replace('__global__ void', 'inline void')
k = k.replace('const __grid_constant__ ', 'const ')
for v in ('blockIdx', 'threadIdx', 'blockDim', 'gridDim'):
    k = re.sub(r'\b%s\b' % v, 'emu::' + v, k)
k = re.sub(r'STENCILC_GLOBAL_VIEW\((\w+)\);', r'(void)\1;', k)
k = re.sub(r'::stencilc::rt::cuda::hc::block_partial\((\w+), sc_slot\);', r'emu::partial(\1);', k)
k = k.replace('__host__ __device__ inline', 'inline')
open(out, 'w').write(k)
