// The heat2d example's parameters: a header of the program's own, so that the build must
// regenerate heat2d's code when it changes (stencilc writes a depfile).
#pragma once

namespace heat2d {

constexpr int kNx = 96;           // grid points in x (columns), boundary included
constexpr int kNy = 64;           // grid points in y (rows), boundary included
constexpr int kSteps = 200;       // time steps
constexpr double kAlpha = 0.2;    // diffusion number alpha * dt / h^2; stable up to 0.25
constexpr double kHotEdge = 1.0;  // temperature of the left edge; the others are at 0

}  // namespace heat2d
