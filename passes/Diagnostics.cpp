// Error messages of passes (see Diagnostics.h).
#include "passes/Diagnostics.h"

namespace stencilc::passes {

std::string program_error(const ir::Module& m, const ir::Program& p, const ir::SourceLoc& loc,
                          const std::string& message) {
  std::string out;
  if (loc.valid()) {
    out = (loc.file.empty() ? m.source : loc.file) + ":" + std::to_string(loc.line) + ":" +
          std::to_string(loc.col) + ": ";
  }
  return out + "error: in program @" + p.name + ": " + message;
}

}  // namespace stencilc::passes
