// The split point update's boxes on the CUDA target (runtime/include/stencilc/runtime/cuda/
// generated.cuh), checked without a GPU: for blocks and ranges of 1 to 3 dimensions, widths of 0
// to 2 and every set of faces where an exchange acts, keep_exchanged_faces keeps exactly the
// widths of those faces, and the inner part with the boundary slabs of part_boxes cover the range
// exactly once, with every point within a kept width of its face in the boundary part and every
// boundary point within one; BoxWalk (a boundary part's points as one sequence) visits each of them
// once. Also FastDiv (the point loops' and the halo packing's division) on
// divisors and dividends up to 2^31 - 1, the dataflow walk's batches (batch_walk) and the wide
// items' rows and block size (wide_rows, block_threads_for). Built with nvcc (the header is CUDA), run on the host: no
// CUDA call is made. Prints a line per failure and `N passed, M failed`.
#include <cstdint>
#include <cstdio>
#include <random>
#include <stencilc/runtime/cuda/generated.cuh>
#include <vector>

namespace rc = stencilc::rt::cuda;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const char* what, int n, int seed) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAIL %s (%d-D, case %d)\n", what, n, seed);
  }
}

template <int N>
bool inside(const rc::SBox<N>& b, const int* p) {
  for (int d = 0; d < N; ++d)
    if (p[d] < b.lo[d] || p[d] >= b.hi[d]) return false;
  return true;
}

template <int N>
void one_case(std::mt19937& rng, int seed) {
  rc::DBlock<double, N> block;
  for (int d = 0; d < N; ++d) block.extent[d] = 1 + static_cast<int>(rng() % 9);
  rc::SBox<N> local;  // a range inside the block (as clip() returns it), possibly empty
  for (int d = 0; d < N; ++d) {
    const int a = static_cast<int>(rng() % (block.extent[d] + 1));
    const int b = static_cast<int>(rng() % (block.extent[d] + 1));
    local.lo[d] = a < b ? a : b;
    local.hi[d] = a < b ? b : a;
  }
  int width_lo[N], width_hi[N], kept_lo[N], kept_hi[N];
  for (int d = 0; d < N; ++d) {
    width_lo[d] = kept_lo[d] = static_cast<int>(rng() % 3);
    width_hi[d] = kept_hi[d] = static_cast<int>(rng() % 3);
  }
  const unsigned sides = static_cast<unsigned>(rng()) & ((1u << (2 * N)) - 1);
  rc::keep_exchanged_faces(kept_lo, kept_hi, N, sides);
  bool widths_ok = true;
  for (int d = 0; d < N; ++d) {
    widths_ok &= kept_lo[d] == (((sides >> (2 * d)) & 1u) ? width_lo[d] : 0);
    widths_ok &= kept_hi[d] == (((sides >> (2 * d + 1)) & 1u) ? width_hi[d] : 0);
  }
  check(widths_ok, "keep_exchanged_faces keeps the widths of the faces in `sides` only", N, seed);

  const rc::SBox<N> inner = rc::inner_part(local, block, kept_lo, kept_hi);
  const rc::PartBoxes<N> boundary = rc::part_boxes(local, inner, true);
  const rc::PartBoxes<N> inner_parts = rc::part_boxes(local, inner, false);
  bool cover_ok = inner_parts.count == 1, near_ok = true;
  int p[3] = {0, 0, 0};
  const int total = [&] {
    int t = 1;
    for (int d = 0; d < N; ++d) t *= block.extent[d];
    return t;
  }();
  for (int flat = 0; flat < total; ++flat) {
    for (int d = N - 1, rest = flat; d >= 0; --d) {
      p[d] = rest % block.extent[d];
      rest /= block.extent[d];
    }
    int in_parts = inside(inner_parts.box[0], p) ? 1 : 0;
    int in_boundary = 0;
    for (int b = 0; b < boundary.count; ++b) in_boundary += inside(boundary.box[b], p) ? 1 : 0;
    const bool in_range = inside(local, p);
    // Covered once when in the range, never outside it.
    cover_ok &= (in_parts + in_boundary) == (in_range ? 1 : 0);
    if (!in_range) continue;
    bool near = false;  // within a kept width of the block's face
    for (int d = 0; d < N; ++d) near |= p[d] < kept_lo[d] || p[d] >= block.extent[d] - kept_hi[d];
    near_ok &= near == (in_boundary == 1);
  }
  check(cover_ok, "inner part and boundary slabs cover the range exactly once", N, seed);

  // The boundary walk: its points are the boundary slabs' points, each exactly once.
  const rc::BoxWalk<N> walk(boundary);
  long long slab_points = 0;
  for (int b = 0; b < boundary.count; ++b) slab_points += rc::box_points(boundary.box[b]) > 0 ? rc::box_points(boundary.box[b]) : 0;
  int slabs_with_points = 0;  // the walk keeps only those (it is built every step)
  for (int b = 0; b < boundary.count; ++b) slabs_with_points += rc::box_points(boundary.box[b]) > 0 ? 1 : 0;
  bool walk_ok = walk.fits && static_cast<long long>(walk.total) == slab_points && walk.count == slabs_with_points;
  std::vector<int> hits(static_cast<size_t>(total), 0);
  for (unsigned q = 0; walk_ok && q < walk.total; ++q) {
    int l[N];
    walk.locate(q, l);
    int in_boundary = 0;
    for (int b = 0; b < boundary.count; ++b) in_boundary += inside(boundary.box[b], l) ? 1 : 0;
    if (in_boundary != 1) {
      walk_ok = false;
      break;
    }
    int flat = 0;
    for (int d = 0; d < N; ++d) flat = flat * block.extent[d] + l[d];
    ++hits[static_cast<size_t>(flat)];
  }
  for (int flat = 0; walk_ok && flat < total; ++flat) walk_ok = hits[static_cast<size_t>(flat)] <= 1;
  check(walk_ok, "BoxWalk visits every boundary point exactly once", N, seed);
  check(near_ok, "a point is in the boundary part iff it is within a kept width of a face", N, seed);
}

