// The filter and prioritize replies are appended, not written through a rapidjson::Writer; they must
// stay byte-identical to the Writer's encoding (kube-scheduler and the recorded fixtures see these
// bytes). The Writer encoders that used to produce the replies are kept here as the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kube/codec/extender_args.h"

namespace kext {
namespace {

// ---- The oracle: the replies as the Writer wrote them before (extender_args.cc at 7c07e14). ----

void oracle_failed_map(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                       const ExtenderArgs& args, const std::vector<RejectedNode>& rejected) {
  w.Key(key);
  w.StartObject();
  for (const auto& r : rejected) {
    json::write_string(w, args.node_names[r.index]);
    json::write_string(w, r.reason);
  }
  w.EndObject();
}

std::string oracle_filter_reply(const ExtenderArgs& args, const FilterReply& reply) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  if (!args.full_nodes) {
    w.Key("Nodes");
    w.Null();
    w.Key("NodeNames");
    w.StartArray();
    for (size_t i : reply.passed) json::write_string(w, args.node_names[i]);
    w.EndArray();
  } else {
    w.Key("NodeNames");
    w.Null();
  }
  oracle_failed_map(w, "FailedNodes", args, reply.failed);
  oracle_failed_map(w, "FailedAndUnresolvableNodes", args, reply.unresolvable);
  w.Key("Error");
  w.String("");
  w.EndObject();
  if (!args.full_nodes) return {buf.GetString(), buf.GetSize()};
  std::string out = R"({"Nodes":{"metadata":{},"items":[)";
  for (size_t k = 0; k < reply.passed.size(); ++k) {
    if (k) out.push_back(',');
    out.append(args.node_raw[reply.passed[k]]);
  }
  out.append("]},");
  out.append(buf.GetString() + 1, buf.GetSize() - 1);
  return out;
}

std::string oracle_prioritize_reply(const std::vector<std::string>& hosts,
                                    const std::vector<int64_t>& scores) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartArray();
  for (size_t i = 0; i < hosts.size(); ++i) {
    w.StartObject();
    json::write_member(w, "Host", hosts[i]);
    json::write_member(w, "Score", scores[i]);
    w.EndObject();
  }
  w.EndArray();
  return {buf.GetString(), buf.GetSize()};
}

// ---- The inputs. ----

// Names a node could not have in Kubernetes but a hostile or buggy request could send.
const std::vector<std::string> kNames = {
    "node-1",
    "",
    "quote\"d",
    "back\\slash",
    "sl/ash",
    std::string("nul\0byte", 8),
    "ctl\b\t\n\f\r\x01\x1f",
    "del\x7f",
    "utf8-n\xc3\xa9ud-\xe2\x82\xac-\xf0\x9f\x98\x80",
    "bad-utf8-\xff\xc3",
    "a-long-node-name-that-crosses-the-writers-sixteen-byte-sse-boundary-\"-twice-\\-",
};

// Raw node objects as a full-Nodes request carries them (echoed unchanged).
const std::vector<std::string> kRaw = [] {
  std::vector<std::string> raw;
  for (size_t i = 0; i < kNames.size(); ++i)
    raw.push_back(R"({"metadata":{"name":"n)" + std::to_string(i) + R"("}})");
  return raw;
}();

ExtenderArgs args_for(bool full_nodes) {
  ExtenderArgs args;
  args.full_nodes = full_nodes;
  for (const auto& n : kNames) args.node_names.push_back(n);
  if (full_nodes) args.node_raw.assign(kRaw.begin(), kRaw.end());
  return args;
}

struct FilterCase {
  const char* what;
  FilterReply reply;
};

std::vector<FilterCase> filter_cases() {
  std::vector<size_t> all;
  for (size_t i = 0; i < kNames.size(); ++i) all.push_back(i);
  return {
      {"nothing", {}},
      {"all pass", {all, {}, {}}},
      {"one passes", {{0}, {}, {}}},
      // Runs of consecutive passing names are copied whole: runs cut by failures, and single names.
      {"runs with gaps", {{0, 1, 2, 4, 6, 7, 9}, {{3, "Insufficient cpu"}, {5, "x"}, {8, "y"}}, {}}},
      {"all fail",
       {{},
        {{0, "Insufficient cpu"},
         {2, "reason with \"quotes\" and \\ and \n"},
         {5, ""},
         {8, "r\xc3\xa9sum\xc3\xa9"}},
        {}}},
      {"all unresolvable",
       {{}, {}, {{1, "node(s) didn't match Pod's node affinity/selector"}, {3, "x\x01"}}}},
      {"mixed",
       {{4, 6, 10},
        {{0, "Insufficient memory"}, {9, "bad\xff"}},
        {{7, "node(s) had untolerated taint {a: b}"}}}},
  };
}

TEST(ReplyEncoding, FilterReplyIsByteIdenticalToTheWriters) {
  for (bool full : {false, true}) {
    const ExtenderArgs args = args_for(full);
    for (const auto& c : filter_cases()) {
      EXPECT_EQ(encode_filter_reply(args, c.reply), oracle_filter_reply(args, c.reply))
          << c.what << (full ? " (full nodes)" : " (node names)");
    }
  }
}

TEST(ReplyEncoding, FilterReplyLiterals) {
  ExtenderArgs names = args_for(false);
  EXPECT_EQ(encode_filter_reply(names, {{0, 2}, {{3, "r"}}, {{1, "u"}}}),
            R"({"Nodes":null,"NodeNames":["node-1","quote\"d"],"FailedNodes":{"back\\slash":"r"},)"
            R"("FailedAndUnresolvableNodes":{"":"u"},"Error":""})");
  EXPECT_EQ(encode_filter_reply(names, {}),
            R"({"Nodes":null,"NodeNames":[],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""})");
  ExtenderArgs full = args_for(true);
  EXPECT_EQ(encode_filter_reply(full, {{0, 1}, {}, {}}),
            R"({"Nodes":{"metadata":{},"items":[{"metadata":{"name":"n0"}},{"metadata":{"name":"n1"}}]},)"
            R"("NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""})");
}

TEST(ReplyEncoding, PrioritizeReplyIsByteIdenticalToTheWriters) {
  const std::vector<int64_t> scores = {0,
                                       1,
                                       -1,
                                       100,
                                       -100,
                                       int64_t{1} << 40,
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min(),
                                       7,
                                       42,
                                       1000000};
  ASSERT_EQ(scores.size(), kNames.size());
  for (size_t n = 0; n <= kNames.size(); ++n) {
    const std::vector<std::string> hosts(kNames.begin(), kNames.begin() + static_cast<std::ptrdiff_t>(n));
    const std::vector<int64_t> s(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(n));
    NameList list;
    for (const auto& h : hosts) list.push_back(h);
    EXPECT_EQ(encode_prioritize_reply(list, s), oracle_prioritize_reply(hosts, s)) << n << " hosts";
  }
  EXPECT_EQ(encode_prioritize_reply({}, {}), "[]");
  EXPECT_EQ(encode_prioritize_reply({"a\"", "b"}, {-5, 9223372036854775807}),
            R"([{"Host":"a\"","Score":-5},{"Host":"b","Score":9223372036854775807}])");
}

}  // namespace
}  // namespace kext
