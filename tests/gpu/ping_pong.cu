// Test 1: put_signal_block / put_signal_block_2d / wait_until between two GPUs (ping-pong), or
// to itself on one GPU. Every round's data is checked on the device; the final buffers, and the
// cells around the written region (which must stay untouched), on the host. Then the latency
// of a small put from a single thread block.
//
//   ping_pong --pes=1|2
#include <cstdio>
#include <vector>

#include "test_util.cuh"

using namespace stencilc::rt;
using namespace stencilc::rt::cuda;

namespace {

struct Case {
  const char* name;
  int two_d;            // 0: contiguous put_signal_block; 1: put_signal_block_2d
  long count;           // contiguous: elements; 2-D: width
  long rows;            // 2-D only
  long dst_off, src_off;
  long dst_pitch, src_pitch;  // 2-D only
  int rounds;
};

struct PingArgs {
  float* buf;             // symmetric: the destination of both directions
  float* stage;           // symmetric (used locally): the source
  std::uint64_t* sig;     // symmetric
  unsigned long long* errors;  // symmetric (used locally): mismatches seen by this PE
  unsigned long long* clock;   // symmetric (used locally): start, end
  Case c;
};

__host__ __device__ inline float value(int round, long k) {
  return static_cast<float>((static_cast<long>(round) * 7919 + k * 31) % 1000003);
}

// Element k of the message: its position in the destination and the source.
__device__ inline void place(const Case& c, long k, long* dst, long* src) {
  if (c.two_d) {
    const long r = k / c.count, col = k % c.count;
    *dst = c.dst_off + r * c.dst_pitch + col;
    *src = c.src_off + r * c.src_pitch + col;
  } else {
    *dst = c.dst_off + k;
    *src = c.src_off + k;
  }
}

__device__ void put(const DevicePe& pe, const PingArgs& a, int round, int to) {
  const Case& c = a.c;
  if (c.two_d) {
    pe.put_signal_block_2d(a.buf + c.dst_off, c.dst_pitch, a.stage + c.src_off, c.src_pitch,
                           c.count, c.rows, a.sig, round, to);
  } else {
    pe.put_signal_block(a.buf + c.dst_off, a.stage + c.src_off, c.count, a.sig, round, to);
  }
}

__global__ void ping_pong_kernel(const __grid_constant__ DevicePe pe,
                                 const __grid_constant__ PingArgs a) {
  if (blockIdx.x != 0) return;  // one thread block does the talking
  const Case& c = a.c;
  const long elements = c.two_d ? c.count * c.rows : c.count;
  const int tid = threadIdx.x, threads = blockDim.x;
  unsigned long long bad = 0;
  if (tid == 0) a.clock[0] = global_timer_ns();
  for (int round = 1; round <= c.rounds; ++round) {
    if (pe.id == 0) {
      for (long k = tid; k < elements; k += threads) {
        long d, s;
        place(c, k, &d, &s);
        a.stage[s] = value(round, k);
      }
      __syncthreads();
      const int peer = pe.n > 1 ? 1 : 0;
      put(pe, a, round, peer);
      pe.wait_until(a.sig, Cmp::GE, round, "the pong");
      const float add = pe.n > 1 ? 1.0f : 0.0f;
      for (long k = tid; k < elements; k += threads) {
        long d, s;
        place(c, k, &d, &s);
        if (a.buf[d] != value(round, k) + add) ++bad;
      }
      __syncthreads();  // the buffer is read before the next round's put can change it
    } else if (pe.id == 1) {
      pe.wait_until(a.sig, Cmp::GE, round, "the ping");
      for (long k = tid; k < elements; k += threads) {
        long d, s;
        place(c, k, &d, &s);
        const float got = a.buf[d];
        if (got != value(round, k)) ++bad;
        a.stage[s] = got + 1.0f;
      }
      __syncthreads();
      put(pe, a, round, 0);
    }
  }
  if (tid == 0) a.clock[1] = global_timer_ns();
  if (bad != 0) atomicAdd(a.errors, bad);
}

// Runs one case; checks the device's error counts and, on the host, the final buffers.
// Returns the one-way time per message in microseconds.
double run_case(P2PTeam& team, const Case& c, gputest::Checker& check) {
  const long span_dst = c.two_d ? c.dst_off + (c.rows - 1) * c.dst_pitch + c.count
                                : c.dst_off + c.count;
  const long span_src = c.two_d ? c.src_off + (c.rows - 1) * c.src_pitch + c.count
                                : c.src_off + c.count;
  const long dst_len = span_dst + 64, src_len = span_src + 64;
  Sym<float> buf = team.alloc<float>(dst_len);
  Sym<float> stage = team.alloc<float>(src_len);
  Sym<std::uint64_t> sig = team.alloc<std::uint64_t>(1);
  Sym<unsigned long long> errors = team.alloc<unsigned long long>(1);
  Sym<unsigned long long> clock = team.alloc<unsigned long long>(2);
  LaunchConfig config;
  config.max_blocks = 2;  // block 1 idles: the case also runs with more than one block
  team.launch_cooperative(
      ping_pong_kernel,
      [&](int pe) {
        return std::make_tuple(team.device_pe(pe),
                               PingArgs{buf.on(pe), stage.on(pe), sig.on(pe), errors.on(pe),
                                        clock.on(pe), c});
      },
      config);
  const int n = team.n();
  for (int pe = 0; pe < n; ++pe) {
    unsigned long long bad = 0;
    team.download(pe, &bad, errors.on(pe), 1);
    check.expect(bad == 0, "%s: PE %d saw %llu wrong elements over %d rounds", c.name, pe, bad,
                 c.rounds);
    std::vector<float> host(static_cast<std::size_t>(dst_len));
    team.download(pe, host.data(), buf.on(pe), host.size());
    std::vector<char> written(host.size(), 0);
    const long elements = c.two_d ? c.count * c.rows : c.count;
    const float add = (n > 1 && pe == 0) ? 1.0f : 0.0f;
    int wrong = 0;
    for (long k = 0; k < elements; ++k) {
      const long d = c.two_d ? c.dst_off + (k / c.count) * c.dst_pitch + k % c.count
                             : c.dst_off + k;
      written[d] = 1;
      if (host[d] != value(c.rounds, k) + add && wrong++ < 3) {
        check.expect(false, "%s: PE %d element %ld is %g, expected %g", c.name, pe, k, host[d],
                     value(c.rounds, k) + add);
      }
    }
    for (long i = 0; i < dst_len; ++i) {
      if (!written[i] && host[i] != 0.0f && wrong++ < 6) {
        check.expect(false, "%s: PE %d cell %ld outside the message is %g", c.name, pe, i,
                     host[i]);
      }
    }
  }
  unsigned long long clocks[2] = {0, 0};
  team.download(0, clocks, clock.on(0), 2);
  const double per_round_us = (clocks[1] - clocks[0]) / 1000.0 / c.rounds;
  return n > 1 ? per_round_us / 2 : per_round_us;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = gputest::arg_int(argc, argv, "--pes", 2);
  P2PTeam team(n);
  gputest::Checker check;
  const Case cases[] = {
      {"one element", 0, 1, 1, 0, 0, 0, 0, 50},
      {"3 elements, equal misalignment", 0, 3, 1, 1, 1, 0, 0, 50},
      {"1000 elements, aligned", 0, 1000, 1, 0, 0, 0, 0, 50},
      {"4097 elements, both 3 off", 0, 4097, 1, 3, 3, 0, 0, 50},
      {"4097 elements, unequal misalignment", 0, 4097, 1, 1, 2, 0, 0, 50},
      {"12345 elements, dst 2 off", 0, 12345, 1, 2, 0, 0, 0, 20},
      {"1M elements", 0, 1 << 20, 1, 0, 0, 0, 0, 5},
      {"2-D 64 x 33, pitches 128/96 (vectors)", 1, 64, 33, 0, 0, 128, 96, 20},
      {"2-D 13 x 29, pitches 17/21 (elementwise)", 1, 13, 29, 1, 5, 17, 21, 20},
      {"2-D 1 x 100 column, pitch 7", 1, 1, 100, 3, 0, 7, 1, 20},
  };
  for (const Case& c : cases) {
    const int before = check.failures;
    run_case(team, c, check);
    std::printf("  %-45s %s\n", c.name, check.failures == before ? "ok" : "FAILED");
  }
  // Timing: a small message's one-way time, with the round's fill and check (bench.cu has the
  // bare primitives).
  const Case latency{"latency: 8 bytes", 0, 2, 1, 0, 0, 0, 0, 20000};
  const double latency_us = run_case(team, latency, check);
  std::printf("  timing (%d GPU%s, one block of 256 threads): 8 B message one-way, with fill and "
              "check, %.2f us\n",
              n, n > 1 ? "s" : "", latency_us);
  char name[64];
  std::snprintf(name, sizeof name, "ping_pong (%d GPU%s)", n, n > 1 ? "s" : "");
  return gputest::finish(name, check);
}
