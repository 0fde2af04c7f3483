// Experiment (issue 5, the 256^2 and the on-chip targets): what a step costs when the halo
// exchange is folded into the point update ("store-through") instead of run as a protocol after
// it, and when the blocks keep their rows on chip. Not yet run on a GPU (written in session 6;
// docs/BENCHMARKS.md, session 6, plan items 1 and 6; docs/SCHEDULES.md, "Planned").
//
// The program is the benchmark's jacobi2d (fp32, periodic in dimension 0, fixed edges in
// dimension 1), cut along dimension 0 over 1-4 GPUs of one process (P2PTeam), in one persistent
// kernel per GPU with a scalar grid-stride point loop (the same in every schedule, so only the
// exchange's cost differs). Schedules:
//   exchange   what the generated kernel does today, without block roles: update, grid barrier,
//              HaloExchange (pack into the neighbour's slot, signal, wait, unpack, ack), grid
//              barrier;
//   store-all  store-through: a thread that writes an owned cell on a face also writes it into
//              the neighbour's halo (a plain store over NVLink; on one GPU the periodic wrap
//              lands in its own halo), then the runtime's barrier_all (every thread fences, grid
//              barrier, the leader signals every PE and waits for all, grid barrier);
//   store-lean store-through with a one-pass barrier across the PEs: each block's thread 0
//              fences (system scope) and arrives on the GPU's counter; the last block to arrive
//              signals every PE and waits for their signals, then releases this GPU's blocks.
// Why store-through needs no acks or slots: with the two buffers swapped every step, step t
// writes buffer x (its owned cells and the neighbours' halos of x) while everybody reads buffer
// y; the neighbours last read x's halos in step t - 1, and the barrier between the steps orders
// those reads before these writes and these writes before step t + 1's reads.
//   resident   PERKS-style (the issue's on-chip target): each block keeps its rows of the block
//              in shared memory for the whole run (two buffers), computes a step there, stores
//              only its first and last rows to global memory (store-through at the GPU's faces),
//              the one-pass barrier, then reads its two neighbouring rows back; global memory
//              sees two rows per block and step instead of the whole grid. Only where the PE's
//              rows fit the GPU's shared memory (jacobi2d 2048^2 on 2 GPUs: 8 MiB per buffer).
//   dataflow   store-lean's update with no barrier at all: every block owns rows of the PE's block
//              and waits only for its two neighbouring blocks (or, at the PE's faces, the
//              neighbour PE's face block) to have finished the previous step (the runtime's DFlow, flow.cuh).
//   res-flow   resident with dataflow's flags instead of the one-pass barrier.
// (dataflow and res-flow added in session 7, after the first four ran: store-lean took 6.1 us a
// step at 256^2 on 1 GPU and 7.9 on 2, resident 5.1 and 6.3; the barrier, not the exchange, is
// the cost. Prediction: one flag round trip instead of the 264-block barrier, so dataflow at
// 256^2 about 3 us on 1 and 2 GPUs.)
//   ll-flow    dataflow with no fence between the GPUs (session 9; not yet run on a GPU): the
//              flags stay for this GPU's blocks, but the PEs meet in "LL" words (NCCL's
//              low-latency protocol): a face cell goes to the neighbour PE as one 8-byte store
//              of its value and the step that wrote it, into one of two word rows by step
//              parity, and the neighbour's thread that needs it polls that word until it holds
//              its step. No release, no edge signal: the value is its own flag, so nothing waits
//              for the NVLink stores' acknowledgements. Two parities suffice: the thread that
//              reads word j of step t writes word j of step t + 1 from it (a 5-point stencil's
//              face cell reads only its own column across the face), and the neighbour writes
//              word j of step t + 2 only after reading that. Prediction (the generated dataflow
//              form's phases at 256^2 on 2 GPUs, session 9: wait 0.7, update 1.5, publish 1.5 us,
//              3.9 a step): the publish's 1.5 goes, the update gains one NVLink one-way trip
//              where it polls (~0.8): about 2.3-2.5 us, the issue's target.
// Each schedule's result is compared bit for bit with a serial CPU reference first (uneven rows
// on 2-4 GPUs), then timed (the leader's global timer around the loop, median of 3 runs).
// Prediction (session 5's phases of the generated kernel at 256^2: send 4.2, recv 0.6, group
// barrier 2.6-3.9, boundary walk 2.8, grid barrier 1.0 us): store-lean at 256^2 on 2 GPUs about
// 3-4 us a step (an update of 128 x 256 points, ~1 us; the fences and one NVLink round trip,
// ~2 us), the hand-written CPU-free kernel's 2.9 us within reach, where exchange takes ~10.
// resident at 2048^2 on 2 GPUs: below the bandwidth floor of 4.0 us a step (8 bytes a point at
// ~4.2 TB/s) if the barrier stays near 2 us and the shared-memory update of 8192 points per block
// under 1 us.
//
// Build (repository root): nvcc -O3 -arch=sm_90 -std=c++17 -I runtime/include -I include \
//   bench/experiments/storethrough.cu -o storethrough
// Run: ./storethrough --pes=2 [--perf=1]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../tests/gpu/test_util.cuh"  // hash32, arg_int; includes the runtime's halo.cuh
#include "stencilc/runtime/cuda/flow.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

