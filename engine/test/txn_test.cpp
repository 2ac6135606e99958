// The undo log against a model: random inserts, deletes and key updates, some rolled back to a
// savepoint, some committed; afterwards the table holds exactly the model's rows and every index
// finds every row under its key (and nothing else).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <random>

#include "engine/index/art_index.hpp"
#include "engine/index/hash_index.hpp"
#include "engine/storage/table.hpp"
#include "engine/txn/table_ops.hpp"
#include "engine/txn/undo_log.hpp"
#include "engine/util/error.hpp"

using namespace hyrax;

namespace {

using Model = std::multiset<std::pair<int64_t, std::string>>;

Model contents(const Table& t) {
  Model m;
  for (uint64_t r = 0; r < t.rowCount(); ++r) m.insert({t.getValue(r, 0).asInt(), t.getValue(r, 1).asString()});
  return m;
}

void requireIndexesConsistent(const Table& t) {
  for (auto& idx : t.indexes()) {
    REQUIRE(idx->size() == t.rowCount());
    for (uint64_t r = 0; r < t.rowCount(); ++r) {
      std::vector<uint8_t> key(idx->key().probeBytes());
      idx->key().writeProbe(r, key.data());
      bool found = false;
      idx->forEachEqual(key.data(), [&](uint64_t row) { found = found || row == r; });
      REQUIRE(found);
      if (idx->unique()) REQUIRE(idx->countEqual(r) == 1);
    }
  }
}

void append(UndoLog& undo, Table& t, int64_t k, const std::string& s) {
  uint64_t first = t.rowCount();
  Value row[2] = {Value::int64(k), Value::string(s)};
  t.appendRow(row);
  txn::finishAppend(undo, t, first);
}

}  // namespace

TEST_CASE("undo restores rows and indexes exactly after any mix of writes") {
  Table t("t", {{"k", SqlType::int64(false)}, {"s", SqlType::text(false)}});
  t.addIndex(std::make_unique<HashIndex>("t_pkey", t, std::vector<uint32_t>{0}, true));
  t.addIndex(std::make_unique<HashIndex>("t_s", t, std::vector<uint32_t>{1}, false));
  // The same keys in ordered indexes: undo restores them as exactly.
  t.addIndex(std::make_unique<ArtIndex>("t_k_art", t, std::vector<uint32_t>{0}, true));
  t.addIndex(std::make_unique<ArtIndex>("t_s_k_art", t, std::vector<uint32_t>{1, 0}, false));
  UndoLog undo;
  std::mt19937 rng(42);
  int64_t nextKey = 0;
  Model committed;
  for (int round = 0; round < 200; ++round) {
    size_t savepoint = undo.savepoint();
    int ops = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < ops; ++i) {
      switch (rng() % 4) {
        case 0:
        case 1:  // insert (long strings, so the heap is involved)
          append(undo, t, nextKey++, std::string(rng() % 20, 'a' + static_cast<char>(rng() % 3)));
          break;
        case 2:  // delete a few rows
          if (t.rowCount()) {
            std::vector<uint64_t> rows;
            for (int n = 0; n < 3; ++n) rows.push_back(rng() % t.rowCount());
            std::sort(rows.begin(), rows.end());
            rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
            txn::deleteRows(undo, t, rows);
          }
          break;
        case 3:  // change a key, sometimes into an existing one (a violation)
          if (t.rowCount()) {
            uint64_t row = rng() % t.rowCount();
            int64_t k = rng() % 2 ? nextKey++ : t.getValue(rng() % t.rowCount(), 0).asInt();
            txn::UpdateBatch b = txn::beginUpdate(t, {0});
            const void* v[1] = {&k};
            bool nulls[1] = {false};
            txn::updateRow(undo, t, b, row, v, nulls);
            try {
              txn::finishUpdate(t, b);
            } catch (const Error& e) {
              REQUIRE(e.sqlstate() == sqlstate::UniqueViolation);
              undo.rollbackTo(savepoint);
              i = ops;  // the statement failed: this round ends rolled back
            }
          }
          break;
      }
    }
    if (rng() % 3 == 0) {
      undo.rollbackTo(savepoint);
      REQUIRE(contents(t) == committed);
    } else {
      undo.commit();
      committed = contents(t);
    }
    requireIndexesConsistent(t);
  }
  // A duplicate key on insert is refused and leaves nothing behind.
  if (t.rowCount()) {
    int64_t k = t.getValue(0, 0).asInt();
    uint64_t before = t.rowCount();
    CHECK_THROWS_AS(append(undo, t, k, "dup"), Error);
    CHECK(t.rowCount() == before);
    requireIndexesConsistent(t);
  }
  // Rolling everything back to an empty table empties the indexes.
  undo.commit();
  size_t sp = undo.savepoint();
  std::vector<uint64_t> all;
  for (uint64_t r = 0; r < t.rowCount(); ++r) all.push_back(r);
  Model before = contents(t);
  txn::deleteRows(undo, t, all);
  CHECK(t.rowCount() == 0);
  CHECK(t.indexes()[0]->size() == 0);
  undo.rollbackTo(sp);
  CHECK(contents(t) == before);
  requireIndexesConsistent(t);
}

TEST_CASE("a hash index survives growth and backward-shift deletes") {
  Table t("h", {{"k", SqlType::int32(false)}});
  HashIndex idx("h_k", t, {0}, true);
  for (int32_t i = 0; i < 5000; ++i) {
    Value v[1] = {Value::int32(i % 2500)};
    t.appendRow(v);
    uint64_t other = idx.insert(t.rowCount() - 1);
    CHECK((other == kNoRow) == (i < 2500));
    if (other != kNoRow) t.truncate(t.rowCount() - 1);
  }
  CHECK(idx.size() == 2500);
  for (uint64_t r = 0; r < 2500; r += 2) idx.erase(r);
  CHECK(idx.size() == 1250);
  for (int32_t k = 0; k < 2500; ++k) {
    uint64_t row = idx.findFirst(reinterpret_cast<const uint8_t*>(&k));
    CHECK((row == kNoRow) == (k % 2 == 0));
  }
}
