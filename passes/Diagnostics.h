// Error messages of passes, in the verifier's format so that every diagnostic about IR reads
// alike: `file:line:col: error: in program @name: what is wrong`.
#pragma once

#include <string>

#include "ir/IR.h"

namespace stencilc::passes {

/// The message for a problem at `loc` (the position is left out when `loc` is invalid; a loc
/// without a file is in the module's source).
std::string program_error(const ir::Module& m, const ir::Program& p, const ir::SourceLoc& loc,
                          const std::string& message);

}  // namespace stencilc::passes
