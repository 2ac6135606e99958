#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>
#include <set>
#include <string_view>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/like_pattern.hpp"
#include "engine/runtime/memory_budget.hpp"
#include "engine/runtime/query_context.hpp"
#include "engine/runtime/row_buffer.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {
bool like(const char* s, const char* p) {
  StringRef a = StringRef::make(s), b = StringRef::make(p);
  return hyrax_rt_like(a.lo(), a.hi(), b.lo(), b.hi()) != 0;
}
}  // namespace

TEST_CASE("LIKE matches SQL patterns without exponential backtracking") {
  CHECK(like("abc", "abc"));
  CHECK(like("abc", "a%"));
  CHECK(like("abc", "%c"));
  CHECK(like("abc", "_b_"));
  CHECK_FALSE(like("abc", "_b"));
  CHECK(like("", "%"));
  CHECK_FALSE(like("", "_"));
  CHECK(like("a%c", "a\\%c"));
  CHECK_FALSE(like("abc", "a\\%c"));
  CHECK(like("special requests are here", "%special%requests%"));
  // The segment matcher (no '_', no escapes): order, overlap of prefix and suffix, empty segments.
  CHECK_FALSE(like("requests before special", "%special%requests%"));
  CHECK(like("abcab", "ab%ab"));
  CHECK_FALSE(like("ab", "ab%ab"));
  CHECK_FALSE(like("aba", "ab%ba"));
  CHECK(like("xaybz", "x%%a%y%z"));
  CHECK_FALSE(like("xaybz", "x%b%a%z"));
  std::string s(5000, 'a');
  CHECK_FALSE(like(s.c_str(), "%a%a%a%a%a%a%a%a%b"));
}

namespace {
// The definition, recursively: '%' any run, '_' one character, others themselves.
bool likeReference(std::string_view s, std::string_view p) {
  if (p.empty()) return s.empty();
  if (p[0] == '%') return likeReference(s, p.substr(1)) || (!s.empty() && likeReference(s.substr(1), p));
  return !s.empty() && (p[0] == '_' || p[0] == s[0]) && likeReference(s.substr(1), p.substr(1));
}
}  // namespace

TEST_CASE("prepared LIKE patterns (literal segments) match as the definition says") {
  // Short alphabets make overlaps, repeats and near misses common; strings over 16 bytes reach
  // the 16-at-a-time search, its tail and both ends.
  std::mt19937 rng(7);
  auto pick = [&](const char* alphabet, size_t maxLen) {
    std::string r(rng() % (maxLen + 1), ' ');
    for (auto& c : r) c = alphabet[rng() % std::strlen(alphabet)];
    return r;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string p = pick("ab%", 7), s = pick("ab", 40);
    std::string plan;
    REQUIRE(prepareLikePattern(p, plan));
    INFO("'" << s << "' LIKE '" << p << "'");
    bool expected = likeReference(s, p);
    CHECK(matchPreparedLike(s, plan.data()) == expected);
    CHECK(like(s.c_str(), p.c_str()) == expected);
    StringRef a = StringRef::make(s);
    CHECK((hyrax_rt_like_prepared(a.lo(), a.hi(), plan.data()) != 0) == expected);
  }
  // Long segments, heads and tails (compared 8 and 4 bytes at a time): patterns cut from the
  // string itself, with spans of it replaced by '%', and every other one a byte changed.
  for (int i = 0; i < 20000; ++i) {
    std::string s = pick("ab", 90), p;
    for (size_t at = 0; at < s.size();) {
      const size_t keep = rng() % 24, skip = rng() % 6;
      p += s.substr(at, keep);
      at += keep;
      if (at < s.size() && skip) {
        p += '%';
        at += skip;
      }
    }
    if (i % 2 && !p.empty()) {
      char& c = p[rng() % p.size()];
      if (c != '%') c = c == 'a' ? 'b' : 'a';
    }
    std::string plan;
    REQUIRE(prepareLikePattern(p, plan));
    INFO("'" << s << "' LIKE '" << p << "'");
    CHECK(matchPreparedLike(s, plan.data()) == likeReference(s, p));
  }
  std::string plan;
  CHECK_FALSE(prepareLikePattern("a_c", plan));  // the general matcher's patterns
  CHECK_FALSE(prepareLikePattern("a\\%c", plan));
  CHECK(plan.empty());
}

