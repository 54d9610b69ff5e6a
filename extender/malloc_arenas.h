#pragma once
// glibc's malloc gives every thread that allocates an arena of its own (up to 8 per core). Memory a
// request allocates on one worker's arena and another worker frees (a decision pushed out of the
// /debug/decisions ring, a state view released) goes back to the first arena, where only that worker
// reuses it, while the current worker grows its own: at 500 names of 5000 nodes RSS climbed ~65 MB
// per 2 s of prioritize (132 -> 422 MB in 12 s) with the live heap flat, and each request paid for the
// fresh pages (mprotect and page faults, ~3 mprotect calls per request). With one arena RSS stayed at
// 132 MB and prioritize's CPU per request fell to 0.75x (6 interleaved pairs, one connection; level at
// four connections, where the arena lock showed no cost on 2 cores).
namespace kext {

inline constexpr int kMallocArenas = 1;

// Caps glibc's arenas at kMallocArenas unless the operator set MALLOC_ARENA_MAX (env_value non-null),
// which glibc then applies itself. Call before any thread starts. Returns the cap this call set, 0 when
// it left glibc's.
int limit_malloc_arenas(const char* env_value);

}  // namespace kext
