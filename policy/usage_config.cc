#include "policy/usage_config.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <utility>

#include "policy/policy.h"

namespace kext {

namespace {

using json::Value;

constexpr std::array<std::pair<std::string_view, UsageSourceKind>, 2> kSourceNames{{
    {"metricsAPI", UsageSourceKind::kMetricsApi},
    {"prometheus", UsageSourceKind::kPrometheus},
}};
// A day: longer intervals and windows are a mistake in units rather than a choice.
constexpr int64_t kMaxSeconds = 24 * 60 * 60;

std::string type_error(const char* want, const Value& got) {
  std::string what = std::string("must be ") + want + ", got " + json::type_name(got);
  if (got.IsNumber() && !got.IsInt64()) what += " (not an integer)";
  return what;
}

// The members of `v`, each known and given once (config.cc's Object, for this section).
void check_members(const Value& v, const std::string& path, std::initializer_list<std::string_view> known) {
  if (!v.IsObject()) policy_fail(path, type_error("an object", v));
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    const std::string_view name = json::view(it->name);
    if (std::find(known.begin(), known.end(), name) == known.end())
      policy_fail(json::join_path(path, name), "unknown field");
    for (auto other = v.MemberBegin(); other != it; ++other) {
      if (json::view(other->name) == name) policy_fail(json::join_path(path, name), "duplicate field");
    }
  }
}

const Value* member(const Value& v, std::string_view key) {
  const Value* m = json::find(v, key);
  return m && !m->IsNull() ? m : nullptr;
}

void read_string(const Value& v, std::string_view key, const std::string& path, std::string& out) {
  const Value* m = member(v, key);
  if (!m) return;
  const std::string p = json::join_path(path, key);
  if (!m->IsString()) policy_fail(p, type_error("a string", *m));
  if (m->GetStringLength() == 0) policy_fail(p, "must not be empty");
  out = std::string(json::view(*m));
}

void read_seconds(const Value& v, std::string_view key, const std::string& path, int64_t& out) {
  const Value* m = member(v, key);
  if (!m) return;
  const std::string p = json::join_path(path, key);
  if (!m->IsInt64()) policy_fail(p, type_error("an integer", *m));
  const int64_t s = m->GetInt64();
  if (s < 1 || s > kMaxSeconds)
    policy_fail(p, "must be in 1.." + std::to_string(kMaxSeconds) + ", got " + std::to_string(s));
  out = s;
}

PrometheusUsageConfig parse_prometheus(const Value& v, const std::string& path) {
  check_members(v, path, {"url", "cpuQuery", "memoryQuery", "nodeLabel"});
  PrometheusUsageConfig p;
  read_string(v, "url", path, p.url);
  if (p.url.empty()) policy_fail(json::join_path(path, "url"), "required");
  if (!p.url.starts_with("http://") && !p.url.starts_with("https://"))
    policy_fail(json::join_path(path, "url"), "must start with http:// or https://, got \"" + p.url + "\"");
  read_string(v, "cpuQuery", path, p.cpu_query);
  read_string(v, "memoryQuery", path, p.memory_query);
  read_string(v, "nodeLabel", path, p.node_label);
  return p;
}

UsageSourceKind parse_source(const Value& v, const std::string& path) {
  std::string name;
  read_string(v, "source", path, name);
  const std::string p = json::join_path(path, "source");
  if (name.empty()) policy_fail(p, "required (metricsAPI or prometheus)");
  for (const auto& [n, kind] : kSourceNames) {
    if (n == name) return kind;
  }
  policy_fail(p, "unknown value \"" + name + "\" (known: metricsAPI, prometheus)");
}

}  // namespace

std::string_view usage_source_name(UsageSourceKind kind) {
  for (const auto& [n, k] : kSourceNames) {
    if (k == kind) return n;
  }
  return kSourceNames[0].first;
}

UsageConfig parse_usage_config(const Value& v, const std::string& path) {
  check_members(
      v, path,
      {"source", "intervalSeconds", "staleAfterSeconds", "windowSeconds", "estimateFraction", "prometheus"});
  UsageConfig c;
  c.source = parse_source(v, path);
  read_seconds(v, "intervalSeconds", path, c.interval_seconds);
  read_seconds(v, "staleAfterSeconds", path, c.stale_after_seconds);
  read_seconds(v, "windowSeconds", path, c.window_seconds);
  if (const Value* f = member(v, "estimateFraction")) {
    const std::string p = json::join_path(path, "estimateFraction");
    if (!f->IsNumber()) policy_fail(p, type_error("a number", *f));
    c.estimate_fraction = f->GetDouble();
    if (!(c.estimate_fraction >= 0 && c.estimate_fraction <= 1)) policy_fail(p, "must be in 0..1");
  }
  if (c.stale_after_seconds < c.interval_seconds) {
    policy_fail(json::join_path(path, "staleAfterSeconds"), "must be at least intervalSeconds (" +
                                                                std::to_string(c.interval_seconds) +
                                                                "): every sample would be stale");
  }
  const Value* prometheus = member(v, "prometheus");
  if (c.source == UsageSourceKind::kPrometheus) {
    if (!prometheus)
      policy_fail(json::join_path(path, "prometheus"), "required with source prometheus (its url)");
    c.prometheus = parse_prometheus(*prometheus, json::join_path(path, "prometheus"));
  } else if (prometheus) {
    policy_fail(json::join_path(path, "prometheus"), "only with source prometheus");
  }
  return c;
}

rapidjson::Document usage_config_document(const UsageConfig& c) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  auto str = [&a](std::string_view s) {
    return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
  };
  d.AddMember("source", str(usage_source_name(c.source)), a);
  d.AddMember("intervalSeconds", Value(c.interval_seconds), a);
  d.AddMember("staleAfterSeconds", Value(c.stale_after_seconds), a);
  d.AddMember("windowSeconds", Value(c.window_seconds), a);
  d.AddMember("estimateFraction", Value(c.estimate_fraction), a);
  if (c.source == UsageSourceKind::kPrometheus) {
    Value p(rapidjson::kObjectType);
    p.AddMember("url", str(c.prometheus.url), a);
    p.AddMember("cpuQuery", str(c.prometheus.cpu_query), a);
    p.AddMember("memoryQuery", str(c.prometheus.memory_query), a);
    p.AddMember("nodeLabel", str(c.prometheus.node_label), a);
    d.AddMember("prometheus", p, a);
  }
  return d;
}

}  // namespace kext
