#include "kube/apiserver/api_server.h"

#include <httplib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>

#include "algorithms/namespaced_key.h"
#include "json/json.h"
#include "kube/client/cache_sinks.h"

namespace kext::kube {
namespace {

constexpr const char* kJson = "application/json";
constexpr uint64_t kDefaultWatchSeconds = 1800;
// Who RBAC's refusals name: the tests' client certificate's subject (tests/fixtures/certs/client.crt).
constexpr std::string_view kTestUser = "system:kube-scheduler";

// The extender's own table of what it lists and watches (kube/client/cache_sinks.h): the server
// answers every one of them, or the extender would never be ready.
// The resource metrics API (metrics.k8s.io, as metrics-server serves it): listed, never watched, by
// the extender's usage source (usage/metrics_api_source.h). Its objects are put as the others are.
struct MetricsResource {
  std::string_view name, path, kind;
};
constexpr std::string_view kMetricsApiVersion = "metrics.k8s.io/v1beta1";
constexpr std::array<MetricsResource, 2> kMetricsResources{{
    {"nodemetrics", "/apis/metrics.k8s.io/v1beta1/nodes", "NodeMetrics"},
    {"podmetrics", "/apis/metrics.k8s.io/v1beta1/pods", "PodMetrics"},
}};

const MetricsResource* find_metrics_resource(std::string_view resource) {
  for (const MetricsResource& m : kMetricsResources) {
    if (m.name == resource) return &m;
  }
  return nullptr;
}

std::string object_kind(std::string_view resource) {
  if (const MetricsResource* m = find_metrics_resource(resource)) return std::string(m->kind);
  const WatchedResource* r = find_watched_resource(resource);
  return r ? std::string(r->kind) : std::string();
}

std::string api_version(std::string_view resource) {
  if (find_metrics_resource(resource)) return std::string(kMetricsApiVersion);
  const WatchedResource* r = find_watched_resource(resource);
  return r ? std::string(r->api_version()) : std::string("v1");
}

// A metav1.Status as kube-apiserver answers a write or an error with.
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

void reply(httplib::Response& res, int code, std::string_view reason, const std::string& message) {
  res.status = code;
  res.set_content(status_body(code, reason, message), kJson);
}

std::string serialize(const json::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return {sb.GetString(), sb.GetSize()};
}

// A whole unsigned number, or nullopt.
std::optional<uint64_t> parse_number(const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// Whether `at` is inside the outermost object only (not in a nested one, not in a string).
bool at_top_level(const std::string& text, size_t at) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < at; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return depth == 1 && !in_string;
}

// with_resource_version through a parse: for an object that may already carry one, or is not compact.
std::string restamp(const std::string& object_json, uint64_t rv) {
  rapidjson::Document d;
  d.Parse(object_json.data(), object_json.size());
  const auto no_metadata = std::invalid_argument("ApiServer: object without metadata");
  if (!d.IsObject()) throw no_metadata;
  const auto found = d.FindMember("metadata");
  if (found == d.MemberEnd() || !found->value.IsObject()) throw no_metadata;
  json::Value* md = &found->value;
  auto& alloc = d.GetAllocator();
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", json::Value(std::to_string(rv).c_str(), alloc), alloc);
  for (auto& m : md->GetObject())
    if (json::view(m.name) != "resourceVersion") meta.AddMember(m.name, m.value, alloc);
  *md = std::move(meta);
  return serialize(d);
}

bool names_a_node(const std::string& pod_json) {
  rapidjson::Document pod;
  pod.Parse(pod_json.data(), pod_json.size());
  const json::Value* spec = pod.IsObject() ? json::find_non_null(pod, "spec") : nullptr;
  const json::Value* node = spec && spec->IsObject() ? json::find_non_null(*spec, "nodeName") : nullptr;
  return node != nullptr && node->IsString() && node->GetStringLength() != 0;
}

// The string at `key` of the object member `object` of `d`, or nullptr.
const json::Value* nested_string(const json::Value& d, const char* object, const char* key) {
  const json::Value* o = d.IsObject() ? json::find_non_null(d, object) : nullptr;
  const json::Value* v = o && o->IsObject() ? json::find_non_null(*o, key) : nullptr;
  return v && v->IsString() ? v : nullptr;
}

}  // namespace

std::string with_resource_version(const std::string& object_json, uint64_t rv) {
  constexpr std::string_view kMeta = "\"metadata\":{";
  const size_t at = object_json.find(kMeta);
  // The common case, an object written compactly without one: insert it as text.
  if (at == std::string::npos || object_json.find("\"resourceVersion\"") != std::string::npos ||
      !at_top_level(object_json, at)) {
    return restamp(object_json, rv);
  }
  const size_t insert = at + kMeta.size();
  const bool empty = insert < object_json.size() && object_json[insert] == '}';
  std::string out = object_json.substr(0, insert);
  out += "\"resourceVersion\":\"" + std::to_string(rv) + "\"";
  if (!empty) out += ",";
  out.append(object_json, insert);
  return out;
}

struct ApiServer::Stream {
  uint64_t id;
  std::string resource;
  uint64_t cursor;  // events after this resourceVersion are still to send
  uint64_t epoch;
  std::chrono::steady_clock::time_point deadline;
  bool bookmarks;  // allowWatchBookmarks
  std::chrono::steady_clock::time_point last_sent;
  uint64_t bookmarks_seen;
  bool gone = false;  // send a 410 ERROR event and end
};

ApiServer::ApiServer(Options options)
    : opts_(std::move(options)),
      rv_(opts_.first_resource_version),
      oldest_valid_rv_(rv_),
      git_version_(opts_.git_version) {
  configure();
  install_list_and_watch_routes();
  install_lease_routes();
  install_binding_route();
  install_version_route();
  install_access_routes();
  install_object_routes();
  listen();
}

ApiServer::~ApiServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  http_->stop();
  thread_.join();
}

