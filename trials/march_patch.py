"""Trial (session 43, not run): the barrier form's 2-D wide-item loops walk their items down a
column instead of along a row. A thread's next item is the item below its last (same columns, the
next row group), so the rows two vertically adjacent items share (a 2-row fp32 item loads 4 rows)
come from the SM's L1 instead of the L2, which Nsight Compute shows at 79-93% of its throughput
at large sizes (docs/BENCHMARKS.md, session 43). The body is unchanged: only the order of the item
indices sc_p, a bijection of [0, sc_items): thread t < S * nv (S = threads / nv strips side by
side) takes column t % nv of strip t / nv, K = ceil(groups / S) row groups of it; the others idle.
SC_MARCH=1 turns it on (a build switch of the patched file; 0 = the grid-stride order).
  python3 trials/march_patch.py in.cu out.cu"""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
out, n, inserted = [], 0, False
for i, l in enumerate(lines):
    if not inserted and l.startswith('namespace stencilc_generated'):
        out.append('#ifndef SC_MARCH\n#define SC_MARCH 0\n#endif')
        inserted = True
    m = re.match(r'(\s*)for \(unsigned sc_p = (sc_compute)\.thread\(\); sc_p < sc_items; sc_p \+= \2\.threads\(\)\) \{\s*$', l)
    if m and i + 1 < len(lines) and 'sc_divv' in lines[i + 1]:
        ind, g = m.group(1), m.group(2)
        out += [
            ind + 'const unsigned sc_mT = %s.threads(), sc_mS = SC_MARCH ? sc_mT / sc_nv : 0u;' % g,
            ind + 'const unsigned sc_mG = sc_items / sc_nv, sc_mK = sc_mS > 0 ? (sc_mG + sc_mS - 1) / sc_mS : 0u;',
            ind + 'const unsigned sc_mt = %s.thread();' % g,
            ind + 'const bool sc_march = sc_mS > 0;',
            ind + 'for (unsigned sc_mk = 0, sc_p = !sc_march ? sc_mt : sc_mt < sc_mS * sc_nv ? (sc_mt / sc_nv) * sc_mK * sc_nv + sc_mt % sc_nv : sc_items;',
            ind + '     sc_p < sc_items && (!sc_march || sc_mk < sc_mK); ++sc_mk, sc_p += sc_march ? sc_nv : sc_mT) {',
        ]
        n += 1
        continue
    out.append(l)
open(dst, 'w').write('\n'.join(out))
print(src, 'wide loops walked down columns:', n)
