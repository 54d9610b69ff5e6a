#pragma once
// Which of this machine's TCP connections to a loopback server are still open, read from /proc/net/tcp:
// how a test sees that a server has closed a connection the client keeps pooled (the client's side
// then leaves ESTABLISHED for CLOSE_WAIT, until the client notices).
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace kext::testing {

// The local ports of the IPv4 connections to 127.0.0.1:`port` that are ESTABLISHED now.
inline std::set<int> established_to(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  std::set<int> out;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const size_t l = local.find(':'), r = remote.find(':');
    if (l == std::string::npos || r == std::string::npos) continue;
    if (std::stoi(remote.substr(r + 1), nullptr, 16) != port || state != "01") continue;  // 01: ESTABLISHED
    out.insert(std::stoi(local.substr(l + 1), nullptr, 16));
  }
  return out;
}

// Whether none of the connections of local ports `ports` to 127.0.0.1:`port` is ESTABLISHED any more.
inline bool all_closed(const std::set<int>& ports, int port) {
  const std::set<int> open = established_to(port);
  for (int p : ports)
    if (open.count(p) != 0) return false;
  return true;
}

}  // namespace kext::testing
