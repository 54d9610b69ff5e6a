#include "kube/codec/extender_args.h"

#include <algorithm>

#include "json/append.h"
#include "json/scan.h"
#include "json/word.h"
#include "kube/codec/k8s_decode.h"

namespace kext {

void parse_body(std::string_view body, rapidjson::Document& doc) {
  if (body.empty()) throw DecodeError("empty request body: expected a JSON object");
  doc.Parse<json::kParseFlags>(body.data(), body.size());
  if (doc.HasParseError()) {
    throw DecodeError(std::string("malformed JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject())
    throw DecodeError(std::string("request body: expected a JSON object, got ") + json::type_name(doc));
}

namespace {

// One envelope key's value, chosen as json::find chooses: the first exact match, else the first
// case-insensitive one. Empty when absent.
struct KeySlice {
  std::string_view key;
  std::string_view exact, folded;
  std::string_view value() const { return exact.data() ? exact : folded; }
  void offer(std::string_view k, std::string_view v) {
    if (k == key) {
      if (!exact.data()) exact = v;
    } else if (!folded.data() && json::iequals(k, key)) {
      folded = v;
    }
  }
};

// A raw key's text with its escapes decoded (the raw text if it does not parse as a string).
std::string unescape_key(std::string_view raw) {
  rapidjson::Document d;
  std::string quoted = "\"" + std::string(raw) + "\"";
  d.Parse<json::kParseFlags>(quoted.data(), quoted.size());
  return d.IsString() ? std::string(json::view(d)) : std::string(raw);
}

bool absent(std::string_view slice) { return !slice.data() || slice == "null"; }

// Parses a slice the scanner has already validated; the type checks then name the field.
void parse_slice(std::string_view slice, rapidjson::Document& doc) {
  doc.Parse<json::kParseFlags>(slice.data(), slice.size());
  if (doc.HasParseError()) throw DecodeError("malformed JSON");
}

// The DOM of an object the decoders read whole (the pod, a node), on the stack: a pool for its values
// (pool_), strings parsed in place in a copy of its bytes. A default Document allocated a larger pool chunk
// on the heap and copied every string into it, slower in bench/codec_bench.cc BM_DecodeNames, of which the
// pod is a large part (docs/performance.md "Figures behind design choices in the code").
class SliceDom {
 public:
  explicit SliceDom(std::string_view slice)
      : text_(slice), allocator_(pool_, sizeof pool_), doc_(&allocator_) {
    doc_.ParseInsitu<json::kParseFlags>(text_.data());
    if (doc_.HasParseError()) throw DecodeError("malformed JSON");
  }
  SliceDom(const SliceDom&) = delete;
  SliceDom& operator=(const SliceDom&) = delete;
  const rapidjson::Value& value() const { return doc_; }

 private:
  std::string text_;
  alignas(8) char pool_[16 << 10];
  rapidjson::MemoryPoolAllocator<> allocator_;
  rapidjson::Document doc_;
};

// The body did not scan as a JSON object: parse_body names the problem exactly.
[[noreturn]] void report_bad_body(std::string_view body) {
  rapidjson::Document doc;
  parse_body(body, doc);
  throw DecodeError("malformed JSON");
}

// The object a slice decodes to: the cache's, when it holds these bytes and look_up says to ask, else
// decode() of the slice's DOM, which the cache then keeps. cache may be null or disabled. Full-mode
// nodes and the pod go through here alike (DecodeCache).
template <class T, class Decode>
std::shared_ptr<const T> decode_slice(std::string_view slice, DecodeCache<T>* cache, bool look_up,
                                      Decode decode) {
  const bool cached = cache && cache->enabled();
  const uint64_t hash = cached ? json_scan::hash_bytes(slice) : 0;
  if (cached && look_up) {
    if (auto hit = cache->find(slice, hash)) return hit;
  }
  auto value = std::make_shared<const T>(decode(SliceDom(slice).value()));
  if (cached) cache->insert(slice, hash, value);
  return value;
}

// A key with escapes ("\\u0050od") is decoded (into storage) before matching; plain keys are used as
// they are.
std::string_view decoded_key(std::string_view raw, std::string& storage) {
  if (raw.find('\\') == std::string_view::npos) return raw;
  storage = unescape_key(raw);
  return storage;
}

// A NodeNames array decoded in the pass that validates it.
struct NamesCandidate {
  const char* begin = nullptr;  // where its slice starts in the body
  NameList names;
  std::string_view bad;  // the first element that is not a string, refused if this list is chosen
  size_t bad_index = 0;
};

// Validates the array at s[pos] and decodes its strings into c: a name without escapes straight from
// the text, any other element through RapidJSON. Returns the end of the array, or kInvalid. With
// `reserve`, sizes the list once from the commas (those after the array, or inside names, only
// over-reserve; capped so that a hostile body of commas cannot reserve more than a large cluster's
// names), the rest of the body bounding the names' bytes. Only the body's first NodeNames list does:
// a body of a thousand such keys would otherwise count and reserve the rest of itself a thousand times.
size_t decode_names(std::string_view s, size_t pos, NamesCandidate& c, bool reserve) {
  if (reserve) {
    constexpr size_t kMaxReserve = 1 << 16;
    const std::string_view rest = s.substr(pos);
    c.names.reserve(std::min<size_t>(json::count_byte(rest, ',') + 1, kMaxReserve), rest.size());
  }
  // While the array is written as NameList keeps it (strings without escapes, bare commas, as
  // kube-scheduler's encoding/json writes it), only each name's end is recorded and the text is copied
  // once; from the first element that is not, the text so far is copied and the rest goes name by name.
  bool verbatim = true;
  size_t base = 0, last_end = 0;  // the first name's quote; one past the last verbatim name's quote
  const auto stop_verbatim = [&] {
    if (!verbatim) return;
    verbatim = false;
    if (!c.names.empty()) c.names.assign_json(s.substr(base, last_end - base));
  };
  size_t i = 0;
  const size_t end = json_scan::walk_items(s, pos, '[', ']', [&](size_t at) {
    if (i++ == 0) base = at;
    if (s[at] == '"') {
      size_t q = json::skip_plain(s, at + 1);
      if (q < s.size() && s[q] == '"') {
        if (verbatim && at != (i == 1 ? base : last_end + 1)) stop_verbatim();
        if (!verbatim) {
          c.names.push_back_plain(s.substr(at + 1, q - at - 1));
          return q + 1;
        }
        // This name and, while the array goes on as `","` before a plain name, the names after it, in
        // one loop rather than one walk_items step each, in fewer instructions per name (callgrind,
        // bench/codec_bench.cc BM_DecodeNames at 500 cloud names; docs/performance.md "Figures behind design
        // choices in the code"). Anything else is left to the next step.
        while (true) {
          last_end = q + 1;
          c.names.push_end(last_end - base);
          if (q + 2 >= s.size() || s[q + 1] != ',' || s[q + 2] != '"') return q + 1;
          const size_t next = json::skip_plain(s, q + 3);
          if (next >= s.size() || s[next] != '"') return q + 1;
          ++i;
          q = next;
        }
      }
    }
    stop_verbatim();
    const size_t value_end = json_scan::skip_value(s, at);
    if (value_end == json_scan::kInvalid) return value_end;
    const std::string_view e = s.substr(at, value_end - at);
    if (e.front() == '"') {
      rapidjson::Document doc;
      parse_slice(e, doc);
      c.names.push_back(json::view(doc));
    } else if (!c.bad.data()) {
      c.bad = e;
      c.bad_index = i - 1;
    }
    return value_end;
  });
  stop_verbatim();
  return end;
}

}  // namespace

// The envelope is cut into slices by a validating scanner instead of one DOM: a full-Nodes body is
// megabytes of node objects, and each node is parsed only if the cache has not seen its bytes. Each
// member of the root is validated once: NodeNames by decoding it (each name scanned once, where the
// validating pass, the walk and the escape check scanned it three times; bench/codec_bench.cc
// BM_DecodeNames measures it), the others by the scanner, which
// records where the containers of Nodes end (its items and each node object) so that the walks below
// jump over them.
void decode_extender_args(std::string_view body, ExtenderArgs& out, NodeDecodeCache* cache, PodReuse pods) {
  json_scan::Spans spans;
  const size_t root = json_scan::skip_ws(body, 0);
  if (root >= body.size() || body[root] != '{') report_bad_body(body);
  auto offset = [&](std::string_view slice) { return static_cast<size_t>(slice.data() - body.data()); };
  KeySlice pod{"Pod", {}, {}}, nodes{"Nodes", {}, {}}, names{"NodeNames", {}, {}};
  std::vector<NamesCandidate> name_lists;  // one per NodeNames-like key: almost always one
  const bool valid = json_scan::for_each_item(body, root, '{', '}', [&](size_t at) {
    if (body[at] != '"') return json_scan::kInvalid;
    const size_t key_end = json_scan::skip_string(body, at);
    if (key_end == json_scan::kInvalid) return key_end;
    std::string unescaped;
    const std::string_view key = decoded_key(body.substr(at + 1, key_end - at - 2), unescaped);
    const size_t colon = json_scan::skip_ws(body, key_end);
    if (colon >= body.size() || body[colon] != ':') return json_scan::kInvalid;
    const size_t begin = json_scan::skip_ws(body, colon + 1);
    size_t end;
    if (begin < body.size() && body[begin] == '[' && json::iequals(key, names.key)) {
      NamesCandidate& c = name_lists.emplace_back();
      c.begin = body.data() + begin;
      end = decode_names(body, begin, c, name_lists.size() == 1);
    } else {
      end = json_scan::skip_value(body, begin, &spans, 3);
    }
    if (end == json_scan::kInvalid) return end;
    const std::string_view value = body.substr(begin, end - begin);
    for (KeySlice* k : {&pod, &nodes, &names}) k->offer(key, value);
    return end;
  });
  if (!valid) report_bad_body(body);

  if (absent(pod.value())) throw DecodeError("Pod: missing (the pod to schedule is required)");
  out.pod = decode_slice(pod.value(), pods.cache, pods.look_up,
                         [](const rapidjson::Value& v) { return decode_pod(v, "Pod"); });

  if (!absent(nodes.value())) {
    out.full_nodes = true;
    KeySlice items{"items", {}, {}};
    if (!json_scan::for_each_member(body, offset(nodes.value()), &spans,
                                    [&](std::string_view key, std::string_view value) {
                                      std::string unescaped;
                                      items.offer(decoded_key(key, unescaped), value);
                                      return true;
                                    })) {
      rapidjson::Document doc;
      parse_slice(nodes.value(), doc);
      json::expect_object(doc, "Nodes");
    }
    if (absent(items.value())) return;
    size_t i = 0;
    if (!json_scan::for_each_element(body, offset(items.value()), &spans, [&](std::string_view item) {
          out.nodes.push_back(decode_slice(item, cache, true, [&](const rapidjson::Value& v) {
            return decode_node(v, "Nodes.items[" + std::to_string(i) + "]");
          }));
          ++i;
          out.node_raw.push_back(item);
          out.node_names.push_back(out.nodes.back()->name);
        })) {
      rapidjson::Document doc;
      parse_slice(items.value(), doc);
      json::expect_array(doc, "Nodes.items");
    }
  } else if (!absent(names.value())) {
    auto decoded = std::find_if(name_lists.begin(), name_lists.end(),
                                [&](const NamesCandidate& c) { return c.begin == names.value().data(); });
    if (decoded == name_lists.end()) {  // not an array
      rapidjson::Document doc;
      parse_slice(names.value(), doc);
      json::expect_array(doc, "NodeNames");
    } else if (decoded->bad.data()) {
      rapidjson::Document doc;
      parse_slice(decoded->bad, doc);
      json::expect_string(doc, "NodeNames[" + std::to_string(decoded->bad_index) + "]");
    }
    out.node_names = std::move(decoded->names);
  } else {
    throw DecodeError("Nodes and NodeNames: both missing or null (one of them is required)");
  }
}

// The replies are appended to one string reserved to their size, names copied whole from the NameList's
// JSON (json::append_string's bytes, which are what rapidjson::Writer wrote, byte for byte;
// tests/kube/codec/extender_args_test.cc compares the two). The Writer copied every name byte by
// byte through its escape check.
namespace {

size_t failed_map_size(const ExtenderArgs& args, const std::vector<RejectedNode>& rejected) {
  size_t size = 2;
  for (const auto& r : rejected) size += args.node_names.json(r.index).size() + r.reason.size() + 2 + 2;
  return size;
}

void append_failed_map(std::string& out, std::string_view key, const ExtenderArgs& args,
                       const std::vector<RejectedNode>& rejected) {
  out.append(key);
  out.push_back('{');
  for (size_t k = 0; k < rejected.size(); ++k) {
    if (k) out.push_back(',');
    out.append(args.node_names.json(rejected[k].index));
    out.push_back(':');
    json::append_string(out, rejected[k].reason);
  }
  out.push_back('}');
}

}  // namespace

std::string encode_filter_reply(const ExtenderArgs& args, const FilterReply& reply) {
  // The scheduler replaces its node objects with what we return, so in full-node mode the passing
  // nodes are echoed as the bytes received (a Writer's RawValue copies them byte by byte into a
  // doubling buffer, slow for a reply of thousands of full nodes).
  constexpr std::string_view kNodesHead = R"({"Nodes":{"metadata":{},"items":[)";
  constexpr std::string_view kNodesTail = R"(]},"NodeNames":null)";
  constexpr std::string_view kNamesHead = R"({"Nodes":null,"NodeNames":[)";
  constexpr std::string_view kNamesTail = "]";
  constexpr std::string_view kFailed = R"(,"FailedNodes":)";
  constexpr std::string_view kUnresolvable = R"(,"FailedAndUnresolvableNodes":)";
  constexpr std::string_view kEnd = R"(,"Error":""})";

  size_t size = std::max(kNodesHead.size() + kNodesTail.size(), kNamesHead.size() + kNamesTail.size()) +
                kFailed.size() + failed_map_size(args, reply.failed) + kUnresolvable.size() +
                failed_map_size(args, reply.unresolvable) + kEnd.size();
  for (size_t i : reply.passed) {
    size += (args.full_nodes ? args.node_raw[i].size() : args.node_names.json(i).size()) + 1;
  }
  std::string out;
  out.reserve(size);
  out.append(args.full_nodes ? kNodesHead : kNamesHead);
  const auto& passed = reply.passed;
  for (size_t k = 0; k < passed.size();) {
    if (k) out.push_back(',');
    if (args.full_nodes) {
      out.append(args.node_raw[passed[k++]]);
      continue;
    }
    // A run of passing names in the request's order is one copy of the names' JSON.
    size_t last = k + 1;
    while (last < passed.size() && passed[last] == passed[last - 1] + 1) ++last;
    out.append(args.node_names.json_run(passed[k], passed[last - 1] + 1));
    k = last;
  }
  out.append(args.full_nodes ? kNodesTail : kNamesTail);
  append_failed_map(out, kFailed, args, reply.failed);
  append_failed_map(out, kUnresolvable, args, reply.unresolvable);
  out.append(kEnd);
  return out;
}

std::string encode_prioritize_reply(const NameList& hosts, const std::vector<int64_t>& scores) {
  constexpr std::string_view kHost = R"({"Host":)";
  constexpr std::string_view kScore = R"(,"Score":)";
  const size_t names = hosts.empty() ? 0 : hosts.json_run(0, hosts.size()).size();
  // Written through a pointer into a buffer sized for the longest reply, then cut: six std::string
  // appends per host, each checking the capacity, were a visible share of prioritize's user time at 500
  // names (docs/performance.md "Figures behind design choices in the code").
  std::string out(2 + names + hosts.size() * (kHost.size() + kScore.size() + json::kMaxIntBytes + 2), '\0');
  char* p = out.data();
  const auto put = [&p](std::string_view s) { p = std::copy(s.begin(), s.end(), p); };
  *p++ = '[';
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (i) *p++ = ',';
    put(kHost);
    put(hosts.json(i));
    put(kScore);
    p = json::write_int(p, scores[i]);
    *p++ = '}';
  }
  *p++ = ']';
  out.resize(static_cast<size_t>(p - out.data()));
  return out;
}

}  // namespace kext