enum Schedule { kExchange = 0, kStoreAll = 1, kStoreLean = 2, kResident = 3, kDataflow = 4, kResidentFlow = 5, kLlFlow = 6 };
constexpr int kLastSchedule = kLlFlow;
const char* const kScheduleName[] = {"exchange", "store-all", "store-lean", "resident", "dataflow", "res-flow", "ll-flow"};
bool dataflow(int schedule) { return schedule == kDataflow || schedule == kResidentFlow || schedule == kLlFlow; }
bool resident(int schedule) { return schedule == kResident || schedule == kResidentFlow; }

struct Args {
  DBlock<float, 2> a, b;            // this PE's two buffers
  DBlock<float, 2> up_a, up_b;      // the PE above (periodic): my row 0 is its high halo row
  DBlock<float, 2> down_a, down_b;  // the PE below: my last row is its low halo row
  DHaloExchange<float, 2> halo;     // the exchange schedule's
  int iters;
  int schedule;
  unsigned* arrive;                 // store-lean: blocks arrived in this barrier (this GPU)
  std::uint64_t* release;           // store-lean: the last barrier whose blocks may go on
  std::uint64_t* signal;            // store-lean: symmetric, [pe] = the last barrier PE pe reached
  unsigned long long* clock;        // start, end of the time loop
  int tile_rows;                    // resident: the most rows a block holds (shared memory)
  FlowSignals flow;                 // dataflow, res-flow, ll-flow: the runtime's DFlow (flow.cuh)
  std::uint64_t* ll;                // ll-flow: symmetric, the LL words (ll_index)
};

// ll-flow's words on each PE: [parity][side][column], side 0 the row above my first (the PE
// above's last), side 1 the row below my last (the PE below's first); `width` the block's
// columns, edges included.
__host__ __device__ inline long ll_index(unsigned parity, int side, int width, int j) {
  return (static_cast<long>(parity & 1u) * 2 + side) * width + j;
}

// An LL word: the value's bits low, the step that wrote it high (from 1: zero-filled memory
// holds no step). One aligned 8-byte store, so a reader sees both halves or neither.
__device__ void ll_put(std::uint64_t* word, float v, unsigned step) {
  *static_cast<volatile std::uint64_t*>(word) = (std::uint64_t{step} << 32) | __float_as_uint(v);
}

