#include "tools/sim/api_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace kext::simtool {
namespace {

constexpr const char* kJson = "application/json";

std::string list_kind(std::string_view resource) {
  if (resource == SimApiServer::kNodes) return "NodeList";
  if (resource == SimApiServer::kPods) return "PodList";
  return "PodDisruptionBudgetList";
}

std::string api_version(std::string_view resource) {
  return resource == SimApiServer::kPdbs ? "policy/v1" : "v1";
}

}  // namespace

std::string with_resource_version(const std::string& object_json, uint64_t rv) {
  constexpr std::string_view kMeta = "\"metadata\":{";
  const size_t at = object_json.find(kMeta);
  if (at == std::string::npos) throw std::invalid_argument("SimApiServer: object without metadata");
  const size_t insert = at + kMeta.size();
  const bool empty = insert < object_json.size() && object_json[insert] == '}';
  std::string out = object_json.substr(0, insert);
  out += "\"resourceVersion\":\"" + std::to_string(rv) + "\"";
  if (!empty) out += ",";
  out.append(object_json, insert);
  return out;
}

SimApiServer::SimApiServer(const std::string& host, int port)
    : http_(std::make_unique<httplib::Server>()), host_(host) {
  // Three watches stay open, plus lists, check_api_access and reconnections.
  http_->new_task_queue = [] { return new httplib::ThreadPool(8); };
  http_->set_tcp_nodelay(true);
  // One request per connection: a worker waiting on an idle keep-alive connection would hold up the
  // end of the run (stop() waits for it) by the keep-alive timeout; the extender's lists are rare and
  // each watch is one request anyway.
  http_->set_keep_alive_max_count(1);
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second simulation would
  // share a busy port instead of failing to listen.
  http_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  for (std::string_view r : {kNodes, kPods, kPdbs}) {
    const std::string resource(r);
    const std::string path = r == kPdbs ? "/apis/policy/v1/poddisruptionbudgets" : "/api/v1/" + resource;
    http_->Get(path, [this, resource](const httplib::Request& req, httplib::Response& res) {
      const std::string watch = req.get_param_value("watch");
      if (watch != "1" && watch != "true") {
        res.set_content(list_body(resource), kJson);
        return;
      }
      uint64_t cursor = 0;
      const std::string rv = req.get_param_value("resourceVersion");
      if (!rv.empty()) {
        try {
          cursor = std::stoull(rv);
        } catch (const std::exception&) {
          res.status = 400;
          res.set_content(
              R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400,)"
              R"("message":"resourceVersion: not a number"})",
              kJson);
          return;
        }
      } else {
        cursor = resource_version();  // "most recent": only changes from now
      }
      int timeout = 1800;
      if (req.has_param("timeoutSeconds")) {
        try {
          timeout = std::stoi(req.get_param_value("timeoutSeconds"));
        } catch (const std::exception&) {
        }
      }
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
      auto state = std::make_shared<uint64_t>(cursor);
      res.set_chunked_content_provider(kJson,
                                       [this, resource, state, deadline](size_t, httplib::DataSink& sink) {
                                         return pump(resource, *state, deadline, sink);
                                       });
    });
  }
  port_ = port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " for the simulated API");
  }
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

SimApiServer::~SimApiServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  http_->stop();
  thread_.join();
}

std::string SimApiServer::url() const { return "http://" + host_ + ":" + std::to_string(port_); }

uint64_t SimApiServer::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

void SimApiServer::record(const std::string& resource, const char* type, const std::string& object_json) {
  history_.push_back(
      {resource, std::string("{\"type\":\"") + type + "\",\"object\":" + object_json + "}\n", rv_});
  cv_.notify_all();
}

bool SimApiServer::put(std::string_view resource, const std::string& key, const std::string& object_json) {
  std::lock_guard lock(mu_);
  auto& given = given_[std::string(resource)];
  auto it = given.find(key);
  if (it != given.end() && it->second == object_json) return false;
  const char* type = it == given.end() ? "ADDED" : "MODIFIED";
  ++rv_;
  std::string served = with_resource_version(object_json, rv_);
  given[key] = object_json;
  served_[std::string(resource)][key] = served;
  record(std::string(resource), type, served);
  return true;
}

bool SimApiServer::remove(std::string_view resource, const std::string& key) {
  std::lock_guard lock(mu_);
  auto& given = given_[std::string(resource)];
  auto it = given.find(key);
  if (it == given.end()) return false;
  ++rv_;
  // The DELETED event carries the object's last state at the deletion's resourceVersion.
  std::string served = with_resource_version(it->second, rv_);
  given.erase(it);
  served_[std::string(resource)].erase(key);
  record(std::string(resource), "DELETED", served);
  return true;
}

std::string SimApiServer::list_body(const std::string& resource) {
  std::lock_guard lock(mu_);
  std::string out = "{\"kind\":\"" + list_kind(resource) + "\",\"apiVersion\":\"" + api_version(resource) +
                    "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv_) + "\"},\"items\":[";
  bool first = true;
  for (const auto& [key, json] : served_[resource]) {
    if (!first) out += ',';
    first = false;
    out += json;
  }
  return out + "]}";
}

bool SimApiServer::pump(const std::string& resource, uint64_t& cursor,
                        std::chrono::steady_clock::time_point deadline, httplib::DataSink& sink) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      lock.unlock();
      sink.done();
      return true;
    }
    std::string out;
    // History is in resourceVersion order: skip to the first event after the cursor.
    auto it = std::upper_bound(history_.begin(), history_.end(), cursor,
                               [](uint64_t rv, const Event& e) { return rv < e.rv; });
    for (; it != history_.end(); ++it) {
      if (it->resource == resource) out += it->line;
      cursor = it->rv;
    }
    if (!out.empty()) {
      lock.unlock();
      return sink.write(out.data(), out.size());
    }
    cv_.wait_for(lock, std::chrono::milliseconds(200));
  }
}

}  // namespace kext::simtool
