// persistent-fusion: mark the program persistent and let the phase-barrier analysis place the
// barriers.
#include "passes/PersistentFusion.h"

#include "passes/PhaseBarriers.h"

namespace stencilc::passes {

ir::Module persistent_fusion(const ir::Module& m) {
  ir::Module out = m;
  for (ir::Program& p : out.programs) {
    if (p.kind == ir::ProgramKind::Global && !p.decomposed) continue;
    p.body = place_phase_barriers(p);
    p.persistent = true;
  }
  return out;
}

}  // namespace stencilc::passes
