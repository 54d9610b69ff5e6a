#pragma once
// --record-dir: appends every verb exchange to JSON Lines files (record_format.h) so extender-load can
// replay real traffic. Size-bounded: files rotate at file_bytes and the oldest are deleted once the
// directory's recordings exceed max_bytes.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace kext {

// The --record-max-bytes default.
inline constexpr uint64_t kDefaultRecordMaxBytes = uint64_t{256} << 20;

struct RecorderConfig {
  std::string dir;
  uint64_t max_bytes = kDefaultRecordMaxBytes;
  uint64_t file_bytes = 0;  // 0 = max_bytes / 4: rotation deletes a quarter of the history at a time
};

class Recorder {
 public:
  // Creates the directory if needed. Throws std::runtime_error naming the directory if it cannot.
  explicit Recorder(RecorderConfig config);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Thread-safe. Never throws: an I/O failure only counts as dropped (the server must keep serving).
  // content_type / content_length: the request's headers as sent ("" = absent).
  void record(std::string_view verb, std::string_view content_type, std::string_view content_length,
              std::string_view body, int status, std::string_view reply) noexcept;
  void record_line(const std::string& line) noexcept;
  void flush() noexcept;

  uint64_t next_seq() { return seq_.fetch_add(1, std::memory_order_relaxed) + 1; }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  struct File {
    uint64_t index;
    uint64_t bytes;
  };
  bool open_next_locked();
  void enforce_bound_locked();
  void flusher_loop();

  RecorderConfig config_;
  std::atomic<uint64_t> seq_{0};
  std::atomic<uint64_t> dropped_{0};

  std::mutex mu_;
  std::deque<File> files_;  // oldest first; back() is the one being written
  uint64_t total_bytes_ = 0;
  std::FILE* out_ = nullptr;
  bool dirty_ = false;

  // A line sits in stdio's buffer until it fills or this thread flushes once a second, so a quiet
  // server's recordings still reach the disk promptly.
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread flusher_;
};

}  // namespace kext
