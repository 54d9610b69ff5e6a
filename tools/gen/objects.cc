#include "tools/gen/objects.h"

#include <cstdint>
#include <string_view>

#include "common/rfc3339.h"

namespace kext::gen {

namespace {

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// `n` hex digits that depend only on `seed`: stable ids (digests, container ids) without the PRNG, so
// the rest of the generated cluster does not shift.
std::string hex_digest(std::string_view seed, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  uint64_t h = fnv1a(seed);
  while (out.size() < n) {
    h = fnv1a(std::string_view(reinterpret_cast<const char*>(&h), sizeof h), h);
    for (int i = 0; i < 16 && out.size() < n; ++i) out += kHex[(h >> (4 * i)) & 15];
  }
  return out;
}

}  // namespace

std::string rfc3339(int64_t unix_seconds) { return kext::rfc3339(unix_seconds * 1'000'000); }

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
    return s;
  }
  // A running pod as the API serves it (and a watch delivers it): the kubelet's status and the
  // managedFields of the two writers. Without them the objects would be a third smaller than real ones.
  const std::string host_ip = "10.0." + std::to_string(fnv1a(p.node) % 250) + "." + std::to_string(fnv1a(p.node) / 250 % 250 + 1);
  const std::string pod_ip = "10." + std::to_string(64 + fnv1a(p.node) % 64) + "." + std::to_string(fnv1a(p.uid) % 256) + "." +
                             std::to_string(fnv1a(p.uid) / 256 % 254 + 1);
  const std::string scheduled = rfc3339(p.created + 1);
  const std::string started = rfc3339(p.created + 5);
  const std::string ready = rfc3339(p.created + 20);
  std::string condition_fields;
  for (const char* type : {"ContainersReady", "Initialized", "Ready"}) {
    condition_fields += std::string(condition_fields.empty() ? "" : ",") + R"("k:{\"type\":\")" + type +
                        R"(\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}})";
  }
  const size_t metadata_end = s.find(R"(]},"spec":)") + 1;
  s.insert(metadata_end,
           R"(,"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":")" +
               rfc3339(p.created) +
               R"(","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\")" +
               p.owner_uid +
               R"(\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:priorityClassName":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}},{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":")" +
               ready + R"(","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{)" + condition_fields +
               R"(},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\")" + pod_ip +
               R"(\"}":{".":{},"f:ip":{}}},"f:startTime":{}}},"subresource":"status"}])");
  s += R"({"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":")" +
       started + R"("},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ready +
       R"("},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ready +
       R"("},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":")" + scheduled +
       R"("}],"hostIP":")" + host_ip + R"(","podIP":")" + pod_ip + R"(","podIPs":[{"ip":")" + pod_ip + R"("}],"startTime":")" +
       started + R"(","containerStatuses":[{"name":"app","state":{"running":{"startedAt":")" + rfc3339(p.created + 12) +
       R"("}},"lastState":{},"ready":true,"restartCount":0,"image":")" + p.image + R"(","imageID":")" +
       p.image.substr(0, p.image.rfind(':')) + "@sha256:" + hex_digest(p.image, 64) + R"(","containerID":"containerd://)" +
       hex_digest(p.uid, 64) + R"(","started":true}],"qosClass":"Burstable"}})";
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
