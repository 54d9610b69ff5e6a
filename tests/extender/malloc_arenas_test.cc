// kube-extender's main caps glibc's malloc arenas (extender/malloc_arenas.h). Each case runs in a fresh
// process (a "threadsafe" death test re-executes this binary for the one case), since arenas that
// earlier tests' threads created would otherwise already exist.
#include "extender/malloc_arenas.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace kext::testing {
namespace {

// How many arenas malloc has: malloc_info writes one <heap nr="…"> per arena.
int arena_count() {
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  malloc_info(0, f);
  std::fclose(f);
  int heaps = 0;
  for (const char* p = text; (p = std::strstr(p, "<heap nr=")) != nullptr; ++p) ++heaps;
  std::free(text);
  return heaps;
}

// Four threads allocate (as the server's workers do), then the process exits with its arena count.
[[noreturn]] void exit_with_arenas_after_threads() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      std::vector<std::string> kept;
      for (int i = 0; i < 1000; ++i) kept.emplace_back(200, 'x');
    });
  }
  for (auto& t : threads) t.join();
  std::exit(arena_count());
}

class MallocArenas : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizer build: the sanitizer's allocator replaces glibc's arenas";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(MallocArenas, OneArenaForEveryThread) {
  EXPECT_EXIT(
      {
        if (limit_malloc_arenas(nullptr) != kMallocArenas) std::exit(100);
        exit_with_arenas_after_threads();
      },
      ::testing::ExitedWithCode(kMallocArenas), "");
}

// What the cap prevents: without it each allocating thread gets an arena of its own.
TEST_F(MallocArenas, WithoutTheCapThreadsGetArenasOfTheirOwn) {
  EXPECT_EXIT(
      exit_with_arenas_after_threads(),
      [](int status) { return WIFEXITED(status) && WEXITSTATUS(status) > kMallocArenas; }, "");
}

// MALLOC_ARENA_MAX is the operator's: glibc applies it, the cap is not set over it.
TEST_F(MallocArenas, TheOperatorsMallocArenaMaxWins) { EXPECT_EQ(limit_malloc_arenas("4"), 0); }

}  // namespace
}  // namespace kext::testing
