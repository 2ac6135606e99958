#pragma once
// YCSB's request distribution: Zipfian over n items (Gray et al., "Quickly generating
// billion-record synthetic databases", SIGMOD 1994, as YCSB's ZipfianGenerator), scrambled by
// FNV-1a so that the popular items are spread over the key space rather than clustered at its
// start (YCSB's ScrambledZipfianGenerator).
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>

namespace hyrax::bench {

// FNV-1a over the 8 bytes of x (YCSB's fnvhash64).
inline uint64_t fnv64(uint64_t x) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (int i = 0; i < 8; ++i) {
    h ^= x & 0xFF;
    h *= 1099511628211ULL;
    x >>= 8;
  }
  return h;
}

class ScrambledZipfian {
 public:
  ScrambledZipfian(uint64_t n, double theta, uint64_t seed) : n_(n), theta_(theta), rng_(seed) {
    zetan_ = zeta(n, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1 - std::pow(2.0 / static_cast<double>(n), 1 - theta)) / (1 - zeta(2, theta) / zetan_);
  }
  // An item number in [0, n): item 0 of the Zipfian order is the most popular, then scrambled.
  uint64_t next() {
    const double u = uniform_(rng_), uz = u * zetan_;
    uint64_t rank;
    if (uz < 1) rank = 0;
    else if (uz < 1 + std::pow(0.5, theta_)) rank = 1;
    else rank = static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1, alpha_));
    return fnv64(rank % n_) % n_;
  }

 private:
  // The sum of 1/i^theta for i = 1..n, computed once per (n, theta) in the process (a million
  // pow() calls: not once per client thread).
  static double zeta(uint64_t n, double theta) {
    static std::mutex m;
    static std::map<std::pair<uint64_t, double>, double> known;
    std::lock_guard<std::mutex> lock(m);
    auto [it, fresh] = known.try_emplace({n, theta}, 0.0);
    if (fresh)
      for (uint64_t i = 1; i <= n; ++i) it->second += 1.0 / std::pow(static_cast<double>(i), theta);
    return it->second;
  }

  uint64_t n_;
  double theta_, zetan_, alpha_, eta_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

}  // namespace hyrax::bench
