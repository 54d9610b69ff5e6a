#include "usage/prometheus_source.h"

#include <httplib.h>

#include <cmath>
#include <map>

#include "json/json.h"

namespace kext::usage {

namespace {

// [time, "value"]: Prometheus writes sample values as strings ("NaN", "+Inf" among them).
bool read_value(const json::Value& pair, double& value, int64_t& unix_ms) {
  if (!pair.IsArray() || pair.Size() != 2 || !pair[0].IsNumber() || !pair[1].IsString()) return false;
  const std::string text(json::view(pair[1]));
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(value)) return false;
  unix_ms = static_cast<int64_t>(std::llround(pair[0].GetDouble() * 1000.0));
  return true;
}

std::string prometheus_error(const json::Value& doc) {
  const json::Value* type = json::find_non_null(doc, "errorType");
  const json::Value* error = json::find_non_null(doc, "error");
  std::string out = "Prometheus: ";
  if (type && type->IsString()) out += std::string(json::view(*type)) + ": ";
  out += error && error->IsString() ? std::string(json::view(*error)) : std::string("status is not success");
  return out;
}

}  // namespace

std::string_view strip_port(std::string_view value) {
  if (value.starts_with('[')) {  // [IPv6]:port
    const size_t close = value.find(']');
    return close == std::string_view::npos ? value : value.substr(1, close - 1);
  }
  const size_t colon = value.rfind(':');
  // Several colons without brackets: an IPv6 address without a port.
  if (colon == std::string_view::npos || value.find(':') != colon) return value;
  return value.substr(0, colon);
}

VectorResult parse_query_response(std::string_view body, std::string_view node_label) {
  VectorResult out;
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    out.error = "Prometheus: the answer is not a JSON object";
    return out;
  }
  const json::Value* status = json::find_non_null(doc, "status");
  if (!status || !status->IsString() || json::view(*status) != "success") {
    out.error = prometheus_error(doc);
    return out;
  }
  const json::Value* data = json::find_non_null(doc, "data");
  const json::Value* type = data ? json::find_non_null(*data, "resultType") : nullptr;
  const json::Value* result = data ? json::find_non_null(*data, "result") : nullptr;
  if (!type || !type->IsString() || json::view(*type) != "vector" || !result || !result->IsArray()) {
    out.error = "Prometheus: the query's result is not an instant vector";
    return out;
  }
  for (const json::Value& series : result->GetArray()) {
    const json::Value* metric = json::find_non_null(series, "metric");
    const json::Value* label =
        metric && metric->IsObject() ? json::find_non_null(*metric, node_label) : nullptr;
    const json::Value* value = json::find_non_null(series, "value");
    VectorPoint p;
    if (!label || !label->IsString() || !value || !read_value(*value, p.value, p.unix_ms)) continue;
    p.label = std::string(json::view(*label));
    out.points.push_back(std::move(p));
  }
  return out;
}

FetchResult join_results(const VectorResult& cpu, const VectorResult& memory, const NodeResolver& resolve) {
  FetchResult out;
  if (!cpu.error.empty() || !memory.error.empty()) {
    out.error = !cpu.error.empty() ? "cpuQuery: " + cpu.error : "memoryQuery: " + memory.error;
    return out;
  }
  auto node_of = [&resolve](const std::string& label) {
    return resolve ? resolve(label) : std::string(strip_port(label));
  };
  std::map<std::string, const VectorPoint*> cores;
  for (const VectorPoint& p : cpu.points) {
    if (std::string node = node_of(p.label); !node.empty()) cores[node] = &p;
  }
  for (const VectorPoint& p : memory.points) {
    const std::string node = node_of(p.label);
    auto it = node.empty() ? cores.end() : cores.find(node);
    if (it == cores.end()) continue;
    out.samples.push_back(Sample{node, static_cast<int64_t>(std::llround(it->second->value * 1000.0)),
                                 static_cast<int64_t>(std::llround(p.value)),
                                 std::max(it->second->unix_ms, p.unix_ms)});
  }
  return out;
}

PrometheusSource::PrometheusSource(PrometheusUsageConfig config, NodeResolver resolve,
                                   std::chrono::milliseconds timeout)
    : config_(std::move(config)), resolve_(std::move(resolve)) {
  // "http://host:9090/prefix/": the client takes scheme://host:port, the queries go under /prefix.
  const size_t scheme = config_.url.find("://");
  const size_t slash = config_.url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  const std::string origin = slash == std::string::npos ? config_.url : config_.url.substr(0, slash);
  path_prefix_ = slash == std::string::npos ? std::string() : config_.url.substr(slash);
  while (!path_prefix_.empty() && path_prefix_.back() == '/') path_prefix_.pop_back();
  query_url_ = origin + path_prefix_ + "/api/v1/query";
  client_ = std::make_unique<httplib::Client>(origin);
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(timeout - secs);
  client_->set_connection_timeout(secs.count(), usecs.count());
  client_->set_read_timeout(secs.count(), usecs.count());
  client_->set_keep_alive(true);
}

PrometheusSource::~PrometheusSource() = default;

VectorResult PrometheusSource::query(const std::string& promql) {
  VectorResult out;
  const httplib::Params params{{"query", promql}};
  const httplib::Result r = client_->Get(path_prefix_ + "/api/v1/query", params, httplib::Headers{});
  if (!r) {
    out.error = "GET " + query_url_ + ": " + httplib::to_string(r.error());
    return out;
  }
  // Prometheus answers a bad query 400 and a failed one 422 or 503 with the same JSON error body.
  out = parse_query_response(r->body, config_.node_label);
  if (r->status != 200) {
    out.points.clear();
    out.error = "HTTP " + std::to_string(r->status) + (out.error.empty() ? "" : ": " + out.error);
  }
  return out;
}

FetchResult PrometheusSource::fetch() {
  const VectorResult cpu = query(config_.cpu_query);
  if (!cpu.error.empty()) return join_results(cpu, {}, resolve_);
  return join_results(cpu, query(config_.memory_query), resolve_);
}

}  // namespace kext::usage
