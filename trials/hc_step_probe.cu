// Scratch probe (branch phase-stamps, not product): what one step of a CPU-controlled 2-D Jacobi
// costs on 1-4 GPUs under three ways of ordering the GPUs, to decide how issue 34's
// host-controlled schedule should issue its steps (it takes 10.2 us at 256^2 on 2 H200s, the
// published "Baseline P2P" 8.3). Each GPU holds rows/gpus rows plus two halo rows of two
// buffers; its kernel updates its rows and stores its edge rows straight into the neighbours'
// halos of the buffer it writes (as the host-controlled schedule's store-faces do), so step t of
// GPU g may start only after step t - 1 of its neighbours (their halos: read after write; the
// halos it overwrites were read at step t - 1: write after read).
//   events: a host thread per GPU; GPU g's stream waits (cudaStreamWaitEvent) for its
//           neighbours' events of step t - 1 (the host never waits: today's Control);
//   sync:   a host thread per GPU launches, waits for its stream, then a host barrier (the
//           published Baseline P2P);
//   graph:  one CUDA graph of K steps of every GPU (stream capture across the GPUs' streams, the
//           neighbours' events as edges), replayed.
// Every variant's final grid is compared with the events variant's (bitwise).
// Build: nvcc -O3 -arch=sm_90 -std=c++17 trials/hc_step_probe.cu -o probe
// Run:   ./probe <gpus> <n> <steps> [k]   e.g. ./probe 2 256 4000 20
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

// Rows [1, rows] of `in` into `out` (cols columns, fixed first and last column); row 1 also into
// the upper neighbour's bottom halo row of its `out`, row `rows` into the lower one's top row.
__global__ void step(const float* __restrict__ in, float* __restrict__ out, float* up_out,
                     float* down_out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int r = blockIdx.y + 1;
  if (c >= cols - 1 || r > rows) return;
  const float v = 0.25f * (in[(r - 1) * cols + c] + in[(r + 1) * cols + c] + in[r * cols + c - 1] +
                           in[r * cols + c + 1]);
  out[r * cols + c] = v;
  if (r == 1 && up_out) up_out[(rows + 1) * cols + c] = v;  // the upper GPU has `rows` rows too
  if (r == rows && down_out) down_out[c] = v;
}