void ApiServer::configure() {
  if (!opts_.cert_file.empty()) {
    http_ = std::make_unique<httplib::SSLServer>(
        opts_.cert_file.c_str(), opts_.key_file.c_str(),
        opts_.client_ca_file.empty() ? nullptr : opts_.client_ca_file.c_str());
  } else {
    http_ = std::make_unique<httplib::Server>();
  }
  if (!http_->is_valid()) throw std::runtime_error("the API server's TLS set-up failed: " + opts_.cert_file);
  const size_t threads = opts_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_tcp_nodelay(true);  // as Go servers do: no Nagle stalls on small writes
  http_->set_keep_alive_max_count(opts_.keep_alive_requests);
  http_->set_keep_alive_timeout(1);
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second server would
  // share a busy port instead of failing to listen.
  http_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    std::lock_guard lock(requests_mu_);
    requests_.emplace_back(req.method, req.path);
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

void ApiServer::listen() {
  const std::string& host = opts_.host;
  const int port = opts_.port;
  port_ = port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " for the Kubernetes API");
  }
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string ApiServer::url() const {
  return std::string(opts_.cert_file.empty() ? "http" : "https") + "://" + opts_.host + ":" +
         std::to_string(port_);
}

bool ApiServer::authorized(const httplib::Request& req, httplib::Response& res) const {
  if (opts_.token.empty() || req.get_header_value("Authorization") == "Bearer " + opts_.token) return true;
  reply(res, 401, "Unauthorized", "Unauthorized");
  return false;
}

// Whether a list or watch of `resource` is answered with an error: unauthorized, a failure injected,
// or a resource the client's role may not read.
bool ApiServer::refuse_list_or_watch(const std::string& resource, httplib::Response& res) {
  std::lock_guard lock(mu_);
  if (fail_count_ > 0) {
    --fail_count_;
    reply(res, fail_status_, "InternalError", "injected failure");
    return true;
  }
  if (forbidden_.contains(resource)) {
    reply(res, 403, "Forbidden", resource + " is forbidden");
    return true;
  }
  return false;
}

void ApiServer::install_list_and_watch_routes() {
  for (const WatchedResource& r : watched_resources()) {
    http_->Get(std::string(r.path), [this, resource = std::string(r.name)](const httplib::Request& req,
                                                                           httplib::Response& res) {
      if (!authorized(req, res) || refuse_list_or_watch(resource, res)) return;
      const std::string watch = req.get_param_value("watch");
      if (watch == "1" || watch == "true") return serve_watch(resource, req, res);
      std::chrono::milliseconds delay;
      {
        std::lock_guard lock(mu_);
        delay = list_delay_;
      }
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      const Reply list = serve_list(resource, req.get_param_value("limit"), req.get_param_value("continue"));
      res.status = list.status;
      res.set_content(list.body, kJson);
    });
  }
  for (const MetricsResource& m : kMetricsResources) {
    http_->Get(std::string(m.path), [this, resource = std::string(m.name)](const httplib::Request& req,
                                                                           httplib::Response& res) {
      if (!authorized(req, res) || refuse_list_or_watch(resource, res)) return;
      const Reply list = serve_list(resource, req.get_param_value("limit"), req.get_param_value("continue"));
      res.status = list.status;
      res.set_content(list.body, kJson);
    });
  }
}

