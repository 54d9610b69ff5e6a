#pragma once
// Kubernetes object JSON for tests and benchmarks that talk to FakeApiServer.
#include <string>

namespace kext::testing {

inline std::string node_json(const std::string& name, const std::string& cpu = "4", const std::string& memory = "8Gi",
                             const std::string& extra_labels = "") {
  return R"({"kind":"Node","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","labels":{"kubernetes.io/hostname":")" + name + "\"" + extra_labels +
         R"(}},"spec":{},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" + memory +
         R"(","pods":"110"}}})";
}

inline std::string pod_json(const std::string& ns, const std::string& name, const std::string& node,
                            const std::string& cpu = "100m", const std::string& phase = "Running",
                            int priority = 0, const std::string& app = "web") {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","uid":"uid-)" + ns + "-" + name + R"(","labels":{"app":")" + app + R"("}},"spec":{)" +
         (node.empty() ? "" : "\"nodeName\":\"" + node + "\",") + R"("priority":)" + std::to_string(priority) +
         R"(,"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":"64Mi"}}}]},"status":{"phase":")" + phase + R"("}})";
}

inline std::string pdb_json(const std::string& ns, const std::string& name, const std::string& app, int allowed) {
  return R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"("},"spec":{"selector":{"matchLabels":{"app":")" + app +
         R"("}}},"status":{"disruptionsAllowed":)" + std::to_string(allowed) + "}}";
}

}  // namespace kext::testing
