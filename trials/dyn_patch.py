"""Prototype: dynamic (guided) distribution of the barrier form's point-loop rounds among the
blocks: each block first takes its static share (SC_DYN_STATIC percent of the rounds, grid-stride),
then grabs the remaining rounds one at a time from a counter (the next ticket requested while the
round runs). SC_DYN=0 keeps the grid-stride loop."""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
helper = r'''
#ifndef SC_DYN
#define SC_DYN 0
#endif
#ifndef SC_DYN_STATIC
#define SC_DYN_STATIC 75
#endif
__device__ unsigned sc_dyn_ctr[64], sc_dyn_done[64];
struct ScDynWalk {
  unsigned rounds, fixed, k, cur, next_ticket, nblocks, rank;
  unsigned* ctr; unsigned* done;
  __device__ ScDynWalk(unsigned items, unsigned per_round, const ::stencilc::rt::cuda::Workers& w, int site) {
    rounds = (items + per_round - 1) / per_round;
    nblocks = static_cast<unsigned>(w.count);
    rank = blockIdx.x - w.first;
    fixed = static_cast<unsigned>((static_cast<unsigned long long>(rounds) * SC_DYN_STATIC / 100) / nblocks) * nblocks;
    k = 0; ctr = sc_dyn_ctr + site; done = sc_dyn_done + site;
    if (threadIdx.x == 0 && fixed < rounds) next_ticket = atomicAdd(ctr, 1u);
  }
  __device__ bool next(unsigned* shared_slot) {
    const unsigned mine = rank + k * nblocks;
    if (mine < fixed) { cur = mine; ++k; return true; }
    if (fixed >= rounds) return false;
    __syncthreads();
    if (threadIdx.x == 0) { *shared_slot = fixed + next_ticket; next_ticket = atomicAdd(ctr, 1u); }
    __syncthreads();
    cur = *shared_slot;
    if (cur < rounds) return true;
    if (threadIdx.x == 0) {
      // this block's last grab is the one past the end (taken above): count it
      if (atomicAdd(done, 1u) == nblocks - 1) { atomicExch(ctr, 0u); atomicExch(done, 0u); }
    }
    return false;
  }
};
'''
out = []
site = 0
i = 0
inserted = False
def match_close(start):
    depth = 0
    for j in range(start, len(lines)):
        s = re.sub(r'"(\\.|[^"\\])*"', '""', lines[j])
        s = re.sub(r"'(\\.|[^'\\])'", "''", s)
        s = s.split('//')[0] if not s.lstrip().startswith('#') else ''
        depth += s.count('{') - s.count('}')
        if depth == 0:
            return j
    raise RuntimeError('no close')
close_extra = {}
while i < len(lines):
    l = lines[i]
    if not inserted and l.startswith('namespace stencilc_generated'):
        out.append(helper); inserted = True
    m2 = re.match(r'(\s*)for \(unsigned sc_p = sc_compute\.thread\(\); sc_p < sc_items; sc_p \+= sc_compute\.threads\(\)\) \{\s*$', l)
    m1 = re.match(r'(\s*)for \(unsigned sc_q = sc_compute\.thread\(\); sc_q < sc_points; sc_q \+= (\d+)u \* sc_compute\.threads\(\)\) \{\s*$', l)
    if m2 or m1:
        end = match_close(i)
        ind = (m2 or m1).group(1)
        if m2:
            items, per, var = 'sc_items', '::blockDim.x', 'sc_p'
        else:
            items, per, var = 'sc_points', '%su * ::blockDim.x' % m1.group(2), 'sc_q'
        out.append('#if SC_DYN')
        out.append(ind + '__shared__ unsigned sc_dyn_slot%d;' % site)
        out.append(ind + 'for (ScDynWalk sc_dw(%s, %s, sc_compute, %d); sc_dw.next(&sc_dyn_slot%d);) {' % (items, per, site, site))
        out.append(ind + '  const unsigned %s = sc_dw.cur * (%s) + ::threadIdx.x;' % (var, per))
        if m2:
            out.append(ind + '  if (%s >= %s) continue;' % (var, items))
        out.append(ind + '  {')
        out.append('#define SC_STRIDE ::blockDim.x')
        out.append('#else')
        out.append(l)
        out.append('#define SC_STRIDE sc_compute.threads()')
        out.append('#endif')
        for j in range(i + 1, end):
            out.append(lines[j].replace('sc_compute.threads()', 'SC_STRIDE'))
        out.append(lines[end])
        out.append('#if SC_DYN')
        out.append(ind + '}')
        out.append('#endif')
        out.append('#undef SC_STRIDE')
        site += 1
        i = end + 1
        continue
    out.append(l)
    i += 1
open(dst, 'w').write('\n'.join(out))
print(src, 'loops', site)
