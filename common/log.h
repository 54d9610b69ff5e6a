#pragma once
// The extender's own log lines on stderr ("kube-extender: ..."). Each line is one write: threads (the
// watch, the lease, the signal handler, start-up) log concurrently, and a line interleaved with another
// breaks what reads the log (the tests find the port in the "listening on" line).
#include <cstdio>
#include <string>
#include <string_view>

namespace kext {

inline void log_line(std::string_view message) {
  std::string line;
  line.reserve(message.size() + 16);
  line.append("kube-extender: ").append(message).push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);  // stderr is unbuffered: one write(2)
}

}  // namespace kext
