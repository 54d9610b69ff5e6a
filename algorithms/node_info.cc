#include <algorithm>

#include "algorithms/model.h"

namespace kext {

void NodeInfo::add_pod(std::shared_ptr<const PodInfo> p) {
  requested_totals.add(p->requests);
  nonzero_requested_totals.add(p->nonzero_requests);
  requested = requested_totals.saturated();
  nonzero_requested = nonzero_requested_totals.saturated();
  pods.push_back(std::move(p));
}

bool NodeInfo::remove_pod(const std::string& uid) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p->pod->uid == uid; });
  if (it == pods.end()) return false;
  return remove_pod(it->get());
}

bool NodeInfo::remove_pod(const PodInfo* p) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& q) { return q.get() == p; });
  if (it == pods.end()) return false;
  requested_totals.subtract((*it)->requests);
  nonzero_requested_totals.subtract((*it)->nonzero_requests);
  requested = requested_totals.saturated();
  nonzero_requested = nonzero_requested_totals.saturated();
  pods.erase(it);
  return true;
}

}  // namespace kext
