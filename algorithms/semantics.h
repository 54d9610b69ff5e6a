#pragma once
// Which Kubernetes release's behaviour to reproduce where releases differ. One value per profile (the
// policy's preemption.semantics) decides both the filter order (catalogue.h filter_rank) and preemption
// (preemption/pdb.h, preemption/select_victims.h).
namespace kext {

//   kCurrent: current kube-scheduler (the framework's default profile, default_preemption.go).
//   kV1_16:   v1.16 (predicatesOrdering, generic_scheduler.go).
enum class Semantics { kCurrent, kV1_16 };

}  // namespace kext
