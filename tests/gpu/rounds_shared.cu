// rounds.cu with no fixed share and small chunks: every round of a shared execution comes
// through the counter.
#define STENCILC_BALANCE_STATIC 0
#define STENCILC_BALANCE_CHUNKS 64
#include "rounds.cu"
