#pragma once
// A connection's received bytes: what std::string did for the transport, without zero-filling the room a
// read is given. read(2) writes into spare capacity; std::string can only be resized over it first,
// which cleared the whole buffer kept from the last request (larger than the request's body)
// before every read: many instructions a request under callgrind, rep stosb counted per byte, and as
// many cache lines dirtied before the request's own work began (docs/performance.md "Figures behind design
// choices in the code").
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace kext {

class ReceiveBuffer {
 public:
  ReceiveBuffer() = default;
  ReceiveBuffer(ReceiveBuffer&& o) noexcept
      : bytes_(std::move(o.bytes_)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  ReceiveBuffer& operator=(ReceiveBuffer&& o) noexcept {
    bytes_ = std::move(o.bytes_);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }

  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  operator std::string_view() const { return {bytes_.get(), size_}; }

  // Room for at least n bytes in all, the bytes held kept.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    std::unique_ptr<char[]> bigger(new char[n]);  // default-initialised: not cleared
    if (size_) std::memcpy(bigger.get(), bytes_.get(), size_);
    bytes_ = std::move(bigger);
    capacity_ = n;
  }
  // Where the next bytes go: capacity() - size() of them may be written, then commit()ted.
  char* spare() { return bytes_.get() + size_; }
  void commit(size_t n) { size_ += n; }
  void append(const char* p, size_t n) {
    if (size_ + n > capacity_) reserve(std::max(size_ + n, 2 * capacity_));
    std::memcpy(spare(), p, n);
    size_ += n;
  }
  // Drops the first n bytes (a request that has been answered); a pipelined rest moves to the front.
  void consume(size_t n) {
    if (n >= size_) {
      size_ = 0;
      return;
    }
    std::memmove(bytes_.get(), bytes_.get() + n, size_ - n);
    size_ -= n;
  }
  // Gives the memory back.
  void release() { *this = ReceiveBuffer(); }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace kext
