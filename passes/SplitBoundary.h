// split-boundary: split a point update into the part the neighbours need and the rest, so that
// a halo transfer can overlap the rest.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// In decomposed programs, replaces each foreach that a halo transfer of its own block can
/// overlap by its two parts (ir::ForEachPart): the boundary (the points within given widths of
/// the PE's block's faces) and the inner rest. A foreach qualifies when, in its block,
///   - it writes a grid %g whose `halo_send %g` follows with nothing between that
///     place-signaled-puts could not move it past (no write of g's send layers, swap, transfer
///     of g or phase_barrier): the send can then start after the boundary part, while the inner
///     part runs. Widths: g's send layers (halo_hi[d] at the low face, halo_lo[d] at the high).
///   - or it reads a grid %h off-centre whose `halo_recv %h` comes before it with nothing between
///     that place-signaled-puts could not move it past: the receive can then wait while the
///     inner part runs, which reads no halo cell of h. Widths: the largest offsets of the reads.
/// With several such grids the widths are the largest of each. The parts come in the order that
/// lets the transfer overlap: [boundary, inner] for a send, [inner, boundary] when a receive
/// qualifies. Every other foreach stays whole; undecomposed programs are left alone.
///
/// SPMD programs (SpmdEffects.h) split the same way around the user's transfers, with the widths
/// measured from the faces of the block the foreach stores to:
///   - send side: a put_signal after it sends a region of a block it writes that lies in one face
///     slab of that block (`%b[0:1]`, `%b[%n - 1:%n]` with %n the block's extent), and
///     place-signaled-puts can bring it up to the foreach. Widths: the slabs.
///   - receive side: a wait_until before it can sink to it, every put of the program writes only
///     halo cells, and it reads a block of their layout off-centre. Widths: those reads' offsets.
/// Either way the inner part must commute with the transfer (write none of the put's source,
/// touch no cell a peer may write), or the foreach stays whole.
ir::Module split_boundary(const ir::Module& m);

}  // namespace stencilc::passes
