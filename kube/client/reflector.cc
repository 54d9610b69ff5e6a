#include "kube/client/reflector.h"

#include <cstdio>

#include "common/log.h"
#include "json/json.h"
#include "kube/client/lister.h"

namespace kext::kube {

Reflector::Reflector(ApiClient& api, ReflectorOptions opts, ResourceSink& sink)
    : api_(api),
      opts_(std::move(opts)),
      sink_(sink),
      rng_(std::random_device{}()),
      next_backoff_(opts_.backoff_initial) {}

Reflector::~Reflector() { stop(); }

void Reflector::start() {
  thread_ = std::thread([this] { run(); });
}

void Reflector::stop() {
  stopping_.store(true);
  wait_cv_.notify_all();
  canceller_.cancel();
  if (thread_.joinable()) thread_.join();
}

ReflectorStatus Reflector::status() const {
  std::lock_guard lock(status_mu_);
  return status_;
}

void Reflector::note_error(const std::string& what) {
  log_line(opts_.resource + ": " + what);
  record_error(what);
}

void Reflector::record_error(const std::string& what) {
  std::lock_guard lock(status_mu_);
  status_.last_error = what;
}

void Reflector::touch() {
  std::lock_guard lock(status_mu_);
  status_.last_activity = std::chrono::steady_clock::now();
}

bool Reflector::backoff() {
  std::uniform_real_distribution<double> jitter(1.0, 2.0);
  auto wait = std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(next_backoff_.count()) * jitter(rng_)));
  next_backoff_ = std::min(next_backoff_ * 2, opts_.backoff_max);
  std::unique_lock lock(wait_mu_);
  return !wait_cv_.wait_for(lock, wait, [this] { return stopping_.load(); });
}

void Reflector::run() {
  bool need_list = true;
  bool last_was_gone = false;
  while (!stopping_) {
    if (need_list) {
      if (!list()) {
        {
          std::lock_guard lock(status_mu_);
          ++status_.failures;
        }
        if (!backoff()) return;
        continue;
      }
      need_list = false;
      next_backoff_ = opts_.backoff_initial;
    }
    switch (watch()) {
      case WatchEnd::Expired:
        last_was_gone = false;
        next_backoff_ = opts_.backoff_initial;
        break;
      case WatchEnd::Gone:
        need_list = true;
        // A server that answers 410 to a fresh list's resourceVersion would make us spin.
        if (last_was_gone && !backoff()) return;
        last_was_gone = true;
        break;
      case WatchEnd::Failed:
        last_was_gone = false;
        if (!backoff()) return;
        break;
      case WatchEnd::Stopped:
        return;
    }
  }
}

bool Reflector::list() {
  ListHooks hooks;
  hooks.begin = [&](bool restart) {
    if (restart) note_error("list continue token expired; listing again");
    sink_.list_begin();
  };
  hooks.item = [&](const json::Value& item) {
    try {
      sink_.list_item(item);
    } catch (const DecodeError& e) {
      note_error(std::string("skipping an object that does not decode: ") + e.what());
      std::lock_guard lock(status_mu_);
      ++status_.bad_objects;
    }
  };
  hooks.page = [&] { touch(); };
  hooks.keep_going = [&] { return !stopping_.load(); };
  hooks.canceller = &canceller_;
  const ListResult r = list_all(api_, ListRequest{opts_.path, opts_.page_size, opts_.idle_timeout}, hooks);
  if (stopping_) return false;
  if (!r.complete) {
    r.reported ? record_error(r.error) : note_error(r.error);
    return false;
  }
  sink_.list_end();
  rv_ = r.resource_version;
  std::lock_guard lock(status_mu_);
  ++status_.lists;
  status_.synced = true;
  status_.resource_version = rv_;
  return true;
}

std::string Reflector::watch_path() {
  // reflector.go ListAndWatch: the server ends each watch after a random time in [min, 2·min), so that
  // watchers spread over API servers.
  std::uniform_int_distribution<int64_t> spread(opts_.watch_timeout_min.count(),
                                                2 * opts_.watch_timeout_min.count() - 1);
  return opts_.path + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + url_escape(rv_) +
         "&timeoutSeconds=" + std::to_string(std::max<int64_t>(1, spread(rng_)));
}

