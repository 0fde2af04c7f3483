// The plate solver's interface: what an application's own code calls. Nothing here needs
// stencilc; plate.cpp holds the stencil program, built by stencilc into a library or an object.
#pragma once

namespace plate {

struct Result {
  double peak;      // the hottest interior point
  double checksum;  // the sum of the final temperatures, in one fixed order
};

/// Diffuses heat on an nx x ny plate whose left edge is held hot, for `steps` steps, on the PEs
/// stencilc::init chose.
Result simulate(int nx, int ny, int steps);

}  // namespace plate
