// extender-sim --record-dir (sim/record_input.h): the pods of an extender recording as pending
// pods, their order and arrival times, and the recording's errors.
#include "sim/record_input.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/record_format.h"
#include "json/json.h"
#include "sim/run.h"

namespace kext::simtool {
namespace record_input_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Dir {
  std::filesystem::path dir;
  explicit Dir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("extender-sim-record-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "rec");
  }
  ~Dir() { std::filesystem::remove_all(dir); }
  std::string rec() const { return (dir / "rec").string(); }
  // Appends raw text to DIR/rec/<name>.
  void append(const std::string& name, const std::string& text) const {
    std::ofstream(dir / "rec" / name, std::ios::app | std::ios::binary) << text;
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

// A pod as kube-scheduler sends it: uid "" leaves metadata.uid out.
std::string pod_json(const std::string& name, const std::string& uid, int priority = 0, int cpu_milli = 100) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"team")" +
         (uid.empty() ? "" : R"(,"uid":")" + uid + "\"") + R"(},"spec":{"priority":)" +
         std::to_string(priority) + R"(,"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
         std::to_string(cpu_milli) + R"(m"}}}]}})";
}

// One record line of `verb` about `pod`, as kube-extender's recorder writes it.
std::string line(uint64_t seq, double time, const std::string& verb, const std::string& pod) {
  RecordEntry e;
  e.seq = seq;
  e.time = time;
  e.verb = verb;
  e.content_type = "application/json";
  e.body = verb == "preempt" ? R"({"Pod":)" + pod + R"(,"NodeNameToMetaVictims":{}})"
                             : R"({"Pod":)" + pod + R"(,"NodeNames":["n1"]})";
  e.content_length = std::to_string(e.body.size());
  e.status = 200;
  e.reply = "{}";
  return encode_record_line(e);
}

