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
  Pod pod;
  size_t max_pods = 0;
  sim::capacity::Budget budget;
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
    time = std::min(time, std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000 + 0.5)));
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
    q.pod = simtool::decode_capacity_pod(std::string(x.request.body));
  } catch (const DecodeError& e) {
    count(CapacityOutcome::kInvalid);
    return refuse(x.response, 400, std::string("the body: ") + e.what());
  }
  if (q.pod.namespace_.empty()) q.pod.namespace_ = "default";
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
  sim::capacity::CapacityAnswer answer;
  run_beside_the_verbs([&] {
    const std::shared_ptr<const ClusterState> now = state_.current();
    const std::shared_ptr<const UsageView> usage = state_.usage();
    sim::SimCluster cluster = cluster_of(*now, config_.version, usage.get());
    cluster.set_gpu_sharing(config_.gpu_sharing);
    sim::SimulatorOptions options;
    simtool::apply(config_, options);
    options.epoch_unix_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    answer = sim::capacity::how_many_fit(std::move(cluster), *config_.engine, options, q.pod, q.max_pods,
                                         q.budget);
  });
  count(answer.stopped_by_budget.empty() ? CapacityOutcome::kAnswered : CapacityOutcome::kPartial,
        answer.node_checks);
  x.pod = answer.pod;
  x.nodes = answer.node_checks;
  x.response.set(200, std::string(kJsonContentType), simtool::capacity_json(answer));
}

Handler capacity_handler(const CapacityService& service) {
  return [&service](Exchange& x) { service.serve(x); };
}

}  // namespace kext::capacity
