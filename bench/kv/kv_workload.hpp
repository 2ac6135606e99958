#pragma once
// The web-cache workload of `hyrax-bench kv`: what a record is, how keys, values and tags are
// made, the mixes, the interface each engine's client session implements, and the checks every
// answer gets.
//   A record: key (a number; memcached's key is its decimal text), a value of a few hundred
//   printable characters that starts with "<key>:<tag1>:", and two typed numeric tags, tag1 an
//   INTEGER in [0, records) and tag2 = tag1 / 1000 as DOUBLE. Because the value names its key and
//   tag1 (and tag2 follows from tag1), any answer can be checked without knowing which of the
//   concurrent puts it saw: a torn row, a row of another key or an index entry that no longer
//   matches its row shows.
//   The load writes 9 in 10 keys (those not divisible by 10); a get of a loaded key must find it,
//   the others are misses until a put inserts them (a put is an upsert).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/ycsb/zipfian.hpp"

namespace hyrax::bench::kv {

struct Options {
  uint64_t records = 1'000'000;
  int valueLength = 300;
  int rangeWidth = 32;  // tag1 values a range select spans (~29 rows at 9 in 10 keys loaded)
  int rangeLimit = 10;  // rows it returns at most, the lowest tag1 first
  double duration = 5, warmup = 1;
};

struct Mix {
  const char* name;
  double get, put;  // fractions; the rest are range selects
  bool keyValueOnly() const { return get + put >= 1; }
};
// 90/10 and 50/50 get/put as a cache's readers and writers; "range": range selects by tag1 while
// 10% puts move rows' tags (the index changes under the reads).
inline constexpr Mix kMixes[] = {{"90/10", 0.9, 0.1}, {"50/50", 0.5, 0.5}, {"range", 0.0, 0.1}};

struct Row {
  uint64_t key = 0;
  std::string value;
  int32_t tag1 = 0;
  double tag2 = 0;
};

inline bool loadedKey(uint64_t key) { return key % 10 != 0; }
inline double tag2Of(int32_t tag1) { return tag1 / 1000.0; }

// The row a put of `key` writes as its `version`-th value (version 0: the load's).
inline Row makeRow(uint64_t key, uint64_t version, const Options& o) {
  Row r;
  r.key = key;
  uint64_t x = fnv64(key * 1000003 + version);
  r.tag1 = static_cast<int32_t>(x % o.records);
  r.tag2 = tag2Of(r.tag1);
  r.value = std::to_string(key) + ':' + std::to_string(r.tag1) + ':';
  r.value.resize(static_cast<size_t>(o.valueLength), ' ');
  for (size_t i = r.value.find(' '); i < r.value.size(); ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    r.value[i] = static_cast<char>('a' + (x >> 59) % 26);
  }
  return r;
}

// Whether a row an engine returned is whole: its value names its key and tag1, is as long as
// every value written, and tag2 follows tag1 (when the engine keeps tag2: memcached does not).
inline bool wholeRow(const Row& r, const Options& o, bool checkTag2) {
  const std::string prefix = std::to_string(r.key) + ':' + std::to_string(r.tag1) + ':';
  if (r.value.size() != static_cast<size_t>(o.valueLength) || r.value.compare(0, prefix.size(), prefix) != 0) return false;
  return !checkTag2 || r.tag2 == tag2Of(r.tag1);
}

// One client's connection to an engine (used by one thread at a time).
class Session {
 public:
  virtual ~Session() = default;
  // The row of `key` into `row`; false if there is none.
  virtual bool get(uint64_t key, Row& row) = 0;
  // Inserts the row, or replaces the one of its key.
  virtual void put(const Row& row) = 0;
  // Up to `limit` rows with lo <= tag1 <= hi, in ascending tag1.
  virtual void range(int32_t lo, int32_t hi, std::vector<Row>& rows) = 0;
};

}  // namespace hyrax::bench::kv
