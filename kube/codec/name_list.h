#pragma once
// The node names of one request, in order, in one buffer, kept as JSON: each name quoted and escaped
// as json::append_string writes it (rapidjson::Writer's bytes), the names joined by commas, so that
// the buffer is the body of the JSON array of the names.
//
// One buffer: kube-scheduler sends ~500 names per request at 5000 nodes, and a cloud node name
// (ip-10-0-12-34.us-west-2.compute.internal: 25-45 bytes) does not fit std::string's 15-byte small
// buffer, so a std::vector<std::string> cost one malloc per name to decode and one free when the decision
// log dropped the request, usually on another thread's arena.
//
// As JSON: the replies list the request's names again. Filter's NodeNames are the passing names, most
// often all of them or long runs in the request's order, and each run is one copy of this buffer
// (json_run); prioritize writes each name with json(i). Before, each name went through append_string
// once more, a visible share of filter's user time at 500 cloud names (docs/performance.md "Figures behind
// design choices in the code").
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/append.h"

namespace kext {

class NameList {
 public:
  NameList() = default;
  NameList(std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) push_back(n);
  }

  // json_bytes: the names' JSON, quotes and commas included (a body's array bounds it).
  void reserve(size_t names, size_t json_bytes) {
    ends_.reserve(names);
    json_.reserve(json_bytes);
  }
  void push_back(std::string_view name) {
    if (!ends_.empty()) json_.push_back(',');
    const size_t at = json_.size();
    json::append_string(json_, name);
    // A name that needed escapes is kept as it is too: name(i) hands back the name, not its JSON.
    if (json_.size() - at != name.size() + 2) escaped_.emplace_back(ends_.size(), std::string(name));
    ends_.push_back(json_.size());
  }
  // For a name the caller has checked is json::plain_byte throughout: no escape to look for.
  void push_back_plain(std::string_view name) {
    if (!ends_.empty()) json_.push_back(',');
    json_.push_back('"');
    json_.append(name);
    json_.push_back('"');
    ends_.push_back(json_.size());
  }

  // For a decoder that copies an array's text whole (decode_names): push_end records where name i's
  // JSON ends, counted from the first name's opening quote, and assign_json then sets the text, which
  // must be exactly the names pushed so far as push_back_plain writes them ("a","b": no spaces).
  void push_end(size_t json_end) { ends_.push_back(json_end); }
  void assign_json(std::string_view json) { json_.assign(json); }

  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](size_t i) const {
    if (!escaped_.empty()) {
      const auto it = std::lower_bound(escaped_.begin(), escaped_.end(), i,
                                       [](const auto& e, size_t index) { return e.first < index; });
      if (it != escaped_.end() && it->first == i) return it->second;
    }
    const std::string_view quoted = json(i);
    return quoted.substr(1, quoted.size() - 2);
  }
  // Every name, in order: names()[i] == (*this)[i], read off the ends in one pass (a name lookup each
  // went through the escapes check and two bounds-checked cuts; callgrind counted the instructions a name:
  // docs/performance.md "Figures behind design choices in the code").
  std::vector<std::string_view> names() const {
    std::vector<std::string_view> out(ends_.size());
    size_t begin = 0;  // name i's opening quote
    for (size_t i = 0; i < ends_.size(); ++i) {
      out[i] = std::string_view(json_.data() + begin + 1, ends_[i] - begin - 2);
      begin = ends_[i] + 1;
    }
    for (const auto& [i, name] : escaped_) out[i] = name;
    return out;
  }
  // Name i as a JSON string: what json::append_string appends for it.
  std::string_view json(size_t i) const { return json_run(i, i + 1); }
  // Names [first, last) as JSON strings joined by commas (first < last).
  std::string_view json_run(size_t first, size_t last) const {
    const size_t begin = first == 0 ? 0 : ends_[first - 1] + 1;
    return std::string_view(json_).substr(begin, ends_[last - 1] - begin);
  }
  // Heap bytes held: what the decision log budgets by.
  size_t capacity_bytes() const {
    size_t bytes = json_.capacity() + ends_.capacity() * sizeof(size_t) +
                   escaped_.capacity() * sizeof(std::pair<size_t, std::string>);
    for (const auto& e : escaped_) bytes += e.second.capacity();
    return bytes;
  }

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
  std::string json_;                                     // "a","b",...
  std::vector<size_t> ends_;                             // one past each name's closing quote
  std::vector<std::pair<size_t, std::string>> escaped_;  // (index, name) of names that needed escapes
};

}  // namespace kext
