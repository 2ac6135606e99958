#pragma once
// TPC-C's random inputs (clause 2.1.6 and 4.3.2): uniform numbers, NURand, random strings and the
// syllable-built last names. One generator per run, seeded, so runs can be repeated.
#include <cstdint>
#include <random>
#include <string>

namespace hyrax::bench::tpcc {

class Random {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  // NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
  int64_t nurand(int64_t a, int64_t x, int64_t y, int64_t c) {
    return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
  }

  // a-string and n-string of a random length in [lo, hi].
  std::string astring(int lo, int hi) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(static_cast<size_t>(uniform(lo, hi)), ' ');
    for (auto& ch : s) ch = kChars[uniform(0, sizeof(kChars) - 2)];
    return s;
  }
  std::string nstring(int lo, int hi) {
    std::string s(static_cast<size_t>(uniform(lo, hi)), ' ');
    for (auto& ch : s) ch = static_cast<char>('0' + uniform(0, 9));
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

// C_LAST from a number in 0..999: three syllables by its digits (clause 4.3.2.3).
inline std::string lastName(int n) {
  static const char* kSyllables[] = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
  return std::string(kSyllables[n / 100]) + kSyllables[(n / 10) % 10] + kSyllables[n % 10];
}

// The constants C of NURand: one for loading and one for running C_LAST, whose difference obeys
// clause 2.1.6.1 (65..119, not 96 or 112); C_ID's and OL_I_ID's are fixed too.
inline constexpr int64_t kCLastLoad = 157, kCLastRun = 223, kCId = 259, kCItem = 7911;

inline constexpr int kItems = 100'000, kDistricts = 10, kCustomers = 3'000, kOrders = 3'000;
inline constexpr int kFirstNewOrder = 2'101;  // orders from here on are undelivered at load

}  // namespace hyrax::bench::tpcc
