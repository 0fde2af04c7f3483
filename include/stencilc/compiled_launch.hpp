// The generic half of a generated program's host launcher (stencilc --target=cuda, cpu-free):
// specialize-blocks' cost model evaluated from the table the launcher passes (RoleModel), and the
// cooperative launch (the reduction scratch and the groups' barrier words, the launch's block cap
// from the time loop's form, each PE's comm blocks, the STENCILC_TIMING lines). The generated
// launcher keeps what is the program's own: its grids' types and uploads, its exchanges, its form
// query and the binding of its KernelArgs. Included by compiled_cuda.hpp; the nvshmem backend's
// TeamLaunch is in compiled_cuda_nvshmem.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

namespace stencilc::compiled {

/// One role(compute) inner part of an update in a time loop (specialize-blocks, docs/PASSES.md):
/// the widths its boundary slabs take from the block's faces, before keep_exchanged_faces, and
/// the bytes a point of it moves.
template <int N>
struct RolePart {
  std::array<int, N> width_lo{}, width_hi{};
  int bytes_per_point = 0;
};

/// specialize-blocks' record of a program's time loop: the compile-time inputs of the cost model,
/// a constant table in the generated launcher.
template <int N>
struct RoleModel {
  std::vector<RolePart<N>> parts;
  bool spmd_transfers = false;  // the comm group's put_signal/wait_until: their latency counts
  int pe_barriers = 0;          // PE-wide phase barriers a step
  int group_barriers = 0;       // group phase barriers a step
};

/// On one PE, what an exchange the comm group runs does: the block faces it acts on, the elements
/// it packs and unpacks, the pieces it is cut into (HaloExchange's faces, moved_elements,
/// blocks_needed), and the bytes of an element.
struct ExchangeLoad {
  unsigned faces = 0;
  long long moved_elements = 0;
  int blocks_needed = 0;
  std::size_t element_bytes = 0;
};

template <class Exchange>
ExchangeLoad exchange_load(const Exchange& halo, int pe, std::size_t element_bytes) {
  return {halo.faces(pe), halo.moved_elements(pe), halo.blocks_needed(pe), element_bytes};
}

/// One PE's work a step as the cost model counts it (rt::RoleWork), from the model's table, the
/// PE's block extent and its comm-group exchanges (in the order the table was made: the parts'
/// bytes first, then the exchanges'). The split updates are narrowed as the kernel narrows them: a
/// face where no exchange acts keeps its points in the inner part.
template <int N>
rt::RoleWork role_work(const RoleModel<N>& model, const std::array<int, N>& extent,
                       const std::vector<ExchangeLoad>& exchanges) {
  rt::RoleWork work;
  unsigned sides = 0;
  for (const ExchangeLoad& e : exchanges) sides |= e.faces;
  double inner = 0, boundary = 0;
  for (const RolePart<N>& part : model.parts) {
    std::array<int, N> lo = part.width_lo, hi = part.width_hi;
    if (!exchanges.empty()) rt::cuda::keep_exchanged_faces(lo.data(), hi.data(), N, sides);
    rt::part_points<N>(extent, lo, hi, &inner, &boundary);
    work.compute_bytes += inner * part.bytes_per_point;
    work.comm_bytes += boundary * part.bytes_per_point;
  }
  for (const ExchangeLoad& e : exchanges) {
    work.comm_bytes += 2.0 * e.element_bytes * e.moved_elements;
    work.transfers |= e.moved_elements > 0;
    work.items += e.blocks_needed;
  }
  if (model.spmd_transfers) work.transfers = true;  // the user's puts: sizes unknown here
  work.pe_barriers = model.pe_barriers;
  work.group_barriers = model.group_barriers;
  return work;
}

/// How a backend's team launches and reports: the blocks a PE's kernel gets (what the cost model
/// divides), the least of a fact over the team's GPUs (`least(team, f)`: f(pe) with the PE's GPU
/// current, on every GPU this process holds, then the least over the processes) and the
/// STENCILC_TIMING line. P2PTeam's is below, NvshmemTeam's in compiled_cuda_nvshmem.hpp.
template <class Team>
struct TeamLaunch;

template <>
struct TeamLaunch<rt::cuda::P2PTeam> {
  template <class... KArgs>
  static int workers(rt::cuda::P2PTeam& team, int pe, void (*kernel)(KArgs...),
                     const rt::cuda::LaunchConfig& config) {
    return team.cooperative_blocks(pe, kernel, config);
  }
  template <class F>
  static int least(rt::cuda::P2PTeam& team, F&& f) {
    int device = 0;
    STENCILC_CUDA_CHECK(cudaGetDevice(&device));
    int value = std::numeric_limits<int>::max();
    for (int pe = 0; pe < team.n(); ++pe) {
      STENCILC_CUDA_CHECK(cudaSetDevice(team.device(pe)));
      value = std::min(value, f(pe));
    }
    STENCILC_CUDA_CHECK(cudaSetDevice(device));
    return value;
  }
  /// The slowest GPU's kernel (CUDA events).
  static void print_timing(rt::cuda::P2PTeam& team, const char* program,
                           const rt::cuda::LaunchResult& launched, const std::vector<int>& comm) {
    std::fprintf(
        stderr, "stencilc: %s on %d GPUs (%d blocks of %d threads each, %d comm): %.3f ms\n",
        program, team.n(), launched.blocks[0], launched.block_threads, comm[0], launched.kernel_ms);
  }
};

/// The register-resident form's device facts for `kernel` on `team`'s GPUs, asked when the
/// choice needs them (choose_form asks only where the sizes, the same on every process, let the
/// form run: on the nvshmem backend all processes ask, or none): the shared memory a block of
/// `threads` takes and the least opt-in limit of the GPUs; where it fits, the kernel's dynamic
/// shared memory limit raised to it on every GPU (never lowered), the cooperative launch's
/// resident blocks with it and regs_heap_blocks, each the least over the GPUs, so that every
/// PE makes the same choice.
template <class T, class Team, class... KArgs>
auto regs_device(void (*kernel)(KArgs...), Team& team) {
  return [kernel, &team](int threads) {
    RegsDevice d;
    d.smem_optin = TeamLaunch<Team>::least(team, [](int) {
      int device = 0, optin = 0;
      STENCILC_CUDA_CHECK(cudaGetDevice(&device));
      STENCILC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      return optin;
    });
    d.smem = rt::cuda::regs_smem_bytes<T>(rt::cuda::kRegsRows, threads, rt::cuda::kRegsVec);
    if (d.smem > static_cast<std::size_t>(d.smem_optin)) return d;
    rt::cuda::LaunchConfig config;
    config.block_threads = threads;
    config.dynamic_smem = d.smem;
    d.resident = TeamLaunch<Team>::least(team, [&](int pe) {
      cudaFuncAttributes attributes{};
      STENCILC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
      STENCILC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               std::max(attributes.maxDynamicSharedSizeBytes, static_cast<int>(d.smem))));
      return TeamLaunch<Team>::workers(team, pe, kernel, config);
    });
    d.heap_blocks = TeamLaunch<Team>::least(team, [](int) { return regs_heap_blocks(); });
    return d;
  };
}

