#include "sim/follow/follower.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <thread>

#include "algorithms/namespaced_key.h"
#include "algorithms/pod_requests.h"
#include "kube/client/api_client.h"
#include "kube/client/api_config.h"
#include "sim/report/html_parts.h"
#include "sim/run.h"

namespace kext::simtool::follow {

namespace {

// "HOST:PORT" -> (host, port); nullopt when malformed.
std::optional<std::pair<std::string, int>> host_port(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) return std::nullopt;
  int port = -1;
  const char* first = listen.data() + colon + 1;
  const char* last = listen.data() + listen.size();
  auto [ptr, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || ptr != last || port < 0 || port > 65535) return std::nullopt;
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return std::make_pair(host, port);
}

PodFacts facts_of(const InputPod& p) {
  const Resources r = compute_pod_requests(p.pod, false);
  return PodFacts{p.pod.uid, namespaced_key(p.pod.namespace_, p.pod.name), p.traits.owner, r.milli_cpu,
                  r.memory};
}

// A live pod that no longer holds or wants room: finished, or deleted while still pending.
bool gone(const Pod& pod) { return pod.is_terminal() || (pod.node_name.empty() && pod.terminating); }

std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

struct Follower::Http {
  httplib::Server server;
  std::thread thread;
};

Follower::Follower(const SimCommand& command, std::ostream& err, FollowTuning tuning)
    : command_(command), err_(err), tuning_(tuning), start_(std::chrono::steady_clock::now()) {
  // The policies, each loaded as run_sim loads its --config.
  std::vector<SimConfig> configs;
  std::vector<std::string> names;
  if (command.config_files.empty()) {
    configs.push_back(load_sim_config(command, ""));
    names.push_back("default");
  }
  for (const std::string& file : command.config_files) {
    configs.push_back(load_sim_config(command, file));
    std::string name = file;
    for (int n = 2; std::find(names.begin(), names.end(), name) != names.end(); ++n)
      name = file + " (" + std::to_string(n) + ")";
    names.push_back(name);
  }

  kube::ApiConfig api_config;
  try {
    api_config = kube::kubeconfig_config(command.kubeconfig, command.kube_context);
  } catch (const kube::ConfigError& e) {
    throw InputError(e.what());  // it names "--kubeconfig FILE"
  }
  try {
    api_ = std::make_unique<kube::ApiClient>(api_config);
  } catch (const kube::ConfigError& e) {
    throw InputError("--kubeconfig " + command.kubeconfig + ": " + e.what());
  }

  if (!command.log_file.empty()) {
    auto out = std::make_unique<std::ofstream>(command.log_file, std::ios::binary | std::ios::trunc);
    if (!*out) throw InputError("--log " + command.log_file + ": cannot create the file");
    log_ = std::move(out);
  }
  if (!command.html_file.empty()) {
    // Fail now rather than after hours of following.
    std::ofstream probe(command.html_file, std::ios::binary | std::ios::app);
    if (!probe) throw InputError("--html " + command.html_file + ": cannot create the file");
  }

  divergence_ = std::make_unique<Divergence>(names);
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  for (size_t i = 0; i < configs.size(); ++i) {
    const sim::SimulatorOptions options = follow_options(command, configs[i], epoch);
    mirrors_.push_back(std::make_unique<PolicyMirror>(i, names[i], std::move(configs[i]), options,
                                                      *divergence_, log_.get()));
  }

  const auto address = host_port(command.listen);
  if (!address)
    throw InputError("--listen " + command.listen + ": expected HOST:PORT (PORT 0: any free port)");
  http_ = std::make_unique<Http>();
  serve();
  auto& server = http_->server;
  port_ = address->second == 0
              ? server.bind_to_any_port(address->first)
              : (server.bind_to_port(address->first, address->second) ? address->second : -1);
  if (port_ <= 0) throw InputError("--listen " + command.listen + ": cannot listen there");
  http_->thread = std::thread([this] { http_->server.listen_after_bind(); });
  while (!http_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  err_ << "extender-sim: following " << api_->config().server_url() << " with " << mirrors_.size()
       << (mirrors_.size() == 1 ? " policy" : " policies") << "; live page http://" << address->first << ":"
       << port_ << "/ (metrics at /metrics)\n"
       << std::flush;
}

Follower::~Follower() {
  stop();
  if (stream_) stream_->stop();
  if (http_) {
    http_->server.stop();
    if (http_->thread.joinable()) http_->thread.join();
  }
}

void Follower::serve() {
  auto& s = http_->server;
  s.new_task_queue = [] { return new httplib::ThreadPool(4); };
  // SO_REUSEADDR only: with httplib's default SO_REUSEPORT a second follower would share a busy port
  // instead of failing to listen.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.set_keep_alive_max_count(1);
  s.Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(divergence_->html(), "text/html; charset=utf-8");
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/healthz",
        [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
}

sim::SimTime Follower::since_start() const {
  return std::chrono::duration_cast<sim::SimTime>(std::chrono::steady_clock::now() - start_);
}

void Follower::stop() {
  stopping_.store(true);
  queue_.wake();
}

void Follower::run() {
  start_ = std::chrono::steady_clock::now();
  LiveStreamOptions options;
  options.backoff_initial = tuning_.backoff_initial;
  stream_ = std::make_unique<LiveStream>(*api_, queue_, options);
  if (!stream_->start(tuning_.sync_timeout)) {
    const auto status = stream_->status();
    stream_->stop();
    throw InputError("--kubeconfig " + command_.kubeconfig + " (server " + api_->config().server_url() +
                     "): cannot list the nodes: " +
                     (status.empty() || status.front().last_error.empty() ? std::string("no answer in time")
                                                                          : status.front().last_error));
  }
  // Published once start() has filled its list of reflectors, which status() walks.
  live_stream_.store(stream_.get(), std::memory_order_release);
  const bool bounded = command_.duration_seconds > 0;
  const sim::SimTime deadline = bounded ? seconds_to_sim(command_.duration_seconds) : sim::kNever;
  while (!stopping_.load()) {
    sim::SimTime now = since_start();
    if (now >= deadline) break;
    sim::SimTime next = deadline;
    {
      std::lock_guard lock(loop_mu_);
      for (const auto& m : mirrors_) next = std::min(next, m->next_due());
    }
    const sim::SimDuration wait =
        std::clamp<sim::SimDuration>(next - now, sim::SimDuration(0), tuning_.idle_wake);
    std::vector<LiveEvent> batch = queue_.wait(wait);
    if (stopping_.load()) break;
    now = since_start();
    std::lock_guard lock(loop_mu_);
    handle(batch, now);
    for (const auto& m : mirrors_) m->advance(now);
  }
  stream_->stop();
}

void Follower::handle(std::vector<LiveEvent>& batch, sim::SimTime now) {
  for (LiveEvent& e : batch) {
    if (e.kind == LiveEvent::Kind::kPriorityClass) {
      auto same = [&](const PriorityClass& c) { return c.name == e.priority_class.name; };
      priority_classes_.erase(std::remove_if(priority_classes_.begin(), priority_classes_.end(), same),
                              priority_classes_.end());
      priority_classes_.push_back(e.priority_class);
    }
    if (e.kind == LiveEvent::Kind::kPodUpsert && !e.pod.pod.priority.has_value()) {
      // Admission sets spec.priority; a server that did not (the in-repo one) gets it resolved as
      // extender-sim resolves a workload's (an unknown class: 0).
      std::vector<InputPod> one{std::move(e.pod)};
      try {
        resolve_priorities(one, priority_classes_);
      } catch (const DecodeError&) {
      }
      e.pod = std::move(one.front());
    }
    if (auto binding = production_.apply(e)) {
      judge(*binding, now);
      production_.bind(*binding);
    }
    track(e);
    for (const auto& m : mirrors_) {
      try {
        m->apply(e, now);
      } catch (const sim::ClusterError& error) {
        // An event the simulation cannot take (it names the pod or node): skipped; the first ten are
        // reported.
        if (skipped_++ < 10)
          err_ << "extender-sim: " << m->name() << ": skipping a live event: " << error.what() << "\n";
      }
    }
    divergence_->count_live_event();
    live_events_.fetch_add(1);
  }
}

void Follower::judge(const ProductionMirror::Binding& binding, sim::SimTime now) {
  const std::string pod = namespaced_key(binding.pod.namespace_, binding.pod.name);
  for (size_t i = 0; i < mirrors_.size(); ++i) {
    const sim::CycleConfig& config = mirrors_[i]->simulator().cycle_config();
    const DecisionVerdict verdict = judge_binding(config, production_.cluster(), binding.pod, binding.node);
    divergence_->decision(i, pod, verdict);
    if (log_ && verdict.kind != DecisionVerdict::Kind::kUnjudged)
      *log_ << verdict_json(mirrors_[i]->name(), std::chrono::duration<double>(now).count(), pod, verdict)
            << '\n';
  }
}

void Follower::track(const LiveEvent& e) {
  using Kind = LiveEvent::Kind;
  auto publish_nodes = [&] {
    std::vector<NodeFacts> all;
    all.reserve(node_order_.size());
    for (const std::string& name : node_order_) all.push_back(nodes_.at(name));
    divergence_->set_nodes(std::move(all));
  };
  switch (e.kind) {
    case Kind::kNodeUpsert: {
      const NodeFacts facts{e.node.name, e.node.allocatable.milli_cpu, e.node.allocatable.memory,
                            e.node.allocatable.pods};
      auto it = nodes_.find(e.node.name);
      if (it == nodes_.end()) {
        node_order_.push_back(e.node.name);
        nodes_.emplace(e.node.name, facts);
      } else if (it->second.milli_cpu_allocatable != facts.milli_cpu_allocatable ||
                 it->second.memory_allocatable != facts.memory_allocatable ||
                 it->second.pods_allocatable != facts.pods_allocatable) {
        it->second = facts;
      } else {
        return;
      }
      publish_nodes();
      return;
    }
    case Kind::kNodeDelete:
      if (nodes_.erase(e.node.name) == 0) return;
      node_order_.erase(std::find(node_order_.begin(), node_order_.end(), e.node.name));
      publish_nodes();
      return;
    case Kind::kPodUpsert: {
      const Pod& pod = e.pod.pod;
      auto it = live_pods_.find(pod.uid);
      if (gone(pod)) {
        if (it == live_pods_.end()) return;
        divergence_->pod_deleted(pod.uid);
        live_pods_.erase(it);
        return;
      }
      if (it == live_pods_.end()) {
        if (pod.node_name.empty()) {
          divergence_->pod_pending(facts_of(e.pod));
        } else {
          divergence_->pod_running(facts_of(e.pod), pod.node_name);
        }
        live_pods_.emplace(pod.uid, pod.node_name);
      } else if (it->second.empty() && !pod.node_name.empty()) {
        divergence_->production_bound(pod.uid, pod.node_name);
        it->second = pod.node_name;
      }
      return;
    }
    case Kind::kPodDelete:
      if (live_pods_.erase(e.pod.pod.uid) != 0) divergence_->pod_deleted(e.pod.pod.uid);
      return;
    case Kind::kPdbUpsert:
    case Kind::kPdbDelete:
    case Kind::kPriorityClass:
    case Kind::kNamespaceUpsert:
    case Kind::kNamespaceDelete:
    case Kind::kWorkloadUpsert:
    case Kind::kWorkloadDelete:
      return;
  }
}

std::vector<StreamStatus> Follower::stream_status() const {
  const LiveStream* stream = live_stream_.load(std::memory_order_acquire);
  return stream ? stream->status() : std::vector<StreamStatus>{};
}

void Follower::inspect(
    const std::function<void(const std::vector<std::unique_ptr<PolicyMirror>>&)>& f) const {
  std::lock_guard lock(loop_mu_);
  f(mirrors_);
}

std::string Follower::metrics() const {
  std::string out = divergence_->prometheus();
  if (!out.empty() && out.back() != '\n') out += '\n';
  const std::vector<StreamStatus> streams = stream_status();
  auto family = [&](const char* name, const char* type, const char* help, auto value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const StreamStatus& s : streams)
      out +=
          std::string(name) + "{resource=\"" + label(s.resource) + "\"} " + std::to_string(value(s)) + "\n";
  };
  family("kube_extender_sim_follow_reflector_synced", "gauge", "Whether the resource has been listed once.",
         [](const StreamStatus& s) { return s.synced ? 1 : 0; });
  family("kube_extender_sim_follow_reflector_lists_total", "counter",
         "Complete lists of the resource: the first and every relist.",
         [](const StreamStatus& s) { return s.lists; });
  family("kube_extender_sim_follow_reflector_relists_total", "counter",
         "Relists forced by 410 Gone (an expired resourceVersion).",
         [](const StreamStatus& s) { return s.gone; });
  family("kube_extender_sim_follow_reflector_watch_events_total", "counter", "Watch events received.",
         [](const StreamStatus& s) { return s.events; });
  family("kube_extender_sim_follow_reflector_failures_total", "counter",
         "Dropped, silent or refused streams and failed lists.",
         [](const StreamStatus& s) { return s.failures; });
  std::lock_guard lock(loop_mu_);
  out +=
      "# HELP kube_extender_sim_follow_simulated_cycles_total Scheduling cycles each simulated policy ran.\n"
      "# TYPE kube_extender_sim_follow_simulated_cycles_total counter\n";
  for (const auto& m : mirrors_) {
    out += "kube_extender_sim_follow_simulated_cycles_total{policy=\"" + label(m->name()) + "\"} " +
           std::to_string(m->summary().cycles) + "\n";
  }
  return out;
}

std::string Follower::finish() {
  if (!command_.html_file.empty()) {
    std::ofstream html(command_.html_file, std::ios::binary | std::ios::trunc);
    html << divergence_->html();
    html.close();
    if (!html) throw InputError("--html " + command_.html_file + ": write failed");
  }
  if (log_) {
    divergence_->write_jsonl(*log_);
    log_->flush();
    if (!*log_) throw InputError("--log " + command_.log_file + ": write failed");
  }
  const Snapshot snap = divergence_->snapshot();
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "followed %.1f s: %llu live events, %llu pods pending in production\n",
                snap.seconds, static_cast<unsigned long long>(snap.live_events),
                static_cast<unsigned long long>(snap.production_pending));
  out += line;
  const Utilisation production = utilisation(snap.production_nodes, snap.typical_pod);
  auto fragmented = [](const Utilisation& u) {
    return u.cpu_fragmented_percent ? fixed(*u.cpu_fragmented_percent, 1) + " %" : std::string("-");
  };
  for (const PolicyView& p : snap.policies) {
    std::snprintf(
        line, sizeof line,
        "  %s: decision agreement %.1f %% (%llu of %llu of production's decisions; %llu rejected "
        "by its filters)\n",
        p.name.c_str(), p.decision_agreement_percent, static_cast<unsigned long long>(p.decisions_agreed),
        static_cast<unsigned long long>(p.decisions), static_cast<unsigned long long>(p.decisions_rejected));
    out += line;
    const Utilisation u = utilisation(p.nodes, snap.typical_pod);
    std::snprintf(line, sizeof line,
                  "    own trajectory: %llu pending, %llu preempted, cpu %.1f %%, memory %.1f %% requested, "
                  "%zu/%zu nodes used, cpu fragmented %s\n",
                  static_cast<unsigned long long>(p.pending), static_cast<unsigned long long>(p.preempted),
                  u.cpu_percent, u.memory_percent, u.nodes_used, u.nodes, fragmented(u).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  production: %llu pending, cpu %.1f %%, memory %.1f %% requested, %zu/%zu nodes used, cpu "
                "fragmented %s\n",
                static_cast<unsigned long long>(snap.production_pending), production.cpu_percent,
                production.memory_percent, production.nodes_used, production.nodes,
                fragmented(production).c_str());
  out += line;
  return out;
}

}  // namespace kext::simtool::follow
