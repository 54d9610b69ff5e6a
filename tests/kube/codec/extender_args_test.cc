// decode_extender_args in names mode: the names decoded in the pass that validates them agree with a
// RapidJSON DOM of the same body (json::find's key choice, unescaped strings, the same errors), for
// plain, escaped, empty and non-ASCII names, a name in the body's last bytes, duplicate and escaped keys,
// and bodies that are not valid JSON. And the filter and prioritize replies, which are appended rather
// than written through a rapidjson::Writer: they must stay byte-identical to the Writer's encoding
// (kube-scheduler and the recorded fixtures see these bytes), so Writer encoders here are the oracle.
#include "kube/codec/extender_args.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "json/append.h"
#include "json/json.h"

namespace kext {
namespace extender_args_test {
namespace {

constexpr std::string_view kPod = R"("Pod":{"metadata":{"name":"p","namespace":"d"}})";

// What the DOM says: the names, or the DecodeError's message.
std::string reference(const std::string& body) {
  try {
    rapidjson::Document doc;
    parse_body(body, doc);
    if (!json::find(doc, "Pod")) return "Pod: missing (the pod to schedule is required)";
    const json::Value* names = json::find(doc, "NodeNames");
    if (!names || names->IsNull()) return "both missing";
    std::string out;
    const auto& list = json::expect_array(*names, "NodeNames");
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
      out += "[" + std::string(json::expect_string(list[i], "NodeNames[" + std::to_string(i) + "]")) + "]";
    }
    return out;
  } catch (const DecodeError& e) {
    return e.what();
  }
}

std::string decoded(const std::string& body) {
  try {
    ExtenderArgs args;
    decode_extender_args(body, args);
    std::string out, json;
    for (std::string_view n : args.node_names) {
      out += "[" + std::string(n) + "]";
      if (!json.empty()) json.push_back(',');
      json::append_string(json, n);
    }
    // The list's JSON (copied from the body while the body is written as the list keeps it) is what
    // append_string writes for the names.
    if (!args.node_names.empty() && args.node_names.json_run(0, args.node_names.size()) != json) {
      return "JSON differs: " + std::string(args.node_names.json_run(0, args.node_names.size()));
    }
    return out;
  } catch (const DecodeError& e) {
    const std::string what = e.what();
    return what.starts_with("Nodes and NodeNames: both missing") ? "both missing" : what;
  }
}

TEST(ExtenderArgs, NodeNamesDecodeAsTheDomReadsThem) {
  const std::string pod(kPod);
  const std::vector<std::string> bodies = {
      "{" + pod + R"(,"NodeNames":["n1","ip-10-0-0-1.eu-west-1.compute.internal","n3"]})",
      "{" + pod + R"(,"NodeNames":[]})",
      "{" + pod + R"(,"NodeNames":[""," ","a"]})",
      "{" + pod + R"(,"NodeNames":["a"]})",  // the name in the last, partial word
      "{" + pod + R"(,"NodeNames" : [ "a" , "b" ] })",
      // Copied whole until the text stops being "a","b": a space, an escape, a non-string, then names
      // one by one.
      "{" + pod + R"(,"NodeNames":["a","b", "c","d"]})",
      "{" + pod + R"(,"NodeNames":["a","b" ,"c"]})",
      "{" + pod + R"(,"NodeNames":[ "a","b"]})",
      "{" + pod + R"(,"NodeNames":["a","b\u0041","c","d"]})",
      "{" + pod + R"(,"NodeNames":["a","b",1,"c"]})",
      "{" + pod + R"(,"NodeNames":["a\"b","c"]})",
      "{" + pod + R"(,"NodeNames":["n\u0041me","tab\there","q\"uote","back\\slash","\u00e9t\u00e9"]})",
      "{" + pod + R"(,"NodeNames":["nœud-1","ノード"]})",
      R"({"NodeNames":["x","y"],)" + pod + "}",  // names before the pod
      "{" + pod + R"(,"nodeNames":["folded"],"NodeNames":["exact"]})",
      "{" + pod + R"(,"nodenames":["first"],"NODENAMES":["second"]})",
      "{" + pod + R"(,"NodeNames":["first"],"NodeNames":["second"]})",
      "{" + pod + R"(,"\u004eodeNames":["escaped key"]})",
      "{" + pod + R"(,"NodeNames":null,"nodeNames":["null exact"]})",
      "{" + pod + R"(,"NodeNames":["a",1,"b",{}]})",
      "{" + pod + R"(,"NodeNames":"n1"})",
      "{" + pod + R"(,"NodeNames":{"0":"n1"}})",
      "{" + pod + R"(,"nodeNames":[7],"NodeNames":["exact wins over a bad folded list"]})",
      R"({"NodeNames":[1]})",  // the pod's error comes first
      "{" + pod + "}",
      "{" + pod + R"(,"NodeNames":["a",tru]})",
      "{" + pod + R"(,"NodeNames":["a","b"})",
      "{" + pod + R"(,"NodeNames":["a""b"]})",
      "{" + pod + R"(,"NodeNames":["bad \x escape"]})",
      "{" + pod + ",\"NodeNames\":[\"raw\x01control\"]}",
      "{" + pod + R"(,"NodeNames":["unterminated)",
      "{" + pod + R"(,"NodeNames":[)",
      // decode_names takes a run of "a","b" in one loop: each way the run can end.
      "{" + pod + R"(,"NodeNames":["a","b","c"]})",
      "{" + pod + R"(,"NodeNames":["a","b","c",]})",
      "{" + pod + R"(,"NodeNames":["a","b","c")",
      "{" + pod + R"(,"NodeNames":["a","b","c)",
      "{" + pod + R"(,"NodeNames":["a","b","c
"]})",
      "{" + pod + R"(,"NodeNames":["a","b","c",{"d":1}]})",
      "{" + pod + R"(,"NodeNames":["a","b","c""d"]})",
      "{" + pod + R"(,"NodeNames":["a","b","c"],"NodeNames":["e"]})",
  };
  for (const std::string& body : bodies) {
    const std::string want = reference(body);
    const std::string got = decoded(body);
    // Both refuse malformed text; the scanner's message does not carry RapidJSON's offset.
    if (want.starts_with("malformed JSON")) {
      EXPECT_TRUE(got.starts_with("malformed JSON")) << body << "\n got: " << got;
    } else {
      EXPECT_EQ(got, want) << body;
    }
  }
}

// ---- The oracle: the replies as a rapidjson::Writer writes them. ----

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
}  // namespace extender_args_test
}  // namespace kext
