#include "tests/support/prometheus_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "json/json.h"
#include "tests/support/child_process.h"
#include "tests/support/wait.h"

namespace kext::testing {
namespace {

// node-exporter splits non-idle time over several modes; the source's default PromQL sums every mode
// but idle, so the busy seconds go to two of them.
constexpr double kUserShare = 0.75;
// How long Prometheus may take to answer /-/ready: it replays an empty write-ahead log first.
constexpr std::chrono::seconds kReadyLimit{30};
// Attempts at a free port: another process may take the one we picked before Prometheus binds it.
constexpr int kPortAttempts = 3;
constexpr const char* kSetpriv = "/usr/bin/setpriv";
// The uptime a node's counters start at, as a real node's do: rate() extrapolates a counter that
// starts near zero only as far back as its zero, which would read less than the usage set while the
// window holds the counter's first samples.
constexpr double kUptimeSeconds = 24 * 60 * 60;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A loopback port nothing listens on now.
int pick_free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

}  // namespace

std::string scrape_config(const std::string& target, std::chrono::seconds interval) {
  std::ostringstream out;
  out << "global:\n"
      << "  scrape_interval: " << interval.count() << "s\n"
      << "  scrape_timeout: " << interval.count() << "s\n"
      << "scrape_configs:\n"
      << "- job_name: node-exporter\n"
      // One target serves every simulated node: their own `instance` labels must win over the target's.
      << "  honor_labels: true\n"
      << "  static_configs:\n"
      << "  - targets: ['" << target << "']\n";
  return out.str();
}

namespace {

std::string label_of(const json::Value& series, std::string_view name) {
  const json::Value* metric = json::find(series, "metric");
  const json::Value* v = metric != nullptr ? json::find(*metric, name) : nullptr;
  return v != nullptr && v->IsString() ? std::string(json::view(*v)) : std::string();
}

// An instant vector's `[time, "value"]` pairs by instance; nullopt when the reply is not a success.
std::optional<std::map<std::string, double>> decode_vector(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  const json::Value* status = json::find(doc, "status");
  const json::Value* data = json::find(doc, "data");
  const json::Value* result = data != nullptr ? json::find(*data, "result") : nullptr;
  if (status == nullptr || !status->IsString() || json::view(*status) != "success" || result == nullptr ||
      !result->IsArray())
    return std::nullopt;
  std::map<std::string, double> out;
  for (const json::Value& series : result->GetArray()) {
    const json::Value* value = json::find(series, "value");
    if (value == nullptr || !value->IsArray() || value->Size() != 2 || !(*value)[1].IsString())
      return std::nullopt;
    out[label_of(series, "instance")] = std::strtod((*value)[1].GetString(), nullptr);
  }
  return out;
}

}  // namespace

NodeExporter::NodeExporter(std::vector<ExportedNode> nodes) : server_(std::make_unique<httplib::Server>()) {
  for (const ExportedNode& n : nodes) set(n);
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(render(), "text/plain; version=0.0.4");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("NodeExporter: cannot bind a loopback port");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // The socket accepts connections from bind on; running matters for the destructor, whose stop() is
  // lost on a server that has not started its loop yet.
  wait_until([this] { return server_->is_running(); });
}

NodeExporter::~NodeExporter() {
  server_->stop();
  thread_.join();
}

std::string NodeExporter::address() const { return "127.0.0.1:" + std::to_string(port_); }

void NodeExporter::advance(Counters& c, std::chrono::steady_clock::time_point now) {
  const double elapsed = seconds_between(c.since, now);
  c.busy_seconds += elapsed * c.node.busy_cores;
  c.idle_seconds += elapsed * (c.node.cpus - c.node.busy_cores);
  c.since = now;
}

void NodeExporter::set(const ExportedNode& node) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto [it, added] = nodes_.try_emplace(node.instance);
  if (added) {
    it->second.since = now;
    it->second.busy_seconds = kUptimeSeconds * node.busy_cores;
    it->second.idle_seconds = kUptimeSeconds * (node.cpus - node.busy_cores);
  } else {
    advance(it->second, now);
  }
  it->second.node = node;
}

