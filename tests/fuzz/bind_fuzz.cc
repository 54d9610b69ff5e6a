// POST /bind bodies: BindVerb::bind's steps short of the API call (which needs an API server):
// decode_binding_args, the Binding it would POST, and the cache's assume/forget of the pod.
#include "common/read_file.h"
#include "kube/codec/binding_args.h"
#include "kube/client/cache_sinks.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

namespace {

// The fixture cluster, listed into a StateCache through the reflector's sinks.
StateCache& bind_cache() {
  static StateCache* cache = [] {
    auto* c = new StateCache();
    std::string text;
    read_whole_file(std::string(KEXT_FUZZ_FIXTURES_DIR) + "/cluster.json", text);
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    auto nodes = kube::make_node_sink(*c), pods = kube::make_pod_sink(*c), pdbs = kube::make_pdb_sink(*c);
    for (auto* s : {nodes.get(), pods.get(), pdbs.get()}) s->list_begin();
    for (const auto& item : doc["items"].GetArray()) {
      const std::string kind(json::view(item["kind"]));
      if (kind == "Node") nodes->list_item(item);
      if (kind == "Pod") pods->list_item(item);
      if (kind == "PodDisruptionBudget") pdbs->list_item(item);
    }
    for (auto* s : {nodes.get(), pods.get(), pdbs.get()}) s->list_end();
    return c;
  }();
  return *cache;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Subdomain: what pod and node names are.
bool is_dns1123_subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (alnum(c)) continue;
    if (c != '-' && c != '.') return false;
    if (i == 0 || i + 1 == s.size()) return false;
    if (c == '.' && (!alnum(s[i - 1]) || !alnum(s[i + 1]))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  BindingArgs args;
  try {
    args = decode_binding_args(fuzz::as_text(data, size));
  } catch (const DecodeError& e) {
    fuzz::check(e.what()[0] != '\0', "bind: DecodeError without a message");
    return 0;
  }
  // The names become segments of the API path /api/v1/namespaces/{ns}/pods/{name}/binding.
  for (const std::string* name : {&args.pod_name, &args.pod_namespace, &args.node}) {
    fuzz::check(is_dns1123_subdomain(*name),
                "bind: accepted \"" + *name + "\", which is not a DNS-1123 subdomain");
  }

  const std::string binding = encode_binding(args);
  rapidjson::Document doc;
  fuzz::check(fuzz::parse_json(binding, doc) && doc.IsObject(), "bind: Binding is not JSON: " + binding);
  fuzz::check(json::view(doc["metadata"]["name"]) == args.pod_name &&
                  json::view(doc["metadata"]["namespace"]) == args.pod_namespace &&
                  json::view(doc["target"]["name"]) == args.node,
              "bind: Binding does not carry the request's names: " + binding);

  // Assume, then forget as a failed bind does: the pod is back where the API last showed it.
  StateCache& cache = bind_cache();
  const std::string key = StateCache::pod_key(args.pod_uid, args.pod_namespace, args.pod_name);
  const PodInfo* before = cache.view()->find_pod(key);
  const std::string node_before = before ? before->pod->node_name : "";
  const bool assumed =
      cache.batch().assume_pod(key, args.node, StateCache::Clock::now() + std::chrono::seconds(30));
  fuzz::check(assumed == (before != nullptr), "bind: assume_pod of " + key + " disagrees with the state");
  auto during = cache.view();
  fuzz::check_state(*during);
  if (before) {
    const std::string want = node_before.empty() ? args.node : node_before;
    fuzz::check(during->find_pod(key)->pod->node_name == want,
                "bind: assumed pod " + key + " not on " + want);
  }
  if (assumed) cache.batch().forget_assumed(key);
  auto after = cache.view();
  fuzz::check_state(*after);
  const PodInfo* restored = after->find_pod(key);
  fuzz::check(
      (restored != nullptr) == (before != nullptr) && (!restored || restored->pod->node_name == node_before),
      "bind: forgetting the assumption of " + key + " did not restore it");
  return 0;
}
