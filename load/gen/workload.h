#pragma once
// extender-gen's output: DIR/cluster.json (a v1 List for --snapshot) and DIR/names/, DIR/full/ (the
// same scheduling cycles as NodeNames and as full Nodes requests, in the --record-dir format).
#include <string>

#include "load/gen/cluster.h"

namespace kext::gen {

struct WorkloadSummary {
  size_t nodes = 0;
  size_t pods = 0;
  size_t pdbs = 0;
  size_t requests_per_mode = 0;
  size_t nodes_per_request = 0;
  uint64_t cluster_bytes = 0;
  uint64_t average_node_bytes = 0;
};

// Throws std::runtime_error naming the file on an I/O failure. Same options, same bytes.
WorkloadSummary write_workload(const GenOptions& o, const std::string& out_dir);

}  // namespace kext::gen