TEST_CASE("hash tables chain colliding hashes and number entries in insertion order") {
  QueryContext ctx;
  HashTable* ht = hyrax_rt_ht_create(&ctx, 24, 0);  // no size hint: it grows as entries come
  for (uint64_t i = 0; i < 100000; ++i) {
    auto* e = static_cast<char*>(hyrax_rt_ht_insert(&ctx, ht, i % 1000));
    std::memcpy(e + 16, &i, 8);
  }
  REQUIRE(hyrax_rt_ht_count(ht) == 100000);
  uint64_t v;
  std::memcpy(&v, static_cast<char*>(hyrax_rt_ht_entry(ht, 12345)) + 16, 8);
  CHECK(v == 12345);
  // Every entry with hash 7 is on the chain of hash 7's bucket, found the way generated code finds
  // it: through the directory at the table's start.
  auto* dir = reinterpret_cast<const HashDirectory*>(ht);
  uint64_t bucket = dir->buckets[(7 * kHashBucketMultiplier) >> dir->shift];
  REQUIRE((bucket & hashTag(7)) != 0);
  void* head = chainOf(bucket);
  CHECK(head == ht->lookup(7));
  int found = 0;
  for (auto* e = static_cast<char*>(head); e; std::memcpy(&e, e, sizeof(e))) {
    uint64_t h;
    std::memcpy(&h, e + 8, 8);
    found += h == 7;
  }
  CHECK(found == 100);
  // Sized for the optimizer's estimate, it holds the same entries the same way.
  HashTable* sized = hyrax_rt_ht_create(&ctx, 24, 50000);
  for (uint64_t i = 0; i < 100000; ++i) hyrax_rt_ht_insert(&ctx, sized, i % 1000);
  auto* sdir = reinterpret_cast<const HashDirectory*>(sized);
  CHECK(chainOf(sdir->buckets[(7 * kHashBucketMultiplier) >> sdir->shift]) == sized->lookup(7));
  CHECK(hyrax_rt_ht_count(sized) == 100000);
}