// A page of the list: a first request takes a snapshot, a `continue` token ("snapshot:offset") reads on
// in it until a compaction or restart expires it (410, as etcd3/store.go GetList after compaction).
ApiServer::Reply ApiServer::serve_list(const std::string& resource, const std::string& limit_text,
                                       const std::string& cont) {
  const std::optional<uint64_t> limit_value =
      limit_text.empty() ? std::optional<uint64_t>(0) : parse_number(limit_text);
  if (!limit_value) return {400, status_body(400, "BadRequest", "limit: not a number")};
  std::lock_guard lock(mu_);
  ++lists_;
  uint64_t snap_id = 0;
  size_t offset = 0;
  if (!cont.empty()) {
    const size_t colon = cont.find(':');
    const std::optional<uint64_t> id = parse_number(cont.substr(0, colon));
    const std::optional<uint64_t> at =
        colon == std::string::npos ? std::nullopt : parse_number(cont.substr(colon + 1));
    if (!id || !at) return {400, status_body(400, "BadRequest", "continue: not a token this server gave")};
    auto it = snapshots_.find(*id);
    if (it == snapshots_.end() || it->second.rv < oldest_valid_rv_ || it->second.epoch != epoch_) {
      return {410,
              status_body(410, "Expired",
                          "The provided continue parameter is too old to display a consistent list result.")};
    }
    snap_id = *id;
    offset = *at;
  } else {
    snap_id = next_snapshot_++;
    ListSnapshot s{rv_, epoch_, {}};
    if (auto objs = objects_.find(resource); objs != objects_.end())
      for (const auto& [_, o] : objs->second) s.items.push_back(o.served);
    snapshots_.emplace(snap_id, std::move(s));
  }
  const ListSnapshot& snap = snapshots_.at(snap_id);
  const size_t limit = *limit_value == 0 ? snap.items.size() : *limit_value;
  const size_t end = std::min(snap.items.size(), offset + std::min<size_t>(limit, snap.items.size()));
  std::string out = "{\"kind\":\"" + object_kind(resource) + "List\",\"apiVersion\":\"" +
                    api_version(resource) + "\",\"metadata\":{\"resourceVersion\":\"" +
                    std::to_string(snap.rv) + "\"";
  if (end < snap.items.size())
    out += ",\"continue\":\"" + std::to_string(snap_id) + ":" + std::to_string(end) + "\"";
  out += "},\"items\":[";
  for (size_t i = offset; i < end; ++i) {
    if (i > offset) out += ',';
    out += snap.items[i];
  }
  out += "]}";
  if (end >= snap.items.size()) snapshots_.erase(snap_id);
  return {200, std::move(out)};
}

void ApiServer::serve_watch(const std::string& resource, const httplib::Request& req,
                            httplib::Response& res) {
  const std::string rv = req.get_param_value("resourceVersion");
  const std::optional<uint64_t> from = rv.empty() ? std::optional<uint64_t>(0) : parse_number(rv);
  if (!from) return reply(res, 400, "BadRequest", "resourceVersion: not a number");
  // None (or not a number): kube-apiserver's --min-request-timeout default, the shortest watch it serves
  // without one (k8s.io/apiserver/pkg/endpoints/handlers/get.go ListResource).
  const std::optional<uint64_t> timeout = parse_number(req.get_param_value("timeoutSeconds"));
  const std::string bookmarks = req.get_param_value("allowWatchBookmarks");
  const auto now = std::chrono::steady_clock::now();
  auto st = std::make_shared<Stream>();
  st->resource = resource;
  st->deadline = now + std::chrono::seconds(timeout.value_or(kDefaultWatchSeconds));
  st->bookmarks = bookmarks == "true" || bookmarks == "1";
  st->last_sent = now;
  {
    std::lock_guard lock(mu_);
    ++watches_;
    ++watches_by_resource_[resource];
    st->id = next_stream_++;
    st->epoch = epoch_;
    st->bookmarks_seen = bookmark_gen_;
    // None: only changes from now ("most recent"). "0": from the oldest change kept ("any").
    st->cursor = rv.empty() ? rv_ : *from == 0 ? oldest_valid_rv_ : *from;
    st->gone = expire_next_watch_ || st->cursor < oldest_valid_rv_;
    expire_next_watch_ = false;
    if (st->gone && gone_as_http_) return reply(res, 410, "Expired", "too old resource version: " + rv);
  }
  res.set_chunked_content_provider(kJson,
                                   [this, st](size_t, httplib::DataSink& sink) { return pump(*st, sink); });
}

// The events of the stream's resource after its cursor (only the first one when it is to be cut), the
// cursor moved past every event read.
std::string ApiServer::next_events(Stream& st, bool cut) {
  std::string out;
  // History is in resourceVersion order: skip to the first event after the cursor.
  auto it = std::upper_bound(history_.begin(), history_.end(), st.cursor,
                             [](uint64_t rv, const Event& e) { return rv < e.rv; });
  for (; it != history_.end(); ++it) {
    st.cursor = it->rv;
    if (it->resource != st.resource) continue;
    out += it->line;
    if (cut) break;
  }
  return out;
}

