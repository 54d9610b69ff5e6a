#pragma once
// glibc's malloc gives every thread that allocates an arena of its own (up to 8 per core). Memory a
// request allocates on one worker's arena and another worker frees (a decision pushed out of the
// /debug/decisions ring, a state view released) goes back to the first arena, where only the threads
// on that arena reuse it, while the current worker grows its own: at 500 names of 5000 nodes RSS
// climbed ~65 MB per 2 s of prioritize (132 -> 422 MB in 12 s) with the live heap flat, and each
// request paid for the fresh pages (~3 mprotect calls and the page faults behind them).
// Two arenas, not one: with one, RSS stayed flat and prioritize's CPU per request fell to 0.75x on one
// connection, but preempt on four connections (allocating on the request threads and oneTBB's worker
// at once) queued on the arena lock, 28 futex calls per request and 1.5x the CPU. With two, measured
// against glibc's default over 4 interleaved rounds: RSS 220 MB against 698 MB after the same
// requests, prioritize 0.81x CPU (1 connection) and 0.90x (4), preempt 0.96x and 1.12x (within this
// VM's spread). kube-scheduler sends filter, prioritize and preempt one at a time from its scheduling
// cycle, so two threads allocating at once is the usual peak.
namespace kext {

inline constexpr int kMallocArenas = 2;

// Caps glibc's arenas at kMallocArenas unless the operator set MALLOC_ARENA_MAX (env_value non-null),
// which glibc then applies itself. Call before any thread starts. Returns the cap this call set, 0 when
// it left glibc's.
int limit_malloc_arenas(const char* env_value);

}  // namespace kext
