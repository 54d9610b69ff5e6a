#include "tests/support/fake_apiserver.h"

#include <httplib.h>

#include "common/read_file.h"
#include "kube/client/cache_sinks.h"
#include "json/json.h"

namespace kext::testing {

namespace {

const char* kJson = "application/json";

std::string certs(const std::string& file) { return std::string(KEXT_CERTS_DIR) + "/" + file; }

std::string status_json(int code, const std::string& reason, const std::string& message) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("kind"); w.String("Status");
  w.Key("apiVersion"); w.String("v1");
  w.Key("metadata"); w.StartObject(); w.EndObject();
  w.Key("status"); w.String(code < 300 ? "Success" : "Failure");
  w.Key("message"); w.String(message.c_str());
  w.Key("reason"); w.String(reason.c_str());
  w.Key("code"); w.Int(code);
  w.EndObject();
  return sb.GetString();
}

// The kind of the resource's objects, as the extender's table of watched resources gives it.
std::string object_kind(const std::string& resource) {
  const kube::WatchedResource* r = kube::find_watched_resource(resource);
  return r ? std::string(r->kind) : std::string();
}

std::string list_kind(const std::string& resource) { return object_kind(resource) + "List"; }

std::string object_key(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) throw std::invalid_argument("FakeApiServer: object is not JSON");
  auto md = d.FindMember("metadata");
  if (md == d.MemberEnd() || !md->value.IsObject()) throw std::invalid_argument("FakeApiServer: no metadata");
  auto name = md->value.FindMember("name");
  auto ns = md->value.FindMember("namespace");
  std::string key = name != md->value.MemberEnd() && name->value.IsString() ? name->value.GetString() : "";
  if (ns != md->value.MemberEnd() && ns->value.IsString()) key = std::string(ns->value.GetString()) + "/" + key;
  return key;
}

std::string base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::string text;
  read_whole_file(path, text);
  return text;
}

}  // namespace

struct FakeApiServer::Stream {
  uint64_t id;
  std::string resource;
  uint64_t cursor;  // events after this resourceVersion are still to send
  uint64_t epoch;
  std::chrono::steady_clock::time_point deadline;
  uint64_t bookmarks_seen;
  bool gone = false;  // send a 410 ERROR event and end
};

FakeApiServer::FakeApiServer() : FakeApiServer(Options{}) {}

FakeApiServer::FakeApiServer(Options o) : opts_(std::move(o)) {
  if (opts_.tls) {
    http_ = std::make_unique<httplib::SSLServer>(certs("server.crt").c_str(), certs("server.key").c_str(),
                                                 opts_.require_client_cert ? certs("ca.crt").c_str() : nullptr);
  } else {
    http_ = std::make_unique<httplib::Server>();
  }
  if (!http_->is_valid()) throw std::runtime_error("FakeApiServer: TLS set-up failed");
  const size_t threads = opts_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_keep_alive_timeout(1);
  http_->set_tcp_nodelay(true);  // as Go servers do: no Nagle stalls on small writes
  install_routes();
  port_ = http_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("FakeApiServer: cannot bind");
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  http_->stop();
  thread_.join();
}

