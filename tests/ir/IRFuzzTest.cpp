// Hostile input: truncated and mutated texts must give a diagnostic or a module, never a crash,
// and whatever parses must print stably and verify without crashing.
#include <gtest/gtest.h>

#include <random>

#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Verifier.h"

namespace stencilc::ir {
namespace {

const char* kSeed = R"(module "fuzz.cpp"

func @f(%c: f32, %n: f32) -> f32 loc(1:1) {
  return (-60.0f * %c + 16.0f * %n) / 12.0f
}

program @p(%a: grid<f32, 2>, %b: const grid<f32, 2>, %n: i32, %r: ref f32) loc(2:1) {
  for %t: i32 = 0 to %n step 1 {
    foreach %a.interior (%i, %j) loc(3:5) {
      var %x: f32 = select(%i > 0 && !(%j < 2), %b[0, 1], -0.0f)
      store %a = @f(%x, %b[-1, 0]) + cast<f32>(extent(%a, 1) % 3)
    }
    reduce %m: f32 = max [1:%n - 1, 0:2] (%i, %j) {
      yield sqrt(%a[0, 0])
    }
    if %m > 1e30f || %t == 2147483647 {
      %r = %m
    } else {
      exchange %a
    }
    swap %a, %a
  }
}

program @d(%g: grid<f32, 2> halo[1:2, 0:1] corners, %h: grid<f32, 2>) decomposed loc(9:1) {
  halo_send %g
  halo_recv %g loc(9:2)
  reduce %s: f32 = sum %g.interior (%i, %j) {
    yield %g[-1, 1]
  }
  allreduce %s min
  phase_barrier
}

program @e(%g: grid<f32, 2> halo[1:1, 1:1], %h: grid<f32, 2> halo[1:1, 1:1], %n: i32) decomposed persistent {
  for %t: i32 = 0 to %n step 1 {
    halo_send %g role(comm)
    foreach[inner 1:1, 0:2] %h.interior (%i, %j) role(compute) cost(8 bytes/point) {
      store %h = %g[1, -1]
    }
    halo_recv %g role(comm) loc(9:2)
    phase_barrier role(comm)
    foreach[boundary 1:1, 0:2] %h.interior (%i, %j) role(comm) {
      store %h = %g[1, -1]
    }
    phase_barrier role(compute)
  }
}

spmd_program @q(%u: block<f64, 1>) {
  signal %s
  put_signal %u[-1:0] <- %u[0:1], %s = 18446744073709551615u, pe = (my_pe() + 1) % n_pes()
  wait_until %s ge cast<u64>(1l)
  quiet
  barrier_all
}
)";

// Parses; when that succeeds, checks the print -> parse -> print round trip and runs the
// verifier (its messages do not matter, only that it copes).
void check_no_crash(const std::string& text) {
  std::string error;
  std::optional<Module> m = parse_module(text, "fuzz.ir", &error);
  if (!m) {
    EXPECT_NE(error.find("error: "), std::string::npos) << text;
    return;
  }
  std::string once = print(*m);
  std::optional<Module> again = parse_module(once, "fuzz.ir", &error);
  ASSERT_TRUE(again.has_value()) << "printed text does not parse:\n" << once << error;
  EXPECT_EQ(print(*again), once);
  verify(*m);
}

TEST(IRFuzz, SeedParsesAndVerifies) {
  std::string error;
  std::optional<Module> m = parse_module(kSeed, "fuzz.ir", &error);
  ASSERT_TRUE(m.has_value()) << error;
  EXPECT_TRUE(verify(*m).empty());
}

TEST(IRFuzz, EveryTruncation) {
  std::string seed = kSeed;
  for (size_t n = 0; n < seed.size(); ++n) check_no_crash(seed.substr(0, n));
}

TEST(IRFuzz, RandomMutations) {
  std::string seed = kSeed;
  std::mt19937 rng(12345);
  const std::string alphabet = "%@()[]{}<>-+*/!=&|:,.0123456789eflu\"\\ \n\tabcxyz_";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = seed;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        case 2:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        default: {  // duplicate a slice elsewhere: keeps tokens plausible
          size_t from = rng() % text.size();
          text.insert(pos, text.substr(from, 1 + rng() % 20));
        }
      }
    }
    check_no_crash(text);
  }
}

TEST(IRFuzz, BinaryGarbage) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    std::string text = "module \"x\"\nprogram @p() {\n";
    for (int i = 0; i < 64; ++i) text += static_cast<char>(rng() % 256);
    check_no_crash(text);
  }
}

}  // namespace
}  // namespace stencilc::ir