// The value of word `word` once it holds step `step`: polled, then the PE's bounded wait (a
// diagnostic and status 3 where it never comes). A later step there means the parities were
// overrun: a fatal error, never a wrong value.
__device__ float ll_get(const DevicePe& pe, const std::uint64_t* word, unsigned step, int from, int j) {
  std::uint64_t w = *static_cast<const volatile std::uint64_t*>(word);
  for (int spin = 0; (w >> 32) < step && spin < (1 << 12); ++spin) w = *static_cast<const volatile std::uint64_t*>(word);
  if ((w >> 32) < step) {
    pe.wait_with(word, Cmp::GE, std::uint64_t{step} << 32, [&](stencilc::rt::cuda::detail::Message& m) {
      m.str("ll-flow step ").num(step).str(": column ").num(j).str(" from PE ").num(from);
    });
    w = *static_cast<const volatile std::uint64_t*>(word);
  }
  if ((w >> 32) != step) {
    pe.fatal_with([&](stencilc::rt::cuda::detail::Message& m) {
      m.str("ll-flow step ").num(step).str(": column ").num(j).str(" from PE ").num(from).str(" holds step ");
      m.num(static_cast<long long>(w >> 32));
    });
  }
  return __uint_as_float(static_cast<unsigned>(w));
}

// The one-pass barrier across every block of every PE (store-lean). Every thread of the grid.
__device__ void pe_barrier(const DevicePe& pe, const Args& args, std::uint64_t epoch) {
  __syncthreads();  // the block's stores, the remote ones too, before thread 0's fence
  if (threadIdx.x == 0) {
    __threadfence_system();
    const unsigned arrived = atomicAdd(args.arrive, 1u) + 1;
    if (arrived == gridDim.x) {
      *args.arrive = 0;  // nobody arrives again before the release below
      for (int p = 0; p < pe.n; ++p) stencilc::rt::cuda::detail::store_release_sys(pe.remote(&args.signal[pe.id], p), epoch);
      for (int p = 0; p < pe.n; ++p) {
        pe.wait_with(&args.signal[p], Cmp::GE, epoch, [&](stencilc::rt::cuda::detail::Message& m) {
          m.str("store-lean barrier ").num(static_cast<long long>(epoch)).str(": PE ").num(p);
        });
      }
      stencilc::rt::cuda::detail::store_release_sys(args.release, epoch);
    } else {
      pe.wait_with(args.release, Cmp::GE, epoch, [&](stencilc::rt::cuda::detail::Message& m) {
        m.str("store-lean barrier ").num(static_cast<long long>(epoch)).str(": this GPU's last block");
      });
    }
  }
  __syncthreads();
}

__global__ void __launch_bounds__(256, 2) jacobi_kernel(const __grid_constant__ DevicePe pe,
                                                        const __grid_constant__ Args args) {
  DBlock<float, 2> a = args.a, b = args.b, up_a = args.up_a, up_b = args.up_b,
                   down_a = args.down_a, down_b = args.down_b;
  const int rows = a.extent[0], cols = a.extent[1] - 2;  // columns 0 and n - 1: fixed edges
  const long points = static_cast<long>(rows) * cols;
  const long first = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  const bool store = args.schedule != kExchange;
  std::uint64_t epoch = 1;
  // The halos of the initial state.
  if (store) {
    for (long p = first; p < cols; p += stride) {
      const int j = 1 + static_cast<int>(p);
      up_a(up_a.extent[0], j) = a(0, j);
      down_a(-1, j) = a(rows - 1, j);
    }
    if (args.schedule == kStoreAll) pe.barrier_all("initial halos"); else pe_barrier(pe, args, epoch);
  } else {
    args.halo.exchange(pe, a, epoch);
    pe.grid_barrier();
  }
  if (is_leader()) args.clock[0] = global_timer_ns();
  for (int t = 0; t < args.iters; ++t) {
    ++epoch;
    for (long p = first; p < points; p += stride) {
      const int i = static_cast<int>(p / cols);
      const int j = 1 + static_cast<int>(p - static_cast<long>(i) * cols);
      const float v = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
      b(i, j) = v;
      if (store) {
        if (i == 0) up_b(up_b.extent[0], j) = v;
        if (i == rows - 1) down_b(-1, j) = v;
      }
    }
    if (args.schedule == kStoreAll) {
      pe.barrier_all("store-all step");
    } else if (args.schedule == kStoreLean) {
      pe_barrier(pe, args, epoch);
    } else {
      pe.grid_barrier();  // b's owned cells are written
      args.halo.exchange(pe, b, epoch);
      pe.grid_barrier();  // b's halos are visible to every block
    }
    swap(a, b);
    swap(up_a, up_b);
    swap(down_a, down_b);
  }
  if (is_leader()) args.clock[1] = global_timer_ns();
}

