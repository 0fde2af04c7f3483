// Checks of the reference semantics of <stencilc/stencilc.hpp> that the samples' checksums would
// not pin down: boundary wrapping, interior boxes, storage order, reduction identities, argv
// handling, and for stencilc::spmd the decomposition, the halo fill, the write-back, scalar
// results, put_signal, Signals, barriers, and Block swaps (symmetric buffers: puts follow the
// buffer, not the handle; the caller's grids see the swaps). Run with any --stencilc-pes=N; exits
// 1 on failure.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stencilc/stencilc.hpp>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

std::atomic<int> g_checks{0}, g_failures{0};

#define CHECK(cond)                                                                 \
  do {                                                                              \
    ++g_checks;                                                                     \
    if (!(cond)) {                                                                  \
      ++g_failures;                                                                 \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                               \
  } while (0)

void check_grids() {
  using stencilc::Box;
  stencilc::Grid<int32_t, 2> g({3, 4}, {stencilc::periodic(), stencilc::fixed(1)});
  g.fill([](int i, int j) { return 10 * i + j; });
  CHECK(g.size() == 12);
  CHECK(g.extent(0) == 3 && g.extent(1) == 4);
  CHECK(g.boundary(0).kind == stencilc::Boundary::Kind::Periodic);
  CHECK(g.boundary(1).kind == stencilc::Boundary::Kind::Fixed && g.boundary(1).width == 1);
  CHECK(g.data()[2 * 4 + 3] == 23);  // row-major, last index fastest
  CHECK(g(-1, 2) == 22 && g(3, 2) == 2 && g(7, 1) == 11 && g(-7, 1) == 21 && g(-3, 0) == 0);
  const Box<2> in = g.interior();
  CHECK(in.lo[0] == 0 && in.hi[0] == 3 && in.lo[1] == 1 && in.hi[1] == 3);

  stencilc::Grid<float, 1> bare({5});
  CHECK(bare.interior().lo[0] == 0 && bare.interior().hi[0] == 5);
  stencilc::Grid<float, 1> thin({3}, {stencilc::fixed(2)});
  CHECK(thin.interior().empty());
  int visits = 0;
  stencilc::for_each(thin.interior(), [&](int) { ++visits; });
  CHECK(visits == 0);

  stencilc::Grid<double, 3> cube(
      {2, 3, 4}, {stencilc::periodic(), stencilc::periodic(), stencilc::periodic()});
  cube.fill([](int i, int j, int k) { return 100.0 * i + 10.0 * j + k; });
  CHECK(cube(-1, -1, -1) == 123.0 && cube(2, 3, 4) == 0.0 && cube(5, -4, 9) == 121.0);

  std::vector<int32_t> v;
  g.copy_to(v);
  CHECK(v.size() == 12 && v[5] == 11);
  v[5] = -5;
  g.copy_from(v);
  CHECK(g(1, 1) == -5);

  // Swaps move storage, not elements.
  stencilc::Grid<float, 2> a({4, 4}), b({4, 4});
  a.fill([](int, int) { return 1.0f; });
  b.fill([](int, int) { return 2.0f; });
  const float* pa = a.data();
  std::swap(a, b);
  CHECK(b.data() == pa && a(0, 0) == 2.0f && b(3, 3) == 1.0f);
  stencilc::swap(a, b);
  CHECK(a.data() == pa && a(0, 0) == 1.0f);
}

void check_loops_and_reductions() {
  using stencilc::Box;
  std::vector<std::pair<int, int>> order;
  stencilc::for_each(Box<2>{{1, 2}, {3, 4}}, [&](int i, int j) { order.emplace_back(i, j); });
  const std::vector<std::pair<int, int>> row_major = {{1, 2}, {1, 3}, {2, 2}, {2, 3}};
  CHECK(order == row_major);

  const Box<3> box{{0, 0, 0}, {2, 3, 4}};
  CHECK(stencilc::reduce(box, stencilc::Sum{}, [](int i, int j, int k) { return i + j + k; }) ==
        72);
  CHECK(stencilc::reduce(box, stencilc::Max{}, [](int i, int j, int k) { return -(i + j + k); }) ==
        0);
  CHECK(stencilc::reduce(box, stencilc::Min{}, [](int i, int j, int k) { return i * j - k; }) ==
        -3);
  auto as_float = stencilc::reduce(box, stencilc::Sum{}, [](int, int, int) { return 0.5f; });
  static_assert(std::is_same_v<decltype(as_float), float>, "reduce returns the lambda's type");
  CHECK(as_float == 12.0f);

  const Box<1> empty{{3}, {3}};
  CHECK(stencilc::reduce(empty, stencilc::Sum{}, [](int) { return 1.5; }) == 0.0);
  CHECK(stencilc::reduce(empty, stencilc::Max{}, [](int) { return 1.5; }) ==
        std::numeric_limits<double>::lowest());
  CHECK(stencilc::reduce(empty, stencilc::Min{}, [](int) { return 1; }) ==
        std::numeric_limits<int>::max());
}

// ---- SPMD ---------------------------------------------------------------------------------

constexpr int kRing = 10;  // global extent of the split dimension
constexpr int kHalo = 2;

int owner_of(int global, int pes) {
  for (int pe = 0; pe < pes; ++pe) {
    const int base = kRing / pes, extra = kRing % pes;
    const int origin = pe * base + (pe < extra ? pe : extra);
    if (global < origin + base + (pe < extra ? 1 : 0)) return pe;
  }
  return -1;
}

SC_SPMD_PROGRAM void probe(stencilc::Block<int32_t, 1>& ring,
                           const stencilc::Block<double, 2>& plate,
                           stencilc::Block<double, 2>& work, int by_value, int& result) {
  const int me = stencilc::my_pe(), np = stencilc::n_pes();
  CHECK(me >= 0 && me < np);
  CHECK(np == stencilc::configured_pes());
  CHECK(by_value == 7);
  by_value = me;  // a per-PE copy: no effect elsewhere

  // Decomposition: contiguous slabs, the first kRing % np PEs one point longer.
  const int base = kRing / np, extra = kRing % np;
  CHECK(ring.extent(0) == base + (me < extra ? 1 : 0));
  CHECK(ring.origin(0) == me * base + (me < extra ? me : extra));
  CHECK(ring.halo(0) == kHalo && ring.global_extent(0) == kRing);
  CHECK(plate.extent(1) == 3 && plate.halo(1) == 0 && plate.origin(1) == 0);
  int total = 0;
  for (int pe = 0; pe < np; ++pe) {
    CHECK(ring.origin_on(pe, 0) == total);
    total += ring.extent_on(pe, 0);
  }
  CHECK(total == kRing);
  const stencilc::Box<1> owned = ring.owned();
  CHECK(owned.lo[0] == 0 && owned.hi[0] == ring.extent(0));

  // Halo fill: periodic grids wrap, fixed grids read 0 past their ends.
  const int n = ring.extent(0), origin = ring.origin(0);
  for (int i = -kHalo; i < n + kHalo; ++i) {
    const int global = ((origin + i) % kRing + kRing) % kRing;
    CHECK(ring(i) == 100 + global);
    const bool outside = origin + i < 0 || origin + i >= kRing;
    CHECK(plate(i, 1) == (outside ? 0.0 : 1000.0 + origin + i));
  }

  // Owned cells are written back, halo cells are not.
  for (int i = 0; i < n; ++i) ring(i) = 2 * ring(i) + me;
  for (int i = 1; i <= kHalo; ++i) ring(-i) = ring(n - 1 + i) = -1;

  // put_signal: my two first owned rows go to the left neighbour's high halo.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 3; ++j) work(i, j) = 1000.0 * me + 10.0 * i + j;
  const int left = (me + np - 1) % np, right = (me + 1) % np;
  stencilc::Signal unused;
  stencilc::Signal high_halo;
  const int n_left = work.extent_on(left, 0);
  stencilc::put_signal(work.region({{n_left, 0}, {n_left + kHalo, 3}}),
                       work.region({{0, 0}, {kHalo, 3}}), high_halo, 5, left);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::GE, 5);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::EQ, 5);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::GT, 4);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::LE, 5);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::LT, 6);
  stencilc::signal_wait_until(high_halo, stencilc::Cmp::NE, 0);
  stencilc::signal_wait_until(unused, stencilc::Cmp::EQ, 0);
  for (int i = 0; i < kHalo; ++i)
    for (int j = 0; j < 3; ++j) CHECK(work(n + i, j) == 1000.0 * right + 10.0 * i + j);
  stencilc::quiet();

  // Reusable barrier: nobody passes round r before everybody reached it.
  static std::atomic<int> arrivals{0};
  for (int round = 0; round < 50; ++round) {
    ++arrivals;
    stencilc::barrier_all();
    CHECK(arrivals.load() >= np * (round + 1));
    stencilc::barrier_all();
  }
  result = 1000 + me;
}

