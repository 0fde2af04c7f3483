// stencilc.hpp: the one header a stencilc program includes.
//
// Built by an ordinary C++17 compiler, this header is the *reference implementation* of the
// language of docs/LANGUAGE.md: everything runs serially on the CPU (the PEs of an SPMD program
// are threads), with bounds checks and bounded waits, and its results are the oracle that every
// program compiled by stencilc is checked against. The stencilc front end parses the same header
// (with __STENCILC_FRONTEND__ defined) and recognises the names declared here.
//
// Global view (detail/grid.hpp, detail/runtime.hpp)
//   SC_PROGRAM, Boundary / fixed(w) / periodic(), Box<N>, Grid<T, N>,
//   for_each(box, f), reduce(box, Sum{} | Max{} | Min{}, f), swap(a, b), exchange(g),
//   init(argc, argv), finalize(), configured_pes()
// Local view (detail/spmd.hpp, detail/launch.hpp)
//   SC_SPMD_PROGRAM, Block<T, N>, Region<T, N>, Signal, Cmp, my_pe(), n_pes(),
//   put_signal(dst, src, sig, value, pe), signal_wait_until(sig, cmp, value), quiet(),
//   barrier_all(), and on the host spmd(program, Split{dim, halo}, args...)
#pragma once

// Marks a stencil program (global view) or an SPMD program (local view) for the stencilc front
// end, which finds programs by these annotations. Place it before the return type.
#if defined(__clang__)
#define SC_PROGRAM __attribute__((annotate("stencilc.program")))
#define SC_SPMD_PROGRAM __attribute__((annotate("stencilc.spmd_program")))
#else
#define SC_PROGRAM
#define SC_SPMD_PROGRAM
#endif

#include "stencilc/detail/grid.hpp"
#include "stencilc/detail/launch.hpp"
#include "stencilc/detail/runtime.hpp"
#include "stencilc/detail/spmd.hpp"
