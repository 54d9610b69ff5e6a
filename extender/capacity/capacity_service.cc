#include "extender/capacity/capacity_service.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <charconv>
#include <optional>
#include <thread>
#include <utility>

#include "extender/capacity/live_cluster.h"
#include "extender/http/reply_writer.h"
#include "json/json.h"
#include "sim/capacity/capacity_command.h"

namespace kext::capacity {
namespace {

// A question's own niceness: the verbs' workers run at the process's, and win the CPU from it.
constexpr int kQuestionNice = 10;

struct Question {
  simtool::PodQuestion pods;  // one Pod, or one group answered in whole groups
  size_t max_pods = 0;        // ?max=: copies, or groups
  sim::capacity::Budget budget;
};

// One question's answer: its JSON, the name the access log gives it, whether a budget cut it short,
// and the node checks it spent.
struct Answered {
  std::string json;
  std::string name;
  bool partial = false;
  size_t node_checks = 0;
};

void refuse(HttpResponse& res, int status, std::string_view message) {
  res.set(status, std::string(kJsonContentType), json::error_body(message));
}

// ?max= and ?timeoutSeconds=, or the reason one is unusable.
std::optional<std::string> read_parameters(const HttpRequest& req, const CapacityLimits& limits,
                                           Question& q) {
  if (const std::optional<std::string> v = req.param("max")) {
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), q.max_pods);
    if (ec != std::errc() || p != v->data() + v->size())
      return "max: expected a non-negative integer, got \"" + *v + "\"";
  }
  std::chrono::milliseconds time = limits.max_time;
  if (const std::optional<std::string> v = req.param("timeoutSeconds")) {
    double seconds = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
    if (ec != std::errc() || p != v->data() + v->size() || !(seconds > 0))
      return "timeoutSeconds: expected a positive number of seconds, got \"" + *v + "\"";
    // Clamped before the conversion: "inf" or 1e300 parse, and do not fit an integer.
    const double ms = std::min(seconds * 1000 + 0.5, static_cast<double>(time.count()));
    time = std::chrono::milliseconds(static_cast<int64_t>(ms));
  }
  q.budget.deadline = std::chrono::steady_clock::now() + time;
  q.budget.max_node_checks = limits.max_node_checks;
  return std::nullopt;
}

// Runs `work` on a thread of its own at kQuestionNice, its oneTBB loops on that thread alone.
template <typename F>
void run_beside_the_verbs(F&& work) {
  std::exception_ptr failed;
  std::thread t([&] {
    // Linux: a thread's niceness is its own (setpriority of its thread id); raising it needs no
    // privilege, and the thread ends with the question.
    (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), kQuestionNice);
    try {
      tbb::task_arena one(1);
      one.execute(work);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  t.join();
  if (failed) std::rethrow_exception(failed);
}

// The question on the state's current view: extender-sim capacity's answer, one Pod's or one group's.
Answered answer_on(const ClusterState& now, const UsageView* usage, const simtool::SimConfig& config,
                   const Question& q) {
  sim::SimCluster cluster = cluster_of(now, config.version, usage);
  cluster.set_gpu_sharing(config.gpu_sharing);
  // The question's own workload selects its copies for the system default spreading, as extender-sim
  // capacity adds it beside the cluster's.
  if (!q.pods.replica_sets.empty() || !q.pods.stateful_sets.empty()) {
    std::vector<WorkloadSelector> replica_sets = *now.replica_sets, stateful_sets = *now.stateful_sets;
    replica_sets.insert(replica_sets.end(), q.pods.replica_sets.begin(), q.pods.replica_sets.end());
    stateful_sets.insert(stateful_sets.end(), q.pods.stateful_sets.begin(), q.pods.stateful_sets.end());
    cluster.set_workloads(*now.services, *now.replication_controllers, std::move(replica_sets),
                          std::move(stateful_sets));
  }
  sim::SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (q.pods.is_group()) {
    const sim::capacity::GroupQuestion group{q.pods.pods, q.pods.gang, *now.gangs};
    const sim::capacity::GroupAnswer a = sim::capacity::how_many_groups(std::move(cluster), *config.engine,
                                                                        options, group, q.max_pods, q.budget);
    return {simtool::groups_json(a), a.group, !a.stopped_by_budget.empty(), a.node_checks};
  }
  const sim::capacity::CapacityAnswer a = sim::capacity::how_many_fit(
      std::move(cluster), *config.engine, options, q.pods.pods.front(), q.max_pods, q.budget);
  return {simtool::capacity_json(a), a.pod, !a.stopped_by_budget.empty(), a.node_checks};
}

}  // namespace

CapacityService::CapacityService(simtool::SimConfig config, const StateStore& state, CapacityLimits limits,
                                 Metrics* metrics)
    : config_(std::move(config)), state_(state), limits_(limits), metrics_(metrics) {}

void CapacityService::serve(Exchange& x) const {
  const auto started = std::chrono::steady_clock::now();
  const auto count = [&](CapacityOutcome outcome, uint64_t checks = 0) {
    if (metrics_) {
      metrics_->observe_capacity(
          outcome, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), checks);
    }
  };
  Question q;
  if (std::optional<std::string> bad = read_parameters(x.request, limits_, q)) {
    count(CapacityOutcome::kInvalid);
    return refuse(x.response, 400, *bad);
  }
  try {
    q.pods = simtool::decode_pod_question(std::string(x.request.body));
  } catch (const DecodeError& e) {
    count(CapacityOutcome::kInvalid);
    return refuse(x.response, 400, std::string("the body: ") + e.what());
  }
  for (Pod& pod : q.pods.pods)
    if (pod.namespace_.empty()) pod.namespace_ = "default";
  if (!state_.ready()) {
    count(CapacityOutcome::kNotReady);
    return refuse(x.response, 503, "the cluster is not listed yet (the watch is starting): ask again");
  }
  if (busy_.exchange(true)) {
    count(CapacityOutcome::kBusy);
    x.response.headers.emplace_back("Retry-After", "1");
    return refuse(x.response, 429, "another capacity question is being answered: one runs at a time");
  }
  // Free for the next question however this one ends (an exception becomes the router's 500).
  struct Release {
    std::atomic<bool>& busy;
    Metrics* metrics;
    ~Release() {
      if (metrics) metrics->add_capacity_running(-1);
      busy.store(false);
    }
  } release{busy_, metrics_};
  if (metrics_) metrics_->add_capacity_running(1);
  Answered answer;
  run_beside_the_verbs([&] {
    const std::shared_ptr<const ClusterState> now = state_.current();
    const std::shared_ptr<const UsageView> usage = state_.usage();
    answer = answer_on(*now, usage.get(), config_, q);
  });
  count(answer.partial ? CapacityOutcome::kPartial : CapacityOutcome::kAnswered, answer.node_checks);
  x.pod = answer.name;
  x.nodes = answer.node_checks;
  x.response.set(200, std::string(kJsonContentType), std::move(answer.json));
}

Handler capacity_handler(const CapacityService& service) {
  return [&service](Exchange& x) { service.serve(x); };
}

}  // namespace kext::capacity
