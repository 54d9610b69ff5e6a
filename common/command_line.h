#pragma once
// Command-line walking shared by kube-extender, extender-load and extender-gen: "--flag value" and
// "--flag=value", integers checked against a range, and errors that name the flag.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kext {

template <class Int>
Int parse_flag_integer(const std::string& flag, const std::string& v, Int lo, Int hi) {
  Int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) {
    throw std::invalid_argument(flag + ": expected an integer in " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ", got \"" + v + "\"");
  }
  return out;
}

// A Go-style duration of one unit, as kube-scheduler's --leader-elect-* flags take: "15s", "500ms",
// "2m". Throws std::invalid_argument naming the flag.
inline std::chrono::milliseconds parse_flag_duration(const std::string& flag, const std::string& v,
                                                     std::chrono::milliseconds lo,
                                                     std::chrono::milliseconds hi) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const std::string_view unit(p, static_cast<size_t>(v.data() + v.size() - p));
  int64_t scale = 0;
  if (unit == "ms")
    scale = 1;
  else if (unit == "s")
    scale = 1000;
  else if (unit == "m")
    scale = 60'000;
  const std::chrono::milliseconds out(scale != 0 && n <= hi.count() ? n * scale : 0);
  if (ec != std::errc() || scale == 0 || n < 0 || out < lo || out > hi) {
    throw std::invalid_argument(flag + ": expected a duration such as 15s or 500ms in " +
                                std::to_string(lo.count()) + "ms.." + std::to_string(hi.count() / 1000) +
                                "s, got \"" + v + "\"");
  }
  return out;
}

// A flag whose value may not be empty (an address, a directory, a name).
inline std::string non_empty_value(const std::string& flag, std::string v) {
  if (v.empty()) throw std::invalid_argument(flag + ": must not be empty");
  return v;
}

class ArgCursor {
 public:
  ArgCursor(int argc, char** argv) : argc_(argc), argv_(argv) {}

  // Moves to the next argument; false when there is none. "--flag=value" is split here.
  bool advance() {
    if (++i_ >= argc_) return false;
    flag_ = argv_[i_];
    inline_ = false;
    if (auto eq = flag_.find('='); flag_.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value_ = flag_.substr(eq + 1);
      flag_.resize(eq);
      inline_ = true;
    }
    return true;
  }
  const std::string& flag() const { return flag_; }
  bool has_inline_value() const { return inline_; }
  // The value after '=' or the next argument (consumed).
  std::string value() {
    if (inline_) return inline_value_;
    if (i_ + 1 >= argc_) throw std::invalid_argument(flag_ + ": missing value");
    return argv_[++i_];
  }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
  std::string flag_;
  std::string inline_value_;
  bool inline_ = false;
};

}  // namespace kext
