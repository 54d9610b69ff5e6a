// --snapshot files: load_snapshot_json (a List, typed lists, or single objects) into a
// ClusterStateBuilder; the state built, even from a file that failed part way, must be consistent.
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ClusterStateBuilder builder;
  try {
    load_snapshot_json(fuzz::as_text(data, size), builder);
  } catch (const DecodeError& e) {
    fuzz::check(e.what()[0] != '\0', "snapshot: DecodeError without a message");
  }
  fuzz::check_state(*std::move(builder).build());
  return 0;
}
