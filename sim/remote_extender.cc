#include "sim/remote_extender.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <optional>
#include <thread>
#include <unordered_set>

#include "algorithms/namespaced_key.h"
#include "common/url_path.h"
#include "json/json.h"
#include "kube/client/cache_sinks.h"
#include "kube/codec/k8s_decode.h"
#include "kube/state/state_cache.h"
#include "kube/state/state_dump.h"
#include "kubeobjects/model_json.h"

namespace kext::simtool {
namespace {

using namespace model_json;

void parse_reply(std::string_view body, rapidjson::Document& doc, const char* what) {
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) throw ExtenderError(std::string(what) + " reply is not JSON");
}

std::vector<std::string> split_reasons(std::string_view text) {
  std::vector<std::string> out;
  for (;;) {
    const size_t at = text.find(", ");
    out.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 2);
  }
}

// A timeout as the errors name it: "60.00 s".
std::string seconds_text(std::chrono::milliseconds d) {
  return std::to_string(d.count() / 1000.0).substr(0, 5) + " s";
}

// A TCP port written in decimal digits only (0..65535); nullopt otherwise.
std::optional<int> port_number(std::string_view text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  int v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);  // five digits at most: no overflow
  return v <= 65535 ? std::optional<int>(v) : std::nullopt;
}

// The first line where two state dumps differ, for an error an operator can act on:
// `simulated API "pod ...", extender "pod ..."` ("(none)" for a side past its end).
std::string first_difference(std::string_view want, std::string_view got) {
  auto next = [](std::string_view& text) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    return line;
  };
  while (!want.empty() || !got.empty()) {
    const std::string_view a = next(want), b = next(got);
    if (a == b) continue;
    auto quoted = [](std::string_view l) {
      return l.empty() ? std::string("(none)") : "\"" + std::string(l) + "\"";
    };
    return "first difference: simulated API " + quoted(a) + ", extender " + quoted(b);
  }
  return "no difference";
}

// Drops from the API, and from the decoded objects, each served object `seen` no longer has.
template <typename Served, typename Decoded>
bool drop_unseen(kube::ApiServer& api, std::string_view kind, Served& served, Decoded& decoded,
                 const std::unordered_set<std::string>& seen) {
  bool dropped = false;
  for (auto it = served.begin(); it != served.end();) {
    if (seen.contains(it->first)) {
      ++it;
      continue;
    }
    api.remove(kind, it->first);
    decoded.erase(it->first);
    it = served.erase(it);
    dropped = true;
  }
  return dropped;
}

}  // namespace

ExtenderUrl parse_extender_url(const std::string& url) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("--extender " + url + ": " + why + " (expected http://HOST:PORT[/PREFIX])");
  };
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) throw bad("no scheme");
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") throw bad("scheme must be http or https");
  const size_t host_begin = scheme_end + 3;
  const size_t path_begin = url.find('/', host_begin);
  const std::string host_port =
      url.substr(host_begin, path_begin == std::string::npos ? std::string::npos : path_begin - host_begin);
  if (host_port.empty() || host_port.front() == ':') throw bad("no host");
  if (url.find_first_of("?#") != std::string::npos)
    throw bad("a query or fragment would end up before the verb");
  if (const size_t colon = host_port.rfind(':'); colon != std::string::npos && host_port.back() != ']') {
    const std::string port = host_port.substr(colon + 1);
    if (const std::optional<int> v = port_number(port); !v || *v == 0) throw bad("bad port \"" + port + "\"");
  }
  ExtenderUrl out;
  out.origin = scheme + "://" + host_port;
  if (path_begin != std::string::npos) out.prefix = normalized_path_prefix(url.substr(path_begin));
  return out;
}

namespace {
std::string_view images_of(const NodeImagesJson* node_images, const std::string& node) {
  if (!node_images) return {};
  const auto it = node_images->find(node);
  return it == node_images->end() ? std::string_view{} : std::string_view(it->second);
}
}  // namespace

