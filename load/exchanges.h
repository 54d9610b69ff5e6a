#pragma once
// The requests extender-load replays, read from a --record-dir recording or the fixture layout.
#include <string>
#include <vector>

#include "common/record_format.h"

namespace kext::load {

struct Exchange {
  RecordEntry record;  // status 0: no recorded reply to --check against
  std::string source;  // "dir/rec-000001.jsonl:12" or the fixture file, for messages
};

struct ReadOptions {
  std::vector<std::string> verbs;  // empty = every verb
  bool keep_replies = true;        // false drops recorded replies early (memory, when not --check)
};

// `path` is a recording directory (rec-*.jsonl, or any *.jsonl but index.jsonl, in name order), one
// .jsonl file, or the fixture layout (index.jsonl + NNNN-verb--name.json [+ .response.json]; bind is
// skipped: extenders that do not bind reply 404). Throws std::runtime_error naming the file and line.
std::vector<Exchange> read_exchanges(const std::string& path, const ReadOptions& options = {});

}  // namespace kext::load
