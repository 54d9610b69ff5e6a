#include "extender/malloc_arenas.h"

#include <malloc.h>

namespace kext {

int limit_malloc_arenas(const char* env_value) {
  if (env_value != nullptr) return 0;
  return mallopt(M_ARENA_MAX, kMallocArenas) == 1 ? kMallocArenas : 0;
}

}  // namespace kext
