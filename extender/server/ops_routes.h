#pragma once
// GET /metrics, GET /debug/decisions, GET /debug/state and GET /debug/leader: the operator's view of a
// running server.
#include "extender/http/router.h"
#include "extender/server/request_observer.h"
#include "kube/state/cluster_state.h"

namespace kext {

// Routes exist only for the observers that are set; the rest answer 404 with a reason.
void install_ops_routes(Router& router, const ServerObservers& observers, const StateStore& state);
// GET /metrics alone (the metrics listener serves it without /debug/*); nothing when metrics is null.
void install_metrics_route(Router& router, Metrics* metrics, const StateStore& state);

}  // namespace kext
