// decompose: a global-view program becomes the program every PE runs on its part of the grids.
#pragma once

#include "passes/PassManager.h"

namespace stencilc::passes {

/// Marks each global-view program `decomposed`: from here on it runs on every PE, over the part
/// of each grid the PE owns plus its halos (ranges stay global and are clipped to that part).
/// A reduction then combines only the PE's own points, so an `allreduce %r <op>` follows every
/// `reduce %r`. The process grid is chosen at run time by the runtime from the PE count and the
/// extents, so nothing else in the IR changes.
///
/// Errors (the program is left as it was): a grid parameter whose halos are not inferred (run
/// infer-halos first), and grid parameters of different ranks in one program (one process grid
/// serves every grid of a program). Decomposed and SPMD programs are left alone.
PassResult decompose(const ir::Module& m);

}  // namespace stencilc::passes
