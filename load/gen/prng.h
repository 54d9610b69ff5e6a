#pragma once
// SplitMix64: the generator's only source of randomness. Its output is fixed by the algorithm (unlike
// std:: distributions, which differ between standard libraries), so a seed names the same bytes anywhere.
#include <cstdint>
#include <string>

namespace kext::gen {

class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is irrelevant at these ranges.
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(uint64_t percent) { return below(100) < percent; }
  std::string hex(size_t digits) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s;
    s.reserve(digits);
    uint64_t bits = 0;
    for (size_t i = 0; i < digits; ++i) {
      if (i % 16 == 0) bits = next();
      s += kHex[bits & 15];
      bits >>= 4;
    }
    return s;
  }
  // The groups drawn one statement each: the operands of a + chain are evaluated in an unspecified order.
  std::string uid() {
    std::string s = hex(8);
    for (size_t digits : {4, 4, 4, 12}) s += "-" + hex(digits);
    return s;
  }

 private:
  uint64_t state_;
};

}  // namespace kext::gen