// Each family's lines together under one TYPE line, as the text format requires; the busy and idle
// seconds spread evenly over the node's CPUs. The counters carry the time they were computed at
// (Prometheus keeps an exposed timestamp), so that their rate is exact however late after the scrape's
// start the exporter answers on a loaded machine.
std::string NodeExporter::render() const {
  const auto now = std::chrono::steady_clock::now();
  const std::string stamp = " " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                     std::chrono::system_clock::now().time_since_epoch())
                                                     .count());
  std::lock_guard lock(mu_);
  std::ostringstream out;
  out.precision(17);
  out << "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n"
      << "# TYPE node_cpu_seconds_total counter\n";
  for (const auto& [instance, c] : nodes_) {
    Counters at = c;
    advance(at, now);
    for (int cpu = 0; cpu < c.node.cpus; ++cpu) {
      const std::string labels = "{cpu=\"" + std::to_string(cpu) + "\",instance=\"" + instance + "\",mode=\"";
      out << "node_cpu_seconds_total" << labels << "idle\"} " << at.idle_seconds / c.node.cpus << stamp
          << "\n"
          << "node_cpu_seconds_total" << labels << "system\"} "
          << at.busy_seconds * (1 - kUserShare) / c.node.cpus << stamp << "\n"
          << "node_cpu_seconds_total" << labels << "user\"} " << at.busy_seconds * kUserShare / c.node.cpus
          << stamp << "\n";
    }
  }
  out << "# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.\n"
      << "# TYPE node_memory_MemTotal_bytes gauge\n";
  for (const auto& [instance, c] : nodes_)
    out << "node_memory_MemTotal_bytes{instance=\"" << instance << "\"} " << c.node.memory_total << "\n";
  out << "# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.\n"
      << "# TYPE node_memory_MemAvailable_bytes gauge\n";
  for (const auto& [instance, c] : nodes_)
    out << "node_memory_MemAvailable_bytes{instance=\"" << instance << "\"} "
        << c.node.memory_total - c.node.memory_used << "\n";
  return out.str();
}

std::string prometheus_binary() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / "prometheus";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

namespace {
std::string unique_dir_name() {
  static std::atomic<int> next{0};
  return "prometheus-" + std::to_string(next++);
}
}  // namespace

PrometheusServer::PrometheusServer(const std::string& config_yaml) : dir_(unique_dir_name()) {
  const std::string binary = prometheus_binary();
  if (binary.empty())
    throw std::runtime_error(
        "no `prometheus` binary on PATH: install Debian's prometheus package (tools/install-deps.sh does)");
  spit(dir_.path() / "prometheus.yml", config_yaml);
  for (int attempt = 0; attempt < kPortAttempts; ++attempt)
    if (start(binary)) return;
  throw std::runtime_error("prometheus did not become ready on 127.0.0.1:" + std::to_string(port_) +
                           "; its log ends:\n" + log_tail());
}

PrometheusServer::~PrometheusServer() {
  if (pid_ > 0) kill_child(pid_);
}

// One start on a newly picked port: true once /-/ready answers; false (the child killed) when it
// exits or does not get ready in time.
bool PrometheusServer::start(const std::string& binary) {
  if (pid_ > 0) kill_child(pid_);
  port_ = pick_free_port();
  std::vector<std::string> args;
  // Killed with the test process however it ends (a ctest timeout kills it), rather than left running
  // on its port: util-linux's setpriv sets the parent-death signal, which exec keeps.
  if (access(kSetpriv, X_OK) == 0) args = {kSetpriv, "--pdeathsig", "KILL", "--"};
  args.insert(args.end(), {binary, "--config.file=" + (dir_.path() / "prometheus.yml").string(),
                           "--storage.tsdb.path=" + (dir_.path() / "data").string(),
                           "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"});
  pid_ = spawn_child(args, (dir_.path() / "stdout.log").string(), (dir_.path() / "prometheus.log").string());
  if (pid_ <= 0) return false;
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(std::chrono::seconds(1));
  bool exited = false;
  const bool ready = wait_until(
      [&] {
        if (exit_status(pid_).has_value()) return exited = true;
        const auto res = client.Get("/-/ready");
        return res && res->status == 200;
      },
      kReadyLimit);
  if (ready && !exited) return true;
  if (!exited) kill_child(pid_);
  pid_ = -1;
  return false;
}

std::string PrometheusServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::map<std::string, double> PrometheusServer::query(const std::string& promql) {
  httplib::Client client("127.0.0.1", port_);
  const auto res = client.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
  if (!res) {
    last_error_ = "GET /api/v1/query: " + httplib::to_string(res.error());
    return {};
  }
  if (auto vector = decode_vector(res->body); res->status == 200 && vector) return *vector;
  last_error_ = "GET /api/v1/query: HTTP " + std::to_string(res->status) + ": " + res->body;
  return {};
}

std::string PrometheusServer::get(const std::string& path) {
  httplib::Client client("127.0.0.1", port_);
  const auto res = client.Get(path.c_str());
  return res ? res->body : std::string();
}

bool PrometheusServer::wait_for_series(const std::string& promql, size_t series,
                                       std::chrono::milliseconds limit) {
  return wait_until([&] { return query(promql).size() >= series; }, limit);
}

std::string PrometheusServer::log_tail() const {
  const std::string log = slurp(dir_.path() / "prometheus.log");
  constexpr size_t kTail = 2000;
  return log.size() > kTail ? log.substr(log.size() - kTail) : log;
}

}  // namespace kext::testing