std::string FakeApiServer::url() const {
  return std::string(opts_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

std::string FakeApiServer::kubeconfig(bool inline_data) const {
  std::string cluster_auth, user_auth;
  if (inline_data) {
    cluster_auth = "    certificate-authority-data: " + base64(slurp(certs("ca.crt"))) + "\n";
    if (opts_.require_client_cert) {
      user_auth = "    client-certificate-data: " + base64(slurp(certs("client.crt"))) + "\n" +
                  "    client-key-data: " + base64(slurp(certs("client.key"))) + "\n";
    }
  } else {
    cluster_auth = "    certificate-authority: " + certs("ca.crt") + "\n";
    if (opts_.require_client_cert) {
      user_auth = "    client-certificate: " + certs("client.crt") + "\n" + "    client-key: \"" + certs("client.key") + "\"\n";
    }
  }
  if (!opts_.token.empty()) user_auth += "    token: " + opts_.token + "\n";
  if (user_auth.empty()) user_auth = "    {}\n";
  return "apiVersion: v1\nkind: Config\n"
         "# written by FakeApiServer\n"
         "clusters:\n- cluster:\n" + cluster_auth + "    server: " + url() + "\n  name: fake\n"
         "contexts:\n- context:\n    cluster: fake\n    user: tester\n  name: fake\n"
         "- context:\n    cluster: elsewhere\n    user: tester\n  name: other\n"
         "current-context: fake\npreferences: {}\n"
         "users:\n- name: tester\n  user:\n" + user_auth;
}

std::string FakeApiServer::with_rv(const std::string& json, uint64_t rv) const {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  auto& md = d["metadata"];
  std::string rvs = std::to_string(rv);
  if (md.HasMember("resourceVersion")) md.RemoveMember("resourceVersion");
  md.AddMember("resourceVersion", rapidjson::Value(rvs.c_str(), d.GetAllocator()), d.GetAllocator());
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  d.Accept(w);
  return sb.GetString();
}

void FakeApiServer::record_locked(const std::string& resource, const char* type, const std::string& object_json,
                                  uint64_t rv) {
  history_.push_back({resource, std::string("{\"type\":\"") + type + "\",\"object\":" + object_json + "}\n", rv});
  cv_.notify_all();
}

void FakeApiServer::put(const std::string& resource, const std::string& json) {
  std::string key = object_key(json);
  std::lock_guard lock(mu_);
  uint64_t rv = ++rv_;
  std::string obj = with_rv(json, rv);
  auto& objs = objects_[resource];
  const char* type = objs.contains(key) ? "MODIFIED" : "ADDED";
  objs[key] = obj;
  record_locked(resource, type, obj, rv);
}

void FakeApiServer::remove(const std::string& resource, const std::string& key) {
  std::lock_guard lock(mu_);
  auto& objs = objects_[resource];
  auto it = objs.find(key);
  if (it == objs.end()) return;
  uint64_t rv = ++rv_;
  std::string obj = with_rv(it->second, rv);
  objs.erase(it);
  record_locked(resource, "DELETED", obj, rv);
}

std::map<std::string, std::string> FakeApiServer::objects(const std::string& resource) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(resource);
  return it == objects_.end() ? std::map<std::string, std::string>{} : it->second;
}

std::optional<std::string> FakeApiServer::object(const std::string& resource, const std::string& key) const {
  std::lock_guard lock(mu_);
  auto r = objects_.find(resource);
  if (r == objects_.end()) return std::nullopt;
  auto it = r->second.find(key);
  if (it == r->second.end()) return std::nullopt;
  return it->second;
}

bool FakeApiServer::update(const std::string& resource, const std::string& key,
                           const std::function<std::optional<std::string>(const std::string&)>& f) {
  std::lock_guard lock(mu_);
  auto& objs = objects_[resource];
  auto it = objs.find(key);
  if (it == objs.end()) return false;
  std::optional<std::string> next = f(it->second);
  if (!next) return true;
  if (object_key(*next) != key)
    throw std::invalid_argument("FakeApiServer::update: the object's name changed");
  uint64_t rv = ++rv_;
  it->second = with_rv(*next, rv);
  record_locked(resource, "MODIFIED", it->second, rv);
  return true;
}

uint64_t FakeApiServer::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

void FakeApiServer::compact() {
  std::lock_guard lock(mu_);
  oldest_valid_rv_ = rv_;
  history_.clear();
}

void FakeApiServer::restart() {
  std::lock_guard lock(mu_);
  ++epoch_;
  rv_ += 100000;
  oldest_valid_rv_ = rv_;
  history_.clear();
  snapshots_.clear();
  for (auto& [_, objs] : objects_)
    for (auto& [key, json] : objs) json = with_rv(json, rv_);
  cv_.notify_all();
}

void FakeApiServer::drop_streams_mid_event() {
  std::lock_guard lock(mu_);
  drop_upto_ = next_stream_ - 1;
}

void FakeApiServer::expire_streams() {
  std::lock_guard lock(mu_);
  expire_upto_ = next_stream_ - 1;
  cv_.notify_all();
}

void FakeApiServer::hang_streams() {
  std::lock_guard lock(mu_);
  hang_upto_ = next_stream_ - 1;
}

void FakeApiServer::fail_requests(int count, int status) {
  std::lock_guard lock(mu_);
  fail_count_ = count;
  fail_status_ = status;
}

void FakeApiServer::forbid(const std::string& resource, bool forbidden) {
  std::lock_guard lock(mu_);
  if (forbidden)
    forbidden_.insert(resource);
  else
    forbidden_.erase(resource);
}

void FakeApiServer::set_list_delay(std::chrono::milliseconds d) {
  std::lock_guard lock(mu_);
  list_delay_ = d;
}

void FakeApiServer::set_gone_as_http_status(bool b) {
  std::lock_guard lock(mu_);
  gone_as_http_ = b;
}

void FakeApiServer::expire_next_watch() {
  std::lock_guard lock(mu_);
  expire_next_watch_ = true;
}

void FakeApiServer::bookmark() {
  std::lock_guard lock(mu_);
  ++bookmark_gen_;
  cv_.notify_all();
}

int FakeApiServer::lists_served() const {
  std::lock_guard lock(mu_);
  return lists_;
}

int FakeApiServer::watches_served() const {
  std::lock_guard lock(mu_);
  return watches_;
}

int FakeApiServer::watches_served(const std::string& resource) const {
  std::lock_guard lock(mu_);
  auto it = watches_by_resource_.find(resource);
  return it == watches_by_resource_.end() ? 0 : it->second;
}

std::vector<FakeApiServer::Binding> FakeApiServer::bindings() const {
  std::lock_guard lock(mu_);
  return bindings_;
}

void FakeApiServer::fail_binds(int status, std::string message) {
  std::lock_guard lock(mu_);
  bind_fail_status_ = status;
  bind_fail_message_ = std::move(message);
}

void FakeApiServer::set_bind_updates_pod(bool b) {
  std::lock_guard lock(mu_);
  bind_updates_pod_ = b;
}

void FakeApiServer::serve_list(const std::string& resource, const std::string& limit_text, const std::string& cont,
                               std::string* body, int* status) {
  std::unique_lock lock(mu_);
  ++lists_;
  ListSnapshot* snap = nullptr;
  size_t offset = 0;
  uint64_t snap_id = 0;
  if (!cont.empty()) {
    auto colon = cont.find(':');
    snap_id = std::stoull(cont.substr(0, colon));
    offset = std::stoull(cont.substr(colon + 1));
    auto it = snapshots_.find(snap_id);
    if (it == snapshots_.end() || it->second.rv < oldest_valid_rv_ || it->second.epoch != epoch_) {
      *status = 410;
      *body = status_json(410, "Expired", "The provided continue parameter is too old to display a consistent list result.");
      return;
    }
    snap = &it->second;
  } else {
    snap_id = next_snapshot_++;
    ListSnapshot s{rv_, epoch_, {}};
    for (const auto& [_, json] : objects_[resource]) s.items.push_back(json);
    snap = &snapshots_.emplace(snap_id, std::move(s)).first->second;
  }
  size_t limit = limit_text.empty() ? SIZE_MAX : std::stoull(limit_text);
  if (limit == 0) limit = SIZE_MAX;
  size_t end = std::min(snap->items.size(), offset + std::min(limit, snap->items.size()));
  std::string items;
  for (size_t i = offset; i < end; ++i) {
    if (i > offset) items += ',';
    items += snap->items[i];
  }
  std::string next = end < snap->items.size() ? std::to_string(snap_id) + ":" + std::to_string(end) : "";
  *body = "{\"kind\":\"" + list_kind(resource) + "\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" +
          std::to_string(snap->rv) + "\"" + (next.empty() ? "" : ",\"continue\":\"" + next + "\"") + "},\"items\":[" +
          items + "]}";
  *status = 200;
  if (next.empty()) snapshots_.erase(snap_id);
}

bool FakeApiServer::pump(const std::shared_ptr<Stream>& st, httplib::DataSink& sink) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) return false;
    if (st->epoch != epoch_) return false;  // the server "restarted": connections break
    if (st->id <= hang_upto_) {
      cv_.wait_for(lock, std::chrono::milliseconds(50));
      continue;
    }
    if (st->id <= expire_upto_) st->gone = true;
    if (st->gone) {
      std::string ev = "{\"type\":\"ERROR\",\"object\":" +
                       status_json(410, "Expired", "too old resource version: " + std::to_string(st->cursor)) + "}\n";
      lock.unlock();
      sink.write(ev.data(), ev.size());
      sink.done();
      return true;
    }
    if (std::chrono::steady_clock::now() >= st->deadline) {
      lock.unlock();
      sink.done();
      return true;
    }
    std::string out;
    uint64_t cursor = st->cursor;
    for (const auto& e : history_) {
      if (e.rv > cursor && e.resource == st->resource) {
        out += e.text;
        cursor = e.rv;
        if (st->id <= drop_upto_) break;  // only one event to cut
      }
    }
    if (!out.empty()) {
      if (st->id <= drop_upto_) {
        std::string half = out.substr(0, out.size() / 2);
        lock.unlock();
        sink.write(half.data(), half.size());
        return false;  // abort the connection mid-event
      }
      st->cursor = cursor;
      lock.unlock();
      return sink.write(out.data(), out.size());
    }
    if (st->bookmarks_seen != bookmark_gen_) {
      st->bookmarks_seen = bookmark_gen_;
      std::string kind = object_kind(st->resource);
      std::string ev = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" + kind +
                       "\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv_) +
                       "\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n";
      st->cursor = std::max(st->cursor, rv_);
      lock.unlock();
      return sink.write(ev.data(), ev.size());
    }
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
}

