#include "tools/gen/objects.h"

#include <ctime>

namespace kext::gen {

std::string rfc3339(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const char* priority_class_name(int32_t priority) {
  switch (priority) {
    case 0: return "best-effort";
    case 100: return "low";
    case 1000: return "standard";
    case 10000: return "critical";
    default: return "preemptor";
  }
}

std::string with_type_meta(const std::string& object_json, const char* kind, const char* api_version) {
  return std::string("{\"kind\":\"") + kind + "\",\"apiVersion\":\"" + api_version + "\"," + object_json.substr(1);
}

std::string pod_json(const PodSpec& p) {
  const std::string cpu = std::to_string(p.cpu_milli) + "m";
  const std::string mem = std::to_string(p.memory_mi) + "Mi";
  const std::string rs = p.app + "-" + p.template_hash;
  const std::string token = "kube-api-access-" + p.uid.substr(0, 5);
  std::string s = R"({"metadata":{"name":")" + p.name + R"(","generateName":")" + rs + R"(-","namespace":")" +
                  p.namespace_ + R"(","uid":")" + p.uid + R"(","resourceVersion":")" + std::to_string(100000 + p.created % 900000) +
                  R"(","creationTimestamp":")" + rfc3339(p.created) + R"(","labels":{"app":")" + p.app +
                  R"(","pod-template-hash":")" + p.template_hash + R"("},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" +
                  rs + R"(","uid":")" + p.owner_uid + R"(","controller":true,"blockOwnerDeletion":true}]},"spec":{"volumes":[{"name":")" + token +
                  R"(","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],"containers":[{"name":"app","image":")" +
                  p.image + R"(","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"resources":{"limits":{"memory":")" + mem +
                  R"("},"requests":{"cpu":")" + cpu + R"(","memory":")" + mem + R"("}},"volumeMounts":[{"name":")" + token +
                  R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default",)";
  if (!p.node.empty()) s += R"("nodeName":")" + p.node + R"(",)";
  s += R"("securityContext":{},"schedulerName":"default-scheduler","tolerations":[)";
  if (p.tolerates_dedicated) s += R"({"key":"dedicated","operator":"Equal","value":"batch","effect":"NoSchedule"},)";
  s += R"({"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priorityClassName":")" +
       std::string(priority_class_name(p.priority)) + R"(","priority":)" + std::to_string(p.priority) +
       R"(,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":)";
  if (p.node.empty()) {
    s += R"({"phase":"Pending","qosClass":"Burstable"}})";
  } else {
    s += R"({"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":")" +
         rfc3339(p.created + 20) + R"("}],"startTime":")" + rfc3339(p.created + 5) + R"(","qosClass":"Burstable"}})";
  }
  return s;
}

std::string pdb_json(const PdbSpec& p) {
  return R"({"metadata":{"name":")" + p.name + R"(","namespace":")" + p.namespace_ + R"(","uid":")" + p.uid +
         R"(","resourceVersion":"4242","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"minAvailable":)" +
         std::to_string(p.min_available) + R"(,"selector":{"matchLabels":{"app":")" + p.app +
         R"("}}},"status":{"observedGeneration":1,"disruptionsAllowed":)" + std::to_string(p.disruptions_allowed) +
         R"(,"currentHealthy":)" + std::to_string(p.min_available + p.disruptions_allowed) + R"(,"desiredHealthy":)" +
         std::to_string(p.min_available) + R"(,"expectedPods":)" + std::to_string(p.min_available + p.disruptions_allowed) + "}}";
}

}  // namespace kext::gen
