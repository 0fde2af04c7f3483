"""Prototype: L2 prefetch of a future item's reads in the barrier form's wide 2-D item loops and
1-D batch loops of a generated cpu-free .cu. SC_PF_D (build switch, default 0 = off) is the
distance in grid-stride iterations."""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
out = []
helper = r'''
#ifndef SC_PF_D
#define SC_PF_D 0
#endif
__device__ __forceinline__ void sc_pf(const void* p) { asm volatile("prefetch.global.L2 [%0];" :: "l"(p)); }
'''
n2 = n1 = 0
i = 0
inserted_helper = False
while i < len(lines):
    l = lines[i]
    if not inserted_helper and l.startswith('namespace stencilc_generated'):
        out.append(helper); inserted_helper = True
    m = re.match(r'(\s*)for \(unsigned sc_p = sc_compute\.thread\(\); sc_p < sc_items; sc_p \+= sc_compute\.threads\(\)\) \{', l)
    if m and 'sc_divv' in lines[i+1]:
        # body: find the loads in the next ~40 lines
        body = '\n'.join(lines[i:i+40])
        loads = re.findall(r'(::stencilc::rt::cuda::wide_rows\(\d, \d\) > \d) \? ::stencilc::rt::cuda::load_vec<\d>\((sc_\w+_data) \+ \(sc_s0 \+ (-?\d+)\) \* (sc_\w+_s0) \+ sc_wl\)', body)
        rows_expr = re.search(r'const int sc_s0 = sc_c0 \+ static_cast<int>\(sc_qv\) \* (.*);', body).group(1)
        out.append(l)
        ind = m.group(1) + '  '
        pf = [ind + 'if (SC_PF_D > 0) {',
              ind + '  const unsigned sc_pf_p = sc_p + SC_PF_D * sc_compute.threads();',
              ind + '  if (sc_pf_p < sc_items) {',
              ind + '    const unsigned sc_pf_q = sc_divv.div(sc_pf_p);',
              ind + '    const int sc_pf_wl = sc_w0 + static_cast<int>(sc_pf_p - sc_pf_q * sc_nv) * 4;',
              ind + '    const int sc_pf_s0 = sc_c0 + static_cast<int>(sc_pf_q) * %s;' % rows_expr]
        for cond, data, r, s in loads:
            pf.append(ind + '    if (%s) sc_pf(%s + (sc_pf_s0 + %s) * %s + sc_pf_wl);' % (cond, data, r, s))
        pf += [ind + '  }', ind + '}']
        out += pf
        n2 += 1
        i += 1
        continue
    m = re.match(r'(\s*)for \(unsigned sc_q = sc_compute\.thread\(\); sc_q < sc_points; sc_q \+= (\d+)u \* sc_compute\.threads\(\)\) \{', l)
    if m:
        body = '\n'.join(lines[i:i+30])
        grids = sorted(set(re.findall(r'sc_in\d+\[sc_r\] = (sc_\w+_data)\[', body)))
        batch = m.group(2)
        out.append(l)
        ind = m.group(1) + '  '
        out += [ind + 'if (SC_PF_D > 0) {',
                ind + '  #pragma unroll',
                ind + '  for (int sc_r = 0; sc_r < %s; ++sc_r) {' % batch,
                ind + '    const unsigned sc_pf_p = sc_q + (SC_PF_D * %su + sc_r) * sc_compute.threads();' % batch,
                ind + '    if (sc_pf_p < sc_points) {']
        for g in grids:
            out.append(ind + '      sc_pf(%s + sc_c0 + static_cast<int>(sc_pf_p));' % g)
        out += [ind + '    }', ind + '  }', ind + '}']
        n1 += 1
        i += 1
        continue
    out.append(l)
    i += 1
open(dst, 'w').write('\n'.join(out))
print(src, 'wide-2d loops', n2, '1-d batch loops', n1)