bool ApiServer::pump(Stream& st, httplib::DataSink& sink) {
  std::unique_lock lock(mu_);
  for (;; cv_.wait_for(lock, std::chrono::milliseconds(50))) {
    if (stopping_ || st.epoch != epoch_) return false;  // a restart breaks every connection
    if (st.id <= hang_upto_) continue;
    if (st.id <= expire_upto_) st.gone = true;
    if (st.id <= fail_upto_) {
      const std::string error = fail_stream_event_;
      lock.unlock();
      sink.write(error.data(), error.size());
      sink.done();
      return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (st.gone || now >= st.deadline) {
      const std::string error =
          st.gone
              ? "{\"type\":\"ERROR\",\"object\":" +
                    status_body(410, "Expired", "too old resource version: " + std::to_string(st.cursor)) +
                    "}\n"
              : std::string();
      lock.unlock();
      if (!error.empty()) sink.write(error.data(), error.size());
      sink.done();
      return true;
    }
    const bool cut = st.id <= drop_upto_;
    std::string out = next_events(st, cut);
    if (cut && !out.empty()) {
      lock.unlock();
      sink.write(out.data(), out.size() / 2);
      return false;  // abort the connection mid-event
    }
    // kube-apiserver's watch cache sends a BOOKMARK about once a minute to a watch that allows them
    // (k8s.io/apiserver/pkg/storage/cacher/cacher.go, bookmarkFrequency). Without one, a kind that
    // never changes (namespaces, services, ...) would hit the client's idle timeout and reopen its
    // watch, leaving a worker here in the abandoned one until its deadline: a write is how a closed
    // connection shows.
    const bool forced = st.bookmarks_seen != bookmark_gen_;
    if (out.empty() && (forced || (st.bookmarks && now - st.last_sent >= opts_.bookmark_every))) {
      st.bookmarks_seen = bookmark_gen_;
      st.cursor = std::max(st.cursor, rv_);
      out = R"({"type":"BOOKMARK","object":{"kind":")" + object_kind(st.resource) + R"(","apiVersion":")" +
            api_version(st.resource) + R"(","metadata":{"resourceVersion":")" + std::to_string(st.cursor) +
            "\"}}}\n";
    }
    if (!out.empty()) {
      st.last_sent = now;
      lock.unlock();
      return sink.write(out.data(), out.size());
    }
  }
}

void ApiServer::record(std::string_view resource, const char* type, const std::string& served) {
  history_.push_back(
      {std::string(resource), std::string("{\"type\":\"") + type + "\",\"object\":" + served + "}\n", rv_});
  cv_.notify_all();
}

bool ApiServer::put(std::string_view resource, const std::string& key, const std::string& object_json,
                    bool* refused) {
  std::lock_guard lock(mu_);
  // A Binding's spec.nodeName stays: the simulation may write a pod it read unbound just before the
  // Binding.
  if (opts_.keep_bound_node_name && resource == kPods && bound_.contains(key) && !names_a_node(object_json)) {
    if (refused != nullptr) *refused = true;
    return false;
  }
  auto& objs = objects_[std::string(resource)];
  auto it = objs.find(key);
  if (opts_.skip_unchanged_puts && it != objs.end() && it->second.given == object_json) return false;
  const char* type = it == objs.end() ? "ADDED" : "MODIFIED";
  std::string served = with_resource_version(object_json, rv_ + 1);
  ++rv_;
  objs[key] = Stored{object_json, served};
  record(resource, type, served);
  return true;
}

bool ApiServer::remove(std::string_view resource, const std::string& key) {
  std::lock_guard lock(mu_);
  auto objs = objects_.find(resource);
  if (objs == objects_.end()) return false;
  auto it = objs->second.find(key);
  if (it == objs->second.end()) return false;
  ++rv_;
  // The DELETED event carries the object's last state at the deletion's resourceVersion.
  std::string served = with_resource_version(it->second.given, rv_);
  objs->second.erase(it);
  if (resource == kPods) bound_.erase(key);
  record(resource, "DELETED", served);
  return true;
}

std::map<std::string, std::string> ApiServer::objects(std::string_view resource) const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  if (auto objs = objects_.find(resource); objs != objects_.end())
    for (const auto& [key, o] : objs->second) out.emplace(key, o.served);
  return out;
}

std::optional<std::string> ApiServer::object(std::string_view resource, const std::string& key) const {
  std::lock_guard lock(mu_);
  auto objs = objects_.find(resource);
  if (objs == objects_.end()) return std::nullopt;
  auto it = objs->second.find(key);
  if (it == objs->second.end()) return std::nullopt;
  return it->second.served;
}