void fast_div_cases() {
  std::mt19937 rng(7);
  std::vector<unsigned> divisors{1, 2, 3, 5, 7, 255, 256, 257, 4094, 4096, 65535, 65536, 1000003, 0x7fffffffu};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % 0x7fffffffu);
  int wrong = 0;
  for (unsigned d : divisors) {
    const rc::FastDiv div(d);
    std::vector<unsigned> ns{0, 1, d - 1, d, d + 1, 2 * d - 1, 0x7ffffffeu, 0x7fffffffu};
    for (int i = 0; i < 200; ++i) ns.push_back(rng() % 0x80000000u);
    for (unsigned n : ns) {
      if (n > 0x7fffffffu) continue;
      // div() on the host: the device's (umulhi(n, m) + n) >> s in 64-bit arithmetic.
      if (div.div(n) != n / d) ++wrong;
    }
  }
  check(wrong == 0, "FastDiv divides every dividend below 2^31 exactly", 1, 0);
}

// The dataflow walk's batches (the emitter's batched_points, batch_walk): where a thread has 2 to
// STENCILC_BATCH_MAX_POINTS points; and the batch schedule as emitted (thread t takes
// q = t, t + K*T, ...; point r of a batch is q + r*T, stored only below total; lit's
// cuda-dataflow.test checks the emitted loop has this arithmetic) stores every point once.
void batch_walk_cases() {
  const int threads = 256, k = rc::kPointUnroll;
  check(!rc::batch_walk(0, threads) && !rc::batch_walk(threads, threads), "batch_walk: not at one point a thread or fewer", 1, 0);
  check(rc::batch_walk(threads + 1, threads) && rc::batch_walk(STENCILC_BATCH_MAX_POINTS * threads, threads),
        "batch_walk: from two points a thread to STENCILC_BATCH_MAX_POINTS", 1, 0);
  check(!rc::batch_walk(STENCILC_BATCH_MAX_POINTS * threads + 1, threads), "batch_walk: not beyond STENCILC_BATCH_MAX_POINTS", 1, 0);
  bool once = true;
  for (unsigned total : {257u, 300u, 512u, 1000u, 1024u, 1025u, 4095u, 4096u}) {
    std::vector<int> stored(total, 0);
    for (int t = 0; t < threads; ++t) {
      for (unsigned q = t; q < total; q += static_cast<unsigned>(k * threads)) {
        for (int r = 0; r < k; ++r) {
          const unsigned p = q + static_cast<unsigned>(r * threads);
          if (p < total) ++stored[p];
        }
      }
    }
    for (int n : stored) once = once && n == 1;
  }
  check(once, "the batched walk stores every point once", 1, 0);
}

}  // namespace

// The wide items' rows (wide_rows) and the kernel's block size (block_threads_for), with the
// default switches: a 2-D item holds STENCILC_WIDE_POINTS_2D points (2 rows of fp32, 4 of fp64), a
// 3-D one STENCILC_WIDE_ROWS_3D rows, always 1 to 4; a kernel with a 4-row item takes
// STENCILC_BLOCK_THREADS_TALL threads a block, any other STENCILC_BLOCK_THREADS.
void wide_item_cases() {
  check(rc::wide_rows(2, 4) == 2 && rc::wide_rows(2, 2) == 4, "wide_rows: 2-D items of 8 points", 2, 0);
  check(rc::wide_rows(3, 4) == STENCILC_WIDE_ROWS_3D && rc::wide_rows(3, 2) == STENCILC_WIDE_ROWS_3D,
        "wide_rows: 3-D items of STENCILC_WIDE_ROWS_3D rows", 3, 0);
  bool bounded = true;
  for (int rank : {2, 3})
    for (int cells : {0, 1, 2, 4, 8, 16}) bounded = bounded && rc::wide_rows(rank, cells) >= 1 && rc::wide_rows(rank, cells) <= 4;
  check(bounded, "wide_rows: 1 to 4 rows", 2, 0);
  check(rc::block_threads_for({}) == STENCILC_BLOCK_THREADS, "block_threads_for: no wide loop", 1, 0);
  check(rc::block_threads_for({rc::wide_rows(2, 4)}) == STENCILC_BLOCK_THREADS, "block_threads_for: fp32 2-D", 2, 0);
  check(rc::block_threads_for({rc::wide_rows(2, 4), rc::wide_rows(2, 2)}) == STENCILC_BLOCK_THREADS_TALL,
        "block_threads_for: an fp64 2-D loop beside an fp32 one", 2, 0);
  check(rc::block_threads_for({rc::wide_rows(3, 4)}) == STENCILC_BLOCK_THREADS_TALL, "block_threads_for: 3-D", 3, 0);
}

int main() {
  std::mt19937 rng(20261122);
  for (int seed = 0; seed < 400; ++seed) {
    one_case<1>(rng, seed);
    one_case<2>(rng, seed);
    one_case<3>(rng, seed);
  }
  fast_div_cases();
  batch_walk_cases();
  wide_item_cases();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