void check_spmd() {
  const int pes = stencilc::configured_pes();
  stencilc::Grid<int32_t, 1> ring({kRing}, {stencilc::periodic()});
  ring.fill([](int i) { return 100 + i; });
  stencilc::Grid<double, 2> plate({kRing, 3}, {stencilc::fixed(1), stencilc::fixed(0)});
  plate.fill([](int i, int) { return 1000.0 + i; });
  stencilc::Grid<double, 2> work({kRing, 3});
  int result = -1;
  const int seven = 7;
  stencilc::spmd(probe, stencilc::Split{0, kHalo}, ring, plate, work, seven, result);
  CHECK(result == 1000);  // PE 0's value
  for (int i = 0; i < kRing; ++i) CHECK(ring(i) == 2 * (100 + i) + owner_of(i, pes));
  CHECK(plate(4, 2) == 1004.0);
  std::printf("header_checks: spmd on %d PEs done\n", pes);
}

// ---- SPMD: swapping blocks ------------------------------------------------------------------

static_assert(!std::is_move_constructible_v<stencilc::Block<double, 1>> &&
                  !std::is_move_assignable_v<stencilc::Block<double, 1>>,
              "Blocks are handles bound to the run: not movable");
// ... yet `using std::swap; swap(a, b);` finds stencilc::swap by argument-dependent lookup.
static_assert(std::is_swappable_v<stencilc::Block<double, 1>>, "stencilc::swap swaps blocks");

