#include "kube/apiserver/api_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kube/client/cache_sinks.h"
#include "json/json.h"

namespace kext::simtool {
namespace {

constexpr const char* kJson = "application/json";
constexpr std::chrono::seconds kBookmarkEvery{60};

// The extender's own table of what it lists and watches (kube/client/cache_sinks.h): the server
// answers every one of them, or the extender would never be ready.
std::string object_kind(std::string_view resource) {
  const kube::WatchedResource* r = kube::find_watched_resource(resource);
  return r ? std::string(r->kind) : std::string();
}

std::string list_kind(std::string_view resource) { return object_kind(resource) + "List"; }

std::string api_version(std::string_view resource) {
  const kube::WatchedResource* r = kube::find_watched_resource(resource);
  return r ? std::string(r->api_version()) : std::string("v1");
}

// A metav1.Status as kube-apiserver answers a write with.
std::string status_body(int code, std::string_view reason, const std::string& message) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  json::write_member(w, "kind", "Status");
  json::write_member(w, "apiVersion", "v1");
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  json::write_member(w, "status", code < 300 ? "Success" : "Failure");
  if (!message.empty()) json::write_member(w, "message", message);
  if (!reason.empty()) json::write_member(w, "reason", reason);
  json::write_member(w, "code", static_cast<int64_t>(code));
  w.EndObject();
  return {sb.GetString(), sb.GetSize()};
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
  // A watch per resource stays open (about ten an extender; two replicas run against one API), plus
  // lists, check_api_access, leases and reconnections.
  http_->new_task_queue = [] { return new httplib::ThreadPool(48); };
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
  for (const kube::WatchedResource& r : kube::watched_resources()) {
    const std::string resource(r.name);
    const std::string path(r.path);
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
      const auto now = std::chrono::steady_clock::now();
      const std::string bookmarks = req.get_param_value("allowWatchBookmarks");
      auto state = std::make_shared<Watch>(
          Watch{cursor, now + std::chrono::seconds(timeout), bookmarks == "true" || bookmarks == "1", now});
      res.set_chunked_content_provider(kJson, [this, resource, state](size_t, httplib::DataSink& sink) {
        return pump(resource, *state, sink);
      });
    });
  }
  // Leases, for replicas that elect the one that binds (--leader-elect), as kube-apiserver keeps them.
  const std::string leases = R"(/apis/coordination\.k8s\.io/v1/namespaces/([^/]+)/leases)";
  http_->Get(leases + "/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mu_);
    auto it = leases_.find(req.matches[1].str() + "/" + req.matches[2].str());
    if (it == leases_.end()) {
      res.status = 404;
      res.set_content(status_body(404, "NotFound", "leases \"" + req.matches[2].str() + "\" not found"),
                      kJson);
      return;
    }
    res.set_content(it->second, kJson);
  });
  http_->Post(leases, [this](const httplib::Request& req, httplib::Response& res) {
    auto [code, body] = write_lease(req.matches[1].str(), "", req.body);
    res.status = code;
    res.set_content(body, kJson);
  });
  http_->Put(leases + "/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) {
    auto [code, body] = write_lease(req.matches[1].str(), req.matches[2].str(), req.body);
    res.status = code;
    res.set_content(body, kJson);
  });
  http_->Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)", [this](const httplib::Request& req,
                                                                           httplib::Response& res) {
    const std::string key = req.matches[1].str() + "/" + req.matches[2].str();
    rapidjson::Document body;
    body.Parse(req.body.data(), req.body.size());
    const json::Value* target = body.IsObject() ? json::find_non_null(body, "target") : nullptr;
    const json::Value* node = target && target->IsObject() ? json::find_non_null(*target, "name") : nullptr;
    if (node == nullptr || !node->IsString() || node->GetStringLength() == 0) {
      res.status = 400;
      res.set_content(status_body(400, "BadRequest", "Binding: target.name is required"), kJson);
      return;
    }
    auto [code, status] = bind(key, node->GetString());
    res.status = code;
    res.set_content(status, kJson);
  });
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

namespace {
bool names_a_node(const std::string& pod_json) {
  rapidjson::Document pod;
  pod.Parse(pod_json.data(), pod_json.size());
  const json::Value* spec = pod.IsObject() ? json::find_non_null(pod, "spec") : nullptr;
  const json::Value* node = spec && spec->IsObject() ? json::find_non_null(*spec, "nodeName") : nullptr;
  return node != nullptr && node->IsString() && node->GetStringLength() != 0;
}
}  // namespace

bool SimApiServer::put(std::string_view resource, const std::string& key, const std::string& object_json,
                       bool* refused) {
  std::lock_guard lock(mu_);
  // A Binding's spec.nodeName stays (kube-apiserver: pkg/apis/core/validation ValidatePodSpecUpdate
  // forbids changing it): the simulation may write a pod it read unbound just before the Binding.
  if (resource == kPods && bound_.contains(key) && !names_a_node(object_json)) {
    if (refused != nullptr) *refused = true;
    return false;
  }
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
  if (resource == kPods) bound_.erase(key);
  record(std::string(resource), "DELETED", served);
  return true;
}

std::vector<std::pair<std::string, std::string>> SimApiServer::bindings() const {
  std::lock_guard lock(mu_);
  return bindings_;
}

