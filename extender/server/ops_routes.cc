#include "extender/server/ops_routes.h"

#include <httplib.h>

#include <charconv>

#include "kube/state/state_dump.h"
#include "json/json.h"

namespace kext {

namespace {

constexpr const char* kJsonType = "application/json; charset=utf-8";
constexpr size_t kDefaultDecisionLimit = 100;

void error(httplib::Response& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(json::error_body(message), kJsonType);
}

}  // namespace

void install_metrics_route(httplib::Server& http, Metrics* metrics, const StateStore& state) {
  if (!metrics) return;
  http.Get("/metrics", [metrics, &state](const httplib::Request&, httplib::Response& res) {
    auto current = state.current();
    res.set_content(metrics->render(current.get()), "text/plain; version=0.0.4; charset=utf-8");
  });
}

void install_ops_routes(httplib::Server& http, const ServerObservers& observers, const StateStore& state) {
  install_metrics_route(http, observers.metrics, state);

  DecisionLog* log = observers.decisions;
  http.Get("/debug/decisions", [log](const httplib::Request& req, httplib::Response& res) {
    if (!log) return error(res, 404, "the decision log is off (--decision-log-size 0)");
    size_t limit = kDefaultDecisionLimit;
    if (req.has_param("limit")) {
      const std::string v = req.get_param_value("limit");
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), limit);
      if (ec != std::errc() || p != v.data() + v.size()) {
        return error(res, 400, "limit: expected a non-negative integer, got \"" + v + "\"");
      }
    }
    const std::string pod = req.has_param("pod") ? req.get_param_value("pod") : std::string();
    if (!pod.empty() && pod.find('/') == std::string::npos) {
      return error(res, 400, "pod: expected NAMESPACE/NAME, got \"" + pod + "\"");
    }
    res.set_content(decisions_to_json(log->last(limit, pod)), kJsonType);
  });

  // The cache as dump_state() writes it: compared with a from-scratch build of the API's objects by the
  // watch tests and bench/soak. Names pods, as /debug/decisions does.
  http.Get("/debug/state", [&state](const httplib::Request&, httplib::Response& res) {
    auto current = state.current();
    res.set_content(dump_state(*current), "text/plain; charset=utf-8");
  });
}

}  // namespace kext