struct Gpu {
  float* buf[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
};

struct Setup {
  int gpus, n, rows;
  std::vector<Gpu> g;
  void init() {
    rows = n / gpus;
    g.resize(gpus);
    std::vector<float> host(static_cast<size_t>(rows + 2) * n);
    for (int p = 0; p < gpus; ++p) {
      CHECK(cudaSetDevice(p));
      for (int q = 0; q < gpus; ++q)
        if (q != p) {
          int ok = 0;
          CHECK(cudaDeviceCanAccessPeer(&ok, p, q));
          if (ok) cudaDeviceEnablePeerAccess(q, 0), cudaGetLastError();
        }
      CHECK(cudaStreamCreateWithFlags(&g[p].stream, cudaStreamNonBlocking));
      for (int r = 0; r < rows + 2; ++r)
        for (int c = 0; c < n; ++c) {
          const int gr = p * rows + r - 1;  // global row (-1 and n: the fixed outer rows)
          host[static_cast<size_t>(r) * n + c] =
              (gr < 0 || gr >= n || c == 0 || c == n - 1) ? 1.0f : 0.001f * ((gr * 7 + c * 3) % 97);
        }
      for (int b = 0; b < 2; ++b) {
        CHECK(cudaMalloc(&g[p].buf[b], host.size() * sizeof(float)));
        CHECK(cudaMemcpy(g[p].buf[b], host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
      }
    }
    sync_all();
  }
  void sync_all() {
    for (int p = 0; p < gpus; ++p) {
      CHECK(cudaSetDevice(p));
      CHECK(cudaDeviceSynchronize());
    }
  }
  void launch(int p, long t) {
    const int in = static_cast<int>(t % 2), out = 1 - in;
    float* up = p > 0 ? g[p - 1].buf[out] : nullptr;
    float* down = p + 1 < gpus ? g[p + 1].buf[out] : nullptr;
    dim3 block(128), grid((n - 2 + 127) / 128, rows);
    step<<<grid, block, 0, g[p].stream>>>(g[p].buf[in], g[p].buf[out], up, down, rows, n);
  }
  std::vector<float> result(long steps) {
    std::vector<float> all;
    for (int p = 0; p < gpus; ++p) {
      std::vector<float> h(static_cast<size_t>(rows + 2) * n);
      CHECK(cudaSetDevice(p));
      CHECK(cudaMemcpy(h.data(), g[p].buf[steps % 2], h.size() * sizeof(float), cudaMemcpyDeviceToHost));
      all.insert(all.end(), h.begin() + n, h.end() - n);
    }
    return all;
  }
  void reset() {  // a fresh Setup for each variant
    for (auto& x : g) {
      cudaFree(x.buf[0]);
      cudaFree(x.buf[1]);
      cudaStreamDestroy(x.stream);
    }
    g.clear();
    init();
  }
};

static void spin_until(const std::atomic<long>& a, long v) {
  while (a.load(std::memory_order_acquire) < v) {
  }
}

// Today's Control: a thread per GPU; before step t the GPU's stream waits for the neighbours'
// events of step t - 1 (once their threads recorded them), and a slot of the event ring is
// recorded again only after every neighbour's stream has been told to wait for its last record.
static double run_events(Setup& s, long steps) {
  constexpr int kRing = 64;
  std::vector<std::vector<cudaEvent_t>> ev(s.gpus, std::vector<cudaEvent_t>(kRing));
  std::vector<std::atomic<long>> recorded(s.gpus), waited(s.gpus);
  for (int p = 0; p < s.gpus; ++p) {
    CHECK(cudaSetDevice(p));
    for (auto& e : ev[p]) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    recorded[p] = -1;
    waited[p] = -1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> th;
  for (int p = 0; p < s.gpus; ++p)
    th.emplace_back([&, p] {
      CHECK(cudaSetDevice(p));
      for (long t = 0; t < steps; ++t) {
        for (int q : {p - 1, p + 1}) {
          if (q < 0 || q >= s.gpus || t == 0) continue;
          spin_until(recorded[q], t - 1);
          CHECK(cudaStreamWaitEvent(s.g[p].stream, ev[q][(t - 1) % kRing], 0));
        }
        waited[p].store(t, std::memory_order_release);  // p waits for marks up to t - 1
        s.launch(p, t);
        for (int q : {p - 1, p + 1})  // slot t % kRing was last waited for at step t - kRing + 1
          if (q >= 0 && q < s.gpus) spin_until(waited[q], t - kRing + 1);
        CHECK(cudaEventRecord(ev[p][t % kRing], s.g[p].stream));
        recorded[p].store(t, std::memory_order_release);
      }
    });
  for (auto& x : th) x.join();
  s.sync_all();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  for (int p = 0; p < s.gpus; ++p)
    for (auto& e : ev[p]) cudaEventDestroy(e);
  return us / steps;
}

// The published Baseline P2P: a thread per GPU launches, waits for its stream, meets the others.
static double run_sync(Setup& s, long steps) {
  std::atomic<long> arrived{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> th;
  for (int p = 0; p < s.gpus; ++p)
    th.emplace_back([&, p] {
      CHECK(cudaSetDevice(p));
      for (long t = 0; t < steps; ++t) {
        s.launch(p, t);
        CHECK(cudaStreamSynchronize(s.g[p].stream));
        arrived.fetch_add(1, std::memory_order_acq_rel);
        spin_until(arrived, (t + 1) * s.gpus);
      }
    });
  for (auto& x : th) x.join();
  s.sync_all();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps;
}

// One graph of `k` steps of every GPU (k even: the buffers are where they started), captured from
// GPU 0's stream with the others joined by events; replayed steps / k times.
static double run_graph(Setup& s, long steps, int k) {
  std::vector<cudaEvent_t> ev(s.gpus), join(s.gpus);
  for (int p = 0; p < s.gpus; ++p) {
    CHECK(cudaSetDevice(p));
    CHECK(cudaEventCreateWithFlags(&ev[p], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join[p], cudaEventDisableTiming));
  }
  cudaGraph_t graph;
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamBeginCapture(s.g[0].stream, cudaStreamCaptureModeRelaxed));
  CHECK(cudaEventRecord(join[0], s.g[0].stream));
  for (int p = 1; p < s.gpus; ++p) {
    CHECK(cudaSetDevice(p));
    CHECK(cudaStreamWaitEvent(s.g[p].stream, join[0], 0));  // p's stream joins the capture
  }
  for (int t = 0; t < k; ++t) {
    for (int p = 0; p < s.gpus; ++p) {
      CHECK(cudaSetDevice(p));
      if (t > 0)
        for (int q : {p - 1, p + 1})
          if (q >= 0 && q < s.gpus) CHECK(cudaStreamWaitEvent(s.g[p].stream, ev[q], 0));
    }
    for (int p = 0; p < s.gpus; ++p) {
      CHECK(cudaSetDevice(p));
      s.launch(p, t);
      CHECK(cudaGetLastError());
    }
    for (int p = 0; p < s.gpus; ++p) {
      CHECK(cudaSetDevice(p));
      CHECK(cudaEventRecord(ev[p], s.g[p].stream));
    }
  }
  for (int p = 1; p < s.gpus; ++p) {
    CHECK(cudaSetDevice(p));
    CHECK(cudaEventRecord(join[p], s.g[p].stream));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamWaitEvent(s.g[0].stream, join[p], 0));
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamEndCapture(s.g[0].stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(cudaGraphLaunch(exec, s.g[0].stream));  // the upload, off the clock: k steps done
  CHECK(cudaStreamSynchronize(s.g[0].stream));
  const long replays = (steps - k) / k;
  const auto t0 = std::chrono::steady_clock::now();
  for (long r = 0; r < replays; ++r) CHECK(cudaGraphLaunch(exec, s.g[0].stream));
  CHECK(cudaStreamSynchronize(s.g[0].stream));
  s.sync_all();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  (graph: %zu nodes, %ld replays of %d steps)\n", nodes, replays, k);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return us / (replays * k);
}

int main(int argc, char** argv) {
  Setup s;
  s.gpus = argc > 1 ? std::atoi(argv[1]) : 2;
  s.n = argc > 2 ? std::atoi(argv[2]) : 256;
  long steps = argc > 3 ? std::atol(argv[3]) : 4000;
  const int k = argc > 4 ? std::atoi(argv[4]) : 20;  // steps a graph (even)
  steps = (steps + k - 1) / k * k;  // whole graphs
  if (s.n % s.gpus != 0 || k < 2 || k % 2 != 0) return std::fprintf(stderr, "n must split evenly, k be even\n"), 2;
  s.init();
  run_events(s, 200);  // warm-up
  s.reset();
  const double events = run_events(s, steps);
  const std::vector<float> expect = s.result(steps);
  s.reset();
  const double sync = run_sync(s, steps);
  const bool sync_ok = s.result(steps) == expect;
  s.reset();
  const double graph = run_graph(s, steps, k);
  const bool graph_ok = s.result(steps) == expect;
  std::printf("probe gpus=%d n=%d steps=%ld: events %.2f us/step, sync %.2f (%s), graph(k=%d) %.2f (%s)\n",
              s.gpus, s.n, steps, events, sync, sync_ok ? "same grid" : "DIFFERENT GRID", k, graph,
              graph_ok ? "same grid" : "DIFFERENT GRID");
  return sync_ok && graph_ok ? 0 : 1;
}