std::string extender_args_json(const Pod& pod, std::span<const NodeInfo* const> nodes,
                               bool node_cache_capable, const NodeImagesJson* node_images) {
  rapidjson::StringBuffer sb;
  JsonWriter w(sb);
  w.StartObject();
  w.Key("Pod");
  write_pod(w, pod);
  w.Key("Nodes");
  if (node_cache_capable) {
    w.Null();
  } else {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (const NodeInfo* n : nodes) write_node(w, *n->node, images_of(node_images, n->name()));
    w.EndArray();
    w.EndObject();
  }
  w.Key("NodeNames");
  if (node_cache_capable) {
    w.StartArray();
    for (const NodeInfo* n : nodes) json::write_string(w, n->name());
    w.EndArray();
  } else {
    w.Null();
  }
  w.EndObject();
  return {sb.GetString(), sb.GetSize()};
}

std::vector<FilterStatus> decode_filter_result(std::string_view body, std::span<const NodeInfo* const> nodes,
                                               bool node_cache_capable) {
  rapidjson::Document doc;
  parse_reply(body, doc, "filter");
  if (!doc.IsObject()) throw ExtenderError("filter reply is not an ExtenderFilterResult object");
  if (const json::Value* err = json::find_non_null(doc, "Error");
      err != nullptr && err->IsString() && err->GetStringLength() > 0) {
    throw ExtenderError("filter replied Error: " + std::string(json::view(*err)));
  }
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i]->name(), i);
  // A node the reply does not mention is filtered out (findNodesThatPassExtenders keeps only the
  // names it returns), with no reason to show.
  std::vector<FilterStatus> out(nodes.size(), FilterStatus::unschedulable({}));
  auto at = [&](std::string_view name) -> size_t {
    auto it = index.find(name);
    if (it == index.end()) {
      throw ExtenderError("filter reply names node \"" + std::string(name) +
                          "\", which the request did not have");
    }
    return it->second;
  };
  auto passed = [&](std::string_view name) { out[at(name)] = FilterStatus::success(); };
  if (node_cache_capable) {
    if (const json::Value* names = json::find_non_null(doc, "NodeNames")) {
      if (!names->IsArray()) throw ExtenderError("filter reply: NodeNames is not an array");
      for (const auto& n : names->GetArray()) {
        if (!n.IsString()) throw ExtenderError("filter reply: NodeNames has a non-string");
        passed(json::view(n));
      }
    }
  } else if (const json::Value* list = json::find_non_null(doc, "Nodes")) {
    const json::Value* items = list->IsObject() ? json::find_non_null(*list, "items") : nullptr;
    if (items != nullptr && !items->IsArray())
      throw ExtenderError("filter reply: Nodes.items is not an array");
    if (items != nullptr) {
      for (const auto& n : items->GetArray()) {
        const json::Value* md = n.IsObject() ? json::find_non_null(n, "metadata") : nullptr;
        const json::Value* name =
            md != nullptr && md->IsObject() ? json::find_non_null(*md, "name") : nullptr;
        if (name == nullptr || !name->IsString())
          throw ExtenderError("filter reply: a node without metadata.name");
        passed(json::view(*name));
      }
    }
  }
  auto failed = [&](const char* key, FilterCode code) {
    const json::Value* m = json::find_non_null(doc, key);
    if (m == nullptr) return;
    if (!m->IsObject()) throw ExtenderError(std::string("filter reply: ") + key + " is not an object");
    for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it) {
      if (!it->value.IsString())
        throw ExtenderError(std::string("filter reply: ") + key + " has a non-string");
      out[at(json::view(it->name))] = FilterStatus{code, split_reasons(json::view(it->value))};
    }
  };
  failed("FailedNodes", FilterCode::kUnschedulable);
  failed("FailedAndUnresolvableNodes", FilterCode::kUnresolvable);  // after: it wins
  return out;
}

std::vector<int64_t> decode_host_priorities(std::string_view body, std::span<const NodeInfo* const> nodes) {
  rapidjson::Document doc;
  parse_reply(body, doc, "prioritize");
  std::vector<int64_t> out(nodes.size(), 0);
  if (doc.IsNull()) return out;
  if (!doc.IsArray()) throw ExtenderError("prioritize reply is not a HostPriorityList array");
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i]->name(), i);
  for (const auto& hp : doc.GetArray()) {
    const json::Value* host = hp.IsObject() ? json::find_non_null(hp, "Host") : nullptr;
    const json::Value* score = hp.IsObject() ? json::find_non_null(hp, "Score") : nullptr;
    if (host == nullptr || !host->IsString() || (score != nullptr && !score->IsInt64())) {
      throw ExtenderError("prioritize reply: an entry without a string Host and an integer Score");
    }
    auto it = index.find(json::view(*host));
    if (it != index.end()) out[it->second] += score != nullptr ? score->GetInt64() : 0;
  }
  return out;
}

