#include "sim/decision_log.h"

#include <chrono>

#include "algorithms/namespaced_key.h"
#include "json/json.h"

namespace kext::simtool {

std::string_view outcome_name(sim::Outcome outcome) {
  switch (outcome) {
    case sim::Outcome::kScheduled:
      return "scheduled";
    case sim::Outcome::kPreempted:
      return "preempted";
    case sim::Outcome::kUnschedulable:
      return "unschedulable";
    case sim::Outcome::kWaiting:
      return "waiting";
    case sim::Outcome::kBindFailed:
      return "bind failed";
  }
  return "unknown";
}

std::string decision_json(const sim::CycleRecord& d) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "time", std::chrono::duration<double>(d.at).count());
  json::write_member(w, "cycle", d.cycle);
  // CycleRecord::pod is "namespace/name".
  const NamespacedName pod = split_namespaced_key(d.pod);
  json::write_member(w, "namespace", pod.namespace_);
  json::write_member(w, "name", pod.name);
  json::write_member(w, "uid", d.uid);
  json::write_member(w, "priority", d.priority);
  json::write_member(w, "attempts", d.attempts);
  json::write_member(w, "outcome", outcome_name(d.outcome));
  if (!d.node.empty()) json::write_member(w, "node", d.node);
  w.Key("victims");
  w.StartArray();
  for (const auto& v : d.victims) json::write_string(w, v);
  w.EndArray();
  w.Key("victimNames");
  w.StartArray();
  for (const auto& v : d.victim_names) json::write_string(w, v);
  w.EndArray();
  json::write_member(w, "feasibleNodes", d.feasible_nodes);
  json::write_member(w, "evaluatedNodes", d.evaluated_nodes);
  if (d.score) json::write_member(w, "score", *d.score);
  if (d.runner_up_score) json::write_member(w, "runnerUpScore", *d.runner_up_score);
  if (!d.score_terms.empty()) {
    // The winner's total, term by term: score x weight summed is "score".
    w.Key("scores");
    w.StartArray();
    for (const sim::ScoreTerm& t : d.score_terms) {
      w.StartObject();
      json::write_member(w, "plugin", t.name);
      json::write_member(w, "weight", t.weight);
      json::write_member(w, "score", t.score);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!d.gang.empty()) json::write_member(w, "gang", d.gang);
  if (!d.released.empty()) {
    // The members of its group that waited at bind and bound with it.
    w.Key("released");
    w.StartArray();
    for (const auto& uid : d.released) json::write_string(w, uid);
    w.EndArray();
  }
  if (d.outcome != sim::Outcome::kScheduled && d.outcome != sim::Outcome::kWaiting) {
    w.Key("reasons");
    w.StartObject();
    for (const auto& [reason, count] : d.reasons) {
      json::write_member(w, reason.c_str(), count);
    }
    w.EndObject();
    json::write_member(w, "message", d.message);
  }
  w.Key("moves");
  w.StartArray();
  for (const sim::QueueMove& m : d.moves) {
    w.StartObject();
    json::write_member(w, "time", std::chrono::duration<double>(m.at).count());
    if (m.from != sim::QueueName::kNone) json::write_member(w, "from", sim::queue_name(m.from));
    json::write_member(w, "to", sim::queue_name(m.to));
    json::write_member(w, "event", sim::move_event_name(m.event));
    if (!m.nominated_node.empty()) json::write_member(w, "nominatedNode", m.nominated_node);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace kext::simtool
