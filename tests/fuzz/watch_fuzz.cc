// Watch streams: the bytes a reflector reads, cut by EventSplitter, each event handled as
// Reflector::watch's on_event does and applied through the cache sinks of every watched resource; a
// JSON object with "items" is handled as a list page (Reflector::list). The first byte picks the piece
// size the stream arrives in and the sink for objects without a kind. Checks that the pieces do not change
// the events, and the cache's cross-references after the stream, and that an empty relist empties it.
#include <vector>

#include "kube/client/cache_sinks.h"
#include "kube/client/event_splitter.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

namespace {

// A sink per watched resource (kube::watched_resources()), picked by the object's kind or its list's,
// and its apiVersion where two resources serve one kind (PodGroups).
struct Sinks {
  std::vector<std::unique_ptr<kube::ResourceSink>> all;  // in watched_resources() order
  kube::ResourceSink* node = nullptr;
  kube::ResourceSink* pod = nullptr;
  explicit Sinks(StateCache& c) {
    for (const kube::WatchedResource& r : kube::watched_resources()) all.push_back(r.make_sink(c));
    node = all[0].get();
    pod = all[1].get();
  }
  kube::ResourceSink& for_object(const json::Value& obj, kube::ResourceSink& fallback) {
    auto kind = obj.IsObject() ? obj.FindMember("kind") : obj.MemberEnd();
    if (obj.IsObject() && kind != obj.MemberEnd() && kind->value.IsString()) {
      std::string_view k = json::view(kind->value);
      if (k.ends_with("List")) k.remove_suffix(4);
      auto version = obj.FindMember("apiVersion");
      const std::string_view v =
          version != obj.MemberEnd() && version->value.IsString() ? json::view(version->value) : "";
      kube::ResourceSink* first = nullptr;
      size_t i = 0;
      for (const kube::WatchedResource& r : kube::watched_resources()) {
        if (r.kind == k && (v.empty() || r.api_version() == v)) return *all[i];
        if (r.kind == k && !first) first = all[i].get();
        ++i;
      }
      if (first) return *first;
    }
    return fallback;
  }
  void flush() {
    for (auto& s : all) s->flush();
  }
};

// Reflector::list's handling of one page; a page is the whole list here.
void list_page(const rapidjson::Document& doc, Sinks& sinks, kube::ResourceSink& fallback) {
  kube::ResourceSink& sink = sinks.for_object(doc, fallback);
  sink.list_begin();
  auto items = doc.FindMember("items");
  if (items != doc.MemberEnd() && items->value.IsArray()) {
    for (const auto& item : items->value.GetArray()) {
      try {
        sink.list_item(item);
      } catch (const DecodeError&) {
      }
    }
  }
  sink.list_end();
}

// Reflector::watch's on_event; returns false where the reflector ends the watch.
bool on_event(std::string_view text, Sinks& sinks, kube::ResourceSink& fallback) {
  rapidjson::Document ev;
  ev.Parse<json::kParseFlags>(text.data(), text.size());
  if (ev.HasParseError() || !ev.IsObject()) return false;
  if (ev.FindMember("items") != ev.MemberEnd()) {
    list_page(ev, sinks, fallback);
    return true;
  }
  auto type_it = ev.FindMember("type");
  auto obj_it = ev.FindMember("object");
  if (type_it == ev.MemberEnd() || !type_it->value.IsString() || obj_it == ev.MemberEnd() ||
      !obj_it->value.IsObject()) {
    return false;
  }
  const std::string_view type = json::view(type_it->value);
  if (type == "ERROR") return false;
  kube::EventType t;
  if (type == "ADDED")
    t = kube::EventType::Added;
  else if (type == "MODIFIED")
    t = kube::EventType::Modified;
  else if (type == "DELETED")
    t = kube::EventType::Deleted;
  else
    return true;  // BOOKMARK, or a type from the future
  try {
    sinks.for_object(obj_it->value, fallback).event(t, obj_it->value);
  } catch (const DecodeError& e) {
    fuzz::check(e.what()[0] != '\0', "watch: DecodeError without a message");
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t sel = data[0];
  const std::string_view stream = fuzz::as_text(data + 1, size - 1);
  const size_t piece = sel & 0x80 ? stream.size() + 1 : 1 + (sel & 0x3f);

  // The events of the whole stream at once, as the reference.
  std::vector<std::string> whole;
  kube::EventSplitter reference(1 << 20);
  const bool reference_ok = reference.feed(stream, [&](std::string_view e) { whole.emplace_back(e); });

  // One cache for every input (building one costs more than a run): emptied by a relist at the end.
  static StateCache& cache = *new StateCache();
  static Sinks& sinks = *new Sinks(cache);
  // The sink for objects without a kind, by bits 0x60: nodes, namespaces (0x20), pods (0x40), services.
  static constexpr size_t kFallback[] = {0, 3, 1, 4};
  kube::ResourceSink& fallback = *sinks.all[kFallback[(sel >> 5) & 3]];
  kube::EventSplitter splitter(1 << 20);
  size_t seen = 0;
  bool watching = true, split_ok = true;
  for (size_t at = 0; at < stream.size() && split_ok; at += piece) {
    split_ok = splitter.feed(stream.substr(at, piece), [&](std::string_view e) {
      fuzz::check(seen < whole.size() && whole[seen] == e,
                  "watch: event " + std::to_string(seen) + " differs when the stream arrives in pieces of " +
                      std::to_string(piece));
      ++seen;
      if (watching) watching = on_event(e, sinks, fallback);
    });
    sinks.flush();  // the reflector flushes after every piece
  }
  fuzz::check(split_ok == reference_ok, "watch: the splitter's verdict depends on the piece size");
  fuzz::check(seen == whole.size(), "watch: events lost when the stream arrives in pieces");
  fuzz::check(!split_ok || splitter.pending() == reference.pending(),
              "watch: pending bytes depend on the piece size");
  fuzz::check(split_ok || !splitter.error().empty(), "watch: the splitter failed without an error");
  fuzz::check_state(*cache.view());

  // A relist that finds nothing empties the cache (Reflector::list after a 410 Gone).
  for (auto& sink : sinks.all) {
    sink->list_begin();
    sink->list_end();
  }
  auto empty = cache.view();
  bool workloads = false;
  for (WorkloadKind k : kWorkloadKinds) workloads = workloads || !empty->workloads(k)->empty();
  fuzz::check(empty->nodes.size() == 0 && empty->pods_by_uid.size() == 0 && empty->pdbs->empty() &&
                  empty->node_object_count() == 0 && empty->namespace_labels->empty() && !workloads &&
                  empty->pod_groups.size() == 0 && empty->node_labels->empty() && empty->gangs->empty(),
              "watch: an empty relist left objects in the cache");
  return 0;
}