// The dataflow schedule: the point update of store-lean, each block on its own rows, and the
// runtime's DFlow (flow.cuh) instead of a barrier: each block waits only for its two neighbours
// (or, at the PE's faces, the neighbour PE's face block).
__global__ void __launch_bounds__(256, 2) dataflow_kernel(const __grid_constant__ DevicePe pe,
                                                          const __grid_constant__ Args args) {
  DBlock<float, 2> a = args.a, b = args.b, up_a = args.up_a, up_b = args.up_b,
                   down_a = args.down_a, down_b = args.down_b;
  const int rows = a.extent[0], cols = a.extent[1] - 2;
  const DFlow<DevicePe> flow(pe, args.flow, rows, 1, (pe.id + pe.n - 1) % pe.n, (pe.id + 1) % pe.n);
  const int r0 = flow.row_begin(), r1 = flow.row_end();
  for (long p = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; p < cols;
       p += static_cast<long>(gridDim.x) * blockDim.x) {
    const int j = 1 + static_cast<int>(p);
    up_a(up_a.extent[0], j) = a(0, j);
    down_a(-1, j) = a(rows - 1, j);
  }
  pe_barrier(pe, args, 1);  // the initial halos; then the flags count steps from 1
  if (is_leader()) args.clock[0] = global_timer_ns();
  const long points = static_cast<long>(r1 - r0) * cols;
  for (int t = 0; t < args.iters; ++t) {
    if (t > 0) flow.wait(t);
    for (long p = threadIdx.x; p < points; p += blockDim.x) {
      const int i = r0 + static_cast<int>(p / cols);
      const int j = 1 + static_cast<int>(p % cols);
      const float v = 0.25f * (a(i, j + 1) + a(i, j - 1) + a(i + 1, j) + a(i - 1, j));
      b(i, j) = v;
      if (i == 0) up_b(up_b.extent[0], j) = v;
      if (i == rows - 1) down_b(-1, j) = v;
    }
    flow.publish(t + 1);
    swap(a, b);
    swap(up_a, up_b);
    swap(down_a, down_b);
  }
  flow.finish(args.iters);  // every block of every PE done, for the clock
  if (is_leader()) args.clock[1] = global_timer_ns();
}

// The ll-flow schedule: dataflow's update and this GPU's flags; across the PEs, LL words.
__global__ void __launch_bounds__(256, 2) ll_flow_kernel(const __grid_constant__ DevicePe pe,
                                                         const __grid_constant__ Args args) {
  DBlock<float, 2> a = args.a, b = args.b;
  const int rows = a.extent[0], width = a.extent[1], cols = width - 2;
  const int up = (pe.id + pe.n - 1) % pe.n, down = (pe.id + 1) % pe.n;
  // No neighbour PEs for the flags (-1): the faces wait on the words instead.
  const DFlow<DevicePe> flow(pe, args.flow, rows, 1, -1, -1);
  const int r0 = flow.row_begin(), r1 = flow.row_end();
  std::uint64_t* const to_up = pe.remote(args.ll, up);      // its side 1: my first row
  std::uint64_t* const to_down = pe.remote(args.ll, down);  // its side 0: my last row
  if (to_up == nullptr || to_down == nullptr) pe.fatal("ll-flow: a neighbour PE cannot be reached with stores");
  // The initial faces: step 1 (what step 0 of the loop reads), parity 1.
  for (long p = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; p < cols;
       p += static_cast<long>(gridDim.x) * blockDim.x) {
    const int j = 1 + static_cast<int>(p);
    ll_put(&to_up[ll_index(1, 1, width, j)], a(0, j), 1);
    ll_put(&to_down[ll_index(1, 0, width, j)], a(rows - 1, j), 1);
  }
  pe_barrier(pe, args, 1);  // the words need none; the clock starts as in the other schedules
  if (is_leader()) args.clock[0] = global_timer_ns();
  const long points = static_cast<long>(r1 - r0) * cols;
  for (int t = 0; t < args.iters; ++t) {
    const unsigned step = static_cast<unsigned>(t) + 1;  // the words this step reads
    if (t > 0) flow.wait(t);
    for (long p = threadIdx.x; p < points; p += blockDim.x) {
      const int i = r0 + static_cast<int>(p / cols);
      const int j = 1 + static_cast<int>(p % cols);
      const float above = i == 0 ? ll_get(pe, &args.ll[ll_index(step, 0, width, j)], step, up, j) : a(i - 1, j);
      const float below = i == rows - 1 ? ll_get(pe, &args.ll[ll_index(step, 1, width, j)], step, down, j) : a(i + 1, j);
      const float v = 0.25f * (a(i, j + 1) + a(i, j - 1) + below + above);
      b(i, j) = v;
      if (i == 0) ll_put(&to_up[ll_index(step + 1, 1, width, j)], v, step + 1);
      if (i == rows - 1) ll_put(&to_down[ll_index(step + 1, 0, width, j)], v, step + 1);
    }
    flow.publish(t + 1);
    swap(a, b);
  }
  flow.finish(args.iters);  // every block of every PE done, for the clock
  if (is_leader()) args.clock[1] = global_timer_ns();
}

