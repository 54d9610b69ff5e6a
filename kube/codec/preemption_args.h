#pragma once
// ExtenderPreemptionArgs / ExtenderPreemptionResult.
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"

namespace kext {

struct OfferedVictims {
  std::string node;
  std::vector<Pod> pods;          // NodeNameToVictims (full pods)
  std::vector<std::string> uids;  // NodeNameToMetaVictims, or the UIDs of `pods`
  int64_t num_pdb_violations = 0;
};

struct PreemptionArgs {
  Pod pod;
  bool meta = false;  // NodeNameToMetaVictims was sent (nodeCacheCapable: true)
  std::vector<OfferedVictims> nodes;
};

// Throws DecodeError naming the field.
PreemptionArgs decode_preemption_args(std::string_view body);

struct ChosenVictims {
  std::string node;
  std::vector<std::string> uids;  // most important first
  int64_t num_pdb_violations = 0;
};

std::string encode_preemption_reply(const std::vector<ChosenVictims>& chosen);

}  // namespace kext
