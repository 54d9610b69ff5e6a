#include "kube/client/api_errors.h"

#include "common/log.h"

namespace kext::kube {

namespace {

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    if (slash != 0) out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

std::string_view without_query(std::string_view path) { return path.substr(0, path.find('?')); }

bool is_watch(std::string_view path) {
  const size_t q = path.find('?');
  if (q == std::string_view::npos) return false;
  const std::string_view query = path.substr(q);
  return query.find("watch=1") != std::string_view::npos ||
         query.find("watch=true") != std::string_view::npos;
}

// One line: a server's message may carry line breaks, which would split the log line.
std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string api_resource(std::string_view path) {
  const std::string_view bare = without_query(path);
  std::vector<std::string_view> s = segments(bare);
  // /api/VERSION/... (the core group) and /apis/GROUP/VERSION/...
  const size_t prefix = !s.empty() && s[0] == "api" ? 2 : !s.empty() && s[0] == "apis" ? 3 : 0;
  if (prefix == 0 || s.size() <= prefix) return std::string(bare);
  s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(prefix));
  if (s[0] == "namespaces" && s.size() >= 3) s.erase(s.begin(), s.begin() + 2);  // namespaces/NS/RESOURCE
  std::string resource(s[0]);
  if (s.size() >= 3) resource.append("/").append(s[2]);  // RESOURCE/NAME/SUBRESOURCE
  return resource;
}

void ApiErrorReporter::configure(Options options) {
  if (!options.now) options.now = Clock::now;
  if (!options.log) options.log = [](std::string_view line) { log_line(line); };
  std::lock_guard lock(mu_);
  options_ = std::move(options);
}

void ApiErrorReporter::set_enabled(bool enabled) {
  std::lock_guard lock(mu_);
  enabled_ = enabled;
}

void ApiErrorReporter::report(const ApiFailure& f) {
  const std::string resource = api_resource(f.path);
  std::string line;
  std::function<void(std::string_view)> log;
  {
    std::lock_guard lock(mu_);
    if (!enabled_) return;
    ++counts_[{resource, f.status}];
    const auto now = options_.now();
    auto [it, first] = logged_.try_emplace(f.method + " " + resource + " " + f.status, Logged{now, 0});
    Logged& logged = it->second;
    if (!first && now - logged.at < options_.interval) {
      ++logged.since;
      return;
    }
    line = f.method + " " + std::string(without_query(f.path)) + (is_watch(f.path) ? " (watch)" : "") + ": " +
           one_line(f.message);
    if (logged.since > 0) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - logged.at).count();
      line += " (" + std::to_string(logged.since) + " more like it in the last " + std::to_string(seconds) +
              " s)";
    }
    logged = Logged{now, 0};
    log = options_.log;
  }
  log(line);
}

std::vector<ApiErrorReporter::Count> ApiErrorReporter::counts() const {
  std::lock_guard lock(mu_);
  std::vector<Count> out;
  out.reserve(counts_.size());
  for (const auto& [key, n] : counts_) out.push_back(Count{key.first, key.second, n});
  return out;
}

uint64_t ApiErrorReporter::count(std::string_view resource, std::string_view status) const {
  std::lock_guard lock(mu_);
  auto it = counts_.find(std::pair<std::string, std::string>(resource, status));
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace kext::kube
