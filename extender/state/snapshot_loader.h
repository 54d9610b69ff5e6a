#pragma once
// Loads what `kubectl get nodes,pods,poddisruptionbudgets -A -o json` prints (a List, or one object).
#include <string>
#include <vector>

#include "extender/state/state_cache.h"

namespace kext {

// Adds the objects of one JSON document to the builder. Throws DecodeError naming the item on bad input;
// kinds other than Node, Pod and PodDisruptionBudget are skipped.
void load_snapshot_json(std::string_view text, ClusterStateBuilder& builder);

// Reads each file and builds one state. Throws std::runtime_error naming the file on any problem.
std::shared_ptr<const ClusterState> load_snapshot_files(const std::vector<std::string>& paths);

}  // namespace kext