bool ApiServer::update(std::string_view resource, const std::string& key,
                       const std::function<std::optional<std::string>(const std::string&)>& f) {
  std::lock_guard lock(mu_);
  auto objs = objects_.find(resource);
  if (objs == objects_.end()) return false;
  auto it = objs->second.find(key);
  if (it == objs->second.end()) return false;
  std::optional<std::string> next = f(it->second.served);
  if (!next) return true;
  rapidjson::Document d;
  d.Parse(next->data(), next->size());
  const json::Value* ns = nested_string(d, "metadata", "namespace");
  const json::Value* name = nested_string(d, "metadata", "name");
  const std::string next_key = ns ? namespaced_key(json::view(*ns), name ? json::view(*name) : "")
                                  : std::string(name ? json::view(*name) : "");
  if (next_key != key) throw std::invalid_argument("ApiServer::update: the object's name changed");
  std::string served = with_resource_version(*next, rv_ + 1);
  ++rv_;
  it->second = Stored{*next, served};
  record(resource, "MODIFIED", served);
  return true;
}

uint64_t ApiServer::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

void ApiServer::install_binding_route() {
  http_->Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)",
              [this](const httplib::Request& req, httplib::Response& res) {
                if (!authorized(req, res)) return;
                rapidjson::Document body;
                body.Parse(req.body.data(), req.body.size());
                const json::Value* node = nested_string(body, "target", "name");
                if (node == nullptr || node->GetStringLength() == 0)
                  return reply(res, 400, "BadRequest", "Binding: target.name is required");
                const Reply r = bind(req.matches[1].str(), req.matches[2].str(), node->GetString());
                res.status = r.status;
                res.set_content(r.body, kJson);
              });
}

ApiServer::Reply ApiServer::bind(const std::string& ns, const std::string& name, const std::string& node) {
  std::lock_guard lock(mu_);
  if (bind_fail_status_ != 0)
    return {bind_fail_status_, status_body(bind_fail_status_, "InternalError", bind_fail_message_)};
  const std::string key = namespaced_key(ns, name);
  auto& pods = objects_[std::string(kPods)];
  auto it = pods.find(key);
  if (it == pods.end()) return {404, status_body(404, "NotFound", "pods \"" + name + "\" not found")};
  rapidjson::Document pod;
  pod.Parse(it->second.given.data(), it->second.given.size());
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
  bindings_.emplace_back(key, node);
  if (bind_updates_pod_) {
    spec.RemoveMember("nodeName");
    spec.AddMember("nodeName", rapidjson::Value(node.c_str(), pod.GetAllocator()), pod.GetAllocator());
    ++rv_;
    it->second.given = serialize(pod);
    it->second.served = with_resource_version(it->second.given, rv_);
    record(kPods, "MODIFIED", it->second.served);
    bound_[key] = node;
  }
  return {201, status_body(201, "", "")};
}

std::vector<std::pair<std::string, std::string>> ApiServer::bindings() const {
  std::lock_guard lock(mu_);
  return bindings_;
}

std::vector<std::pair<std::string, std::string>> ApiServer::bindings_since(size_t from) const {
  std::lock_guard lock(mu_);
  if (from >= bindings_.size()) return {};
  return {bindings_.begin() + static_cast<std::ptrdiff_t>(from), bindings_.end()};
}

std::optional<std::string> ApiServer::bound_node(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = bound_.find(key);
  if (it == bound_.end()) return std::nullopt;
  return it->second;
}

// k8s.io/apimachinery pkg/version/types.go Info: major and minor as gitVersion's ("v1.36.3": "1", "36").
static std::string version_info(const std::string& git_version) {
  std::string_view v = git_version;
  if (v.starts_with('v')) v.remove_prefix(1);
  const size_t dot = v.find('.');
  const std::string_view major = v.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view() : v.substr(dot + 1);
  const std::string_view minor = rest.substr(0, rest.find_first_not_of("0123456789"));
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  json::write_member(w, "major", major);
  json::write_member(w, "minor", minor);
  json::write_member(w, "gitVersion", git_version);
  json::write_member(w, "gitTreeState", "clean");
  json::write_member(w, "compiler", "gc");
  json::write_member(w, "platform", "linux/amd64");
  w.EndObject();
  return {sb.GetString(), sb.GetSize()};
}

void ApiServer::install_version_route() {
  http_->Get("/version", [this](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    std::lock_guard lock(mu_);
    if (version_fail_status_ != 0)
      return reply(res, version_fail_status_, "InternalError", "injected /version failure");
    res.set_content(version_info(git_version_), kJson);
  });
}

// GET /api/v1/namespaces/NAME, and SelfSubjectAccessReviews: what --leader-elect checks at start-up
// (kube/client/lease_access.h).
void ApiServer::install_access_routes() {
  http_->Get(R"(/api/v1/namespaces/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const std::string name = req.matches[1].str();
    {
      std::lock_guard lock(mu_);
      if (forbidden_.contains("namespaces")) return reply(res, 403, "Forbidden", "namespaces is forbidden");
    }
    const std::optional<std::string> ns = object("namespaces", name);
    if (!ns) return reply(res, 404, "NotFound", "namespaces \"" + name + "\" not found");
    res.set_content(*ns, kJson);
  });
  http_->Post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
              [this](const httplib::Request& req, httplib::Response& res) {
                if (!authorized(req, res)) return;
                const Reply r = review_access(req.body);
                res.status = r.status;
                res.set_content(r.body, kJson);
              });
}

