// KeyFilter and HashTable::buildKeyFilter: a scan below a join skips the rows whose key the
// filter says the join's table cannot hold, so a false negative is a wrong answer (rows that
// joined go missing); false positives only cost a probe.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/key_filter.hpp"
#include "engine/runtime/memory_budget.hpp"

using namespace hyrax;

TEST_CASE("a key filter holds every key added and few others") {
  for (uint64_t keys : {1ull, 100ull, 57'380ull, 300'000ull}) {
    KeyFilter f;
    f.reset(keys, nullptr);
    for (uint64_t k = 0; k < keys; ++k) f.add(hashInteger(static_cast<int64_t>(k * 7 - 1000)));
    bool all = true;
    for (uint64_t k = 0; k < keys; ++k) all = all && f.mayHold(hashInteger(static_cast<int64_t>(k * 7 - 1000)));
    INFO(keys << " keys");
    CHECK(all);
    // Keys never added (one above an added key's residue mod 7): at 16-32 bits a key and three
    // bits each, about 1% pass; a filter that passed everything would not pay.
    uint64_t passed = 0;
    constexpr uint64_t kTries = 200'000;
    for (uint64_t k = 0; k < kTries; ++k) passed += f.mayHold(hashInteger(static_cast<int64_t>(k * 7 - 999)));
    CHECK(static_cast<double>(passed) / kTries < 0.03);
    CHECK(f.bytes() * 8 >= keys * 16);
    CHECK(f.bytes() * 8 <= std::max<uint64_t>(64, keys * 32));
  }
}

TEST_CASE("a key filter never made holds anything, an empty one nothing; its memory is charged while it lives") {
  MemoryBudget budget;
  {
    KeyFilter f;
    CHECK_FALSE(f.built());
    CHECK(f.mayHold(hashInteger(5)));  // never made: it may hold anything, so nothing is skipped
    CHECK(f.mayHold(hashInteger(-12345)));
    f.reset(0, &budget);
    CHECK(f.built());
    for (int64_t k = -100; k < 100; ++k) CHECK_FALSE(f.mayHold(hashInteger(k)));
    f.reset(100'000, &budget);  // made again: the first one's memory released
    CHECK(budget.used() == f.bytes());
  }
  CHECK(budget.used() == 0);
}

TEST_CASE("a hash table's key filter holds the hashes of all its entries, adopted ones too") {
  MemoryBudget budget;
  HashTable table(24, 0, &budget);
  HashTable other(24, 0, &budget);
  for (int64_t k = 0; k < 70'000; ++k) std::memset(static_cast<char*>(table.insert(hashInteger(k * 3))) + 16, 1, 8);
  other.collectOnly();  // a thread's part of a parallel build
  for (int64_t k = 0; k < 60'000; ++k) other.insert(hashInteger(-k * 3 - 1));
  table.absorb({&other}, 2, true, true);  // a parallel build's merge: entries in two storages
  REQUIRE(table.keyFilter().built());
  bool all = true;
  for (int64_t k = 0; k < 70'000; ++k) all = all && table.keyFilter().mayHold(hashInteger(k * 3));
  for (int64_t k = 0; k < 60'000; ++k) all = all && table.keyFilter().mayHold(hashInteger(-k * 3 - 1));
  CHECK(all);
  uint64_t passed = 0;
  for (int64_t k = 0; k < 100'000; ++k) passed += table.keyFilter().mayHold(hashInteger(k * 3 + 1));
  CHECK(passed < 3'000);
}

TEST_CASE("a serial build's collected entries are linked, and their key filter made, in one pass") {
  MemoryBudget budget;
  HashTable table(24, 1'000, &budget);  // an estimate far below the entries: the directory grows once, at the end
  table.insert(hashInteger(-7));        // linked as it came
  table.collectOnly();
  for (int64_t k = 0; k < 50'000; ++k) table.insert(hashInteger(k * 5));
  table.absorb({}, 1, true, true);
  CHECK(table.bucketCount() >= 50'001);
  // Every entry is on the chain of its hash, and in the filter.
  auto found = [&](uint64_t h) {
    for (auto* e = static_cast<const HashEntryHeader*>(table.lookup(h)); e; e = e->next)
      if (e->hash == h) return true;
    return false;
  };
  bool all = found(hashInteger(-7)) && table.keyFilter().mayHold(hashInteger(-7));
  for (int64_t k = 0; k < 50'000; ++k) all = all && found(hashInteger(k * 5)) && table.keyFilter().mayHold(hashInteger(k * 5));
  CHECK(all);
  CHECK_FALSE(found(hashInteger(3)));
  // Inserts link again from here on.
  table.insert(hashInteger(3));
  CHECK(found(hashInteger(3)));
}

TEST_CASE("a table fed by two threads and then by one links each entry once") {
  // A join's table fed twice (a full join's rows, then its unmatched build rows): the threads'
  // entries adopted, then entries of its own, which entry(i) numbers before the adopted ones.
  MemoryBudget budget;
  HashTable table(24, 0, &budget);
  HashTable helpers[2] = {HashTable(24, 0, &budget), HashTable(24, 0, &budget)};
  table.collectOnly();
  for (int t = 0; t < 2; ++t) {
    helpers[t].collectOnly();
    for (int64_t k = 0; k < 20'000; ++k) helpers[t].insert(hashInteger(k * 2 + t));
  }
  table.absorb({&helpers[0], &helpers[1]}, 2);
  table.collectOnly();
  for (int64_t k = 0; k < 1'000; ++k) table.insert(hashInteger(-k - 1));
  table.absorb({}, 1, true, true);
  // Each hash on its chain exactly once; a chain linked into itself would never end.
  auto times = [&](uint64_t h) {
    int n = 0, walked = 0;
    for (auto* e = static_cast<const HashEntryHeader*>(table.lookup(h)); e && walked < 100'000; e = e->next, ++walked) n += e->hash == h;
    return n;
  };
  bool once = true;
  for (int64_t k = 0; k < 40'000; ++k) once = once && times(hashInteger(k)) == 1;
  for (int64_t k = 0; k < 1'000; ++k) once = once && times(hashInteger(-k - 1)) == 1 && table.keyFilter().mayHold(hashInteger(-k - 1));
  CHECK(once);
  CHECK(table.count() == 41'000);
}