struct Seen {
  std::string uid;
  std::optional<sim::SimDuration> offset;
  std::string source;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> seen(const std::vector<RecordedPod>& pods) {
  std::vector<Seen> out;
  for (const auto& p : pods) out.push_back({p.pod.pod.uid, p.offset, p.source});
  return out;
}

TEST(SimRecord, EachPodOnceFromItsFirstFilterRequestInRecordedOrder) {
  Dir d("order");
  const std::string f1 = d.rec() + "/rec-000001.jsonl";
  const std::string f2 = d.rec() + "/rec-000002.jsonl";
  d.append("rec-000001.jsonl",
           line(1, 1000.0, "filter", pod_json("a", "ua")) +          // 1: a at 0
               line(2, 1000.1, "prioritize", pod_json("a", "ua")) +  // 2: a again: once
               line(3, 1000.2, "prioritize", pod_json("f", "uf")) +  // 3: f, later filtered
               line(4, 1000.5, "filter", pod_json("b", "ub")) +      // 4: b at 0.5
               line(5, 1001.0, "filter", pod_json("a", "ua", 7)) +   // 5: a's retry: not again
               line(6, 1002.0, "preempt", pod_json("c", "uc")) +     // 6: c never filtered: at 2
               line(7, 1002.1, "bind", pod_json("z", "uz")) +        // 7: other verbs ignored
               "\n" +                                                // 8: blank lines too
               line(9, 1002.2, "filter", pod_json("e", "")) +        // 9: e by namespace/name
               line(10, 1002.3, "filter", pod_json("e", "")));       // 10: the same e
  // The recorder's rotation: the next file's index is higher (zero-padded names sort as numbers).
  d.append("rec-000002.jsonl", line(11, 1003.0, "filter", pod_json("g", "ug")) +
                                   line(12, 1003.5, "prioritize", pod_json("c", "uc")) +
                                   line(13, 1004.0, "filter", pod_json("f", "uf", 5)));
  d.append("notes.txt", "not a recording file");  // ignored

  const std::vector<RecordedPod> pods = read_recording(d.rec());
  auto at = [](int ms) { return std::optional<sim::SimDuration>(milliseconds(ms)); };
  EXPECT_EQ(seen(pods), (std::vector<Seen>{{"ua", at(0), f1 + ":1"},
                                           {"ub", at(500), f1 + ":4"},
                                           {"uc", at(2000), f1 + ":6"},
                                           {"team/e", at(2200), f1 + ":9"},
                                           {"ug", at(3000), f2 + ":1"},
                                           {"uf", at(4000), f2 + ":3"}}));
  // The pod as its chosen request had it: a's first filter (priority 0), f's filter (priority 5).
  EXPECT_EQ(pods[0].pod.pod.priority, 0);
  EXPECT_EQ(pods[5].pod.pod.priority, 5);
  EXPECT_EQ(pods[0].pod.pod.namespace_, "team");
  ASSERT_EQ(pods[0].pod.pod.containers.size(), 1u);
  EXPECT_EQ(pods[0].pod.pod.containers[0].requests.milli_cpu, 100);
}

TEST(SimRecord, RecordsWithoutTimesLeaveTheSpacingToArrivalInterval) {
  Dir d("untimed");
  d.append("rec-000001.jsonl",
           line(1, 0, "filter", pod_json("a", "ua")) + line(2, 0, "filter", pod_json("b", "ub")));
  const std::vector<RecordedPod> pods = read_recording(d.rec());
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_FALSE(pods[0].offset.has_value());
  EXPECT_FALSE(pods[1].offset.has_value());

  // A one-node cluster with room: each pod binds as it arrives, --arrival-interval apart.
  SimCommand c;
  c.cluster_file = d.write("cluster.json", R"({"kind":"Node","metadata":{"name":"n1"},
      "status":{"allocatable":{"cpu":"4","memory":"4Gi","pods":"110"}}})");
  c.record_dir = d.rec();
  c.arrival_interval_seconds = 2.5;
  std::ostringstream log;
  run_sim(c, &log);
  EXPECT_NE(log.str().find(R"("time":0.0,"cycle":1,"namespace":"team","name":"a")"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find(R"("time":2.5,"cycle":2,"namespace":"team","name":"b")"), std::string::npos)
      << log.str();
}

TEST(SimRecord, BadRecordingsNameTheFileAndLine) {
  Dir d("bad");
  const std::string good = line(1, 10, "filter", pod_json("a", "ua"));
  struct Case {
    std::string name;
    std::string file;
    std::string text;
    std::string error;  // after "--record-dir DIR: "
  };
  const std::string f = d.rec() + "/rec-000001.jsonl";
  const std::vector<Case> cases = {
      {"not JSON", "rec-000001.jsonl", good + "{oops\n" + good, f + ":2: invalid JSON"},
      {"no verb", "rec-000001.jsonl",
       good +
           R"({"seq":2,"body":"{}"})"
           "\n" +
           good,
       f + ":2: \"verb\": missing or not a string"},
      {"no pod", "rec-000001.jsonl",
       R"({"seq":1,"t":1,"verb":"filter","body":"{\"NodeNames\":[]}"})"
       "\n",
       f + ":1: filter request: Pod: missing"},
      {"bad pod", "rec-000001.jsonl",
       line(1, 1, "preempt", R"({"metadata":{"name":"p"},"spec":{"priority":"high"}})"),
       f + ":1: preempt request: Pod.spec.priority: "},
      {"bound pod", "rec-000001.jsonl",
       line(1, 1, "filter", R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1"}})"),
       f + ":1: filter request: Pod.spec.nodeName: a pending pod must not be bound"},
      {"no request", "rec-000001.jsonl", line(1, 1, "bind", pod_json("a", "ua")),
       "no filter, prioritize or preempt request in the recording"},
      {"no recording file", "other.jsonl", good, "no rec-NNNNNN.jsonl file"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::filesystem::remove_all(d.rec());
    std::filesystem::create_directories(d.rec());
    d.append(c.file, c.text);
    try {
      read_recording(d.rec());
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      const std::string prefix = "--record-dir " + d.rec() + ": " + c.error;
      EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
    }
  }
  try {
    read_recording((d.dir / "missing").string());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--record-dir " + (d.dir / "missing").string() + ": not a directory");
  }

  // The recording's last line cut short (the process died mid-write) is dropped, as extender-load
  // drops it; the same line in an earlier file is an error.
  std::filesystem::remove_all(d.rec());
  std::filesystem::create_directories(d.rec());
  const std::string cut = good.substr(0, good.size() / 2);
  d.append("rec-000002.jsonl", good + cut);
  EXPECT_EQ(read_recording(d.rec()).size(), 1u);
  d.append("rec-000003.jsonl", line(3, 11, "filter", pod_json("b", "ub")));
  try {
    read_recording(d.rec());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rec-000002.jsonl:2: "), std::string::npos) << e.what();
  }
}

// With a cluster and a workload: one timeline, the cluster's pending pods, then the recording's,
// then the workload's at an instant; a recorded pod the cluster has already is the cluster's.
TEST(SimRecord, CombinesWithTheClusterAndTheWorkload) {
  Dir d("combined");
  d.append("rec-000001.jsonl", line(1, 500.0, "filter", pod_json("r1", "ur1")) +
                                   line(2, 500.25, "filter", pod_json("running", "u-running")) +
                                   line(3, 500.5, "filter", pod_json("pending", "u-pending")) +
                                   line(4, 501.5, "filter", pod_json("r2", "ur2")));
  SimCommand c;
  c.cluster_file = d.write("cluster.json", R"({"kind":"List","items":[
      {"kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"8Gi","pods":"110"}}},
      {"kind":"Pod","metadata":{"name":"running","namespace":"team","uid":"u-running"},
       "spec":{"nodeName":"n1","containers":[{"name":"c"}]},"status":{"phase":"Running"}},
      {"kind":"Pod","metadata":{"name":"pending","namespace":"team","uid":"u-pending"},
       "spec":{"containers":[{"name":"c"}]}}]})");
  c.record_dir = d.rec();
  c.workload_file =
      d.write("workload.json", R"({"kind":"Deployment","metadata":{"name":"w","namespace":"team"},
      "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c"}]}}}})");
  c.arrival_interval_seconds = 1;
  std::ostringstream log;
  run_sim(c, &log);
  std::vector<std::pair<double, std::string>> order;
  std::istringstream in(log.str());
  for (std::string l; std::getline(in, l);) {
    rapidjson::Document doc;
    doc.Parse(l.c_str());
    ASSERT_FALSE(doc.HasParseError()) << l;
    order.emplace_back(doc["time"].GetDouble(), doc["name"].GetString());
  }
  EXPECT_EQ(order, (std::vector<std::pair<double, std::string>>{
                       {0, "pending"}, {0, "r1"}, {0, "w-0"}, {1, "w-1"}, {1.5, "r2"}}));

  // A recorded pod's duplicate in the workload (same namespace/name, no UID) names the workload.
  d.append("rec-000001.jsonl", line(5, 502, "filter", pod_json("w-0", "")));
  try {
    run_sim(c, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--workload " + c.workload_file + ": pod team/w-0", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace record_input_test
}  // namespace kext::simtool