std::string preemption_args_json(const Pod& pod, const std::vector<preemption::Candidate>& candidates,
                                 const sim::SimCluster& cluster, bool node_cache_capable) {
  rapidjson::StringBuffer sb;
  JsonWriter w(sb);
  w.StartObject();
  w.Key("Pod");
  write_pod(w, pod);
  auto victims = [&](bool meta) {
    w.StartObject();
    for (const auto& c : candidates) {
      w.Key(c.node_name.c_str(), static_cast<rapidjson::SizeType>(c.node_name.size()));
      w.StartObject();
      w.Key("Pods");
      w.StartArray();
      for (const auto& v : c.victims) {
        if (meta) {
          w.StartObject();
          json::write_member(w, "UID", v->pod->uid);
          w.EndObject();
        } else if (auto p = cluster.pod(v->pod->uid)) {
          write_pod(w, *p);
        }
      }
      w.EndArray();
      json::write_member(w, "NumPDBViolations", c.num_pdb_violations);
      w.EndObject();
    }
    w.EndObject();
  };
  w.Key("NodeNameToVictims");
  if (node_cache_capable)
    w.Null();
  else
    victims(false);
  w.Key("NodeNameToMetaVictims");
  if (node_cache_capable)
    victims(true);
  else
    w.Null();
  w.EndObject();
  return {sb.GetString(), sb.GetSize()};
}

std::vector<preemption::Candidate> decode_preemption_result(std::string_view body,
                                                            const sim::SimCluster& cluster) {
  rapidjson::Document doc;
  parse_reply(body, doc, "preempt");
  if (!doc.IsObject()) throw ExtenderError("preempt reply is not an ExtenderPreemptionResult object");
  std::vector<preemption::Candidate> out;
  const json::Value* map = json::find_non_null(doc, "NodeNameToMetaVictims");
  if (map == nullptr) return out;
  if (!map->IsObject()) throw ExtenderError("preempt reply: NodeNameToMetaVictims is not an object");
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
    const std::string node(json::view(it->name));
    if (cluster.node(node) == nullptr)
      throw ExtenderError("preempt reply names node \"" + node + "\", which the cluster does not have");
    preemption::Candidate c;
    c.node_name = node;
    const json::Value* pods = it->value.IsObject() ? json::find_non_null(it->value, "Pods") : nullptr;
    if (pods != nullptr && !pods->IsArray())
      throw ExtenderError("preempt reply: " + node + ": Pods is not an array");
    if (pods != nullptr) {
      for (const auto& v : pods->GetArray()) {
        const json::Value* uid = v.IsObject() ? json::find_non_null(v, "UID") : nullptr;
        if (uid == nullptr || !uid->IsString())
          throw ExtenderError("preempt reply: " + node + ": a victim without a UID");
        auto info = cluster.pod_info(json::view(*uid));
        if (info == nullptr || info->pod->node_name != node) {
          throw ExtenderError("preempt reply claims to preempt pod (UID: " + std::string(json::view(*uid)) +
                              ") on node " + node + ", but the pod is not found on that node");
        }
        c.victims.push_back(std::move(info));
      }
    }
    if (c.victims.empty())
      throw ExtenderError("preempt reply: expected at least one victim pod on node \"" + node + "\"");
    if (const json::Value* n =
            it->value.IsObject() ? json::find_non_null(it->value, "NumPDBViolations") : nullptr) {
      if (!n->IsInt64())
        throw ExtenderError("preempt reply: " + node + ": NumPDBViolations is not an integer");
      c.num_pdb_violations = n->GetInt64();
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.node_name < b.node_name; });
  return out;
}