constexpr int kOwnedMark = 1000;  // owned cells computed at step 0: kOwnedMark * (pe + 1) + i

// Two PEs one step apart: PE p = 2k has not swapped yet when it puts into its handle b (buffer B)
// on PE q = 2k + 1, which has already swapped (its a now refers to B). The data must land in q's
// buffer B, read through q's a; q's b (buffer A) must not change. Both grids start as
// 100 + global index (periodic, halo 1), so only p's values tell where the put landed.
SC_SPMD_PROGRAM void one_step_apart(stencilc::Block<int32_t, 1>& a,
                                    stencilc::Block<int32_t, 1>& b) {
  const int me = stencilc::my_pe(), np = stencilc::n_pes();
  const int n = a.extent(0);
  const int low_halo = 100 + (a.origin(0) + kRing - 1) % kRing;  // both buffers' cell -1
  stencilc::Signal landed;
  // Step 0: b = f(a) on the owned cells.
  stencilc::for_each(b.owned(), [&](int i) { b(i) = kOwnedMark * (me + 1) + i; });
  CHECK(a(0) == 100 + a.origin(0) && a(-1) == low_halo && b(-1) == low_halo);
  const bool ahead = me % 2 == 1;                  // q: swaps first
  const bool behind = me % 2 == 0 && me + 1 < np;  // p: puts before it swaps

  if (ahead) {
    stencilc::swap(a, b);
    // The handles changed buffers; the buffers did not change.
    CHECK(a(0) == kOwnedMark * (me + 1) && b(0) == 100 + b.origin(0));
    CHECK(a.extent(0) == n && a.extent_on(me - 1, 0) == b.extent_on(me - 1, 0));
  }
  stencilc::barrier_all();  // now every q has swapped, no p has
  if (behind) {
    // My last owned point into q's low halo of buffer B (q's local index -1).
    stencilc::put_signal(b.region({{-1}, {0}}), b.region({{n - 1}, {n}}), landed, 1, me + 1);
  }
  if (ahead) {
    stencilc::signal_wait_until(landed, stencilc::Cmp::GE, 1);
    const int from_p = kOwnedMark * me + (a.extent_on(me - 1, 0) - 1);  // p's point n_p - 1
    // Step 1 reads it through a; buffer A's halo is untouched.
    CHECK(a(-1) == from_p);
    CHECK(b(-1) == low_halo);
  }
  if (!ahead) stencilc::swap(a, b);  // every PE swaps once: the same mapping everywhere
  // A put after the swap goes to the buffer the region names now: my own b is buffer A.
  b(0) = -7;
  stencilc::put_signal(b.region({{n}, {n + 1}}), b.region({{0}, {1}}), landed, 2, me);
  stencilc::signal_wait_until(landed, stencilc::Cmp::EQ, 2);
  CHECK(b(n) == -7 && a(n) != -7);
  // A region keeps naming the buffer it was made from, also after a swap.
  const stencilc::Region<int32_t, 1> in_b = a.region({{0}, {1}});  // buffer B
  stencilc::swap(a, b);
  stencilc::put_signal(in_b, a.region({{1}, {2}}), landed, 3, me);  // A(1) into B(0)
  stencilc::signal_wait_until(landed, stencilc::Cmp::EQ, 3);
  CHECK(b(0) == a(1) && &in_b.block() == &a);
  // Three swaps in all: a refers to buffer B. Undo the two puts above in the owned cells.
  stencilc::swap(a, b);
  a(0) = kOwnedMark * (me + 1);
  b(0) = 100 + b.origin(0);
}