// The review with its status: allowed unless forbid_lease_verbs() or forbid() says otherwise (RBAC's
// denial carries no reason: k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/rbac.go Authorize).
ApiServer::Reply ApiServer::review_access(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  const json::Value* spec = d.IsObject() ? json::find_non_null(d, "spec") : nullptr;
  const json::Value* attrs =
      spec && spec->IsObject() ? json::find_non_null(*spec, "resourceAttributes") : nullptr;
  if (attrs == nullptr || !attrs->IsObject())
    return {400,
            status_body(400, "BadRequest", "SelfSubjectAccessReview: spec.resourceAttributes is required")};
  auto text = [&](const char* key) {
    const json::Value* v = json::find_non_null(*attrs, key);
    return v && v->IsString() ? std::string(json::view(*v)) : std::string();
  };
  const std::string verb = text("verb"), resource = text("resource"), group = text("group");
  bool allowed;
  {
    std::lock_guard lock(mu_);
    const bool lease = resource == "leases" && group == "coordination.k8s.io";
    const bool read = verb == "get" || verb == "list" || verb == "watch";
    allowed = !(lease && forbidden_lease_verbs_.contains(verb)) && !(read && forbidden_.contains(resource));
  }
  auto& alloc = d.GetAllocator();
  d.RemoveMember("status");
  json::Value status(rapidjson::kObjectType);
  status.AddMember("allowed", allowed, alloc);
  d.AddMember("status", status, alloc);
  return {201, serialize(d)};
}

void ApiServer::set_git_version(std::string git_version) {
  std::lock_guard lock(mu_);
  git_version_ = std::move(git_version);
}

void ApiServer::fail_version(int status) {
  std::lock_guard lock(mu_);
  version_fail_status_ = status;
}

// Leases as kube-apiserver keeps them: create refuses an existing name (409 AlreadyExists), update
// refuses a resourceVersion other than the current one (409 Conflict, optimistic concurrency).
void ApiServer::install_lease_routes() {
  const std::string leases = R"(/apis/coordination\.k8s\.io/v1/namespaces/([^/]+)/leases)";
  auto answer = [this](const httplib::Request& req, httplib::Response& res, const std::string& name) {
    if (!authorized(req, res)) return;
    const std::string verb = req.method == "GET" ? "get" : req.method == "POST" ? "create" : "update";
    const std::string ns = req.matches[1].str();
    const std::optional<Reply> refused = refuse_lease(verb, ns, name);
    const Reply r = refused               ? *refused
                    : req.method == "GET" ? read_lease(ns, name)
                                          : write_lease(ns, name, req.body);
    res.status = r.status;
    res.set_content(r.body, kJson);
  };
  http_->Get(leases + "/([^/]+)", [answer](const httplib::Request& req, httplib::Response& res) {
    answer(req, res, req.matches[2].str());
  });
  http_->Post(leases,
              [answer](const httplib::Request& req, httplib::Response& res) { answer(req, res, ""); });
  http_->Put(leases + "/([^/]+)", [answer](const httplib::Request& req, httplib::Response& res) {
    answer(req, res, req.matches[2].str());
  });
}

// As kube-apiserver refuses before the store: RBAC (k8s.io/apiserver/pkg/endpoints/handlers/
// responsewriters/errors.go forbiddenMessage), then NamespaceLifecycle admission for a create
// (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go: the namespace's NotFound).
std::optional<ApiServer::Reply> ApiServer::refuse_lease(const std::string& verb, const std::string& ns,
                                                        const std::string& name) {
  std::lock_guard lock(mu_);
  if (forbidden_lease_verbs_.contains(verb)) {
    const std::string message =
        "leases.coordination.k8s.io " + (name.empty() ? "" : "\"" + name + "\" ") + "is forbidden: User \"" +
        std::string(kTestUser) + "\" cannot " + verb +
        " resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"" + ns + "\"";
    return Reply{403, status_body(403, "Forbidden", message)};
  }
  if (verb == "create" && lease_namespace_required_) {
    auto namespaces = objects_.find("namespaces");
    if (namespaces == objects_.end() || !namespaces->second.contains(ns))
      return Reply{404, status_body(404, "NotFound", "namespaces \"" + ns + "\" not found")};
  }
  return std::nullopt;
}

ApiServer::Reply ApiServer::read_lease(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  if (lease_fail_status_ != 0)
    return {lease_fail_status_,
            status_body(lease_fail_status_, "ServiceUnavailable", "injected lease failure")};
  auto it = leases_.find(namespaced_key(ns, name));
  if (it == leases_.end())
    return {404, status_body(404, "NotFound", "leases.coordination.k8s.io \"" + name + "\" not found")};
  return {200, it->second};
}

