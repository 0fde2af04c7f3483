// What the host target's generated code includes: compiled.hpp (with the run-time checks every
// target shares: compiled::check_distinct_grids, compiled::check_range) and the host runtime's
// halo exchange.
#pragma once

#include "stencilc/compiled.hpp"

#include <stencilc/runtime/halo.hpp>
