#pragma once
// extender-sim --record-dir: the pods kube-scheduler asked the extender about in a recording that
// kube-extender --record-dir wrote (DIR/rec-NNNNNN.jsonl, common/record_format.h) become pending pods.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/clock.h"
#include "sim/inputs.h"

namespace kext::simtool {

struct RecordedPod {
  InputPod pod;
  // Its request's time ("t") after the earliest of the requests the pods were taken from; nullopt
  // when one of those requests has no time (then --arrival-interval spaces them).
  std::optional<sim::SimDuration> offset;
  std::string source;  // "DIR/rec-000001.jsonl:12": the request it was taken from
};

// Every rec-NNNNNN.jsonl of `dir` in index order (as the recorder numbers them), each line a record.
// Each distinct pod (its UID, else namespace/name: decode_request_pod) becomes one RecordedPod,
// taken from its first filter request, or, for a pod never filtered (kube-scheduler sends prioritize
// and preempt only after a filter, so a recording that began mid-cycle), its first prioritize or
// preempt request; other verbs (bind) are ignored. In the order of those requests in the recording.
// A malformed line throws InputError "--record-dir DIR: FILE:LINE: ..." except a recording's last
// line cut short (the process died mid-write: extender-load keeps what came before, so does this).
// A directory without rec-*.jsonl files, or without any such request, is an error too.
std::vector<RecordedPod> read_recording(const std::string& dir);

}  // namespace kext::simtool
