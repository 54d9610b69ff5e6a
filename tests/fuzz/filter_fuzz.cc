// POST /filter bodies through Verbs::filter_traced (what the server's route calls), against the fixture
// cluster, in whichever node mode the body picks (NodeNames or full Nodes).
#include "kube/codec/extender_args.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  VerbTrace trace;
  trace.want_decision = true;
  const Reply r = fuzz::verbs_fixture().verbs.filter_traced(body, &trace);
  rapidjson::Document doc;
  fuzz::check_reply(r, "filter", doc);
  fuzz::check_decision(trace, "filter");
  if (r.status != 200) return 0;

  // ExtenderFilterResult: every node of the request is in exactly one of passed, failed, unresolvable.
  ExtenderArgs args;
  decode_extender_args(body, args);
  fuzz::check(doc.IsObject(), "filter: reply is not an object");
  const json::Value* error = json::find(doc, "Error");
  fuzz::check(error && error->IsString() && error->GetStringLength() == 0, "filter: 200 with an Error");
  size_t passed = 0;
  const json::Value* names = json::find(doc, "NodeNames");
  const json::Value* nodes = json::find(doc, "Nodes");
  fuzz::check(names && nodes, "filter: reply lacks Nodes or NodeNames");
  if (args.full_nodes) {
    fuzz::check(names->IsNull(), "filter: full mode reply has NodeNames");
    const json::Value* items = json::find(*nodes, "items");
    fuzz::check(items && items->IsArray(), "filter: full mode reply without Nodes.items");
    passed = items->Size();
    for (const auto& item : items->GetArray())
      fuzz::check(item.IsObject(), "filter: an echoed node is not an object");
  } else {
    fuzz::check(nodes->IsNull() && names->IsArray(), "filter: names mode reply without NodeNames");
    passed = names->Size();
  }
  size_t rejected = 0;
  for (const char* key : {"FailedNodes", "FailedAndUnresolvableNodes"}) {
    const json::Value* m = json::find(doc, key);
    fuzz::check(m && m->IsObject(), std::string("filter: reply without ") + key);
    for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it) {
      fuzz::check(it->value.IsString() && it->value.GetStringLength() > 0,
                  std::string("filter: empty reason in ") + key);
    }
    rejected += m->MemberCount();
  }
  fuzz::check(passed + rejected == args.node_names.size(),
              "filter: " + std::to_string(args.node_names.size()) + " nodes in, " + std::to_string(passed) +
                  " passed + " + std::to_string(rejected) + " rejected out");
  return 0;
}
