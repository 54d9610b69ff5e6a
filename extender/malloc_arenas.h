#pragma once
// How many glibc malloc arenas the process may use.
//
// glibc gives each thread that allocates an arena of its own, up to 8 per core, and memory freed into
// an arena is reused only by the threads allocating from that arena. A decision is allocated on the
// worker that served its request and freed when the decision log drops it, long after, while the
// scheduler's connection is served by another worker: the log's turnover then leaves its bytes free
// but unusable in one arena after another. With the default log filled at 500 names of 5000 nodes,
// each new connection of extender-load left more behind, and RSS soon passed the manifest's memory
// limit; with two arenas it stayed bounded (docs/performance.md "CPU per request").

namespace kext {

// Two: the main thread's arena and one for every other thread. On one connection, kube-scheduler's
// pattern, the CPU per request did not rise (filter's fell: fewer fresh pages to fault in); four
// concurrent preempts pay more on the shared arena locks, and 4 or 8 arenas still paid more, so no
// middle value keeps both (docs/performance.md "CPU per request").
inline constexpr int kMallocArenas = 2;

// Caps the arenas at kMallocArenas, unless the environment sets MALLOC_ARENA_MAX (glibc reads it; the
// operator's value wins). Call before any thread starts. Returns the cap in force, 0 if glibc's own.
int limit_malloc_arenas();

}  // namespace kext