std::pair<int, std::string> SimApiServer::write_lease(const std::string& ns, const std::string& name,
                                                      const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  const json::Value* md = d.IsObject() ? json::find_non_null(d, "metadata") : nullptr;
  const json::Value* n = md && md->IsObject() ? json::find_non_null(*md, "name") : nullptr;
  if (n == nullptr || !n->IsString() || (!name.empty() && name != n->GetString()))
    return {400, status_body(400, "BadRequest", "Lease: metadata.name is required and must match the path")};
  const std::string key = ns + "/" + n->GetString();
  std::lock_guard lock(mu_);
  auto it = leases_.find(key);
  if (name.empty() && it != leases_.end())
    return {409, status_body(409, "AlreadyExists",
                             "leases \"" + std::string(n->GetString()) + "\" already exists")};
  if (!name.empty()) {
    // Optimistic concurrency: an update names the resourceVersion it read.
    const json::Value* rv = json::find_non_null(*md, "resourceVersion");
    if (it == leases_.end()) return {404, status_body(404, "NotFound", "leases \"" + name + "\" not found")};
    rapidjson::Document cur;
    cur.Parse(it->second.data(), it->second.size());
    if (rv == nullptr || !rv->IsString() ||
        cur["metadata"]["resourceVersion"].GetString() != std::string(rv->GetString()))
      return {409, status_body(409, "Conflict",
                               "Operation cannot be fulfilled on leases.coordination.k8s.io \"" + name +
                                   "\": the object has been modified")};
  }
  ++rv_;
  json::Value& meta = d["metadata"];
  meta.RemoveMember("resourceVersion");
  meta.AddMember("resourceVersion", rapidjson::Value(std::to_string(rv_).c_str(), d.GetAllocator()),
                 d.GetAllocator());
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  d.Accept(w);
  leases_[key].assign(sb.GetString(), sb.GetSize());
  return {name.empty() ? 201 : 200, leases_[key]};
}

std::vector<std::pair<std::string, std::string>> SimApiServer::bindings_since(size_t from) const {
  std::lock_guard lock(mu_);
  if (from >= bindings_.size()) return {};
  return {bindings_.begin() + static_cast<std::ptrdiff_t>(from), bindings_.end()};
}

std::optional<std::string> SimApiServer::bound_node(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = bound_.find(key);
  if (it == bound_.end()) return std::nullopt;
  return it->second;
}

std::pair<int, std::string> SimApiServer::bind(const std::string& key, const std::string& node) {
  std::lock_guard lock(mu_);
  const std::string name = key.substr(key.find('/') + 1);
  auto& given = given_[std::string(kPods)];
  auto it = given.find(key);
  if (it == given.end()) return {404, status_body(404, "NotFound", "pods \"" + name + "\" not found")};
  rapidjson::Document pod;
  pod.Parse(it->second.data(), it->second.size());
  if (!pod.IsObject()) return {500, status_body(500, "InternalError", "pod " + key + " is not an object")};
  if (!pod.HasMember("spec") || !pod["spec"].IsObject())
    pod.AddMember("spec", rapidjson::Value(rapidjson::kObjectType), pod.GetAllocator());
  json::Value& spec = pod["spec"];
  if (auto at = spec.FindMember("nodeName");
      at != spec.MemberEnd() && at->value.IsString() && at->value.GetStringLength() != 0) {
    return {409, status_body(409, "Conflict",
                             "Operation cannot be fulfilled on pods/binding \"" + name + "\": pod " + name +
                                 " is already assigned to node \"" + at->value.GetString() + "\"")};
  }
  spec.RemoveMember("nodeName");
  spec.AddMember("nodeName", rapidjson::Value(node.c_str(), pod.GetAllocator()), pod.GetAllocator());
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  pod.Accept(w);
  ++rv_;
  it->second.assign(sb.GetString(), sb.GetSize());
  std::string served = with_resource_version(it->second, rv_);
  served_[std::string(kPods)][key] = served;
  record(std::string(kPods), "MODIFIED", served);
  bindings_.emplace_back(key, node);
  bound_[key] = node;
  return {201, status_body(201, "", "")};
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

bool SimApiServer::pump(const std::string& resource, Watch& w, httplib::DataSink& sink) {
  uint64_t& cursor = w.cursor;
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= w.deadline) {
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
    // kube-apiserver's watch cache sends a BOOKMARK about once a minute to a watch that allows them
    // (k8s.io/apiserver/pkg/storage/cacher/cacher.go, bookmarkFrequency). Without one, a kind the
    // simulation never changes (namespaces, services, ...) would hit the extender's idle timeout and
    // reopen its watch, leaving this server's worker in the abandoned one until its deadline: a write
    // is how a closed connection shows.
    if (out.empty() && w.bookmarks && now - w.last_sent >= kBookmarkEvery) {
      out = R"({"type":"BOOKMARK","object":{"kind":")" + object_kind(resource) + R"(","apiVersion":")" +
            api_version(resource) + R"(","metadata":{"resourceVersion":")" + std::to_string(cursor) +
            "\"}}}\n";
    }
    if (!out.empty()) {
      w.last_sent = now;
      lock.unlock();
      return sink.write(out.data(), out.size());
    }
    cv_.wait_for(lock, std::chrono::milliseconds(200));
  }
}

}  // namespace kext::simtool
