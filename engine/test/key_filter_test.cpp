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
  for (int64_t k = 0; k < 30'000; ++k) other.insert(hashInteger(-k * 3 - 1));
  table.absorb({&other}, 1);  // a parallel build's merge: entries in two storages
  table.buildKeyFilter();
  REQUIRE(table.keyFilter().built());
  bool all = true;
  for (int64_t k = 0; k < 70'000; ++k) all = all && table.keyFilter().mayHold(hashInteger(k * 3));
  for (int64_t k = 0; k < 30'000; ++k) all = all && table.keyFilter().mayHold(hashInteger(-k * 3 - 1));
  CHECK(all);
  uint64_t passed = 0;
  for (int64_t k = 0; k < 100'000; ++k) passed += table.keyFilter().mayHold(hashInteger(k * 3 + 1));
  CHECK(passed < 3'000);
}
