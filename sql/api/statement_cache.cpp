#include "sql/api/statement_cache.hpp"

#include <algorithm>

#include "engine/catalog/catalog.hpp"
#include "engine/storage/table.hpp"

namespace hyrax::sql {

namespace {

bool sameSize(uint64_t then, uint64_t now) { return now <= 2 * then + 1000 && then <= 2 * now + 1000; }

}  // namespace

std::string StatementCache::key(std::string_view text, SourcePos origin, const std::string& settings) {
  return std::to_string(origin.line) + ":" + std::to_string(origin.column) + ":" + settings + ":" + std::string(text);
}

std::shared_ptr<CompiledStatement> StatementCache::find(std::string_view text, SourcePos origin, const std::string& settings,
                                                        const Catalog& catalog) {
  auto it = entries_.find(key(text, origin, settings));
  if (it == entries_.end()) return nullptr;
  Entry& e = it->second;
  // The version first: a table the entry points at may have been dropped since.
  bool good = e.statement->catalogVersion == catalog.version();
  for (auto& [table, rows] : e.tableRows) good = good && sameSize(rows, table->rowCount());
  if (!good) {
    entries_.erase(it);
    return nullptr;
  }
  e.lastUse = ++uses_;
  return e.statement;
}

bool StatementCache::seenBefore(std::string_view text, SourcePos origin, const std::string& settings) {
  if (sightings_.size() >= kSightings) sightings_.clear();
  return sightings_[key(text, origin, settings)]++ > 0;
}

void StatementCache::add(std::string_view text, SourcePos origin, const std::string& settings, std::shared_ptr<CompiledStatement> s) {
  if (entries_.size() >= kCapacity) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](auto& a, auto& b) { return a.second.lastUse < b.second.lastUse; });
    entries_.erase(oldest);
  }
  Entry e;
  if (s->plan.root)
    for (const Table* t : plan::tablesScanned(*s->plan.root)) e.tableRows.push_back({t, t->rowCount()});
  e.statement = std::move(s);
  e.lastUse = ++uses_;
  entries_[key(text, origin, settings)] = std::move(e);
}

}  // namespace hyrax::sql
