// --leader-elect's start-up check: what keeps a replica from taking its Lease, in words an operator acts
// on; nothing when all is in place or the server cannot tell.
#include "kube/client/lease_access.h"

#include <gtest/gtest.h>

#include "tests/support/fake_apiserver.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"

namespace kext::testing {
namespace lease_access_test {
namespace {

const std::string kNoNamespace =
    "namespace kube-extender does not exist; create it (kubectl create namespace kube-extender) — this "
    "replica will not bind until then";

std::string verbs_denied(const std::string& verbs) {
  return "these credentials may not " + verbs +
         " leases (coordination.k8s.io) in namespace kube-extender; grant get, create and update on leases "
         "there with a Role and a RoleBinding (manifests/base/rbac.yaml: kube-extender-leader-election) — "
         "this replica will not bind until then";
}

TEST(LeaseAccess, SaysWhatKeepsTheReplicaFromItsLease) {
  struct Case {
    std::string name;
    bool namespace_exists;
    std::set<std::string> forbidden_verbs;
    bool namespaces_forbidden;
    std::vector<std::string> problems;
  };
  const std::vector<Case> cases = {
      {"all in place", true, {}, false, {}},
      {"no namespace", false, {}, false, {kNoNamespace}},
      {"RBAC without create and update", true, {"create", "update"}, false, {verbs_denied("create, update")}},
      {"RBAC without get", true, {"get"}, false, {verbs_denied("get")}},
      {"both", false, {"create"}, false, {kNoNamespace, verbs_denied("create")}},
      // A client that may not read namespaces cannot tell whether this one exists: nothing said.
      {"namespaces not readable", false, {}, true, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeApiServer api;
    if (c.namespace_exists) api.put("namespaces", namespace_json("kube-extender", ""));
    api.forbid_lease_verbs(c.forbidden_verbs);
    if (c.namespaces_forbidden) api.forbid("namespaces");
    auto client = client_for(api);
    EXPECT_EQ(kube::lease_access_problems(*client, kube::LeaderElectionConfig{}), c.problems);
    // The check's own answers (a missing namespace, a denied review) are not API failures.
    EXPECT_TRUE(client->errors().counts().empty());
  }
}

}  // namespace
}  // namespace lease_access_test
}  // namespace kext::testing
