#include "algorithms/parallel.h"

#ifdef KEXT_TBB_SERIAL
#include <tbb/global_control.h>

namespace kext {

void limit_tbb_to_calling_thread() {
  // Installed before the first parallel_for and never destroyed: threads still running at exit
  // must not get workers either.
  static const auto* const limit = new tbb::global_control(tbb::global_control::max_allowed_parallelism, 1);
  (void)limit;
}

}  // namespace kext
#endif
