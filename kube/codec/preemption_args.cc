#include "kube/codec/preemption_args.h"

#include "kube/codec/extender_args.h"
#include "kube/codec/k8s_decode.h"

namespace kext {

namespace {
void decode_victims_map(const json::Value& map, bool meta, const std::string& key, PreemptionArgs& out) {
  json::expect_object(map, key);
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) {
    OfferedVictims v;
    v.node = std::string(json::view(it->name));
    std::string p = key + "[\"" + v.node + "\"]";
    if (it->value.IsNull()) {
      out.nodes.push_back(std::move(v));
      continue;
    }
    json::expect_object(it->value, p);
    v.num_pdb_violations = json::get_int(it->value, "NumPDBViolations", p).value_or(0);
    if (const json::Value* pods = json::find_non_null(it->value, "Pods")) {
      std::string pp = p + ".Pods";
      json::expect_array(*pods, pp);
      for (rapidjson::SizeType i = 0; i < pods->Size(); ++i) {
        std::string ep = pp + "[" + std::to_string(i) + "]";
        const json::Value& e = (*pods)[i];
        if (e.IsNull()) continue;
        if (meta) {
          json::expect_object(e, ep);
          std::string uid = json::get_string(e, "UID", ep);
          if (uid.empty()) throw DecodeError(ep + ".UID: missing");
          v.uids.push_back(std::move(uid));
        } else {
          v.pods.push_back(decode_pod(e, ep));
          v.uids.push_back(v.pods.back().uid);
        }
      }
    }
    out.nodes.push_back(std::move(v));
  }
}
}  // namespace

PreemptionArgs decode_preemption_args(std::string_view body) {
  rapidjson::Document doc;
  parse_body(body, doc);
  PreemptionArgs out;
  const json::Value* pod = json::find_non_null(doc, "Pod");
  if (!pod) throw DecodeError("Pod: missing (the preemptor is required)");
  out.pod = decode_pod(*pod, "Pod");
  const json::Value* full = json::find_non_null(doc, "NodeNameToVictims");
  const json::Value* meta = json::find_non_null(doc, "NodeNameToMetaVictims");
  if (meta) {
    out.meta = true;
    decode_victims_map(*meta, true, "NodeNameToMetaVictims", out);
  } else if (full) {
    decode_victims_map(*full, false, "NodeNameToVictims", out);
  } else {
    throw DecodeError("NodeNameToVictims and NodeNameToMetaVictims: both missing or null (one is required)");
  }
  return out;
}

std::string encode_preemption_reply(const std::vector<ChosenVictims>& chosen) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const auto& c : chosen) {
    json::write_string(w, c.node);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const auto& uid : c.uids) {
      w.StartObject();
      json::write_member(w, "UID", uid);
      w.EndObject();
    }
    w.EndArray();
    json::write_member(w, "NumPDBViolations", c.num_pdb_violations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace kext