void check_spmd_swap_one_step_apart() {
  const int pes = stencilc::configured_pes();
  stencilc::Grid<int32_t, 1> a({kRing}, {stencilc::periodic()}), b({kRing}, {stencilc::periodic()});
  a.fill([](int i) { return 100 + i; });
  b.fill([](int i) { return 100 + i; });
  stencilc::spmd(one_step_apart, stencilc::Split{0, 1}, a, b);
  // An odd number of swaps: the caller's a holds buffer B (step 0's values), b holds buffer A.
  for (int i = 0; i < kRing; ++i) {
    const int pe = owner_of(i, pes);
    int origin = i;
    while (origin > 0 && owner_of(origin - 1, pes) == pe) --origin;
    CHECK(a(i) == kOwnedMark * (pe + 1) + (i - origin));
    CHECK(b(i) == 100 + i);
  }
}

// Write-back after swaps: three blocks rotated by a swap of a with b, then of b with c (a -> B,
// b -> C, c -> A), then `extra` more swaps of a with b; a const block rides along. Each grid gets
// the owned cells of the buffer its parameter refers to at the end; halo cells are never written.
SC_SPMD_PROGRAM void rotate(stencilc::Block<double, 2>& a, stencilc::Block<double, 2>& b,
                            stencilc::Block<double, 2>& c, const stencilc::Block<double, 2>& k,
                            int extra) {
  stencilc::swap(a, b);
  stencilc::swap(b, c);
  CHECK(a(0, 0) == 2.0 && b(0, 0) == 3.0 && c(0, 0) == 1.0 && k(0, 0) == 4.0);
  for (int s = 0; s < extra; ++s) stencilc::swap(a, b);
  stencilc::for_each(a.owned(), [&](int i, int j) { a(i, j) += 10.0; });
  a(-1, 0) = -5.0;  // a halo cell: not written back
}

void check_spmd_swap_write_back() {
  const int pes = stencilc::configured_pes();
  for (int extra = 0; extra <= 3; ++extra) {
    stencilc::Grid<double, 2> a({kRing, 2}), b({kRing, 2}), c({kRing, 2}), k({kRing, 2});
    a.fill([](int, int) { return 1.0; });
    b.fill([](int, int) { return 2.0; });
    c.fill([](int, int) { return 3.0; });
    k.fill([](int, int) { return 4.0; });
    stencilc::spmd(rotate, stencilc::Split{0, 1}, a, b, c, k, extra);
    // extra even: a -> B, b -> C; odd: a -> C, b -> B. Always c -> A.
    const double want_a = (extra % 2 == 0 ? 2.0 : 3.0) + 10.0;
    const double want_b = extra % 2 == 0 ? 3.0 : 2.0;
    bool all = true;
    for (int i = 0; i < kRing; ++i) {
      for (int j = 0; j < 2; ++j) {
        all = all && a(i, j) == want_a && b(i, j) == want_b && c(i, j) == 1.0 && k(i, j) == 4.0;
      }
    }
    CHECK(all);
  }
  std::printf("header_checks: block swaps on %d PEs done\n", pes);
}

void check_init() {
  char prog[] = "prog", a[] = "a", pes[] = "--stencilc-pes=3", b[] = "b";
  char* argv[] = {prog, a, pes, b, nullptr};
  int argc = 4;
  stencilc::init(argc, argv);
  CHECK(argc == 3 && std::strcmp(argv[1], "a") == 0 && std::strcmp(argv[2], "b") == 0 &&
        argv[3] == nullptr);
  CHECK(stencilc::configured_pes() == 3);
}

}  // namespace

int main(int argc, char** argv) {
  stencilc::init(argc, argv);
  CHECK(argc == 1);  // --stencilc-pes=N was removed
  check_grids();
  check_loops_and_reductions();
  check_spmd();
  check_spmd_swap_one_step_apart();
  check_spmd_swap_write_back();
  check_init();
  stencilc::finalize();
  std::printf("header_checks: %d checks, %d failed\n", g_checks.load(), g_failures.load());
  return g_failures.load() == 0 ? 0 : 1;
}