RemoteExtender::RemoteExtender(RemoteExtenderOptions options, kube::ApiServer& api)
    : options_(std::move(options)), url_(parse_extender_url(options_.url)), api_(api) {
  client_ = std::make_unique<httplib::Client>(url_.origin);
  if (options_.real_time) start_ = std::chrono::steady_clock::now();
  const auto secs = [](std::chrono::milliseconds d) {
    return std::pair<time_t, time_t>(d.count() / 1000, (d.count() % 1000) * 1000);
  };
  client_->set_connection_timeout(secs(options_.request_timeout).first,
                                  secs(options_.request_timeout).second);
  client_->set_read_timeout(secs(options_.request_timeout).first, secs(options_.request_timeout).second);
  client_->set_keep_alive(true);
  // Headers and body go out in two writes: with Nagle the body waits for the extender's delayed ACK
  // (Linux's delayed-ACK timer, per request), which made a run far slower (docs/performance.md
  // "Figures behind design choices in the code").
  client_->set_tcp_nodelay(true);
}

RemoteExtender::~RemoteExtender() {
  // A held bind is answered within the extender's hold bound, or the request timeout.
  for (auto& [uid, b] : binds_)
    if (b.thread.joinable()) b.thread.join();
}

std::string RemoteExtender::post(const std::string& verb, const std::string& body) {
  const std::string path = url_.prefix + "/" + verb;
  auto r = client_->Post(path, body, "application/json");
  if (!r) {
    throw ExtenderError("--extender " + options_.url + ": POST " + path + ": no reply (" +
                        httplib::to_string(r.error()) + ")");
  }
  if (r->status != 200) {
    throw ExtenderError("--extender " + options_.url + ": POST " + path + ": HTTP " +
                        std::to_string(r->status) + (r->body.empty() ? "" : ": " + r->body.substr(0, 500)));
  }
  return std::move(r->body);
}

std::vector<FilterStatus> RemoteExtender::filter(const sim::SimCluster& cluster, const Pod& pod,
                                                 std::span<const NodeInfo* const> nodes) {
  sync(cluster);
  const std::string reply =
      post("filter", extender_args_json(pod, nodes, options_.node_cache_capable, &options_.node_images));
  try {
    return decode_filter_result(reply, nodes, options_.node_cache_capable);
  } catch (const ExtenderError& e) {
    throw ExtenderError("--extender " + options_.url + ": " + e.what());
  }
}

std::vector<int64_t> RemoteExtender::score(const sim::SimCluster& cluster, const Pod& pod,
                                           std::span<const NodeInfo* const> nodes) {
  sync(cluster);
  const std::string reply =
      post("prioritize", extender_args_json(pod, nodes, options_.node_cache_capable, &options_.node_images));
  try {
    return decode_host_priorities(reply, nodes);
  } catch (const ExtenderError& e) {
    throw ExtenderError("--extender " + options_.url + ": " + e.what());
  }
}

std::vector<preemption::Candidate> RemoteExtender::preempt(const sim::SimCluster& cluster, const Pod& pod,
                                                           std::vector<preemption::Candidate> candidates) {
  if (options_.preempt_verb.empty()) return candidates;  // SupportsPreemption false
  sync(cluster);
  const std::string reply = post(options_.preempt_verb,
                                 preemption_args_json(pod, candidates, cluster, options_.node_cache_capable));
  try {
    std::vector<preemption::Candidate> kept = decode_preemption_result(reply, cluster);
    // Go ranges over the map in random order, which decides full ties; here the nodes keep the
    // request's order (the dry runs'), as the in-process run has them, so both runs pick alike.
    std::unordered_map<std::string, size_t> sent;
    for (size_t i = 0; i < candidates.size(); ++i) sent.emplace(candidates[i].node_name, i);
    std::stable_sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
      auto ia = sent.find(a.node_name), ib = sent.find(b.node_name);
      const size_t ka = ia == sent.end() ? sent.size() : ia->second,
                   kb = ib == sent.end() ? sent.size() : ib->second;
      return ka < kb;
    });
    return kept;
  } catch (const ExtenderError& e) {
    throw ExtenderError("--extender " + options_.url + ": " + e.what());
  }
}