TEST_CASE("a join table with far fewer entries than estimated gets a directory fitted to them") {
  QueryContext ctx;
  auto bucketsOf = [](const HashTable* t) { return uint64_t{1} << (64 - reinterpret_cast<const HashDirectory*>(t)->shift); };
  HashTable* ht = hyrax_rt_ht_create(&ctx, 24, 2'000'000);  // an estimate of 2M build rows
  REQUIRE(bucketsOf(ht) == uint64_t{1} << 21);
  ht->collectOnly();  // as the driver builds a join's table: linked once it is built, by absorb
  for (uint64_t i = 0; i < 57; ++i) hyrax_rt_ht_insert(&ctx, ht, i * 0x9e3779b97f4a7c15ULL);
  ht->absorb({}, 1);
  CHECK(bucketsOf(ht) == HashTable::directorySize(57));
  CHECK(bucketsOf(ht) <= 1024);
  for (uint64_t i = 0; i < 57; ++i) {  // each found on its chain, once
    const uint64_t h = i * 0x9e3779b97f4a7c15ULL;
    int found = 0;
    for (auto* e = static_cast<char*>(ht->lookup(h)); e; std::memcpy(&e, e, sizeof(e))) {
      uint64_t eh;
      std::memcpy(&eh, e + 8, 8);
      found += eh == h;
    }
    CHECK(found == 1);
  }
  // Within kFitDirectoryShrink of the estimate, the directory stays as made; so does a small one.
  HashTable* near = hyrax_rt_ht_create(&ctx, 24, 200'000);
  for (uint64_t i = 0; i < 40'000; ++i) hyrax_rt_ht_insert(&ctx, near, i * 7919);
  const uint64_t before = bucketsOf(near);
  near->absorb({}, 1);
  CHECK(bucketsOf(near) == before);
  HashTable* small = hyrax_rt_ht_create(&ctx, 24, 10'000);
  for (uint64_t i = 0; i < 10; ++i) hyrax_rt_ht_insert(&ctx, small, i * 7919);
  REQUIRE(bucketsOf(small) < kFitDirectoryFrom);
  const uint64_t smallBefore = bucketsOf(small);
  small->absorb({}, 1);
  CHECK(bucketsOf(small) == smallBefore);
  // A parallel build's merge fits it too: two threads' tables of 30 entries into one made for 1M.
  HashTable* mine = hyrax_rt_ht_create(&ctx, 24, 1'000'000);
  std::vector<HashTable*> theirs{hyrax_rt_ht_create(&ctx, 24, 500'000), hyrax_rt_ht_create(&ctx, 24, 500'000)};
  for (uint64_t i = 0; i < 60; ++i) hyrax_rt_ht_insert(&ctx, theirs[i % 2], i * 104729);
  mine->absorb(theirs, 2);
  CHECK(hyrax_rt_ht_count(mine) == 60);
  CHECK(bucketsOf(mine) == HashTable::directorySize(60));
  for (uint64_t i = 0; i < 60; ++i) CHECK(mine->lookup(i * 104729) != nullptr);
}

TEST_CASE("entries are visited a block's run at a time, in order, across absorbed tables") {
  // Runs cover every entry once, each entry where entry(i) says, entrySize() apart: through the
  // growing blocks (25, 50, ... rows: entries of 40 bytes fill 1 KiB, 2 KiB ...), the full
  // ones, and into the entries of absorbed tables.
  QueryContext ctx;
  HashTable* mine = hyrax_rt_ht_create(&ctx, 40, 0);
  for (uint64_t i = 0; i < 300'000; ++i) hyrax_rt_ht_insert(&ctx, mine, i * 0x9e3779b97f4a7c15ULL);
  std::vector<HashTable*> theirs{hyrax_rt_ht_create(&ctx, 40, 0), hyrax_rt_ht_create(&ctx, 40, 0)};
  for (uint64_t i = 0; i < 5'000; ++i) hyrax_rt_ht_insert(&ctx, theirs[i % 2], i + 1);
  mine->absorb(theirs, 1, false);
  const uint64_t total = hyrax_rt_ht_count(mine);
  REQUIRE(total == 305'000);
  uint64_t i = 0, runs = 0;
  bool inOrder = true;
  while (i < total) {
    uint64_t run[2] = {0, 0};
    auto* first = static_cast<char*>(hyrax_rt_ht_entry_run(mine, i, run));
    REQUIRE(run[0] >= 1);
    REQUIRE(run[1] == mine->entrySize());
    REQUIRE(i + run[0] <= total);
    for (uint64_t j = 0; j < run[0]; ++j) inOrder = inOrder && first + j * run[1] == hyrax_rt_ht_entry(mine, i + j);
    i += run[0];
    ++runs;
  }
  CHECK(inOrder);
  CHECK(i == total);
  CHECK(runs < 100);  // blocks, not entries
  // From the middle of a block: the rest of that block.
  uint64_t run[2] = {0, 0};
  CHECK(hyrax_rt_ht_entry_run(mine, 30, run) == hyrax_rt_ht_entry(mine, 30));
  CHECK(run[0] == 45);  // block 1 holds entries 25..74
}

TEST_CASE("a bucket's tags rule out hashes none of its entries has") {
  QueryContext ctx;
  HashTable* ht = hyrax_rt_ht_create(&ctx, 24, 0);  // 16 buckets
  auto* dir = reinterpret_cast<const HashDirectory*>(ht);
  auto bucketOf = [&](uint64_t h) { return (h * kHashBucketMultiplier) >> dir->shift; };
  const uint64_t h1 = 0x1234567;
  void* e = hyrax_rt_ht_insert(&ctx, ht, h1);
  // Another hash of the same bucket: with h1's tag it walks the chain, with another it reads none.
  uint64_t sameTag = 0, otherTag = 0;
  for (uint64_t h = h1 + 1; !sameTag || !otherTag; ++h) {
    if (bucketOf(h) != bucketOf(h1)) continue;
    if (hashTag(h) == hashTag(h1)) sameTag = sameTag ? sameTag : h;
    else otherTag = otherTag ? otherTag : h;
  }
  CHECK(ht->lookup(h1) == e);
  CHECK(ht->lookup(sameTag) == e);
  CHECK(ht->lookup(otherTag) == nullptr);
  // After growing, the tags are rebuilt from the stored hashes.
  for (uint64_t i = 0; i < 1000; ++i) hyrax_rt_ht_insert(&ctx, ht, i * 7919);
  int found = 0;
  for (auto* p = static_cast<char*>(ht->lookup(h1)); p; std::memcpy(&p, p, sizeof(p))) found += p == e;
  CHECK(found == 1);
}

TEST_CASE("a pre-aggregation table moves its entries into partitions instead of growing") {
  QueryContext ctx;
  std::vector<HashTable*> parts;
  for (int k = 0; k < 4; ++k) parts.push_back(hyrax_rt_ht_create(&ctx, 24, 0));
  HashTable* ht = hyrax_rt_ht_create(&ctx, 24, 4096);  // 4,096 buckets: spills at 4,096 entries
  ht->spillInto(parts);
  for (uint64_t i = 0; i < 10000; ++i) {
    auto* e = static_cast<char*>(hyrax_rt_ht_insert(&ctx, ht, i * 0x9E3779B97F4A7C15ULL));
    CHECK(std::all_of(e + 16, e + 24, [](char c) { return c == 0; }));  // zeroed, also in a reused block
    std::memcpy(e + 16, &i, 8);
  }
  CHECK(hyrax_rt_ht_count(ht) == 10000 - 2 * 4096);
  // The entries it holds are found through its directory; none of the spilled ones are.
  CHECK(ht->lookup(9999 * 0x9E3779B97F4A7C15ULL) != nullptr);
  CHECK(ht->lookup(0) == nullptr);
  ht->spill();
  CHECK(hyrax_rt_ht_count(ht) == 0);
  // Every entry is in the partition of its hash, copied whole, once.
  std::set<uint64_t> seen;
  for (uint64_t k = 0; k < parts.size(); ++k)
    for (uint64_t i = 0; i < hyrax_rt_ht_count(parts[k]); ++i) {
      auto* e = static_cast<const char*>(hyrax_rt_ht_entry(parts[k], i));
      uint64_t hash, value;
      std::memcpy(&hash, e + 8, 8);
      std::memcpy(&value, e + 16, 8);
      CHECK(hashPartition(hash, parts.size()) == k);
      CHECK(hash == value * 0x9E3779B97F4A7C15ULL);
      seen.insert(value);
    }
  CHECK(seen.size() == 10000);
}

namespace {
// Rows of (key, sequence number), compared by key only.
int32_t compareKeys(const void* x, const void* y) {
  int64_t a, c;
  std::memcpy(&a, x, 8);
  std::memcpy(&c, y, 8);
  return a < c ? -1 : a > c;
}
void appendKeyed(RowBuffer* b, int64_t key, int64_t seq) {
  auto* r = static_cast<char*>(b->append());
  std::memcpy(r, &key, 8);
  std::memcpy(r + 8, &seq, 8);
}
std::pair<int64_t, int64_t> keyed(RowBuffer* b, uint64_t i) {
  int64_t key, seq;
  std::memcpy(&key, hyrax_rt_buf_row(b, i), 8);
  std::memcpy(&seq, static_cast<char*>(hyrax_rt_buf_row(b, i)) + 8, 8);
  return {key, seq};
}
}  // namespace

TEST_CASE("row buffers keeping the first k rows hold O(k) rows and give what a full sort gives") {
  QueryContext ctx;
  // Keys at random with many ties (stability matters: a later row equal to the k-th is not
  // kept), falling (each row comes before every kept one) and rising (none does).
  for (int shape = 0; shape < 3; ++shape)
  for (uint64_t k : {0u, 1u, 7u, 3000u}) {
    INFO("shape " << shape << ", k " << k);
    RowBuffer* topk = hyrax_rt_buf_create(&ctx, 16);
    RowBuffer* all = hyrax_rt_buf_create(&ctx, 16);
    hyrax_rt_buf_keep_first(topk, k, compareKeys);
    std::mt19937_64 rng(k);
    uint64_t most = 0;
    for (int64_t i = 0; i < 100'000; ++i) {
      const int64_t key = shape == 0 ? static_cast<int64_t>(rng() % 5000) : shape == 1 ? -i / 3 : i / 3;
      appendKeyed(topk, key, i);
      appendKeyed(all, key, i);
      most = std::max(most, hyrax_rt_buf_count(topk));
    }
    CHECK(most <= k + std::max<uint64_t>(k, 1024));
    hyrax_rt_buf_sort(&ctx, topk, compareKeys, nullptr, 0);
    hyrax_rt_buf_sort(&ctx, all, compareKeys, nullptr, 0);
    REQUIRE(hyrax_rt_buf_count(topk) >= k);
    for (uint64_t i = 0; i < k; ++i) REQUIRE(keyed(topk, i) == keyed(all, i));
  }
}

TEST_CASE("a row buffer takes a helper's rows in where they are, and their charge with them") {
  // The statement's buffer and a helper thread's (its budget sharing the statement's count): the
  // helper's rows follow the statement's in order, unmoved; what stays charged is given back
  // when the statement's buffer goes, even after the helper's budget went first (a statement's
  // helper contexts end before its buffers).
  MemoryBudget statement;
  auto mine = std::make_unique<RowBuffer>(16, &statement);
  std::vector<void*> helperRows;
  {
    MemoryBudget helperBudget;
    helperBudget.shareWith(statement);
    RowBuffer helper(16, &helperBudget);
    for (int64_t i = 0; i < 3000; ++i) {
      if (i < 1000) appendKeyed(mine.get(), i, i);
      else {
        appendKeyed(&helper, i, i);
        helperRows.push_back(helper.row(helper.count() - 1));
      }
    }
    const uint64_t charged = statement.used();
    mine->absorb(helper);
    CHECK(helper.count() == 0);
    CHECK(statement.used() <= charged);  // only the helper's order was given back
    CHECK(statement.used() > 0);
  }
  REQUIRE(mine->count() == 3000);
  for (uint64_t i = 0; i < 3000; ++i) CHECK(keyed(mine.get(), i) == std::pair<int64_t, int64_t>(i, i));
  for (size_t i = 0; i < helperRows.size(); ++i) CHECK(mine->row(1000 + i) == helperRows[i]);  // not copied
  mine.reset();
  CHECK(statement.used() == 0);
}

TEST_CASE("row buffers sort stably with a comparator") {
  QueryContext ctx;
  RowBuffer* b = hyrax_rt_buf_create(&ctx, 16);
  for (int64_t i = 0; i < 1000; ++i) appendKeyed(b, i % 10, i);
  hyrax_rt_buf_sort(&ctx, b, compareKeys, nullptr, 0);
  int64_t prevKey = -1, prevSeq = -1;
  for (uint64_t i = 0; i < hyrax_rt_buf_count(b); ++i) {
    auto [key, seq] = keyed(b, i);
    REQUIRE(key >= prevKey);
    if (key == prevKey) REQUIRE(seq > prevSeq);
    prevKey = key, prevSeq = seq;
  }
}

TEST_CASE("decimal division rounds half away from zero and reports errors") {
  QueryContext ctx;
  int64_t out = 0;
  CHECK(hyrax_rt_decimal_div(&ctx, 100, 2, 300, 2, 6, &out) == 0);  // 1.00 / 3.00
  CHECK(out == 333333);
  CHECK(hyrax_rt_decimal_div(&ctx, -200, 2, 300, 2, 2, &out) == 0);  // -2/3 -> -0.67
  CHECK(out == -67);
  CHECK(hyrax_rt_decimal_rescale(&ctx, 12345, 3, 1, 18, &out) == 0);  // 12.345 -> 12.3
  CHECK(out == 123);
  CHECK(hyrax_rt_decimal_rescale(&ctx, 125, 2, 1, 18, &out) == 0);  // 1.25 -> 1.3
  CHECK(out == 13);
  QueryContext bad;
  CHECK(hyrax_rt_decimal_div(&bad, 1, 0, 0, 0, 0, &out) == 1);
  CHECK(bad.error().sqlstate() == "22012");
  QueryContext over;
  CHECK(hyrax_rt_decimal_div(&over, INT64_MAX, 0, 1, 0, 6, &out) == 1);
  CHECK(over.error().sqlstate() == "22003");
}

TEST_CASE("every runtime function is in the table") {
  unsigned n = 0;
  const RuntimeFunction* fs = runtimeFunctions(n);
  std::set<std::string> names;
  for (unsigned i = 0; i < n; ++i) {
    CHECK(fs[i].address != nullptr);
    names.insert(fs[i].name);
  }
  CHECK(names.size() == n);
  CHECK(findRuntimeFunction("hyrax_rt_like") != nullptr);
  CHECK(findRuntimeFunction("nope") == nullptr);
}

TEST_CASE("row buffers keep an OFFSET and LIMIT per partition of sorted rows") {
  // Partition = key; within one, the order of arrival (the sort is stable). Per key the rows
  // ranked 1 and 2 (OFFSET 1 LIMIT 2) stay, in order; keys with one row keep none.
  QueryContext ctx;
  RowBuffer* b = hyrax_rt_buf_create(&ctx, 16);
  std::vector<std::vector<int64_t>> seqs(6);
  for (int64_t i = 0; i < 40; ++i) {
    int64_t key = (i * 7) % 6;
    if (key == 5 && !seqs[5].empty()) continue;  // key 5 has a single row
    appendKeyed(b, key, i);
    seqs[static_cast<size_t>(key)].push_back(i);
  }
  hyrax_rt_buf_sort(&ctx, b, compareKeys, nullptr, 0);
  hyrax_rt_buf_keep_per_partition(b, compareKeys, 1, 2, -1);
  std::vector<std::pair<int64_t, int64_t>> expected;
  for (int64_t key = 0; key < 6; ++key)
    for (size_t r = 1; r < 3 && r < seqs[static_cast<size_t>(key)].size(); ++r)
      expected.push_back({key, seqs[static_cast<size_t>(key)][r]});
  REQUIRE(hyrax_rt_buf_count(b) == expected.size());
  for (uint64_t i = 0; i < expected.size(); ++i) CHECK(keyed(b, i) == expected[i]);
}

TEST_CASE("row buffers give each sorted row its partition's and its peers' bounds") {
  // Rows (key, seq) of 48 bytes: partition = key / 10, peers = equal keys; the bounds go to 16..47.
  QueryContext ctx;
  RowBuffer* b = hyrax_rt_buf_create(&ctx, 48);
  const std::vector<int64_t> keys = {31, 10, 12, 10, 55, 31, 30, 12, 12, 10};
  for (size_t i = 0; i < keys.size(); ++i) appendKeyed(b, keys[i], static_cast<int64_t>(i));
  hyrax_rt_buf_sort(&ctx, b, compareKeys, nullptr, 0);
  auto samePartition = [](const void* x, const void* y) -> int32_t {
    int64_t a, c;
    std::memcpy(&a, x, 8);
    std::memcpy(&c, y, 8);
    return a / 10 == c / 10 ? 0 : (a / 10 < c / 10 ? -1 : 1);
  };
  hyrax_rt_buf_window_frames(b, samePartition, compareKeys, 16);
  // Sorted keys: 10 10 10 12 12 12 | 30 31 31 | 55
  const int64_t expected[][4] = {{0, 6, 0, 3}, {0, 6, 0, 3}, {0, 6, 0, 3}, {0, 6, 3, 6}, {0, 6, 3, 6}, {0, 6, 3, 6},
                                 {6, 9, 6, 7}, {6, 9, 7, 9}, {6, 9, 7, 9}, {9, 10, 9, 10}};
  REQUIRE(hyrax_rt_buf_count(b) == 10);
  for (uint64_t i = 0; i < 10; ++i) {
    int64_t bounds[4];
    std::memcpy(bounds, static_cast<char*>(hyrax_rt_buf_row(b, i)) + 16, sizeof bounds);
    for (int k = 0; k < 4; ++k) CHECK(bounds[k] == expected[i][k]);
  }
}
