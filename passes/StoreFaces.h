// store-faces: the host-controlled schedule's point updates store the faces they write straight
// into the neighbours' halos, so that a halo exchange of what they wrote needs no push of its own.
#pragma once

#include <map>
#include <string>

#include "ir/IR.h"

namespace stencilc::passes {

/// In decomposed global-view programs, marks every whole foreach with `through(%g, ...)`: the
/// grids it stores to whose halos some exchange fills, directly (a `halo_send %g`) or through a
/// buffer swap with such a grid (`swap %g, %h` with %h exchanged: %g's buffer is exchanged under
/// the other name). What the mark means is the emitter's and runtime's contract (docs/IR.md,
/// "Store-through"): each store of a marked grid also writes the value into the neighbours' halo
/// cells of the same buffer wherever the grid's exchange would copy that cell, so the exchange
/// of a buffer whose every change since its last full push was stored through moves nothing; the
/// runtime tracks that per buffer (hc::HaloCopies) and pushes in full otherwise. A foreach never
/// reads a grid it writes at a non-zero offset (the verifier's rule), so no point of it reads a
/// halo cell another GPU's update writes meanwhile.
///
/// The host-controlled pipeline runs it last (passes/Pipelines.h); the CPU-free pipeline does not
/// (its exchanges are signaled puts inside the persistent kernel, docs/SCHEDULES.md).
ir::Module store_faces(const ir::Module& m);

/// The grids of `p` whose buffers some exchange sends, each with the grid whose `halo_send` sends
/// them: a sent grid itself, or the sent grid a chain of swaps joins it to. The host-controlled
/// emitter finds each grid's exchange (its hc::HaloCopies) here.
std::map<std::string, std::string> exchanged_buffers(const ir::Program& p);

}  // namespace stencilc::passes
