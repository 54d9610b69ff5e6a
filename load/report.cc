#include "load/report.h"

#include <cstdio>

#include "common/quantile.h"
#include "json/json.h"

namespace kext::load {

namespace {

constexpr double kQuantiles[] = {0.5, 0.9, 0.99, 0.999};
constexpr const char* kQuantileNames[] = {"p50", "p90", "p99", "p99.9"};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double us) { return fmt("%.3f", us / 1000.0); }

std::string bytes(uint64_t b) {
  if (b >= (1u << 20)) return fmt("%.1f MiB", static_cast<double>(b) / (1 << 20));
  if (b >= 1024) return fmt("%.1f KiB", static_cast<double>(b) / 1024);
  return std::to_string(b) + " B";
}

std::string pad(std::string s, size_t w, bool left = false) {
  if (s.size() >= w) return s;
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

double rps(uint64_t n, double s) { return s > 0 ? static_cast<double>(n) / s : 0; }

}  // namespace

std::string format_text(const ReplayResult& r, const ReplayOptions& o) {
  std::string out =
      "extender-load: " + std::to_string(r.requests) + " requests in " + fmt("%.2f", r.elapsed_s) + " s (" +
      fmt("%.1f", rps(r.requests, r.elapsed_s)) + " req/s), " + std::to_string(o.connections) +
      " connection(s), " +
      (o.rate > 0 ? "open loop at " + fmt("%g", o.rate) + " req/s" : std::string("closed loop")) + "\n";
  out += pad("verb", 12, true) + pad("requests", 10) + pad("req/s", 10);
  for (const char* q : kQuantileNames) out += pad(std::string(q) + " ms", 11);
  out += pad("max ms", 11) + pad("errors", 9) + "\n";
  for (const auto& [verb, v] : r.verbs) {
    out += pad(verb, 12, true) + pad(std::to_string(v.requests), 10) +
           pad(fmt("%.1f", rps(v.requests, r.elapsed_s)), 10);
    for (double q : kQuantiles) out += pad(ms(nearest_rank(v.latency_us, q)), 11);
    out +=
        pad(ms(v.latency_us.empty() ? 0 : v.latency_us.back()), 11) + pad(std::to_string(v.errors), 9) + "\n";
  }
  if (r.errors.total() == 0) {
    out += "errors: none\n";
  } else {
    out += "errors: connect " + std::to_string(r.errors.connect) + ", timeout " +
           std::to_string(r.errors.timeout) + ", transport " + std::to_string(r.errors.transport) +
           ", Error body " + std::to_string(r.errors.error_body);
    for (auto [status, n] : r.errors.http_status)
      out += ", HTTP " + std::to_string(status) + " " + std::to_string(n);
    out += "\n";
    for (const auto& e : r.first_errors) out += "  " + e + "\n";
  }
  for (size_t i = 0; i < o.expected_errors.size() && i < r.expected.size(); ++i) {
    out += "expected: " + o.expected_errors[i].verb + " \"" + o.expected_errors[i].text + "\" " +
           std::to_string(r.expected[i]) + "\n";
  }
  out += "bytes: sent " + bytes(r.bytes_sent) + ", received " + bytes(r.bytes_received) + " (bodies)\n";
  if (o.check) {
    out += "check: " + std::to_string(r.checked) + " compared, " + std::to_string(r.differences) +
           " different, " + std::to_string(r.unchecked) + " without a recorded reply\n";
    for (const auto& d : r.first_differences) out += "  " + d + "\n";
  }
  return out;
}

std::string format_json(const ReplayResult& r, const ReplayOptions& o) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "requests", r.requests);
  json::write_member(w, "elapsed_s", r.elapsed_s);
  json::write_member(w, "rps", rps(r.requests, r.elapsed_s));
  json::write_member(w, "connections", o.connections);
  json::write_member(w, "rate", o.rate);
  json::write_member(w, "bytes_sent", r.bytes_sent);
  json::write_member(w, "bytes_received", r.bytes_received);
  w.Key("verbs");
  w.StartObject();
  for (const auto& [verb, v] : r.verbs) {
    json::write_string(w, verb);
    w.StartObject();
    json::write_member(w, "requests", v.requests);
    json::write_member(w, "rps", rps(v.requests, r.elapsed_s));
    for (size_t i = 0; i < std::size(kQuantiles); ++i) {
      w.Key((std::string(kQuantileNames[i]) + "_us").c_str());
      w.Double(nearest_rank(v.latency_us, kQuantiles[i]));
    }
    json::write_member(w, "max_us", v.latency_us.empty() ? 0 : v.latency_us.back());
    json::write_member(w, "bytes_sent", v.bytes_sent);
    json::write_member(w, "bytes_received", v.bytes_received);
    json::write_member(w, "errors", v.errors);
    w.EndObject();
  }
  w.EndObject();
  w.Key("errors");
  w.StartObject();
  json::write_member(w, "total", r.errors.total());
  json::write_member(w, "connect", r.errors.connect);
  json::write_member(w, "timeout", r.errors.timeout);
  json::write_member(w, "transport", r.errors.transport);
  json::write_member(w, "error_body", r.errors.error_body);
  w.Key("http_status");
  w.StartObject();
  for (auto [status, n] : r.errors.http_status) {
    w.Key(std::to_string(status).c_str());
    w.Uint64(n);
  }
  w.EndObject();
  w.Key("first");
  w.StartArray();
  for (const auto& e : r.first_errors) json::write_string(w, e);
  w.EndArray();
  w.EndObject();
  w.Key("expected");
  w.StartArray();
  for (size_t i = 0; i < o.expected_errors.size() && i < r.expected.size(); ++i) {
    w.StartObject();
    w.Key("verb");
    json::write_string(w, o.expected_errors[i].verb);
    w.Key("text");
    json::write_string(w, o.expected_errors[i].text);
    json::write_member(w, "count", r.expected[i]);
    w.EndObject();
  }
  w.EndArray();
  if (o.check) {
    w.Key("check");
    w.StartObject();
    json::write_member(w, "compared", r.checked);
    json::write_member(w, "differences", r.differences);
    json::write_member(w, "unchecked", r.unchecked);
    w.Key("first_differences");
    w.StartArray();
    for (const auto& d : r.first_differences) json::write_string(w, d);
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace kext::load
