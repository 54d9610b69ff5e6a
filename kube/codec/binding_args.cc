#include "kube/codec/binding_args.h"

#include "common/k8s_names.h"
#include "json/json.h"
#include "kube/codec/extender_args.h"

namespace kext {

BindingArgs decode_binding_args(std::string_view body) {
  rapidjson::Document doc;
  parse_body(body, doc);
  json::expect_object(doc, "ExtenderBindingArgs");
  BindingArgs a;
  a.pod_name = json::get_string(doc, "PodName", "");
  a.pod_namespace = json::get_string(doc, "PodNamespace", "");
  a.pod_uid = json::get_string(doc, "PodUID", "");
  a.node = json::get_string(doc, "Node", "");
  for (auto [field, value] :
       {std::pair{"PodName", &a.pod_name}, {"PodNamespace", &a.pod_namespace}, {"Node", &a.node}}) {
    if (value->empty()) throw DecodeError(std::string(field) + ": required (ExtenderBindingArgs)");
    // The names go into an API path: anything but a DNS subdomain (".." included) could reach another
    // endpoint.
    if (!is_dns1123_subdomain(*value)) {
      throw DecodeError(std::string(field) + ": \"" + value->substr(0, 64) +
                        "\" is not a valid Kubernetes name");
    }
  }
  return a;
}

std::string encode_binding(const BindingArgs& args) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Binding");
  w.Key("metadata");
  w.StartObject();
  json::write_member(w, "name", args.pod_name);
  json::write_member(w, "namespace", args.pod_namespace);
  if (!args.pod_uid.empty()) {
    json::write_member(w, "uid", args.pod_uid);
  }
  w.EndObject();
  w.Key("target");
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Node");
  json::write_member(w, "name", args.node);
  w.EndObject();
  w.EndObject();
  return sb.GetString();
}

}  // namespace kext
