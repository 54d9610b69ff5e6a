#include "kube/client/lease_access.h"

#include <optional>
#include <string_view>

#include "json/json.h"

namespace kext::kube {

namespace {

constexpr std::string_view kUntilThen = " — this replica will not bind until then";
constexpr const char* kAccessReviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

// A SelfSubjectAccessReview of `verb` on the Lease. get and update name it (a Role may grant them for
// this Lease alone, as manifests/base/rbac.yaml does); create cannot be limited to a name in RBAC, so its
// review names none.
std::string access_review_json(const LeaderElectionConfig& c, std::string_view verb) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "apiVersion", "authorization.k8s.io/v1");
  json::write_member(w, "kind", "SelfSubjectAccessReview");
  w.Key("spec");
  w.StartObject();
  w.Key("resourceAttributes");
  w.StartObject();
  json::write_member(w, "namespace", c.lease_namespace);
  json::write_member(w, "verb", verb);
  json::write_member(w, "group", "coordination.k8s.io");
  json::write_member(w, "resource", "leases");
  if (verb != "create") json::write_member(w, "name", c.lease_name);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

// The review's status.allowed; nullopt when there is no answer (not served, not granted, an error).
std::optional<bool> allowed(ApiClient& api, const LeaderElectionConfig& c, std::string_view verb) {
  const ApiResponse r = api.post(kAccessReviews, access_review_json(c, verb), Expected{404, 403});
  if (!r.ok()) return std::nullopt;
  rapidjson::Document d;
  d.Parse<json::kParseFlags>(r.body.data(), r.body.size());
  const json::Value* status = !d.HasParseError() && d.IsObject() ? json::find(d, "status") : nullptr;
  const json::Value* yes = status && status->IsObject() ? json::find(*status, "allowed") : nullptr;
  if (yes == nullptr || !yes->IsBool()) return std::nullopt;
  return yes->GetBool();
}

std::string namespace_problem(ApiClient& api, const std::string& ns) {
  // 403: this client may not read namespaces, and cannot tell.
  const ApiResponse r = api.get("/api/v1/namespaces/" + ns, Expected{404, 403});
  if (r.status != 404) return "";
  return "namespace " + ns + " does not exist; create it (kubectl create namespace " + ns + ")" +
         std::string(kUntilThen);
}

std::string verbs_problem(ApiClient& api, const LeaderElectionConfig& c) {
  std::string denied;
  for (const char* verb : {"get", "create", "update"}) {
    if (allowed(api, c, verb) == false) denied.append(denied.empty() ? "" : ", ").append(verb);
  }
  if (denied.empty()) return "";
  return "these credentials may not " + denied + " leases (coordination.k8s.io) in namespace " +
         c.lease_namespace + "; grant get, create and update on leases there with a Role and a RoleBinding " +
         "(manifests/base/rbac.yaml: kube-extender-leader-election)" + std::string(kUntilThen);
}

}  // namespace

std::vector<std::string> lease_access_problems(ApiClient& api, const LeaderElectionConfig& config) {
  std::vector<std::string> out;
  for (std::string problem : {namespace_problem(api, config.lease_namespace), verbs_problem(api, config)}) {
    if (!problem.empty()) out.push_back(std::move(problem));
  }
  return out;
}

}  // namespace kext::kube