std::optional<sim::BindReply> RemoteExtender::bind(const sim::SimCluster&, const Pod& pod,
                                                   const std::string& node) {
  if (options_.bind_verb.empty()) return std::nullopt;  // DefaultBinder
  // ExtenderBindingArgs (k8s.io/kube-scheduler/extender/v1 types.go), as HTTPExtender.Bind sends it.
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  json::write_member(w, "PodName", pod.name);
  json::write_member(w, "PodNamespace", pod.namespace_);
  json::write_member(w, "PodUID", pod.uid);
  json::write_member(w, "Node", node);
  w.EndObject();
  const std::string path = url_.prefix + "/" + options_.bind_verb;
  {
    std::lock_guard lock(binds_mu_);
    auto [at, fresh] = binds_.try_emplace(pod.uid);
    if (!fresh) {
      // The cycle binds a pod it popped, and a pod whose bind is in flight is assumed, not queued.
      throw ExtenderError("--extender " + options_.url + ": a second bind of pod " +
                          namespaced_key(pod.namespace_, pod.name) + " while its first is unanswered");
    }
    InFlight& b = at->second;
    b.sequence = next_bind_++;
    // Its own connection: the extender may hold this one while the next cycles run.
    b.thread = std::thread([this, uid = pod.uid, path, body = std::string(sb.GetString(), sb.GetSize())] {
      httplib::Client c(url_.origin);
      const auto t = options_.request_timeout;
      c.set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(t));
      c.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(t) + std::chrono::seconds(1));
      c.set_tcp_nodelay(true);
      auto r = c.Post(path, body, "application/json");
      std::string failure;
      std::string error;
      if (!r) {
        failure = "no reply (" + httplib::to_string(r.error()) + ")";
      } else if (r->status != 200) {
        failure =
            "HTTP " + std::to_string(r->status) + (r->body.empty() ? "" : ": " + r->body.substr(0, 500));
      } else {
        rapidjson::Document d;
        d.Parse(r->body.data(), r->body.size());
        const json::Value* e = d.IsObject() ? json::find_non_null(d, "Error") : nullptr;
        if (d.HasParseError() || !d.IsObject() || (e != nullptr && !e->IsString())) {
          failure = "the reply is not an ExtenderBindingResult";
        } else if (e != nullptr) {
          error = e->GetString();
        }
      }
      answer(uid, std::move(error), failure.empty() ? "" : "POST " + path + ": " + failure);
    });
  }
  if (options_.real_time) return sim::BindReply{sim::BindReply::Kind::kHeld, {}};  // answered later
  settle();
  std::lock_guard lock(binds_mu_);
  auto mine =
      std::find_if(settled_.begin(), settled_.end(), [&](const auto& a) { return a.second.uid == pod.uid; });
  if (mine == settled_.end()) return sim::BindReply{sim::BindReply::Kind::kHeld, {}};
  sim::BindReply reply{
      mine->second.error.empty() ? sim::BindReply::Kind::kBound : sim::BindReply::Kind::kFailed,
      std::move(mine->second.error)};
  settled_.erase(mine);
  return reply;
}

void RemoteExtender::answer(const std::string& uid, std::string error, std::string failure) {
  std::lock_guard lock(binds_mu_);
  auto it = binds_.find(uid);
  if (options_.real_time && !failure.empty()) {
    // kube-scheduler takes a failed call as it takes an Error (schedule_one.go: bind ->
    // handleBindingCycleError): the pod goes back to the queue.
    error = std::move(failure);
    failure.clear();
  }
  it->second.failure = std::move(failure);
  it->second.error = std::move(error);
  binds_cv_.notify_all();
}

sim::SimTime RemoteExtender::now() const {
  std::lock_guard lock(binds_mu_);
  if (!start_) return sim::SimTime{0};
  return std::chrono::duration_cast<sim::SimTime>(std::chrono::steady_clock::now() - *start_);
}

void RemoteExtender::wait_until(sim::SimTime t) {
  std::unique_lock lock(binds_mu_);
  auto answered = [this] {
    return std::any_of(binds_.begin(), binds_.end(),
                       [](const auto& b) { return b.second.error.has_value(); });
  };
  if (t == sim::kNever) {
    binds_cv_.wait(lock, answered);
    return;
  }
  binds_cv_.wait_until(lock, *start_ + t, answered);
}

