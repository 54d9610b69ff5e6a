#include "kube/codec/gpu_decode.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"

namespace kext {

namespace {

using json::Value;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// A string annotation's value, nullptr when absent or not a string.
const Value* annotation(const Value* annotations, std::string_view key) {
  if (!annotations || !annotations->IsObject()) return nullptr;
  const Value* v = json::find_non_null(*annotations, key);
  return v && v->IsString() ? v : nullptr;
}

// strconv.ParseInt(s, 10, 32) / Atoi as HAMi's decoders call them.
int64_t parse_integer(std::string_view s, std::string_view what, int64_t lo, int64_t hi) {
  int64_t v = 0;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < lo || v > hi)
    throw DecodeError("invalid " + std::string(what) + " field \"" + std::string(s) + "\"");
  return v;
}

int32_t int32_member(const Value& o, std::string_view key, std::string_view path) {
  const int64_t v = json::get_int(o, key, path).value_or(0);
  if (v < INT32_MIN || v > INT32_MAX)
    throw DecodeError(json::join_path(path, key) + ": out of the int32 range");
  return static_cast<int32_t>(v);
}

gpu::Device json_device(const Value& e, const std::string& p) {
  json::expect_object(e, p);
  gpu::Device d;
  d.id = json::get_string(e, "id", p);
  const int64_t index = json::get_int(e, "index", p).value_or(0);
  if (index < 0 || index > UINT32_MAX) throw DecodeError(json::join_path(p, "index") + ": out of range");
  d.index = static_cast<uint32_t>(index);
  d.count = int32_member(e, "count", p);
  d.memory = int32_member(e, "devmem", p);
  d.cores = int32_member(e, "devcore", p);
  d.type = json::get_string(e, "type", p);
  d.numa = int32_member(e, "numa", p);
  d.mode = json::get_string(e, "mode", p);
  d.health = json::get_bool(e, "health", p);
  return d;
}

// pkg/device/devices.go DecodeNodeDevices: "id,count,memory,cores,type,numa,health[,index,mode]" per card,
// ":" after each.
gpu::Device legacy_device(std::string_view entry) {
  const auto f = split(entry, ',');
  if (f.size() != 7 && f.size() != 9)
    throw DecodeError("unexpected field count " + std::to_string(f.size()) + " in \"" + std::string(entry) +
                      "\"");
  gpu::Device d;
  d.id = std::string(f[0]);
  d.count = static_cast<int32_t>(parse_integer(f[1], "count", INT32_MIN, INT32_MAX));
  d.memory = static_cast<int32_t>(parse_integer(f[2], "memory", INT32_MIN, INT32_MAX));
  d.cores = static_cast<int32_t>(parse_integer(f[3], "core", INT32_MIN, INT32_MAX));
  d.type = std::string(f[4]);
  d.numa = static_cast<int>(parse_integer(f[5], "numa", INT32_MIN, INT32_MAX));
  // strconv.ParseBool's spellings.
  static const std::map<std::string_view, bool> kBools{
      {"1", true},  {"t", true},  {"T", true},  {"TRUE", true},   {"true", true},   {"True", true},
      {"0", false}, {"f", false}, {"F", false}, {"FALSE", false}, {"false", false}, {"False", false}};
  const auto b = kBools.find(f[6]);
  if (b == kBools.end()) throw DecodeError("invalid health field \"" + std::string(f[6]) + "\"");
  d.health = b->second;
  d.mode = "hami-core";
  if (f.size() == 9) {
    d.index = static_cast<uint32_t>(parse_integer(f[7], "index", 0, INT32_MAX));
    d.mode = std::string(f[8]);
  }
  return d;
}

}  // namespace

