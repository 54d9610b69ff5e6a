#include "extender/http/access_log.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include "policy/json.h"

namespace kext {

std::string access_log_line(const AccessEntry& e) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto now = std::chrono::system_clock::now();
  const time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char ts[40];
  const size_t n = std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(ts + n, sizeof ts - n, ".%03dZ", static_cast<int>(millis));

  auto str = [&](const char* key, std::string_view v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  str("time", ts);
  str("msg", "request");
  str("verb", e.verb);
  str("path", e.path);
  if (!e.pod.empty()) str("pod", e.pod);
  w.Key("nodes");
  w.Uint64(e.nodes);
  w.Key("status");
  w.Int(e.status);
  w.Key("durationSeconds");
  w.Double(e.seconds);
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
