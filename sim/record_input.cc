#include "sim/record_input.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_map>

#include "common/record_format.h"
#include "json/json.h"
#include "sim/run.h"

namespace kext::simtool {

namespace fs = std::filesystem;

namespace {

struct Candidate {
  InputPod pod;
  double time = 0;
  std::string source;
  size_t order = 0;  // position of its request in the recording
  bool filtered = false;
};

}  // namespace

std::vector<RecordedPod> read_recording(const std::string& dir) {
  const std::string flag = "--record-dir " + dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(flag + ": not a directory");
  std::vector<std::pair<uint64_t, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    uint64_t index = 0;
    if (e.is_regular_file() && parse_record_file_name(e.path().filename().string(), &index))
      files.emplace_back(index, e.path());
  }
  if (ec) throw InputError(flag + ": " + ec.message());
  if (files.empty())
    throw InputError(flag + ": no rec-NNNNNN.jsonl file (kube-extender --record-dir writes them)");
  std::sort(files.begin(), files.end());

  std::vector<Candidate> pods;
  std::unordered_map<std::string, size_t> by_uid;  // -> index in pods
  size_t order = 0;
  for (const auto& [index, path] : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(flag + ": " + path.string() + ": cannot read the file");
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      const std::string source = path.string() + ":" + std::to_string(line_no);
      RecordEntry record;
      std::string error;
      if (!decode_record_line(line, &record, &error)) {
        // A recording cut short by a crash ends in a partial line (load/exchanges.cc too).
        if (in.peek() == std::char_traits<char>::eof() && &path == &files.back().second) break;
        throw InputError(flag + ": " + source + ": " + error);
      }
      const bool filter = record.verb == "filter";
      if (!filter && record.verb != "prioritize" && record.verb != "preempt") continue;
      InputPod pod = [&] {
        try {
          return decode_request_pod(record.body);
        } catch (const DecodeError& e) {
          throw InputError(flag + ": " + source + ": " + record.verb + " request: " + e.what());
        }
      }();
      const auto [it, added] = by_uid.try_emplace(pod.pod.uid, pods.size());
      if (added) {
        pods.push_back(Candidate{std::move(pod), record.time, source, order++, filter});
      } else if (filter && !pods[it->second].filtered) {
        // Seen before only in prioritize or preempt: its first filter request stands instead.
        pods[it->second] = Candidate{std::move(pod), record.time, source, order++, true};
      }
    }
  }
  if (pods.empty()) throw InputError(flag + ": no filter, prioritize or preempt request in the recording");
  std::sort(pods.begin(), pods.end(),
            [](const Candidate& a, const Candidate& b) { return a.order < b.order; });

  // Record lines without "t" decode as time 0: such a recording has no clock to follow.
  const bool timed = std::all_of(pods.begin(), pods.end(), [](const Candidate& c) { return c.time > 0; });
  double first = std::numeric_limits<double>::infinity();
  for (const auto& c : pods) first = std::min(first, c.time);
  std::vector<RecordedPod> out;
  out.reserve(pods.size());
  for (auto& c : pods) {
    std::optional<sim::SimDuration> offset;
    if (timed) offset = seconds_to_sim(c.time - first);
    out.push_back(RecordedPod{std::move(c.pod), offset, std::move(c.source)});
  }
  return out;
}

}  // namespace kext::simtool
