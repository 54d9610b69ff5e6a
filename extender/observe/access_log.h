#pragma once
// The per-request log line (at -v 1): one JSON object per line on stderr, written with one call so
// lines from concurrent workers never interleave.
#include <cstddef>
#include <string>
#include <string_view>

namespace kext {

struct AccessEntry {
  std::string_view verb;
  std::string_view path;
  std::string_view pod;  // namespace/name, empty when unknown
  size_t nodes = 0;
  int status = 0;
  double seconds = 0;
};

std::string access_log_line(const AccessEntry& e);
void write_access_log(const AccessEntry& e);

}  // namespace kext
