#include "extender/server/ops_routes.h"

#include <charconv>

#include "algorithms/namespaced_key.h"
#include "extender/http/reply_writer.h"
#include "json/json.h"
#include "kube/client/leader_election.h"
#include "kube/state/state_dump.h"

namespace kext {

namespace {

constexpr size_t kDefaultDecisionLimit = 100;

void error(HttpResponse& res, int status, std::string_view message) {
  res.set(status, std::string(kJsonContentType), json::error_body(message));
}

// GET /debug/decisions[?limit=N][&pod=NAMESPACE/NAME]: the newest decisions, newest first.
void decisions(const DecisionLog* log, Exchange& x) {
  HttpResponse& res = x.response;
  if (!log) return error(res, 404, "the decision log is off (--decision-log-size 0)");
  size_t limit = kDefaultDecisionLimit;
  if (const std::optional<std::string> v = x.request.param("limit")) {
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), limit);
    if (ec != std::errc() || p != v->data() + v->size()) {
      return error(res, 400, "limit: expected a non-negative integer, got \"" + *v + "\"");
    }
  }
  const std::string pod = x.request.param("pod").value_or("");
  if (!pod.empty() && pod.find('/') == std::string::npos) {
    return error(res, 400, "pod: expected NAMESPACE/NAME, got \"" + pod + "\"");
  }
  res.set(200, std::string(kJsonContentType), decisions_to_json(log->last(limit, pod)));
}

// GET /debug/leader: whether this replica binds, and when it cannot take the Lease, why (the last failed
// attempt's cause). /readyz passes either way: filter and prioritize do not need the Lease.
void leader(const kube::LeaderElector* elector, Exchange& x) {
  if (!elector) return error(x.response, 404, "no leader election on this extender (--leader-elect)");
  const kube::LeaseHolder holder = elector->lease_holder();
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "identity", elector->identity());
  json::write_member(w, "lease",
                     namespaced_key(elector->config().lease_namespace, elector->config().lease_name));
  json::write_member(w, "leader", elector->is_leader());
  json::write_member(w, "holder", holder.identity);
  json::write_member(w, "holderURL", holder.url);
  json::write_member(w, "lastError", elector->last_error());
  w.EndObject();
  x.response.set(200, std::string(kJsonContentType), std::string(buf.GetString(), buf.GetSize()));
}

}  // namespace

void install_metrics_route(Router& router, Metrics* metrics, const StateStore& state) {
  if (!metrics) return;
  router.get("/metrics", [metrics, &state](Exchange& x) {
    auto current = state.current();
    x.response.set(200, "text/plain; version=0.0.4; charset=utf-8", metrics->render(current.get()));
  });
}

void install_ops_routes(Router& router, const ServerObservers& observers, const StateStore& state) {
  install_metrics_route(router, observers.metrics, state);

  DecisionLog* log = observers.decisions;
  router.get("/debug/decisions", [log](Exchange& x) { decisions(log, x); });
  router.get("/debug/leader", [elector = observers.elector](Exchange& x) { leader(elector, x); });

  // The cache as dump_state() writes it: compared with a from-scratch build of the API's objects by the
  // watch tests and bench/soak. Names pods, as /debug/decisions does.
  router.get("/debug/state", [&state](Exchange& x) {
    auto current = state.current();
    x.response.set(200, "text/plain; charset=utf-8", dump_state(*current));
  });
}

}  // namespace kext