gpu::NodeDevices parse_gpu_register(std::string_view value) {
  gpu::NodeDevices out;
  const std::string_view t = trim(value);
  if (!t.empty() && t.front() == '[') {
    rapidjson::Document doc;
    doc.Parse<json::kParseFlags>(t.data(), t.size());
    if (doc.HasParseError())
      throw DecodeError(std::string("not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()));
    json::expect_array(doc, "");
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i)
      out.devices.push_back(json_device(doc[i], "[" + std::to_string(i) + "]"));
    return out;
  }
  if (value.find(':') == std::string_view::npos)
    throw DecodeError("neither a JSON list nor a list ended by ':'");
  for (std::string_view entry : split(value, ':')) {
    if (entry.empty()) continue;
    out.devices.push_back(legacy_device(entry));
  }
  return out;
}

void parse_gpu_pair_scores(std::string_view value, gpu::NodeDevices& into) {
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(value.data(), value.size());
  if (doc.HasParseError())
    throw DecodeError(std::string("not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()));
  if (doc.IsNull()) return;
  json::expect_array(doc, "");
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    const std::string p = "[" + std::to_string(i) + "]";
    json::expect_object(doc[i], p);
    const std::string uuid = json::get_string(doc[i], "uuid", p);
    std::vector<std::pair<std::string, int>> scores;
    if (const Value* s = json::find_non_null(doc[i], "score")) {
      json::expect_object(*s, p + ".score");
      for (auto it = s->MemberBegin(); it != s->MemberEnd(); ++it) {
        if (!it->value.IsInt()) json::fail_type(p + ".score", "integer", it->value);
        scores.emplace_back(std::string(json::view(it->name)), it->value.GetInt());
      }
    }
    // getDevicePairScores: a card takes the first entry with its UUID.
    for (auto& d : into.devices)
      if (d.id == uuid && d.pair_scores.empty()) d.pair_scores = scores;
  }
}

gpu::Weights parse_gpu_weights(std::string_view value) {
  // pkg/util/device_scoring_weights.go ParseDeviceScoringWeights.
  gpu::Weights w{0, 0, 0};
  const auto parts = split(value, ',');
  if (parts.size() != 3) throw DecodeError("expected slot, core, and memory weights");
  std::vector<std::string_view> seen;
  for (std::string_view part : parts) {
    const std::string_view kv = trim(part);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) throw DecodeError("expected key=value entries");
    const std::string_view key = trim(kv.substr(0, eq));
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw DecodeError("duplicate \"" + std::string(key) + "\" weight");
    const int64_t weight = parse_integer(trim(kv.substr(eq + 1)), key, 0, INT64_MAX);
    if (key == "slot")
      w.slot = weight;
    else if (key == "core")
      w.core = weight;
    else if (key == "memory")
      w.memory = weight;
    else
      throw DecodeError("unknown weight \"" + std::string(key) + "\"");
    seen.push_back(key);
  }
  if (w.slot == 0 && w.core == 0 && w.memory == 0) throw DecodeError("at least one weight must be positive");
  return w;
}

gpu::PodAllocation parse_gpu_allocation(std::string_view value) {
  // pkg/device/devices.go DecodePodDevices / DecodeContainerDevices: ";" after each container, ":"
  // after each card, an entry without a comma skipped.
  gpu::PodAllocation out;
  for (std::string_view container : split(value, ';')) {
    std::vector<gpu::ContainerDevice> cards;
    for (std::string_view entry : split(container, ':')) {
      if (entry.find(',') == std::string_view::npos) continue;
      const auto f = split(entry, ',');
      if (f.size() < 4) throw DecodeError("missing fields in \"" + std::string(entry) + "\"");
      cards.push_back(gpu::ContainerDevice{
          std::string(f[0]), static_cast<int32_t>(parse_integer(f[2], "memory", INT32_MIN, INT32_MAX)),
          static_cast<int32_t>(parse_integer(f[3], "core", INT32_MIN, INT32_MAX))});
    }
    out.push_back(std::move(cards));
  }
  return out;
}

std::shared_ptr<const gpu::NodeDevices> decode_node_gpus(const Value* annotations) {
  const Value* reg = annotation(annotations, gpu::kRegisterAnnotation);
  if (!reg) return nullptr;
  auto out = std::make_shared<gpu::NodeDevices>();
  try {
    *out = parse_gpu_register(json::view(*reg));
    if (const Value* s = annotation(annotations, gpu::kPairScoreAnnotation))
      parse_gpu_pair_scores(json::view(*s), *out);
  } catch (const DecodeError& e) {
    *out = gpu::NodeDevices{};
    out->error = std::string(gpu::kRegisterAnnotation) + ": " + e.what();
    return out;
  }
  if (const Value* l = annotation(annotations, gpu::kNodeLockAnnotation)) {
    // nodelock.go: "time,namespace,name".
    const auto parts = split(json::view(*l), ',');
    if (parts.size() == 3) out->locked_by = namespaced_key(parts[1], parts[2]);
  }
  if (const Value* c = annotation(annotations, gpu::kCordonAnnotation)) {
    for (std::string_view id : split(json::view(*c), ','))
      if (!trim(id).empty()) out->cordoned.emplace_back(trim(id));
  }
  return out;
}

std::shared_ptr<const gpu::PodPreferences> decode_gpu_preferences(const Value* annotations) {
  static constexpr std::string_view kKeys[] = {
      gpu::kUseTypeAnnotation,    gpu::kNoUseTypeAnnotation, gpu::kUseUuidAnnotation,
      gpu::kNoUseUuidAnnotation,  gpu::kModeAnnotation,      gpu::kNumaBindAnnotation,
      gpu::kNodePolicyAnnotation, gpu::kGpuPolicyAnnotation, gpu::kWeightsAnnotation};
  const bool any = std::any_of(std::begin(kKeys), std::end(kKeys),
                               [&](std::string_view k) { return annotation(annotations, k) != nullptr; });
  if (!any) return nullptr;
  auto out = std::make_shared<gpu::PodPreferences>();
  auto text = [&](std::string_view key) -> std::optional<std::string> {
    const Value* v = annotation(annotations, key);
    return v ? std::optional<std::string>(std::string(json::view(*v))) : std::nullopt;
  };
  out->use_types = text(gpu::kUseTypeAnnotation).value_or("");
  out->nouse_types = text(gpu::kNoUseTypeAnnotation).value_or("");
  out->use_uuids = text(gpu::kUseUuidAnnotation).value_or("");
  out->nouse_uuids = text(gpu::kNoUseUuidAnnotation).value_or("");
  out->mode = text(gpu::kModeAnnotation);
  // assertNuma: strconv.ParseBool, anything else is false.
  const std::string numa = text(gpu::kNumaBindAnnotation).value_or("");
  out->numa_bind =
      numa == "1" || numa == "t" || numa == "T" || numa == "true" || numa == "TRUE" || numa == "True";
  out->node_policy = text(gpu::kNodePolicyAnnotation);
  out->gpu_policy = text(gpu::kGpuPolicyAnnotation);
  if (const auto w = text(gpu::kWeightsAnnotation)) {
    try {
      out->weights = parse_gpu_weights(*w);
    } catch (const DecodeError& e) {
      out->error = "pod annotation " + std::string(gpu::kWeightsAnnotation) + " \"" + *w + "\": " + e.what();
    }
  }
  return out;
}

std::shared_ptr<const gpu::PodShares> decode_gpu_shares(const Value* annotations, size_t init_containers) {
  const Value* v = annotation(annotations, gpu::kAllocatedAnnotation);
  if (!v) return nullptr;
  try {
    return std::make_shared<const gpu::PodShares>(
        gpu::collapse_allocation(parse_gpu_allocation(json::view(*v)), init_containers));
  } catch (const DecodeError& e) {
    gpu::PodShares undecoded;
    undecoded.error =
        std::string(gpu::kAllocatedAnnotation) + " \"" + std::string(json::view(*v)) + "\": " + e.what();
    return std::make_shared<const gpu::PodShares>(std::move(undecoded));
  }
}

}  // namespace kext
