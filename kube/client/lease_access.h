#pragma once
// What --leader-elect needs before a replica can take its Lease, checked once at start-up so that a
// replica that will never bind says why at once: the Lease's namespace exists (kube-apiserver refuses to
// create an object in a namespace that does not: k8s.io/apiserver/pkg/admission/plugin/namespace/
// lifecycle/admission.go Admit answers 404 "namespaces \"NS\" not found"), and the credentials may get,
// create and update Leases there (one SelfSubjectAccessReview per verb, as `kubectl auth can-i` asks:
// k8s.io/kubectl/pkg/cmd/auth/cani.go). Nothing here stops the replica: it keeps trying for the Lease,
// and binds as soon as what is missing is put right.
#include <string>
#include <vector>

#include "kube/client/api_client.h"
#include "kube/client/leader_election.h"

namespace kext::kube {

// Each problem in words an operator acts on ("namespace kube-extender does not exist; create it
// (kubectl create namespace kube-extender) — this replica will not bind until then"); none when all is
// in place, or when the server cannot tell (an API without SelfSubjectAccessReview, a namespace this
// client may not read).
std::vector<std::string> lease_access_problems(ApiClient& api, const LeaderElectionConfig& config);

}  // namespace kext::kube
