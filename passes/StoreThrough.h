// store-through: fold a time loop's halo exchange into the point update that produces the halos.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// In a decomposed program, for each `for`/`while` loop whose body exchanges a grid g
/// (`halo_send %g` ... `halo_recv %g`, at the body's top level) and ends in swaps that make g, at
/// the next iteration, the buffer another grid h names now (h != g), where h is written in the
/// body only by the two parts of one split foreach F at the top level, nothing else in the body
/// writes g or h, and nothing reads h at a non-zero offset:
///   - F's boundary part gets `through(%h)`: each of its stores to h also writes the neighbours'
///     halos of the same buffer (the cells in h's send layers, by the channels of h's exchange);
///     both parts' widths grow to cover h's send layers (halo_lo deep at the high faces, halo_hi
///     at the low ones), so the inner part holds none of them even for a one-sided stencil;
///   - a `barrier_all` follows F (the stores through, everywhere, before the next iteration's
///     reads of g's halos, and every PE's reads of this iteration's halos before the next
///     iteration writes into them);
///   - the body's halo_send/halo_recv of g go; before the loop, g's and h's halos are exchanged
///     once (`halo_send`/`halo_recv` of both): the cells of the send layers that F never writes
///     (e.g. fixed edges) keep those values in both buffers; then a `barrier_all`, so that no PE
///     stores into a neighbour's halo while the neighbour's own recv still unpacks into it.
/// Why the halos stay right: an iteration writes buffer x (owned cells and the neighbours' halos
/// of x) while every PE reads buffer y; x's halos were last read in the iteration before, which
/// the barrier ends. In no default pipeline: the CUDA target emits `through` (verified on GPUs),
/// but with barrier_all it is no faster than the exchange protocol (docs/BENCHMARKS.md, session
/// 7); it is the dataflow schedule's face mechanism (docs/SCHEDULES.md). Loops that do not match
/// are left as they are.
ir::Module store_through(const ir::Module& m);

}  // namespace stencilc::passes