// POST (name "") or PUT .../leases/NAME: the Lease stored, or a Status.
ApiServer::Reply ApiServer::write_lease(const std::string& ns, const std::string& name,
                                        const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  const json::Value* n = nested_string(d, "metadata", "name");
  if (n == nullptr || (!name.empty() && name != n->GetString()))
    return {400, status_body(400, "BadRequest", "Lease: metadata.name is required and must match the path")};
  const std::string lease_name = n->GetString();
  const std::string key = namespaced_key(ns, lease_name);
  std::lock_guard lock(mu_);
  if (lease_fail_status_ != 0)
    return {lease_fail_status_,
            status_body(lease_fail_status_, "ServiceUnavailable", "injected lease failure")};
  auto it = leases_.find(key);
  if (name.empty() && it != leases_.end())
    return {409, status_body(409, "AlreadyExists",
                             "leases.coordination.k8s.io \"" + lease_name + "\" already exists")};
  if (!name.empty()) {
    if (it == leases_.end())
      return {404, status_body(404, "NotFound", "leases.coordination.k8s.io \"" + name + "\" not found")};
    rapidjson::Document cur;
    cur.Parse(it->second.data(), it->second.size());
    const json::Value* sent = nested_string(d, "metadata", "resourceVersion");
    const json::Value* stored = nested_string(cur, "metadata", "resourceVersion");
    if (sent == nullptr || stored == nullptr || json::view(*sent) != json::view(*stored)) {
      return {409,
              status_body(409, "Conflict",
                          "Operation cannot be fulfilled on leases.coordination.k8s.io \"" + name +
                              "\": the object has been modified; please apply your changes to the latest "
                              "version and try again")};
    }
  }
  std::string stored = with_resource_version(body, rv_ + 1);
  ++rv_;
  leases_[key] = stored;
  return {name.empty() ? 201 : 200, std::move(stored)};
}

std::string ApiServer::lease(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = leases_.find(key);
  return it == leases_.end() ? std::string() : it->second;
}

void ApiServer::compact() {
  std::lock_guard lock(mu_);
  oldest_valid_rv_ = rv_;
  history_.clear();
}

void ApiServer::restart() {
  std::lock_guard lock(mu_);
  ++epoch_;
  rv_ += 100000;
  oldest_valid_rv_ = rv_;
  history_.clear();
  snapshots_.clear();
  for (auto& [_, objs] : objects_)
    for (auto& [key, o] : objs) o.served = with_resource_version(o.given, rv_);
  cv_.notify_all();
}

void ApiServer::drop_streams_mid_event() {
  std::lock_guard lock(mu_);
  drop_upto_ = next_stream_ - 1;
}

void ApiServer::expire_streams() {
  std::lock_guard lock(mu_);
  expire_upto_ = next_stream_ - 1;
  cv_.notify_all();
}

void ApiServer::hang_streams() {
  std::lock_guard lock(mu_);
  hang_upto_ = next_stream_ - 1;
}

void ApiServer::fail_requests(int count, int status) {
  std::lock_guard lock(mu_);
  fail_count_ = count;
  fail_status_ = status;
}

void ApiServer::forbid(const std::string& resource, bool forbidden) {
  std::lock_guard lock(mu_);
  if (forbidden)
    forbidden_.insert(resource);
  else
    forbidden_.erase(resource);
}

void ApiServer::set_list_delay(std::chrono::milliseconds d) {
  std::lock_guard lock(mu_);
  list_delay_ = d;
}

void ApiServer::set_gone_as_http_status(bool b) {
  std::lock_guard lock(mu_);
  gone_as_http_ = b;
}

void ApiServer::expire_next_watch() {
  std::lock_guard lock(mu_);
  expire_next_watch_ = true;
}

void ApiServer::bookmark() {
  std::lock_guard lock(mu_);
  ++bookmark_gen_;
  cv_.notify_all();
}

void ApiServer::fail_binds(int status, std::string message) {
  std::lock_guard lock(mu_);
  bind_fail_status_ = status;
  bind_fail_message_ = std::move(message);
}

void ApiServer::set_bind_updates_pod(bool b) {
  std::lock_guard lock(mu_);
  bind_updates_pod_ = b;
}

void ApiServer::fail_leases(int status) {
  std::lock_guard lock(mu_);
  lease_fail_status_ = status;
}

void ApiServer::require_lease_namespace(bool required) {
  std::lock_guard lock(mu_);
  lease_namespace_required_ = required;
}

void ApiServer::forbid_lease_verbs(std::set<std::string> verbs) {
  std::lock_guard lock(mu_);
  forbidden_lease_verbs_ = std::move(verbs);
}

