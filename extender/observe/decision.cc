#include "extender/observe/decision.h"

#include "common/rfc3339.h"
#include "json/json.h"

namespace kext {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_filter_nodes(Writer& w, const Decision& d) {
  enum Outcome : uint8_t { kUnset, kPassed, kFailed, kUnresolvable };
  std::vector<Outcome> outcome(d.nodes.size(), kUnset);
  std::vector<const std::string*> reason(d.nodes.size(), nullptr);
  for (size_t i : d.filter.passed) {
    if (i < outcome.size()) outcome[i] = kPassed;
  }
  auto mark = [&](const std::vector<RejectedNode>& rejected, Outcome o) {
    for (const auto& r : rejected) {
      if (r.index >= outcome.size()) continue;
      outcome[r.index] = o;
      reason[r.index] = &r.reason;
    }
  };
  mark(d.filter.failed, kFailed);
  mark(d.filter.unresolvable, kUnresolvable);
  static constexpr const char* kNames[] = {"unknown", "passed", "failed", "unresolvable"};
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    w.StartObject();
    json::write_member(w, "name", d.nodes[i]);
    json::write_member(w, "filter", kNames[outcome[i]]);
    if (reason[i]) json::write_member(w, "reasons", *reason[i]);
    w.EndObject();
  }
}

void write_prioritize_nodes(Writer& w, const Decision& d) {
  // Request index -> column of the score matrix.
  std::vector<size_t> column(d.nodes.size(), SIZE_MAX);
  for (size_t k = 0; k < d.scored_index.size(); ++k) {
    if (d.scored_index[k] < column.size()) column[d.scored_index[k]] = k;
  }
  const size_t algorithms = d.algorithms ? std::min(d.algorithms->size(), d.scores.algorithms) : 0;
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    w.StartObject();
    json::write_member(w, "name", d.nodes[i]);
    const size_t k = column[i];
    if (k == SIZE_MAX || k >= d.scores.nodes) {
      json::write_member(w, "known", false);
    } else {
      w.Key("scores");
      w.StartArray();
      for (size_t a = 0; a < algorithms; ++a) {
        const AlgorithmInfo& alg = (*d.algorithms)[a];
        w.StartObject();
        json::write_member(w, "algorithm", alg.name);
        w.Key("raw");  // before normalisation
        w.Int64(d.scores.raw_at(a, k));
        w.Key("score");  // 0..10, before weighting
        w.Int64(d.scores.at(a, k));
        json::write_member(w, "weight", alg.weight);
        json::write_member(w, "weighted", alg.weight * d.scores.at(a, k));
        w.EndObject();
      }
      w.EndArray();
    }
    json::write_member(w, "final", i < d.final_scores.size() ? d.final_scores[i] : 0);
    w.EndObject();
  }
}

void write_candidates(Writer& w, const Decision& d) {
  for (const CandidateRecord& c : d.candidates) {
    w.StartObject();
    json::write_member(w, "name", c.node);
    json::write_member(w, "chosen", c.chosen);
    json::write_member(w, "evaluated", c.evaluated);
    json::write_member(w, "numPDBViolations", c.num_pdb_violations);
    json::write_member(w, "decidedBy", c.decided_by);
    w.Key("victims");
    w.StartArray();
    for (const VictimRecord& v : c.victims) {
      w.StartObject();
      json::write_member(w, "pod", v.pod);
      json::write_member(w, "uid", v.uid);
      json::write_member(w, "priority", v.priority);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
}

void write_decision(Writer& w, const Decision& d) {
  w.StartObject();
  json::write_member(w, "seq", d.seq);
  json::write_member(w, "time", rfc3339(d.unix_micros, 6));
  json::write_member(w, "verb", d.verb);
  json::write_member(w, "pod", d.pod);
  json::write_member(w, "podUID", d.pod_uid);
  json::write_member(w, "status", d.status);
  json::write_member(w, "durationSeconds", d.seconds);
  if (!d.gang.empty()) json::write_member(w, "gang", d.gang);
  if (!d.error_body.empty()) {
    // The reply body as sent; the verbs only produce well-formed {"Error":…} objects.
    w.Key("reply");
    w.RawValue(d.error_body.data(), d.error_body.size(), rapidjson::kObjectType);
  }
  if (d.verb == "preempt") {
    if (!d.candidates.empty()) json::write_member(w, "decidedBy", d.candidates.front().decided_by);
    w.Key("nodes");
    w.StartArray();
    write_candidates(w, d);
    w.EndArray();
  } else if (d.verb == "prioritize") {
    w.Key("nodes");
    w.StartArray();
    write_prioritize_nodes(w, d);
    w.EndArray();
  } else {
    w.Key("nodes");
    w.StartArray();
    write_filter_nodes(w, d);
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace

size_t approximate_bytes(const Decision& d) {
  auto str = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  size_t b = sizeof(Decision) + str(d.pod) + str(d.pod_uid) + str(d.error_body) + str(d.gang);
  b += d.nodes.capacity_bytes();
  b += d.filter.passed.capacity() * sizeof(size_t);
  for (const auto* rejected : {&d.filter.failed, &d.filter.unresolvable}) {
    b += rejected->capacity() * sizeof(RejectedNode);
    for (const auto& r : *rejected) b += str(r.reason);
  }
  b += (d.scores.raw.capacity() + d.scores.reduced.capacity() + d.scores.combined.capacity()) *
       sizeof(int64_t);
  b += d.scored_index.capacity() * sizeof(size_t) + d.final_scores.capacity() * sizeof(int64_t);
  b += d.candidates.capacity() * sizeof(CandidateRecord);
  for (const auto& c : d.candidates) {
    b += str(c.node) + str(c.decided_by) + c.victims.capacity() * sizeof(VictimRecord);
    for (const auto& v : c.victims) b += str(v.pod) + str(v.uid);
  }
  return b;
}

std::string decisions_to_json(std::span<const std::shared_ptr<const Decision>> decisions) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("decisions");
  w.StartArray();
  for (const auto& d : decisions) {
    if (d) write_decision(w, *d);
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace kext