// The resident schedule. Block g holds rows [r0, r1) of the PE's block, plus one row above and
// below, in each of two shared-memory buffers of (tile_rows + 2) x W cells (W: the row with its
// fixed edge columns). Per step: the update from buffer `cur` into `nxt`, the block's first and
// last rows also into global memory (`b`: its owned cells, read by the neighbouring blocks; and
// at the PE's faces the neighbour PE's halo, as store-lean); the barrier across PEs; the two
// neighbouring rows from global memory into `nxt`'s halo rows. At the end the owned rows go back
// to the buffer the other schedules end in.
__global__ void __launch_bounds__(256, 1) resident_kernel(const __grid_constant__ DevicePe pe,
                                                          const __grid_constant__ Args args) {
  extern __shared__ float tile[];
  DBlock<float, 2> a = args.a, b = args.b, up_b = args.up_b, down_b = args.down_b;
  DBlock<float, 2> up_a = args.up_a, down_a = args.down_a;
  const int rows = a.extent[0], width = a.extent[1], cols = width - 2;
  const bool flowing = args.schedule == kResidentFlow;  // then every block has rows (run() caps the blocks)
  const DFlow<DevicePe> flow(pe, args.flow, rows, 1, (pe.id + pe.n - 1) % pe.n, (pe.id + 1) % pe.n);
  const int r0 = static_cast<int>(static_cast<long>(rows) * blockIdx.x / gridDim.x);
  const int r1 = static_cast<int>(static_cast<long>(rows) * (blockIdx.x + 1) / gridDim.x);
  const int blocks = static_cast<int>(gridDim.x);
  const int mine = r1 - r0;
  if ((rows + blocks - 1) / blocks > args.tile_rows) {
    pe.fatal_with([&](stencilc::rt::cuda::detail::Message& m) {
      m.str("resident: ").num(rows).str(" rows over ").num(blocks).str(" blocks do not fit tiles of ").num(args.tile_rows);
    });
  }
  const long plane = static_cast<long>(args.tile_rows + 2) * width;
  float* buffer[2] = {tile, tile + plane};
  auto cell = [&](float* t, int i, int j) -> float& { return t[static_cast<long>(i - r0 + 1) * width + j]; };
  // The initial halos of the PE (as store-lean), then the block's rows and their neighbours.
  for (long p = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; p < cols;
       p += static_cast<long>(gridDim.x) * blockDim.x) {
    const int j = 1 + static_cast<int>(p);
    up_a(up_a.extent[0], j) = a(0, j);
    down_a(-1, j) = a(rows - 1, j);
  }
  std::uint64_t epoch = 1;
  pe_barrier(pe, args, epoch);
  for (long p = threadIdx.x; p < static_cast<long>(mine + 2) * width; p += blockDim.x) {
    const int i = r0 - 1 + static_cast<int>(p / width), j = static_cast<int>(p % width);
    cell(buffer[0], i, j) = a(i, j);
    cell(buffer[1], i, j) = a(i, j);  // the fixed edge columns in both buffers
  }
  __syncthreads();
  if (is_leader()) args.clock[0] = global_timer_ns();
  int cur = 0;
  for (int t = 0; t < args.iters; ++t) {
    ++epoch;
    float* const in = buffer[cur];
    float* const out = buffer[cur ^ 1];
    for (long p = threadIdx.x; p < static_cast<long>(mine) * cols; p += blockDim.x) {
      const int i = r0 + static_cast<int>(p / cols);
      const int j = 1 + static_cast<int>(p % cols);
      const float v = 0.25f * (cell(in, i, j + 1) + cell(in, i, j - 1) + cell(in, i + 1, j) + cell(in, i - 1, j));
      cell(out, i, j) = v;
      if (i == r0 || i == r1 - 1) {
        b(i, j) = v;
        if (i == 0) up_b(up_b.extent[0], j) = v;
        if (i == rows - 1) down_b(-1, j) = v;
      }
    }
    if (flowing) {
      flow.publish(epoch);
      flow.wait(epoch);
    } else {
      pe_barrier(pe, args, epoch);
    }
    if (mine > 0) {
      for (long p = threadIdx.x; p < 2L * cols; p += blockDim.x) {
        const int j = 1 + static_cast<int>(p % cols);
        const int i = p < cols ? r0 - 1 : r1;  // b's owned cells, or its halo at the PE's faces
        cell(out, i, j) = b(i, j);
      }
    }
    __syncthreads();
    cur ^= 1;
    swap(a, b);
    swap(up_a, up_b);
    swap(down_a, down_b);
  }
  if (flowing) flow.finish(epoch);  // every block of every PE done, for the clock
  if (is_leader()) args.clock[1] = global_timer_ns();
  for (long p = threadIdx.x; p < static_cast<long>(mine) * cols; p += blockDim.x) {
    const int i = r0 + static_cast<int>(p / cols), j = 1 + static_cast<int>(p % cols);
    a(i, j) = cell(buffer[cur], i, j);
  }
}