std::string FakeApiServer::lease(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = leases_.find(key);
  return it == leases_.end() ? std::string() : it->second;
}

std::string FakeApiServer::lease_holder(const std::string& key) const {
  const std::string json = lease(key);
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("spec") || !d["spec"].IsObject()) return {};
  const auto& spec = d["spec"];
  return spec.HasMember("holderIdentity") && spec["holderIdentity"].IsString() ? spec["holderIdentity"].GetString()
                                                                               : "";
}

void FakeApiServer::fail_leases(int status) {
  std::lock_guard lock(mu_);
  lease_fail_status_ = status;
}

std::vector<std::pair<std::string, std::string>> FakeApiServer::requests() const {
  std::lock_guard lock(requests_mu_);
  return requests_;
}

void FakeApiServer::install_routes() {
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    std::lock_guard lock(requests_mu_);
    requests_.emplace_back(req.method, req.path);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  auto authorized = [this](const httplib::Request& req, httplib::Response& res) {
    if (opts_.token.empty()) return true;
    if (req.get_header_value("Authorization") == "Bearer " + opts_.token) return true;
    res.status = 401;
    res.set_content(status_json(401, "Unauthorized", "Unauthorized"), kJson);
    return false;
  };
  auto injected_failure = [this](httplib::Response& res) {
    std::lock_guard lock(mu_);
    if (fail_count_ <= 0) return false;
    --fail_count_;
    res.status = fail_status_;
    res.set_content(status_json(fail_status_, "InternalError", "injected failure"), kJson);
    return true;
  };

  auto list_or_watch = [this, authorized, injected_failure](const std::string& resource) {
    return [this, resource, authorized, injected_failure](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res) || injected_failure(res)) return;
      {
        std::lock_guard lock(mu_);
        if (forbidden_.contains(resource)) {
          res.status = 403;
          res.set_content(status_json(403, "Forbidden", resource + " is forbidden"), kJson);
          return;
        }
      }
      if (req.get_param_value("watch") != "1" && req.get_param_value("watch") != "true") {
        std::chrono::milliseconds delay;
        {
          std::lock_guard lock(mu_);
          delay = list_delay_;
        }
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        std::string body;
        int status = 200;
        serve_list(resource, req.get_param_value("limit"), req.get_param_value("continue"), &body, &status);
        res.status = status;
        res.set_content(body, kJson);
        return;
      }
      auto st = std::make_shared<Stream>();
      st->resource = resource;
      {
        std::lock_guard lock(mu_);
        ++watches_;
        ++watches_by_resource_[resource];
        st->id = next_stream_++;
        st->epoch = epoch_;
        st->bookmarks_seen = bookmark_gen_;
        std::string rv = req.get_param_value("resourceVersion");
        st->cursor = rv.empty() ? rv_ : std::stoull(rv);
        bool expired = expire_next_watch_ || st->cursor < oldest_valid_rv_;
        expire_next_watch_ = false;
        if (expired && gone_as_http_) {
          res.status = 410;
          res.set_content(status_json(410, "Expired", "too old resource version: " + rv), kJson);
          return;
        }
        st->gone = expired;
        int timeout = req.has_param("timeoutSeconds") ? std::stoi(req.get_param_value("timeoutSeconds")) : 1800;
        st->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
      }
      res.set_chunked_content_provider("application/json", [this, st](size_t, httplib::DataSink& sink) {
        return pump(st, sink);
      });
    };
  };
  for (const kube::WatchedResource& r : kube::watched_resources())
    http_->Get(std::string(r.path), list_or_watch(std::string(r.name)));

  // Leases as the API server keeps them: create refuses an existing name (409 AlreadyExists), update
  // refuses a resourceVersion other than the current one (409 Conflict, optimistic concurrency).
  auto lease_reply = [](httplib::Response& res, int code, const std::string& reason, const std::string& msg) {
    res.status = code;
    res.set_content(status_json(code, reason, msg), kJson);
  };
  auto lease_failed = [this, lease_reply](httplib::Response& res) {
    if (lease_fail_status_ == 0) return false;
    lease_reply(res, lease_fail_status_, "ServiceUnavailable", "injected lease failure");
    return true;
  };
  const std::string leases = R"(/apis/coordination\.k8s\.io/v1/namespaces/([^/]+)/leases)";
  http_->Get(leases + "/([^/]+)", [this, authorized, lease_reply, lease_failed](const httplib::Request& req,
                                                                              httplib::Response& res) {
    if (!authorized(req, res)) return;
    std::lock_guard lock(mu_);
    if (lease_failed(res)) return;
    auto it = leases_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
    if (it == leases_.end()) return lease_reply(res, 404, "NotFound", "leases \"" + std::string(req.matches[2]) + "\" not found");
    res.set_content(it->second, kJson);
  });
  auto lease_write = [this, authorized, lease_reply, lease_failed](bool create) {
    return [this, authorized, lease_reply, lease_failed, create](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      rapidjson::Document d;
      d.Parse(req.body.data(), req.body.size());
      if (d.HasParseError() || !d.IsObject() || !d.HasMember("metadata") || !d["metadata"].IsObject() ||
          !d["metadata"].HasMember("name") || !d["metadata"]["name"].IsString()) {
        return lease_reply(res, 400, "BadRequest", "not a Lease");
      }
      const std::string name = d["metadata"]["name"].GetString();
      if (!create && name != std::string(req.matches[2])) return lease_reply(res, 400, "BadRequest", "name mismatch");
      const std::string key = std::string(req.matches[1]) + "/" + name;
      std::lock_guard lock(mu_);
      if (lease_failed(res)) return;
      auto it = leases_.find(key);
      if (create && it != leases_.end()) {
        return lease_reply(res, 409, "AlreadyExists", "leases \"" + name + "\" already exists");
      }
      if (!create) {
        if (it == leases_.end()) return lease_reply(res, 404, "NotFound", "leases \"" + name + "\" not found");
        rapidjson::Document cur;
        cur.Parse(it->second.data(), it->second.size());
        const auto& md = d["metadata"];
        const std::string sent = md.HasMember("resourceVersion") && md["resourceVersion"].IsString()
                                     ? md["resourceVersion"].GetString()
                                     : "";
        if (sent != cur["metadata"]["resourceVersion"].GetString()) {
          return lease_reply(res, 409, "Conflict",
                             "Operation cannot be fulfilled on leases.coordination.k8s.io \"" + name +
                                 "\": the object has been modified; please apply your changes to the latest version "
                                 "and try again");
        }
      }
      const std::string stored = with_rv(req.body, ++lease_rv_);
      leases_[key] = stored;
      res.status = create ? 201 : 200;
      res.set_content(stored, kJson);
    };
  };
  http_->Post(leases, lease_write(true));
  http_->Put(leases + "/([^/]+)", lease_write(false));

  http_->Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)",
              [this, authorized](const httplib::Request& req, httplib::Response& res) {
                if (!authorized(req, res)) return;
                const std::string ns = req.matches[1], name = req.matches[2];
                rapidjson::Document d;
                d.Parse(req.body.data(), req.body.size());
                std::string node;
                if (!d.HasParseError() && d.IsObject() && d.HasMember("target") && d["target"].IsObject() &&
                    d["target"].HasMember("name") && d["target"]["name"].IsString()) {
                  node = d["target"]["name"].GetString();
                }
                std::lock_guard lock(mu_);
                auto reply = [&](int code, const std::string& reason, const std::string& msg) {
                  res.status = code;
                  res.set_content(status_json(code, reason, msg), kJson);
                };
                if (node.empty()) return reply(400, "BadRequest", "Binding has no target.name");
                if (bind_fail_status_ != 0) return reply(bind_fail_status_, "InternalError", bind_fail_message_);
                auto& pods = objects_["pods"];
                auto it = pods.find(ns + "/" + name);
                if (it == pods.end()) return reply(404, "NotFound", "pods \"" + name + "\" not found");
                rapidjson::Document pod;
                pod.Parse(it->second.data(), it->second.size());
                auto& spec = pod["spec"];
                if (spec.HasMember("nodeName") && spec["nodeName"].IsString() && spec["nodeName"].GetStringLength() > 0) {
                  return reply(409, "Conflict", "pod " + name + " is already assigned to node \"" +
                                                    spec["nodeName"].GetString() + "\"");
                }
                bindings_.push_back({ns, name, node});
                if (bind_updates_pod_) {
                  spec.RemoveMember("nodeName");
                  spec.AddMember("nodeName", rapidjson::Value(node.c_str(), pod.GetAllocator()), pod.GetAllocator());
                  rapidjson::StringBuffer sb;
                  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
                  pod.Accept(w);
                  uint64_t rv = ++rv_;
                  it->second = with_rv(sb.GetString(), rv);
                  record_locked("pods", "MODIFIED", it->second, rv);
                }
                reply(201, "", "");
              });
}

}  // namespace kext::testing
