// An application with its own main that uses a stencil program through a plain interface
// (solver/plate.hpp): linked with the library stencilc_add_library builds, with the object file
// `stencilc -c` writes, or with the reference build of the same solver.
// Usage: plate_app [nx [ny [steps]]]   (PEs: --stencilc-pes=N or STENCILC_PES)
#include <stencilc/stencilc.hpp>

#include <cstdio>
#include <cstdlib>

#include "plate.hpp"

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  const int nx = argc > 1 ? std::atoi(argv[1]) : 80;
  const int ny = argc > 2 ? std::atoi(argv[2]) : 48;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 120;
  const plate::Result r = plate::simulate(nx, ny, steps);
  std::printf("plate %dx%d steps=%d peak=%.15e checksum=%.15e\n", ny, nx, steps, r.peak, r.checksum);
  stencilc::finalize();
  return 0;
}
