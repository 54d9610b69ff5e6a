#pragma once
// The node names of one request, in order, in one buffer. kube-scheduler sends ~500 names per request
// at 5000 nodes; a cloud node name (ip-10-0-12-34.us-west-2.compute.internal: 25-45 bytes) does not fit
// std::string's 15-byte small buffer, so a std::vector<std::string> cost one malloc per name to decode
// and one free when the decision log dropped the request, usually on another thread's arena.
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace kext {

class NameList {
 public:
  NameList() = default;
  NameList(std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) push_back(n);
  }

  void reserve(size_t names, size_t bytes) {
    ends_.reserve(names);
    bytes_.reserve(bytes);
  }
  void push_back(std::string_view name) {
    bytes_.append(name);
    ends_.push_back(bytes_.size());
  }

  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }
  // Heap bytes held: what the decision log budgets by.
  size_t capacity_bytes() const { return bytes_.capacity() + ends_.capacity() * sizeof(size_t); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;
    const_iterator() = default;
    const_iterator(const NameList* list, size_t i) : list_(list), i_(i) {}
    std::string_view operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++i_;
      return before;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const NameList* list_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  // Two lists are equal when they hold the same names in the same order (the same bytes, cut alike).
  bool operator==(const NameList&) const = default;

 private:
  std::string bytes_;
  std::vector<size_t> ends_;  // one past each name's last byte
};

}  // namespace kext
