// HAMi #1368: GPU pods refused for want of room are sent back to kube-scheduler's queue once the watch
// shows a pod's cards freed; only those refused in the moments before, each once; failures counted.
#include "extender/gpu/gpu_requeue.h"

#include <gtest/gtest.h>

#include "tests/support/hami_objects.h"
#include "tests/support/live_cluster.h"

namespace kext::testing {
namespace gpu_requeue_test {
namespace {

using namespace std::chrono_literals;

std::string requeued_at(const std::optional<std::string>& pod) {
  if (!pod) return "<absent>";
  auto d = parse(*pod);
  const auto& md = d["metadata"];
  if (!md.HasMember("annotations") || !md["annotations"].HasMember(kGpuRequeuedAnnotation.data())) return "";
  return md["annotations"][kGpuRequeuedAnnotation.data()].GetString();
}

TEST(GpuRequeue, SendsBackThePodsRefusedJustBeforeTheCardsFreedEachOnce) {
  FakeApiServer api;
  for (const char* name : {"late", "old", "after", "again"})
    api.put("pods", hami_pod_json("ml", name, 1, 1000));
  const auto client = client_for(api);
  Metrics metrics{"test"};
  GpuRequeue requeue(*client, &metrics, GpuRequeueOptions{2000ms, 16},
                     [] { return std::chrono::system_clock::from_time_t(1'800'000'000); });
  const auto t0 = GpuRequeue::Clock::now();
  requeue.rejected("ml", "old", t0);
  requeue.rejected("ml", "late", t0 + 2500ms);
  requeue.rejected("ml", "gone", t0 + 2600ms);  // deleted since: a 404, no failure
  requeue.rejected("ml", "after", t0 + 4000ms);
  requeue.cards_freed(t0 + 3000ms);
  requeue.drain();
  EXPECT_EQ(requeued_at(api.object("pods", "ml/late")), "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(requeued_at(api.object("pods", "ml/old")), "") << "refused 3 s before: it saw the room as it was";
  EXPECT_EQ(requeued_at(api.object("pods", "ml/after")), "") << "refused after the watch showed the cards";
  EXPECT_EQ(metrics.gpu_requeues(), 1u);
  EXPECT_EQ(metrics.gpu_requeue_failures(), 0u);

  // Each refusal is answered once; a later event sends what was refused before it.
  api.update("pods", "ml/late", [](const std::string&) { return hami_pod_json("ml", "late", 1, 1000); });
  requeue.cards_freed(t0 + 4500ms);
  requeue.drain();
  EXPECT_EQ(requeued_at(api.object("pods", "ml/late")), "");
  EXPECT_EQ(requeued_at(api.object("pods", "ml/after")), "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(metrics.gpu_requeues(), 2u);

  // A failed update is counted (and logged).
  api.fail_patches(500, "pods");
  requeue.rejected("ml", "again", t0 + 5000ms);
  requeue.cards_freed(t0 + 5100ms);
  requeue.drain();
  api.fail_patches(0);
  EXPECT_EQ(metrics.gpu_requeue_failures(), 1u);
  EXPECT_EQ(requeued_at(api.object("pods", "ml/again")), "");
}

}  // namespace
}  // namespace gpu_requeue_test
}  // namespace kext::testing
