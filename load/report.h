#pragma once
// extender-load's output: a table for people, --json for scripts (bench/run).
#include <string>

#include "load/replay.h"

namespace kext::load {

std::string format_text(const ReplayResult& r, const ReplayOptions& o);
std::string format_json(const ReplayResult& r, const ReplayOptions& o);

}  // namespace kext::load
