#include "extender/malloc_arenas.h"

#include <malloc.h>

#include <cstdlib>

namespace kext {

int limit_malloc_arenas() {
  if (const char* set = std::getenv("MALLOC_ARENA_MAX"); set != nullptr && *set != '\0') {
    return std::atoi(set);
  }
  return mallopt(M_ARENA_MAX, kMallocArenas) == 1 ? kMallocArenas : 0;
}

}  // namespace kext