/// What a program's launch takes besides its team, kernel and arguments.
template <int N>
struct LaunchSpec {
  const char* program = "";
  int block_threads = 0;
  const Plan<N>* plan = nullptr;
  const FormChoice* form = nullptr;     // a global-view program's time loop form (null: SPMD)
  const RoleModel<N>* roles = nullptr;  // the kernel's block roles (its KernelArgs has n_comm)
  std::function<std::vector<ExchangeLoad>(int)> exchanges;  // a PE's comm-group exchanges
};

namespace detail_launch {

template <class Args, class = void>
struct HasRoles : std::false_type {};
template <class Args>
struct HasRoles<Args, std::void_t<decltype(Args::sc_n_comm)>> : std::true_type {};

/// The launch's grid: max_blocks_for's cap, or the dataflow form's blocks, and the
/// register-resident form's shared memory with every block resident.
template <int N>
rt::cuda::LaunchConfig launch_config(const LaunchSpec<N>& spec) {
  rt::cuda::LaunchConfig config;
  config.block_threads = spec.block_threads;
  config.max_blocks = max_blocks_for<N>(*spec.plan, config.block_threads);
  if (spec.form && spec.form->flow_on()) config.max_blocks = spec.form->blocks;
  if (spec.form && spec.form->regs_on()) {
    config.dynamic_smem = spec.form->smem;
    config.blocks_per_sm = 0;
  }
  return config;
}

template <int N, class Team, class... KArgs, class Bind, class Words>
void run(Team& team, void (*kernel)(KArgs...), const LaunchSpec<N>& spec, Bind& bind,
         const Words& scratch, const Words* sync) {
  using Args = std::decay_t<std::invoke_result_t<Bind&, int>>;
  using Pe = std::decay_t<std::tuple_element_t<0, std::tuple<KArgs...>>>;  // the kernel's PE handle
  const rt::cuda::LaunchConfig config = launch_config<N>(spec);
  std::vector<int> comm(team.n(), 0);
  const rt::cuda::LaunchResult launched = team.launch_cooperative(
      kernel,
      [&](int pe) {
        Args args = bind(pe);
        args.sc_scratch = scratch.on(pe);
        if constexpr (HasRoles<Args>::value) {
          args.sc_sync = sync->on(pe);
          const auto layout = rt::block_layout<N>(spec.plan->grid, pe, spec.plan->extent);
          const rt::RoleWork work =
              role_work<N>(*spec.roles, layout.extent,
                           spec.exchanges ? spec.exchanges(pe) : std::vector<ExchangeLoad>{});
          args.sc_n_comm =
              rt::comm_workers(work, TeamLaunch<Team>::workers(team, pe, kernel, config));
          comm[pe] = args.sc_n_comm;
        }
        return std::make_tuple(team.template device_pe<Pe>(pe), args);
      },
      config);
  if (std::getenv("STENCILC_TIMING")) {
    if (spec.form)
      std::fprintf(stderr, "stencilc: %s: %s\n", spec.program, spec.form->summary().c_str());
    TeamLaunch<Team>::print_timing(team, spec.program, launched, comm);
  }
}

}  // namespace detail_launch

