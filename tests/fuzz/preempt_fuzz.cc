// POST /preempt bodies through Verbs::preempt_traced (what the server's route calls), against the fixture
// cluster: NodeNameToVictims (full pods) or NodeNameToMetaVictims (UIDs), as the body picks.
#include <set>

#include "kube/codec/preemption_args.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  VerbTrace trace;
  trace.want_decision = true;
  const auto& f = fuzz::verbs_fixture();
  const Reply r = f.verbs.preempt_traced(body, &trace);
  rapidjson::Document doc;
  fuzz::check_reply(r, "preempt", doc);
  fuzz::check_decision(trace, "preempt");
  if (r.status != 200) return 0;

  // ExtenderPreemptionResult: at most maxCandidates of the offered nodes, each with victims.
  const PreemptionArgs args = decode_preemption_args(body);
  std::set<std::string_view> offered;
  for (const auto& n : args.nodes) offered.insert(n.node);
  fuzz::check(doc.IsObject(), "preempt: reply is not an object");
  const json::Value* chosen = json::find(doc, "NodeNameToMetaVictims");
  fuzz::check(chosen && chosen->IsObject(), "preempt: reply without NodeNameToMetaVictims");
  fuzz::check(chosen->MemberCount() <= f.profile.preemption.max_candidates,
              "preempt: more nodes than maxCandidates");
  for (auto it = chosen->MemberBegin(); it != chosen->MemberEnd(); ++it) {
    const std::string node(json::view(it->name));
    fuzz::check(offered.contains(node), "preempt: chose " + node + ", which was not offered");
    const json::Value* pods = json::find(it->value, "Pods");
    fuzz::check(pods && pods->IsArray() && pods->Size() > 0, "preempt: " + node + " chosen without victims");
    const json::Value* pdb = json::find(it->value, "NumPDBViolations");
    fuzz::check(pdb && pdb->IsInt64(), "preempt: " + node + " without NumPDBViolations");
  }
  return 0;
}
