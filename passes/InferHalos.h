// infer-halos: how wide each grid's halo must be, from the offsets the program reads it at.
#pragma once

#include "ir/IR.h"

namespace stencilc::passes {

/// Sets halo_lo, halo_hi and halo_corners of every grid parameter of each global-view program
/// (decomposed or not; SPMD programs keep the halos their blocks were given). In dimension d,
/// halo_lo[d] is the largest -offset[d] and halo_hi[d] the largest offset[d] of any read of the
/// grid (at least 0); halo_corners is set when some read is off-centre in two or more
/// dimensions, so the diagonal neighbours' cells are needed too. Grids that `swap` connects
/// (transitively) exchange buffers, so each gets the union of the group's halos. A grid never
/// read off-centre gets zero widths: inferred, with nothing to exchange.
ir::Module infer_halos(const ir::Module& m);

}  // namespace stencilc::passes