void ApiServer::fail_streams(int code, std::string message) {
  std::lock_guard lock(mu_);
  fail_upto_ = next_stream_ - 1;
  fail_stream_event_ =
      "{\"type\":\"ERROR\",\"object\":" + status_body(code, "InternalError", message) + "}\n";
  cv_.notify_all();
}

std::vector<std::pair<std::string, std::string>> ApiServer::requests() const {
  std::lock_guard lock(requests_mu_);
  return requests_;
}

int ApiServer::lists_served() const {
  std::lock_guard lock(mu_);
  return lists_;
}

int ApiServer::watches_served() const {
  std::lock_guard lock(mu_);
  return watches_;
}

int ApiServer::watches_served(const std::string& resource) const {
  std::lock_guard lock(mu_);
  auto it = watches_by_resource_.find(resource);
  return it == watches_by_resource_.end() ? 0 : it->second;
}

}  // namespace kext::kube

namespace kext::kube {

namespace {

// RFC 7386 merge: objects merge member by member, null removes, anything else replaces.
void merge_patch(json::Value& target, const json::Value& patch, rapidjson::Document::AllocatorType& a) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, a);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (auto m = patch.MemberBegin(); m != patch.MemberEnd(); ++m) {
    auto at = target.FindMember(m->name);
    if (m->value.IsNull()) {
      if (at != target.MemberEnd()) target.RemoveMember(at);
    } else if (at != target.MemberEnd()) {
      merge_patch(at->value, m->value, a);
    } else {
      json::Value value;
      merge_patch(value, m->value, a);
      target.AddMember(json::Value(m->name, a), value, a);
    }
  }
}

}  // namespace

void ApiServer::fail_patches(int status, std::string resource) {
  std::lock_guard lock(mu_);
  patch_fail_status_ = status;
  patch_fail_resource_ = std::move(resource);
}

// A merge patch of a pod or node, as kube-apiserver applies application/merge-patch+json: a
// metadata.resourceVersion in the patch is a precondition (409 when the object moved on).
ApiServer::Reply ApiServer::patch_object(std::string_view resource, const std::string& key,
                                         const std::string& body) {
  rapidjson::Document patch;
  patch.Parse(body.data(), body.size());
  if (patch.HasParseError() || !patch.IsObject())
    return {400, status_body(400, "BadRequest", "the patch is not a JSON object")};
  std::string want_rv;
  if (const json::Value* rv = nested_string(patch, "metadata", "resourceVersion")) {
    want_rv = json::view(*rv);
    patch["metadata"].RemoveMember("resourceVersion");
  }
  std::lock_guard lock(mu_);
  if (patch_fail_status_ != 0 && (patch_fail_resource_.empty() || patch_fail_resource_ == resource))
    return {patch_fail_status_, status_body(patch_fail_status_, "InternalError", "injected patch failure")};
  auto objs = objects_.find(resource);
  if (objs == objects_.end() || !objs->second.contains(key))
    return {404, status_body(404, "NotFound", std::string(resource) + " \"" + key + "\" not found")};
  auto it = objs->second.find(key);
  rapidjson::Document object;
  object.Parse(it->second.served.data(), it->second.served.size());
  const json::Value* rv = nested_string(object, "metadata", "resourceVersion");
  if (!want_rv.empty() && (!rv || json::view(*rv) != want_rv))
    return {409, status_body(409, "Conflict",
                             "Operation cannot be fulfilled on " + std::string(resource) + " \"" + key +
                                 "\": the object has been modified; please apply your changes to the latest "
                                 "version and try again")};
  merge_patch(object, patch, object.GetAllocator());
  if (object.HasMember("metadata") && object["metadata"].IsObject())
    object["metadata"].RemoveMember("resourceVersion");
  const std::string given = serialize(object);
  ++rv_;
  it->second = Stored{given, with_resource_version(given, rv_)};
  record(resource, "MODIFIED", it->second.served);
  return {200, it->second.served};
}

void ApiServer::install_object_routes() {
  struct Route {
    std::string_view resource;
    const char* pattern;
  };
  for (const Route& r : {Route{"nodes", R"(/api/v1/nodes/([^/]+))"},
                         Route{"pods", R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))"}}) {
    auto key_of = [resource = r.resource](const httplib::Request& req) {
      return resource == "pods" ? namespaced_key(req.matches[1].str(), req.matches[2].str())
                                : req.matches[1].str();
    };
    http_->Get(r.pattern, [this, r, key_of](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      const std::optional<std::string> o = object(r.resource, key_of(req));
      if (!o)
        return reply(res, 404, "NotFound", std::string(r.resource) + " \"" + key_of(req) + "\" not found");
      res.set_content(*o, kJson);
    });
    http_->Patch(r.pattern, [this, r, key_of](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      const Reply out = patch_object(r.resource, key_of(req), req.body);
      res.status = out.status;
      res.set_content(out.body, kJson);
    });
  }
}

}  // namespace kext::kube
