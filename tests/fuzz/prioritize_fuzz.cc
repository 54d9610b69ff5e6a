// POST /prioritize bodies through Verbs::prioritize_traced (what the server's route calls), against the
// fixture cluster, in whichever node mode the body picks (NodeNames or full Nodes).
#include "kube/codec/extender_args.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  VerbTrace trace;
  trace.want_decision = true;
  const Reply r = fuzz::verbs_fixture().verbs.prioritize_traced(body, &trace);
  rapidjson::Document doc;
  fuzz::check_reply(r, "prioritize", doc);
  fuzz::check_decision(trace, "prioritize");
  if (r.status != 200) return 0;

  // HostPriorityList: one {"Host","Score"} per request node, in request order, scores 0..10
  // (MaxExtenderPriority, k8s.io/kube-scheduler/extender/v1/types.go).
  ExtenderArgs args;
  decode_extender_args(body, args);
  fuzz::check(doc.IsArray() && doc.Size() == args.node_names.size(), "prioritize: not one score per node");
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    const json::Value& e = doc[i];
    const json::Value* host = json::find(e, "Host");
    const json::Value* score = json::find(e, "Score");
    fuzz::check(host && host->IsString() && json::view(*host) == args.node_names[i],
                "prioritize: entry " + std::to_string(i) + " is not the request's node " +
                    std::string(args.node_names[i]));
    fuzz::check(score && score->IsInt64() && score->GetInt64() >= 0 && score->GetInt64() <= 10,
                "prioritize: score of " + std::string(args.node_names[i]) + " outside 0..10");
  }
  return 0;
}