/// A program's persistent kernel, launched cooperatively on every PE this process holds
/// (collectively on nvshmem) with the arguments `bind(pe)` returns, after allocating the reduction
/// scratch and, when the kernel has roles, the groups' barrier counters and each PE's comm blocks
/// from the cost model. Prints, when STENCILC_TIMING is set, the time loop's form and why (global
/// view) and the timing line bench/measure.py reads.
template <int N, class Team, class... KArgs, class Bind>
void launch(Team& team, void (*kernel)(KArgs...), const LaunchSpec<N>& spec, Bind bind) {
  using Args = std::decay_t<std::invoke_result_t<Bind&, int>>;
  const auto scratch = team.template alloc<std::uint64_t>(1 << 14);
  if constexpr (detail_launch::HasRoles<Args>::value) {
    if (!spec.roles)
      rt::fatal("program '%s': its kernel has block roles but the launch has no role model",
                spec.program);
    // The groups' barrier counters, then the shared point loops' (generated.cuh's Rounds).
    const auto sync = team.template alloc<std::uint64_t>(2 + rt::cuda::kBalanceWords);
    detail_launch::run<N>(team, kernel, spec, bind, scratch, &sync);
  } else {
    detail_launch::run<N>(team, kernel, spec, bind, scratch,
                          static_cast<decltype(scratch)*>(nullptr));
  }
}

/// After a launch on P2PTeam, grid or block `g`'s blocks it ended with (swaps included) back into
/// the grid.
template <typename T, int N>
void download_final(rt::cuda::P2PTeam& team,
                    const rt::cuda::Sym<rt::cuda::DBlock<T, N>>& final_blocks, Grid<T, N>& g) {
  std::vector<rt::cuda::DBlock<T, N>> blocks(team.n());
  for (int pe = 0; pe < team.n(); ++pe) team.download(pe, &blocks[pe], final_blocks.on(pe), 1);
  download_grid(team, blocks, g);
}

}  // namespace stencilc::compiled
