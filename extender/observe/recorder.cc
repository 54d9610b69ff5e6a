#include "extender/observe/recorder.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "common/record_format.h"

namespace kext {

namespace fs = std::filesystem;

namespace {

constexpr size_t kStdioBuffer = 1u << 20;

}  // namespace

Recorder::Recorder(RecorderConfig config) : config_(std::move(config)) {
  if (config_.max_bytes == 0) throw std::runtime_error("--record-max-bytes: must be > 0");
  if (config_.file_bytes == 0) config_.file_bytes = std::max<uint64_t>(1, config_.max_bytes / 4);
  std::error_code ec;
  fs::create_directories(config_.dir, ec);
  if (ec || !fs::is_directory(config_.dir)) {
    throw std::runtime_error("--record-dir " + config_.dir + ": cannot create directory" +
                             (ec ? ": " + ec.message() : std::string()));
  }
  // Earlier runs' recordings count against the bound, and new files continue their numbering, so a
  // restarted server neither overwrites nor grows past the limit.
  for (const auto& e : fs::directory_iterator(config_.dir, ec)) {
    uint64_t index = 0;
    if (!e.is_regular_file() || !parse_record_file_name(e.path().filename().string(), &index)) continue;
    uint64_t size = e.file_size(ec);
    if (ec) size = 0;
    files_.push_back({index, size});
    total_bytes_ += size;
  }
  std::sort(files_.begin(), files_.end(), [](const File& a, const File& b) { return a.index < b.index; });
  if (!open_next_locked()) {
    throw std::runtime_error("--record-dir " + config_.dir + ": cannot create " +
                             record_file_name(files_.back().index));
  }
  flusher_ = std::thread([this] { flusher_loop(); });
}

Recorder::~Recorder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  flusher_.join();
  if (out_) std::fclose(out_);
}

bool Recorder::open_next_locked() {
  if (out_) std::fclose(out_);
  const uint64_t index = files_.empty() ? 1 : files_.back().index + 1;
  files_.push_back({index, 0});
  out_ = std::fopen((fs::path(config_.dir) / record_file_name(index)).c_str(), "wb");
  if (out_) std::setvbuf(out_, nullptr, _IOFBF, kStdioBuffer);
  enforce_bound_locked();
  return out_ != nullptr;
}

void Recorder::enforce_bound_locked() {
  while (files_.size() > 1 && total_bytes_ > config_.max_bytes) {
    std::error_code ec;
    fs::remove(fs::path(config_.dir) / record_file_name(files_.front().index), ec);
    total_bytes_ -= files_.front().bytes;
    files_.pop_front();
  }
}

void Recorder::record(std::string_view verb, std::string_view content_type, std::string_view content_length,
                      std::string_view body, int status, std::string_view reply) noexcept {
  try {
    RecordView e;
    e.seq = next_seq();
    e.time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    e.verb = verb;
    e.content_type = content_type;
    e.content_length = content_length;
    e.body = body;
    e.status = status;
    e.reply = reply;
    // Escaping happens outside the lock, so concurrent connections only serialise on the write.
    record_line(encode_record_line(e));
  } catch (...) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Recorder::record_line(const std::string& line) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  // A record that alone exceeds the bound could never be kept.
  if (line.size() > config_.max_bytes || !out_) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (files_.back().bytes > 0 && files_.back().bytes + line.size() > config_.file_bytes) {
    if (!open_next_locked()) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size()) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  dirty_ = true;
  files_.back().bytes += line.size();
  total_bytes_ += line.size();
  enforce_bound_locked();
}

void Recorder::flush() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (out_ && dirty_) std::fflush(out_);
  dirty_ = false;
}

void Recorder::flusher_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, std::chrono::seconds(1));
    if (out_ && dirty_) std::fflush(out_);
    dirty_ = false;
  }
  if (out_) std::fflush(out_);
}

}  // namespace kext
