// decode_extender_args in names mode: the names decoded in the pass that validates them agree with a
// RapidJSON DOM of the same body (json::find's key choice, unescaped strings, the same errors), for
// plain, escaped, empty and non-ASCII names, a name in the body's last bytes, duplicate and escaped keys,
// and bodies that are not valid JSON.
#include "kube/codec/extender_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json/append.h"
#include "json/json.h"

namespace kext {
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

}  // namespace
}  // namespace kext