void RemoteExtender::move_answered(std::vector<std::pair<uint64_t, sim::BindAnswer>>& to) {
  for (auto it = binds_.begin(); it != binds_.end();) {
    if (!it->second.error.has_value()) {
      ++it;
      continue;
    }
    it->second.thread.join();
    to.push_back({it->second.sequence, sim::BindAnswer{it->first, std::move(*it->second.error), ""}});
    it = binds_.erase(it);
  }
  std::sort(to.begin(), to.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::vector<sim::BindAnswer> RemoteExtender::take_answered() {
  std::vector<std::pair<uint64_t, sim::BindAnswer>> answered;
  {
    std::lock_guard lock(binds_mu_);
    move_answered(answered);
  }
  std::vector<sim::BindAnswer> out;
  for (auto& [sequence, a] : answered) out.push_back(std::move(a));
  return out;
}

void RemoteExtender::add_bound_elsewhere(std::vector<sim::BindAnswer>& answers) {
  // Every Binding the API took is reported once no bind of its pod is in flight: after `answers`, so
  // that a pod they bound is bound already (the simulation ignores a pod it has on a node), and one
  // whose call failed although the Binding was made (a forwarded bind whose replica gave up first, a
  // gang member bound as its group completed) is bound as the API has it.
  auto made = api_.bindings_since(bindings_seen_);
  bindings_seen_ += made.size();
  unreported_.insert(unreported_.end(), std::make_move_iterator(made.begin()),
                     std::make_move_iterator(made.end()));
  std::lock_guard lock(binds_mu_);
  std::erase_if(unreported_, [&](const std::pair<std::string, std::string>& b) {
    auto pod = pods_.find(b.first);
    if (pod == pods_.end()) return true;                 // not a pod the simulation served
    if (binds_.contains(pod->second.uid)) return false;  // its answer first
    answers.push_back(sim::BindAnswer{pod->second.uid, "", b.second});
    return true;
  });
}

int64_t RemoteExtender::held_binds() {
  auto r = client_->Get("/metrics");
  if (!r || r->status != 200) {
    throw ExtenderError(
        "--extender " + options_.url + ": GET /metrics: " +
        (r ? "HTTP " + std::to_string(r->status) : "no reply (" + httplib::to_string(r.error()) + ")"));
  }
  constexpr std::string_view kGauge = "\nkube_extender_gang_held_binds ";
  const size_t at = r->body.find(kGauge);
  if (at == std::string::npos) return 0;  // an extender without gang scheduling holds nothing
  int64_t n = 0;
  const char* begin = r->body.data() + at + kGauge.size();
  std::from_chars(begin, r->body.data() + r->body.size(), n);
  return n;
}

void RemoteExtender::settle() {
  const auto deadline = std::chrono::steady_clock::now() + options_.request_timeout;
  auto pause = std::chrono::milliseconds(1);
  auto count = [this] {
    int64_t unanswered = 0;
    for (const auto& [uid, b] : binds_) {
      if (!b.failure.empty()) throw ExtenderError("--extender " + options_.url + ": " + b.failure);
      unanswered += !b.error.has_value();
    }
    return unanswered;
  };
  for (;;) {
    int64_t unanswered = 0;
    {
      // Most binds are answered at once (any pod of no group): wait for that before asking the
      // extender what it holds.
      std::unique_lock lock(binds_mu_);
      binds_cv_.wait_for(lock, pause, [&] { return count() == 0; });
      unanswered = count();
    }
    if (unanswered == 0 || held_binds() == unanswered) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      throw ExtenderError("--extender " + options_.url + ": " + std::to_string(unanswered) +
                          " binds neither answered nor held after " + seconds_text(options_.request_timeout));
    }
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  std::lock_guard lock(binds_mu_);
  move_answered(settled_);
}

std::vector<sim::BindAnswer> RemoteExtender::take_answers(bool wait) {
  std::vector<sim::BindAnswer> out = options_.real_time ? take_answered() : take_settled(wait);
  add_bound_elsewhere(out);
  return out;
}

std::vector<sim::BindAnswer> RemoteExtender::take_settled(bool wait) {
  if (wait) {
    std::unique_lock lock(binds_mu_);
    const bool answered = binds_cv_.wait_for(lock, options_.request_timeout, [this] {
      return std::all_of(binds_.begin(), binds_.end(),
                         [](const auto& b) { return b.second.error.has_value(); });
    });
    if (!answered) {
      throw ExtenderError("--extender " + options_.url + ": held binds not answered after " +
                          seconds_text(options_.request_timeout));
    }
    lock.unlock();
    settle();
  }
  // Without `wait`, only what the last bind's settle found answered: taking an answer whenever it
  // arrives would make the run depend on the wall clock.
  std::lock_guard lock(binds_mu_);
  std::vector<sim::BindAnswer> out;
  for (auto& [sequence, answer] : settled_) out.push_back(std::move(answer));
  settled_.clear();
  return out;
}

bool RemoteExtender::holds_binds() const {
  std::lock_guard lock(binds_mu_);
  return !binds_.empty();
}

void RemoteExtender::serve_pod_groups(const gang::GroupMap& groups) {
  for (const auto& [key, g] : groups) groups_[key] = g;
  groups_served_ = false;
}

void RemoteExtender::sync(const sim::SimCluster& cluster) {
  bool changed = false;
  auto decode = [](const std::string& text, auto&& fn) {
    rapidjson::Document d;
    d.Parse(text.data(), text.size());
    return fn(d, "");
  };
  // Nodes first, as a pod bound to a node must find it.
  std::unordered_set<std::string> seen;
  for (const NodeInfo* n : cluster.nodes()) {
    seen.insert(n->name());
    auto& last = served_nodes_[n->name()];
    if (last == n->node) continue;
    last = n->node;
    const std::string text = node_json(*n->node, images_of(&options_.node_images, n->name()));
    if (api_.put(kube::ApiServer::kNodes, n->name(), text)) {
      nodes_[n->name()] =
          decode(text, [](const json::Value& v, std::string_view p) { return decode_node(v, p); });
      changed = true;
    }
  }
  changed |= drop_unseen(api_, kube::ApiServer::kNodes, served_nodes_, nodes_, seen);
  seen.clear();
  // A pod whose bind the extender holds is assumed here but not bound in the API.
  std::unordered_set<std::string> held;
  {
    std::lock_guard lock(binds_mu_);
    for (const auto& [uid, b] : binds_) held.insert(uid);
  }
  cluster.for_each_pod([&](const std::shared_ptr<const Pod>& p) {
    const std::string key = namespaced_key(p->namespace_, p->name);
    seen.insert(key);
    auto& last = served_pods_[key];
    const bool unbound = held.contains(p->uid);
    if (last == p && !unbound) return;
    // Bound by the extender's Binding already (its answer, or the sim's taking it, still to come):
    // the API has it bound, as kube-apiserver would.
    if (p->node_name.empty() || unbound) {
      if (api_.bound_node(key)) return;
    }
    last = unbound ? nullptr : p;  // served again once its bind is answered
    Pod assumed;
    if (unbound) {
      assumed = *p;
      assumed.node_name.clear();
    }
    const std::string text = pod_json(unbound ? assumed : *p, options_.epoch_unix_seconds);
    // Decoded whether or not the API had it already: the extender's own Binding may have written
    // this very object.
    bool refused = false;
    changed |= api_.put(kube::ApiServer::kPods, key, text, &refused);
    if (refused) {
      // The extender's Binding landed since the check above: the API keeps the bound pod, and so
      // must what the extender's state is compared with; served again once its bind is answered.
      last = nullptr;
      return;
    }
    pods_[key] =
        decode(text, [](const json::Value& v, std::string_view path) { return decode_pod(v, path); });
  });
  changed |= drop_unseen(api_, kube::ApiServer::kPods, served_pods_, pods_, seen);
  for (const PodDisruptionBudget& pdb : cluster.pdbs()) {
    const std::string key = namespaced_key(pdb.namespace_, pdb.name);
    const std::string text = pdb_json(pdb);
    if (api_.put(kube::ApiServer::kPdbs, key, text)) {
      pdbs_[key] = decode(text, [](const json::Value& v, std::string_view p) { return decode_pdb(v, p); });
      changed = true;
    }
  }
  if (!groups_served_) {
    for (const auto& [key, g] : groups_) {
      const std::string text = pod_group_json(g);
      const std::string resource(kube::pod_group_resource(g.api));
      changed |= api_.put(resource, namespaced_key(g.namespace_, g.name), text);
    }
    groups_served_ = true;
  }
  if (changed || first_) wait_for_state();
  first_ = false;
}

std::string RemoteExtender::expected_state() const {
  ClusterStateBuilder b;
  for (const auto& [_, n] : nodes_) b.add_node(n);
  for (const auto& [key, p] : pods_) {
    // A pod the extender's own Binding placed, before the simulation has taken it in.
    auto node = p.node_name.empty() ? api_.bound_node(key) : std::nullopt;
    if (!node) {
      b.add_pod(p);
      continue;
    }
    Pod bound = p;
    bound.node_name = *node;
    b.add_pod(bound);
  }
  for (const auto& [_, p] : pdbs_) b.add_pdb(p);
  for (const auto& [_, g] : groups_) b.add_gang(g);
  return dump_state(*std::move(b).build());
}

void RemoteExtender::wait_for_state() {
  ++syncs_;
  std::string want = expected_state();
  const auto deadline = std::chrono::steady_clock::now() + options_.sync_timeout;
  std::string last_error;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    auto r = client_->Get("/debug/state");
    if (!r) {
      last_error = "cannot connect (" + httplib::to_string(r.error()) + ")";
    } else if (r->status != 200) {
      last_error = "GET /debug/state: HTTP " + std::to_string(r->status);
    } else if (r->body == want || (options_.real_time && r->body == (want = expected_state()))) {
      return;  // (in real time, a Binding may have landed since `want` was read)
    } else {
      last_error = "its state (GET /debug/state) differs from the simulated API's (" +
                   first_difference(want, r->body) + ")";
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw ExtenderError("--extender " + options_.url + ": not in step with the simulated API " +
                          api_.url() + " after " + seconds_text(options_.sync_timeout) + ": " + last_error +
                          " (start kube-extender with --api-server " + api_.url() + ")");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::unique_ptr<ExtenderLink> make_extender_link(const SimCommand& command, int64_t epoch_unix_seconds,
                                                 std::ostream* note, NodeImagesJson node_images,
                                                 std::string git_version) {
  if (command.extender_url.empty()) return nullptr;
  if (!command.compare_file.empty()) {
    throw std::invalid_argument(
        "--compare cannot be used with --extender: the running extender has one configuration");
  }
  RemoteExtenderOptions o;
  o.url = command.extender_url;
  parse_extender_url(o.url);  // a bad URL fails before anything listens
  o.node_cache_capable = command.node_cache_capable;
  o.sync_timeout = std::chrono::milliseconds(static_cast<int64_t>(command.extender_timeout_seconds * 1000));
  o.epoch_unix_seconds = epoch_unix_seconds;
  o.preempt_verb = command.preempt_verb;
  o.bind_verb = command.bind_verb;
  o.real_time = command.real_time;
  o.request_timeout = std::chrono::milliseconds(static_cast<int64_t>(command.http_timeout_seconds * 1000));
  o.node_images = std::move(node_images);
  const std::string& listen = command.api_listen;
  const size_t colon = listen.rfind(':');
  const std::optional<int> port =
      colon == std::string::npos || colon == 0 ? std::nullopt : port_number(listen.substr(colon + 1));
  if (!port) {
    throw std::invalid_argument("--api-listen " + listen + ": expected HOST:PORT (PORT 0: any free port)");
  }
  auto link = std::make_unique<ExtenderLink>();
  kube::ApiServer::Options api{.host = listen.substr(0, colon), .port = *port};
  if (!git_version.empty()) api.git_version = std::move(git_version);
  try {
    link->api = std::make_unique<kube::ApiServer>(std::move(api));
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument("--api-listen " + listen + ": " + e.what());
  }
  link->backend = std::make_unique<RemoteExtender>(o, *link->api);
  if (note != nullptr) {
    *note << "extender-sim: serving the simulated cluster's API at " << link->api->url()
          << " (start kube-extender with --api-server " << link->api->url() << "); extender " << o.url
          << (o.node_cache_capable ? " (NodeNames)" : " (full Nodes)") << "\n"
          << std::flush;
  }
  return link;
}

}  // namespace kext::simtool
