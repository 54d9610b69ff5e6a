#include "sim/live_input.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "common/read_file.h"
#include "json/json.h"
#include "kube/client/api_client.h"
#include "kube/client/api_config.h"
#include "kube/client/cache_sinks.h"
#include "kube/client/lister.h"
#include "sim/run.h"

namespace kext::simtool {

namespace {

// The kubeconfig's context as a client, and how messages name it: "--kubeconfig FILE (server URL)".
struct LiveClient {
  std::string where;
  std::optional<kube::ApiClient> api;
};

void connect(const std::string& kubeconfig, const std::string& context, LiveClient& out) {
  kube::ApiConfig config;
  try {
    config = kube::kubeconfig_config(kubeconfig, context);
  } catch (const kube::ConfigError& e) {
    throw InputError(e.what());  // it names "--kubeconfig FILE", as kube-extender's does
  }
  out.where = "--kubeconfig " + kubeconfig + " (" + (context.empty() ? "" : "context " + context + ", ") +
              "server " + config.server_url() + ")";
  try {
    out.api.emplace(config);  // parses the certificates and key
    // Every failure becomes an InputError naming the kubeconfig: nothing to log besides.
    out.api->errors().set_enabled(false);
  } catch (const kube::ConfigError& e) {
    throw InputError(out.where + ": " + e.what());
  }
}

}  // namespace

std::string live_git_version(const std::string& kubeconfig, const std::string& context) {
  LiveClient live;
  connect(kubeconfig, context, live);
  try {
    return kube::server_git_version(*live.api);
  } catch (const kube::ConfigError& e) {
    throw InputError(live.where + ": " + e.what());
  }
}

std::string list_live_cluster(const std::string& kubeconfig, const std::string& context, size_t page_size) {
  LiveClient live;
  connect(kubeconfig, context, live);
  const std::string& where = live.where;
  std::optional<kube::ApiClient>& api = live.api;

  rapidjson::Document doc(rapidjson::kObjectType);
  auto& alloc = doc.GetAllocator();
  doc.AddMember("kind", "List", alloc);
  doc.AddMember("apiVersion", "v1", alloc);
  rapidjson::Value lists(rapidjson::kArrayType);
  // kLiveResources, then what else the extender watches (namespaces, services, replicationcontrollers,
  // replicasets, statefulsets: kube/client/cache_sinks.h), which only PodTopologySpread's default
  // constraints and namespaceSelector read: optional as PriorityClasses are, so that a role granting
  // only the first three still simulates.
  std::vector<LiveResource> resources(std::begin(kLiveResources), std::end(kLiveResources));
  for (const kube::WatchedResource& w : kube::watched_resources()) {
    const bool listed = std::any_of(std::begin(kLiveResources), std::end(kLiveResources),
                                    [&](const LiveResource& r) { return w.kind == r.kind; });
    // The table's views are of string literals: data() is NUL-terminated.
    if (!listed) resources.push_back(LiveResource{w.kind.data(), w.path.data(), true});
  }
  for (const LiveResource& r : resources) {
    rapidjson::Value items(rapidjson::kArrayType);
    kube::ListHooks hooks;
    hooks.begin = [&](bool) { items.Clear(); };  // started over: the pages so far are stale
    hooks.item = [&](const json::Value& item) { items.PushBack(rapidjson::Value(item, alloc), alloc); };
    const kube::ListResult result =
        kube::list_all(*api, kube::ListRequest{r.path, page_size, std::chrono::seconds(60)}, hooks);
    if (!result.complete) {
      if (r.optional && kube::absent_status(result.status)) continue;
      throw InputError(where + ": " + result.error);
    }
    rapidjson::Value list(rapidjson::kObjectType);
    list.AddMember("kind", rapidjson::Value(std::string(r.kind) + "List", alloc), alloc);
    list.AddMember("items", items, alloc);
    lists.PushBack(list, alloc);
  }
  doc.AddMember("items", lists, alloc);
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

std::string cluster_source(const SimCommand& command) {
  return command.kubeconfig.empty() ? "--cluster " + command.cluster_file
                                    : "--kubeconfig " + command.kubeconfig;
}

ClusterInput read_cluster(const SimCommand& command, size_t page_size) {
  std::string text;
  if (command.kubeconfig.empty()) {
    if (!read_whole_file(command.cluster_file, text))
      throw InputError("--cluster " + command.cluster_file + ": cannot read the file");
  } else {
    text = list_live_cluster(command.kubeconfig, command.kube_context, page_size);
  }
  try {
    return decode_cluster(text, !command.extender_url.empty());
  } catch (const DecodeError& e) {
    throw InputError(cluster_source(command) + ": " + e.what());
  } catch (const sim::ClusterError& e) {
    throw InputError(cluster_source(command) + ": " + e.what());
  }
}

}  // namespace kext::simtool
