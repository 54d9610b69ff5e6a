#include "algorithms/taints.h"

#include <algorithm>

namespace kext {

bool toleration_tolerates_taint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool tolerations_tolerate_taint(std::span<const Toleration> tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return toleration_tolerates_taint(t, taint); });
}

const Taint* first_untolerated_scheduling_taint(std::span<const Taint> taints,
                                                std::span<const Toleration> tolerations) {
  for (const Taint& taint : taints) {
    // PreferNoSchedule is a scoring hint only; the filter must not reject on it.
    if (taint.effect != kTaintEffectNoSchedule && taint.effect != kTaintEffectNoExecute) continue;
    if (!tolerations_tolerate_taint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

int64_t count_untolerated_prefer_no_schedule(std::span<const Taint> taints,
                                             std::span<const Toleration> tolerations) {
  // getAllTolerationPreferNoSchedule keeps only these tolerations; done inline to spare the map an
  // allocation per node.
  auto tolerated = [&](const Taint& taint) {
    return std::any_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) {
      return (t.effect.empty() || t.effect == kTaintEffectPreferNoSchedule) &&
             toleration_tolerates_taint(t, taint);
    });
  };
  int64_t count = 0;
  for (const Taint& taint : taints) {
    if (taint.effect != kTaintEffectPreferNoSchedule) continue;
    if (!tolerated(taint)) ++count;
  }
  return count;
}

}  // namespace kext
