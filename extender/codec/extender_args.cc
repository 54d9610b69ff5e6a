#include "extender/codec/extender_args.h"

#include "extender/codec/k8s_decode.h"

namespace kext {

void parse_body(std::string_view body, rapidjson::Document& doc) {
  if (body.empty()) throw DecodeError("empty request body: expected a JSON object");
  doc.Parse<json::kParseFlags>(body.data(), body.size());
  if (doc.HasParseError()) {
    throw DecodeError(std::string("malformed JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject()) throw DecodeError(std::string("request body: expected a JSON object, got ") + json::type_name(doc));
}

void decode_extender_args(std::string_view body, ExtenderArgs& out) {
  parse_body(body, out.doc);
  const json::Value* pod = json::find_non_null(out.doc, "Pod");
  if (!pod) throw DecodeError("Pod: missing (the pod to schedule is required)");
  out.pod = decode_pod(*pod, "Pod");

  const json::Value* nodes = json::find_non_null(out.doc, "Nodes");
  const json::Value* names = json::find_non_null(out.doc, "NodeNames");
  if (nodes) {
    out.full_nodes = true;
    json::expect_object(*nodes, "Nodes");
    if (const json::Value* items = json::find_non_null(*nodes, "items")) {
      json::expect_array(*items, "Nodes.items");
      out.nodes.reserve(items->Size());
      out.node_json.reserve(items->Size());
      out.node_names.reserve(items->Size());
      for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
        out.nodes.push_back(decode_node((*items)[i], "Nodes.items[" + std::to_string(i) + "]"));
        out.node_json.push_back(&(*items)[i]);
        out.node_names.push_back(out.nodes.back().name);
      }
    }
  } else if (names) {
    json::expect_array(*names, "NodeNames");
    out.node_names.reserve(names->Size());
    for (rapidjson::SizeType i = 0; i < names->Size(); ++i) {
      out.node_names.emplace_back(json::expect_string((*names)[i], "NodeNames[" + std::to_string(i) + "]"));
    }
  } else {
    throw DecodeError("Nodes and NodeNames: both missing or null (one of them is required)");
  }
}

namespace {
void write_failed_map(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                      const std::map<std::string, std::string>& m) {
  w.Key(key);
  w.StartObject();
  for (const auto& [node, reason] : m) {
    json::write_string(w, node);
    json::write_string(w, reason);
  }
  w.EndObject();
}
}  // namespace

std::string encode_filter_reply(const ExtenderArgs& args, const FilterReply& reply) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("Nodes");
  if (args.full_nodes) {
    // The scheduler replaces its node objects with what we return, so echo them unchanged.
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (size_t i : reply.passed) args.node_json[i]->Accept(w);
    w.EndArray();
    w.EndObject();
    w.Key("NodeNames");
    w.Null();
  } else {
    w.Null();
    w.Key("NodeNames");
    w.StartArray();
    for (size_t i : reply.passed) json::write_string(w, args.node_names[i]);
    w.EndArray();
  }
  write_failed_map(w, "FailedNodes", reply.failed);
  write_failed_map(w, "FailedAndUnresolvableNodes", reply.unresolvable);
  w.Key("Error");
  w.String("");
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

std::string encode_prioritize_reply(const std::vector<std::string>& hosts, const std::vector<int64_t>& scores) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartArray();
  for (size_t i = 0; i < hosts.size(); ++i) {
    w.StartObject();
    w.Key("Host");
    json::write_string(w, hosts[i]);
    w.Key("Score");
    w.Int64(scores[i]);
    w.EndObject();
  }
  w.EndArray();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace kext
