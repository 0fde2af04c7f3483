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
/// qualifies. Every other foreach stays whole; SPMD and undecomposed programs are left alone.
ir::Module split_boundary(const ir::Module& m);

}  // namespace stencilc::passes
