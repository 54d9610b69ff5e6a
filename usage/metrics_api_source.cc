#include "usage/metrics_api_source.h"

#include "common/rfc3339.h"
#include "json/json.h"
#include "kube/codec/quantity.h"

namespace kext::usage {

namespace {

// One usage quantity: cpu in millicores ("123456789n", "250m"), memory in bytes ("1024Ki").
bool read_quantity(const json::Value& usage, std::string_view key, bool milli, int64_t& out,
                   std::string& error) {
  const json::Value* v = json::find_non_null(usage, key);
  if (!v || !v->IsString()) {
    error = std::string("usage.") + std::string(key) + ": missing or not a string";
    return false;
  }
  std::string why;
  const std::optional<Quantity> q = parse_quantity(json::view(*v), &why);
  if (!q) {
    error = std::string("usage.") + std::string(key) + ": \"" + std::string(json::view(*v)) + "\": " + why;
    return false;
  }
  out = milli ? q->milli_value() : q->value();
  return true;
}

// One NodeMetrics item; `error` says what is wrong with it.
bool read_item(const json::Value& item, Sample& s, std::string& error) {
  const json::Value* meta = json::find_non_null(item, "metadata");
  const json::Value* name = meta ? json::find_non_null(*meta, "name") : nullptr;
  if (!name || !name->IsString()) {
    error = "metadata.name: missing";
    return false;
  }
  s.node = std::string(json::view(*name));
  const json::Value* ts = json::find_non_null(item, "timestamp");
  const std::optional<int64_t> secs = ts && ts->IsString() ? parse_rfc3339(json::view(*ts)) : std::nullopt;
  if (!secs) {
    error = "timestamp: missing or not an RFC 3339 time";
    return false;
  }
  s.unix_ms = *secs * 1000;
  const json::Value* usage = json::find_non_null(item, "usage");
  if (!usage || !usage->IsObject()) {
    error = "usage: missing";
    return false;
  }
  return read_quantity(*usage, "cpu", true, s.milli_cpu, error) &&
         read_quantity(*usage, "memory", false, s.memory, error);
}

}  // namespace

FetchResult parse_node_metrics_list(std::string_view body) {
  FetchResult out;
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    out.error = "NodeMetricsList: not a JSON object";
    return out;
  }
  const json::Value* items = json::find_non_null(doc, "items");
  if (!items) return out;  // no node measured yet
  if (!items->IsArray()) {
    out.error = "NodeMetricsList: items is not an array";
    return out;
  }
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    Sample s;
    std::string why;
    if (!read_item((*items)[i], s, why)) {
      out.samples.clear();
      out.error = "NodeMetricsList: items[" + std::to_string(i) + "]." + why;
      return out;
    }
    out.samples.push_back(std::move(s));
  }
  return out;
}

FetchResult MetricsApiSource::fetch() {
  const kube::ApiResponse r = api_.get(std::string(kNodeMetricsPath));
  if (!r.ok()) {
    FetchResult out;
    out.error = "GET " + std::string(kNodeMetricsPath) + ": " + r.describe();
    return out;
  }
  return parse_node_metrics_list(r.body);
}

}  // namespace kext::usage
