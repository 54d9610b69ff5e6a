#include "extender/verbs/gang_replicas.h"

#include "extender/verbs/verbs.h"
#include "json/json.h"

namespace kext {

namespace {

// A room request names the copy it has: {"Holder":h,"Since":v}; an empty body asks for all of it.
struct RoomRequest {
  std::string holder;
  uint64_t since = 0;
};

RoomRequest decode_room_request(std::string_view body) {
  RoomRequest out;
  if (body.empty()) return out;
  rapidjson::Document d;
  d.Parse<json::kParseFlags>(body.data(), body.size());
  if (d.HasParseError())
    throw DecodeError(std::string("gang room request: ") + GetParseError_En(d.GetParseError()));
  json::expect_object(d, "gang room request");
  if (const json::Value* h = json::find_non_null(d, "Holder")) {
    if (!h->IsString()) json::fail_type("Holder", "string", *h);
    out.holder = std::string(json::view(*h));
  }
  if (const json::Value* v = json::find_non_null(d, "Since")) {
    if (!v->IsUint64()) json::fail_type("Since", "unsigned integer", *v);
    out.since = v->GetUint64();
  }
  return out;
}

std::string encode_room_request(const std::string& holder, uint64_t since) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("Holder");
  w.String(holder.data(), static_cast<rapidjson::SizeType>(holder.size()));
  w.Key("Since");
  w.Uint64(since);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace

std::string encode_shared_room(const std::string& holder, const HeldRoom& room, bool unchanged) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("Holder");
  w.String(holder.data(), static_cast<rapidjson::SizeType>(holder.size()));
  w.Key("Version");
  w.Uint64(room.version);
  if (!unchanged) {
    w.Key("Nodes");
    w.StartObject();
    for (const auto& [node, members] : room.by_node) {
      w.Key(node.data(), static_cast<rapidjson::SizeType>(node.size()));
      w.StartArray();
      for (const auto& m : members)
        w.String(m->pod->uid.data(), static_cast<rapidjson::SizeType>(m->pod->uid.size()));
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

SharedRoom decode_shared_room(std::string_view body, bool* unchanged) {
  rapidjson::Document d;
  d.Parse<json::kParseFlags>(body.data(), body.size());
  if (d.HasParseError()) throw DecodeError(std::string("gang room: ") + GetParseError_En(d.GetParseError()));
  json::expect_object(d, "gang room");
  SharedRoom out;
  const json::Value* h = json::find_non_null(d, "Holder");
  if (!h || !h->IsString()) throw DecodeError("gang room: Holder: expected string");
  out.holder = std::string(json::view(*h));
  const json::Value* v = json::find_non_null(d, "Version");
  if (!v || !v->IsUint64()) throw DecodeError("gang room: Version: expected unsigned integer");
  out.version = v->GetUint64();
  const json::Value* nodes = json::find_non_null(d, "Nodes");
  *unchanged = nodes == nullptr;
  if (!nodes) return out;
  json::expect_object(*nodes, "Nodes");
  for (auto it = nodes->MemberBegin(); it != nodes->MemberEnd(); ++it) {
    const std::string path = json::join_path("Nodes", json::view(it->name));
    if (!it->value.IsArray()) json::fail_type(path, "array", it->value);
    auto& uids = out.uids_by_node[std::string(json::view(it->name))];
    for (const json::Value& uid : it->value.GetArray()) {
      if (!uid.IsString()) json::fail_type(path + "[]", "string", uid);
      uids.emplace_back(json::view(uid));
    }
  }
  return out;
}

Reply LeaseGangReplicas::serve_room(std::string_view body) const {
  if (!holds()) {
    return Reply{kNotHolderStatus,
                 json::error_body("replica " + identity() +
                                  " does not hold the Lease: its gang room decides nothing")};
  }
  RoomRequest req;
  try {
    req = decode_room_request(body);
  } catch (const DecodeError& e) {
    return bad_request(e.what());
  }
  const std::shared_ptr<const ClusterState> state = gangs_.store().current();
  const std::shared_ptr<const HeldRoom> room = gangs_.held_room(state.get());
  const bool unchanged = req.holder == identity() && req.since == room->version;
  return Reply{200, encode_shared_room(identity(), *room, unchanged)};
}

Reply Verbs::holder_gang_room_traced(std::string_view body, VerbTrace*) const {
  if (!replicas_)
    return bad_request("gang scheduling with --leader-elect is not enabled on this extender", 404);
  return replicas_->serve_room(body);
}

LeaseGangReplicas::LeaseGangReplicas(const kube::LeaderElector& elector, const BindForwarder& forwarder,
                                     GangCoordinator& gangs)
    : elector_(elector), forwarder_(forwarder), gangs_(gangs), thread_([this] { run(); }) {}

LeaseGangReplicas::~LeaseGangReplicas() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void LeaseGangReplicas::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    if (!holds()) refresh();
    lock.lock();
    cv_.wait_for(lock, kRoomRefresh, [this] { return stopping_; });
  }
}

void LeaseGangReplicas::refresh() {
  std::string request;
  {
    std::lock_guard lock(mu_);
    request = encode_room_request(copy_.holder, copy_.version);
  }
  const kube::ApiResponse r = forwarder_.ask_holder(kHolderGangRoomRoute, request, kRoomRefresh * 5);
  std::optional<SharedRoom> fresh;
  bool unchanged = false;
  if (r.status == 200) {
    try {
      fresh = decode_shared_room(r.body, &unchanged);
    } catch (const DecodeError&) {
      fresh.reset();
    }
  }
  std::lock_guard lock(mu_);
  const Clock::time_point now = Clock::now();
  if (!fresh) {
    if (now - answered_at_ > kRoomKeep) copy_ = SharedRoom{};
    return;
  }
  answered_at_ = now;
  if (!unchanged) {
    copy_ = std::move(*fresh);
  } else if (fresh->holder != copy_.holder || fresh->version != copy_.version) {
    copy_ = SharedRoom{};  // "unchanged" from another holder than the copy's: not ours to keep
  }
}

std::shared_ptr<const HeldRoom> LeaseGangReplicas::holder_room(
    const std::shared_ptr<const ClusterState>& state) const {
  std::lock_guard lock(mu_);
  if (resolved_for_ == state && resolved_version_ == copy_.version && resolved_holder_ == copy_.holder)
    return resolved_;
  auto room = std::make_shared<HeldRoom>();
  room->version = copy_.version;
  for (const auto& [node, uids] : copy_.uids_by_node) {
    for (const std::string& uid : uids) {
      const std::shared_ptr<const PodInfo>* p = state ? state->pods_by_uid.find(uid) : nullptr;
      if (p && (*p)->pod->node_name.empty()) room->by_node[node].push_back(*p);
    }
  }
  resolved_for_ = state;
  resolved_version_ = copy_.version;
  resolved_holder_ = copy_.holder;
  resolved_ = std::move(room);
  return resolved_;
}

}  // namespace kext
