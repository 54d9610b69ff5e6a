#pragma once
// The --url extender-load sends to: http://host:port[/prefix], as a scheduler's urlPrefix.
#include <string>

namespace kext::load {

struct Target {
  std::string host;
  int port = 80;
  std::string prefix;  // "" or "/scheduler": verbs go to prefix + "/" + verb
};

// Throws std::invalid_argument naming what is wrong (only plain http is supported).
Target parse_target(const std::string& url);

}  // namespace kext::load
