#pragma once
// Nodes and pods as HAMi's device plugin and its users write them (docs/gpu-sharing.md), and the device
// plugin's part after a bind, for the tests that bind pods asking for GPUs.
#include <optional>
#include <string>

#include "tests/support/fake_apiserver.h"
#include "tests/support/test_server.h"

namespace kext::testing {

// A node of `cards` cards (UUIDs GPU-<name>-<index>) of `memory` MiB and 100 cores, `slots` pods each,
// registered in hami.io/node-nvidia-register, and nvidia.com/gpu allocatable a slot each as the device
// plugin advertises them; `lock` is its hami.io/mutex.lock ("" for none).
inline std::string hami_node_json(const std::string& name, int cards, int slots = 10, int memory = 16000,
                                  const std::string& lock = "") {
  std::string devices;
  for (int i = 0; i < cards; ++i) {
    devices += std::string(i ? "," : "") + R"({\"id\":\"GPU-)" + name + "-" + std::to_string(i) +
               R"(\",\"index\":)" + std::to_string(i) + R"(,\"count\":)" + std::to_string(slots) +
               R"(,\"devmem\":)" + std::to_string(memory) +
               R"(,\"devcore\":100,\"type\":\"NVIDIA-A10\",\"health\":true,\"mode\":\"hami-core\"})";
  }
  return R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"("},"annotations":{"hami.io/node-nvidia-register":"[)" + devices + "]\"" +
         (lock.empty() ? "" : R"(,"hami.io/mutex.lock":")" + lock + "\"") +
         R"(}},"status":{"allocatable":{"cpu":"32","memory":"128Gi","pods":"110","nvidia.com/gpu":")" +
         std::to_string(cards * slots) + R"("}}})";
}

// A pending pod (UID uid-<ns>-<name>) asking for `cards` cards of `memory` MiB and `cores` cores each (0:
// none asked) in its container, or in its init container.
inline std::string hami_pod_json(const std::string& ns, const std::string& name, int cards, int memory,
                                 int cores = 0, bool in_init = false) {
  const std::string gpu = R"({"name":"c","resources":{"requests":{"cpu":"100m","nvidia.com/gpu":")" +
                          std::to_string(cards) + R"(","nvidia.com/gpumem":")" + std::to_string(memory) +
                          "\"" + (cores ? R"(,"nvidia.com/gpucores":")" + std::to_string(cores) + "\"" : "") +
                          "}}}";
  const std::string plain = R"({"name":"app","resources":{"requests":{"cpu":"100m"}}})";
  return R"({"metadata":{"name":")" + name + R"(","namespace":")" + ns + R"(","uid":"uid-)" + ns + "-" +
         name + R"("},"spec":{)" +
         (in_init ? R"("initContainers":[)" + gpu + R"(],"containers":[)" + plain + "]"
                  : R"("containers":[)" + gpu + "]") +
         R"(},"status":{"phase":"Pending"}})";
}

// What HAMi's device plugin does once Allocate has set a pod's cards up (pkg/util/util.go
// PodAllocationTrySuccess): the pod's bind-phase becomes success, and the node's lock goes if it names
// the pod (nodelock.go ReleaseNodeLock).
inline void hami_device_plugin_allocates(kube::ApiServer& api, const std::string& ns, const std::string& pod,
                                         const std::string& node) {
  api.update("pods", ns + "/" + pod, [](const std::string& s) -> std::optional<std::string> {
    const std::string from = R"("hami.io/bind-phase":"allocating")";
    const size_t at = s.find(from);
    if (at == std::string::npos) return std::nullopt;
    std::string out = s;
    out.replace(at, from.size(), R"("hami.io/bind-phase":"success")");
    return out;
  });
  api.update("nodes", node, [&](const std::string& s) -> std::optional<std::string> {
    auto d = parse(s);
    auto& md = d["metadata"];
    if (!md.HasMember("annotations") || !md["annotations"].HasMember("hami.io/mutex.lock"))
      return std::nullopt;
    const std::string lock = md["annotations"]["hami.io/mutex.lock"].GetString();
    if (!lock.ends_with("," + ns + "," + pod)) return std::nullopt;
    md["annotations"].RemoveMember("hami.io/mutex.lock");
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    d.Accept(w);
    return std::string(sb.GetString(), sb.GetSize());
  });
}

}  // namespace kext::testing
