#pragma once
// The fuzzer's pseudo-random numbers: splitmix64, so that a seed (and a query's number) alone
// decide the schema, the data and every query on any platform (std::uniform_*_distribution's
// results are the library's choice).
#include <cstdint>
#include <string>
#include <vector>

namespace hyrax::bench::sqlfuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x2545F4914F6CDD1DULL + 0x9E3779B97F4A7C15ULL) {}
  // The stream of query `index` of a run seeded with `seed`: independent of the queries before it.
  Rng(uint64_t seed, uint64_t index) : Rng(seed ^ (index * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL)) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <typename T>
  const T& pick(const std::vector<T>& items) { return items[next() % items.size()]; }
  // Skewed: small values much more often (a value of rank r has weight about 1/r), so joins and
  // groups meet heavy hitters as well as rare keys.
  int64_t skewed(int64_t n) {
    double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    int64_t r = static_cast<int64_t>(static_cast<double>(n) * u * u * u);
    return r < n ? r : n - 1;
  }

 private:
  uint64_t state_;
};

}  // namespace hyrax::bench::sqlfuzz
