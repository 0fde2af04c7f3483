// The host-controlled schedule leaves out a cross-GPU wait that an earlier wait of the same stream
// covers (hc::Control::covered, its bookkeeping hc::detail::WaitCover): a PE records its marks in
// increasing order, so a stream that waits for mark m of PE p needs no later wait for an earlier
// mark of p, and still needs one for a later mark of p or for any mark of another PE. Checked
// without a GPU on the sequence of waits a step of a store-through update appends (the receive's
// wait for the neighbour's mark after the last step, then the write-after-read wait for its read
// of two steps before), and on waits of several PEs. Prints a line per failure and
// `N passed, M failed`.
#include <cstdio>
#include <stencilc/runtime/cuda/host_controlled.cuh>

namespace hc = stencilc::rt::cuda::hc;

namespace {

int passed = 0, failed = 0;

void expect(bool ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAIL: %s\n", what);
  }
}

}  // namespace

int main() {
  {
    hc::detail::WaitCover cover(2);
    expect(!cover.covered(0, 1, 0), "the first wait for PE 1's mark 0 is appended");
    expect(cover.covered(0, 1, 0), "a second wait for the same mark is covered");
    expect(!cover.covered(1, 0, 0), "another waiter's wait is its own");
    expect(!cover.covered(0, 0, 0), "a wait for another producer is not covered");
  }
  {
    // Two PEs, each the other's only neighbour, jacobi2d's step s: the receive waits for the
    // neighbour's `stored` mark of step s - 1, then `storing` for the neighbour's read mark of
    // step s - 1 (recorded before `stored`, a smaller number). Marks per step: read (shared by the
    // statement's launches), then stored.
    hc::detail::WaitCover cover(2);
    int appended = 0;
    for (long long s = 1; s <= 50; ++s) {
      const long long read_before = 2 * (s - 1), stored_before = 2 * (s - 1) + 1;
      for (int p = 0; p < 2; ++p) {
        const int q = 1 - p;
        if (!cover.covered(p, q, stored_before)) ++appended;  // halo_recv
        expect(cover.covered(p, q, read_before), "the write-after-read wait is covered by the receive's");
      }
    }
    expect(appended == 100, "one wait a GPU a step");
  }
  {
    // Four PEs on a ring: waits for marks that grow out of order across producers stay apart.
    hc::detail::WaitCover cover(4);
    expect(!cover.covered(2, 1, 10), "PE 2 waits for PE 1's mark 10");
    expect(!cover.covered(2, 3, 4), "PE 2 waits for PE 3's mark 4");
    expect(cover.covered(2, 1, 7), "PE 1's mark 7 is covered by its mark 10");
    expect(!cover.covered(2, 3, 9), "PE 3's mark 9 is not covered by its mark 4");
    expect(cover.covered(2, 3, 9), "and then it is");
    expect(!cover.covered(2, 1, 11), "PE 1's mark 11 is later than 10");
    expect(!cover.covered(3, 1, 7), "PE 3's stream has waited for nothing yet");
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
