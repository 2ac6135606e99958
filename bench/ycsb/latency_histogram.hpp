#pragma once
// Latencies in microseconds, in buckets 1/16 of a power of two wide (under 5% error at any
// quantile), merged across client threads without keeping every sample.
#include <array>
#include <cmath>
#include <cstdint>

namespace hyrax::bench {

class LatencyHistogram {
 public:
  void add(double micros) {
    ++counts_[bucketOf(micros)];
    ++total_;
  }
  void merge(const LatencyHistogram& o) {
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
  }
  // The latency below which fraction q of the samples lie (a bucket's upper bound), 0 if none.
  double quantile(double q) const {
    if (total_ == 0) return 0;
    const auto want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(total_)));
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= want) return upperBound(i);
    }
    return upperBound(kBuckets - 1);
  }

 private:
  static constexpr int kSub = 16;                      // buckets per power of two
  static constexpr size_t kBuckets = 40 * kSub;       // up to 2^40 microseconds
  static size_t bucketOf(double micros) {
    if (micros < 1) return 0;
    const double b = std::log2(micros) * kSub;
    return std::min(static_cast<size_t>(b) + 1, kBuckets - 1);
  }
  static double upperBound(size_t bucket) { return bucket == 0 ? 1 : std::exp2(static_cast<double>(bucket) / kSub); }

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace hyrax::bench