float initial(int i, int j, int cols) {
  if (j == 0 || j == cols - 1) return std::sin(0.01f * i) + (j == 0 ? 1.0f : -1.0f);
  return static_cast<float>(gputest::hash32(static_cast<std::uint32_t>(i * 7919 + j)) % 100000) / 100000.0f;
}

// The serial reference: the same expression in the same order, periodic rows, fixed edge columns.
void reference(std::vector<float>& a, int rows, int cols, int iters) {
  std::vector<float> b = a;
  for (int t = 0; t < iters; ++t) {
    for (int i = 0; i < rows; ++i) {
      for (int j = 1; j < cols - 1; ++j) {
        b[i * cols + j] = 0.25f * (a[i * cols + j + 1] + a[i * cols + j - 1] + a[((i + 1) % rows) * cols + j] +
                                   a[((i + rows - 1) % rows) * cols + j]);
      }
    }
    a.swap(b);
  }
}

// One run on a fresh team: microseconds per step; with `check`, the number of wrong cells.
double run(int n, int rows, int cols, int iters, Schedule schedule, const LaunchConfig& config,
           bool check, int* wrong, int* blocks) {
  P2PTeam team(n);
  std::string error;
  const std::optional<ProcessGrid> grid = choose_process_grid(
      n, 2, {rows, cols, 1}, {1, 0, 0}, {1, 0, 0}, format("%dx1", n).c_str(), &error);
  if (!grid) fatal("%s", error.c_str());
  std::vector<DBlock<float, 2>> a = alloc_blocks<float, 2>(team, *grid, {rows, cols}, {1, 0}, {1, 0});
  std::vector<DBlock<float, 2>> b = alloc_blocks<float, 2>(team, *grid, {rows, cols}, {1, 0}, {1, 0});
  HaloExchange<float, 2> halo(team, *grid, a, {true, false}, false, "a");
  Sym<unsigned> arrive = team.alloc<unsigned>(1);
  Sym<std::uint64_t> release = team.alloc<std::uint64_t>(1);
  Sym<std::uint64_t> signal = team.alloc<std::uint64_t>(kMaxPes);
  Sym<unsigned long long> clock = team.alloc<unsigned long long>(2);
  const FlowAlloc flow(team);
  Sym<std::uint64_t> ll = team.alloc<std::uint64_t>(static_cast<std::size_t>(4) * cols);  // zero: no step
  for (int pe = 0; pe < n; ++pe) {  // owned cells from the initial state, halos NaN
    const DBlock<float, 2>& blk = a[pe];
    std::vector<float> host(static_cast<std::size_t>(blk.allocated()), std::nanf(""));
    for (int i = 0; i < blk.extent[0]; ++i) {
      for (int j = 0; j < blk.extent[1]; ++j) {
        host[blk.data_offset() + i * blk.stride[0] + j] = initial(blk.origin[0] + i, j, cols);
      }
    }
    team.upload(pe, a[pe].data - a[pe].data_offset(), host.data(), host.size());
    team.upload(pe, b[pe].data - b[pe].data_offset(), host.data(), host.size());
  }
  // The resident schedule's tiles: every block's rows (the most any PE's block gives one) in two
  // shared-memory buffers; 1 or 2 blocks per SM, whichever fits (none: the size is skipped).
  // The dataflow schedules give every block at least one row: at most as many blocks as the
  // smallest PE's block has rows.
  LaunchConfig launch = config;
  int fewest_rows = rows;
  for (int pe = 0; pe < n; ++pe) fewest_rows = std::min(fewest_rows, a[pe].extent[0]);
  if (dataflow(schedule)) {
    const int cap = std::min(fewest_rows, kMaxFlowBlocks);
    launch.max_blocks = launch.max_blocks > 0 ? std::min(launch.max_blocks, cap) : cap;
  }
  int tile_rows = 0;
  if (resident(schedule)) {
    cudaDeviceProp prop{};
    STENCILC_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int most_rows = 0;
    for (int pe = 0; pe < n; ++pe) most_rows = std::max(most_rows, a[pe].extent[0]);
    for (const int per_sm : {2, 1}) {
      int grid_blocks = per_sm * prop.multiProcessorCount;
      if (launch.max_blocks > 0) grid_blocks = std::min(grid_blocks, launch.max_blocks);
      const int rows_per_block = (most_rows + grid_blocks - 1) / grid_blocks;
      const std::size_t bytes = 2 * static_cast<std::size_t>(rows_per_block + 2) * cols * sizeof(float);
      if (bytes <= prop.sharedMemPerBlockOptin && bytes * per_sm <= prop.sharedMemPerMultiprocessor - 2048) {
        tile_rows = rows_per_block;
        launch.blocks_per_sm = per_sm;
        launch.max_blocks = grid_blocks;
        launch.dynamic_smem = bytes;
        break;
      }
    }
    if (tile_rows == 0) return -1;  // the rows do not fit on chip
  }
  const LaunchResult launched = team.launch_cooperative(
      resident(schedule)         ? resident_kernel
      : schedule == kDataflow ? dataflow_kernel
      : schedule == kLlFlow   ? ll_flow_kernel
                              : jacobi_kernel,
      [&](int pe) {
        Args args{};
        const int up = (pe + n - 1) % n, down = (pe + 1) % n;
        args.a = a[pe];
        args.b = b[pe];
        args.up_a = a[up];
        args.up_b = b[up];
        args.down_a = a[down];
        args.down_b = b[down];
        args.halo = halo.device(pe);
        args.iters = iters;
        args.schedule = schedule;
        args.arrive = arrive.on(pe);
        args.release = release.on(pe);
        args.signal = signal.on(pe);
        args.clock = clock.on(pe);
        args.tile_rows = tile_rows;
        args.flow = flow.on(pe);
        args.ll = ll.on(pe);
        return std::make_tuple(team.device_pe(pe), args);
      },
      launch);
  *blocks = launched.blocks[0];
  unsigned long long clocks[2];
  team.download(0, clocks, clock.on(0), 2);
  if (!check) return (clocks[1] - clocks[0]) / 1000.0 / iters;

  std::vector<float> expected(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) expected[i * cols + j] = initial(i, j, cols);
  }
  reference(expected, rows, cols, iters);
  *wrong = 0;
  for (int pe = 0; pe < n; ++pe) {
    const DBlock<float, 2>& blk = (iters % 2 == 0 ? a : b)[pe];  // the latest state
    const std::vector<float> cells = gputest::owned_cells(team, pe, blk);
    for (int i = 0; i < blk.extent[0]; ++i) {
      for (int j = 0; j < blk.extent[1]; ++j) {
        const float got = cells[static_cast<std::size_t>(i) * blk.extent[1] + j];
        const float want = expected[(blk.origin[0] + i) * cols + j];
        if (std::memcmp(&got, &want, sizeof got) != 0 && ++*wrong <= 5) {
          std::printf("    PE %d cell (%d, %d) is %.9g, expected %.9g\n", pe, blk.origin[0] + i, j, got, want);
        }
      }
    }
  }
  return (clocks[1] - clocks[0]) / 1000.0 / iters;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  const bool perf = gputest::arg_int(argc, argv, "--perf", 1) != 0;
  int failures = 0;
  for (int s = kExchange; s <= kLastSchedule; ++s) {
    for (const int max_blocks : {0, 3}) {  // every block resident; 3 blocks (long point loops)
      LaunchConfig config;
      config.blocks_per_sm = 2;
      config.max_blocks = max_blocks;
      int wrong = 0, blocks = 0;
      if (run(n, 203, 157, 101, static_cast<Schedule>(s), config, true, &wrong, &blocks) < 0) {
        std::printf("check %-10s on %d GPU%s, 203 x 157: does not fit on chip\n", kScheduleName[s], n, n > 1 ? "s" : "");
        ++failures;  // it must: 203 rows are small
        continue;
      }
      std::printf("check %-10s on %d GPU%s, 203 x 157, 101 steps, %4d blocks: %s (%d wrong cells)\n",
                  kScheduleName[s], n, n > 1 ? "s" : "", blocks, wrong == 0 ? "ok" : "FAILED", wrong);
      failures += wrong != 0;
    }
  }
  if (perf && failures == 0) {
    struct Size { int n, iters; };
    for (const Size size : {Size{256, 5000}, Size{1024, 2000}, Size{2048, 1000}, Size{4096, 300}}) {
      for (const int max_blocks : {0, 32}) {
        std::printf("perf %5d^2 on %d GPU%s, %s:", size.n, n, n > 1 ? "s" : "",
                    max_blocks ? "32 blocks" : "2 blocks per SM");
        for (int s = kExchange; s <= kLastSchedule; ++s) {
          LaunchConfig config;
          config.blocks_per_sm = 2;
          config.max_blocks = max_blocks;
          std::vector<double> us;
          int wrong = 0, blocks = 0;
          for (int r = 0; r < 3; ++r) {
            us.push_back(run(n, size.n, size.n, size.iters, static_cast<Schedule>(s), config, false, &wrong, &blocks));
          }
          std::sort(us.begin(), us.end());
          if (us[1] < 0) {
            std::printf("  %s -", kScheduleName[s]);
          } else {
            std::printf("  %s %.2f us/step (%d blocks)", kScheduleName[s], us[1], blocks);
          }
        }
        std::printf("\n");
      }
    }
  }
  std::printf("%s storethrough (%d GPU%s)\n", failures == 0 ? "PASS" : "FAIL", n, n > 1 ? "s" : "");
  return failures == 0 ? 0 : 1;
}
