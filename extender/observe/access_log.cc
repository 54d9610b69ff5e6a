#include "extender/observe/access_log.h"

#include <unistd.h>

#include "common/rfc3339.h"
#include "json/json.h"

namespace kext {

std::string access_log_line(const AccessEntry& e) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](const char* key, std::string_view v) { json::write_member(w, key, v); };
  w.StartObject();
  str("time", rfc3339(unix_micros_now(), 3));
  str("msg", "request");
  str("verb", e.verb);
  str("path", e.path);
  if (!e.pod.empty()) str("pod", e.pod);
  json::write_member(w, "nodes", e.nodes);
  json::write_member(w, "status", e.status);
  json::write_member(w, "durationSeconds", e.seconds);
  w.EndObject();
  std::string line(buf.GetString(), buf.GetSize());
  line += '\n';
  return line;
}

void write_access_log(const AccessEntry& e) {
  const std::string line = access_log_line(e);
  // One write(2): stderr is unbuffered and iostreams would split the line between threads.
  const ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace kext