void Reflector::handle_event(std::string_view text, WatchStream& s) {
  if (s.gone || !s.failure.empty()) return;
  rapidjson::Document ev;
  ev.Parse<json::kParseFlags>(text.data(), text.size());
  if (ev.HasParseError() || !ev.IsObject()) {
    s.failure = "watch event is not a JSON object";
    return;
  }
  auto type_it = ev.FindMember("type");
  auto obj_it = ev.FindMember("object");
  if (type_it == ev.MemberEnd() || !type_it->value.IsString() || obj_it == ev.MemberEnd() ||
      !obj_it->value.IsObject()) {
    s.failure = "watch event without type or object";
    return;
  }
  std::string_view type(type_it->value.GetString(), type_it->value.GetStringLength());
  const json::Value& obj = obj_it->value;
  if (type == "ERROR") {
    auto code = obj.FindMember("code");
    if (code != obj.MemberEnd() && code->value.IsInt() && code->value.GetInt() == 410) {
      s.gone = true;
    } else {
      // reflector.go watchHandler: an ERROR event's Status is the error the watch ends with.
      auto msg = obj.FindMember("message");
      s.error_status =
          code != obj.MemberEnd() && code->value.IsInt() ? std::to_string(code->value.GetInt()) : "error";
      s.failure = "ERROR event: HTTP " + s.error_status + ": " +
                  (msg != obj.MemberEnd() && msg->value.IsString() ? msg->value.GetString() : "(no message)");
    }
    return;
  }
  std::string rv = string_at(obj, "metadata", "resourceVersion");
  if (type == "BOOKMARK") {
    ++s.bookmarks;
  } else {
    EventType t;
    if (type == "ADDED")
      t = EventType::Added;
    else if (type == "MODIFIED")
      t = EventType::Modified;
    else if (type == "DELETED")
      t = EventType::Deleted;
    else
      return;  // a type from the future: skip it
    ++s.events;
    try {
      sink_.event(t, obj);
    } catch (const DecodeError& e) {
      ++s.bad;
      note_error(std::string("skipping an event whose object does not decode: ") + e.what());
    }
  }
  if (!rv.empty()) rv_ = rv;
}

Reflector::WatchFailure Reflector::watch_failure(const ApiResponse& resp, const WatchStream& s) const {
  if (!s.error_status.empty()) return {s.failure, s.error_status};
  if (!s.failure.empty()) return {s.failure, ""};
  if (resp.status != 200) return {resp.describe(), resp.status_label(), true};  // no stream began
  if (resp.error.empty() || resp.cause == "cancelled") return {};
  // cpp-httplib says "Read" both when the server closed the stream and when our read timed out (the
  // idle timeout): the time since the last data tells them apart.
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::duration<double> silent = now - s.last_data, open = now - s.started;
  char seconds[32];
  WatchFailure f;
  if (silent + std::chrono::milliseconds(100) >= opts_.idle_timeout) {
    std::snprintf(seconds, sizeof seconds, "%.1f", silent.count());
    f = {std::string("no data for ") + seconds + " s (idle timeout), connection abandoned", "timeout"};
  } else {
    std::snprintf(seconds, sizeof seconds, "%.1f", open.count());
    f = {std::string("connection closed by the API server after ") + seconds + " s", "closed"};
  }
  if (s.splitter.pending()) f.why += " (mid-event)";
  return f;
}

Reflector::WatchEnd Reflector::watch() {
  const std::string path = watch_path();
  {
    std::lock_guard lock(status_mu_);
    ++status_.watches;
  }
  WatchStream s;
  s.started = s.last_data = std::chrono::steady_clock::now();
  auto on_event = [&](std::string_view text) { handle_event(text, s); };
  ApiResponse resp = api_.stream(
      path, opts_.idle_timeout,
      [&](std::string_view data) {
        touch();
        s.last_data = std::chrono::steady_clock::now();
        bool ok = s.splitter.feed(data, on_event);
        sink_.flush();
        if (!ok) s.failure = s.splitter.error();
        return ok && !s.gone && s.failure.empty() && !stopping_;
      },
      &canceller_, Expected{410});
  sink_.flush();
  {
    std::lock_guard lock(status_mu_);
    status_.events += s.events;
    status_.bookmarks += s.bookmarks;
    status_.bad_objects += s.bad;
    status_.resource_version = rv_;
  }
  if (stopping_) return WatchEnd::Stopped;
  if (s.gone || resp.status == 410) {
    std::lock_guard lock(status_mu_);
    ++status_.gone;
    return WatchEnd::Gone;
  }
  const WatchFailure f = watch_failure(resp, s);
  if (f.why.empty()) return WatchEnd::Expired;
  if (f.reported) {
    record_error("watch ended: " + f.why);
  } else if (!f.status.empty()) {
    // A stream the server ended with an error, or broke: only this side sees it.
    api_.errors().report(ApiFailure{"GET", path, f.status, f.why});
    record_error("watch ended: " + f.why);
  } else {
    note_error("watch ended: " + f.why);
  }
  std::lock_guard lock(status_mu_);
  ++status_.failures;
  return WatchEnd::Failed;
}

}  // namespace kext::kube
