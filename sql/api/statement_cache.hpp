#pragma once
// A session's compiled statements by their text: an application that sends the same SELECT,
// INSERT, UPDATE or DELETE again without PREPARE gets the plan and machine code of the first time
// (and, after an adaptive compile, its optimized code from the first row). An entry is used only
// while the catalog has the version it was compiled against and no table it reads has grown or
// shrunk more than twofold (its plan's estimates would be off); plans never depend on the data for
// their answers, only for their speed. The least recently used go past kCapacity entries.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sql/api/compiled_statement.hpp"

namespace hyrax::sql {

class StatementCache {
 public:
  static constexpr size_t kCapacity = 128;

  // The entry for this text (at this place in a script, since positions in errors refer to it)
  // and compile settings, when it is still good.
  std::shared_ptr<CompiledStatement> find(std::string_view text, SourcePos origin, const std::string& settings,
                                          const Catalog& catalog);
  void add(std::string_view text, SourcePos origin, const std::string& settings, std::shared_ptr<CompiledStatement> s);
  size_t size() const { return entries_.size(); }
  // Counts a sighting of this text; true from its second on. A query on a snapshot is compiled in
  // the session's process (for its later snapshots to reuse) only once it came again: a one-off
  // query costs the executor nothing.
  bool seenBefore(std::string_view text, SourcePos origin, const std::string& settings);

 private:
  struct Entry {
    std::shared_ptr<CompiledStatement> statement;
    std::vector<std::pair<const Table*, uint64_t>> tableRows;  // each table it reads, and its rows then
    uint64_t lastUse = 0;
  };
  static std::string key(std::string_view text, SourcePos origin, const std::string& settings);
  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, uint32_t> sightings_;  // cleared when it reaches kSightings
  static constexpr size_t kSightings = 4096;
  uint64_t uses_ = 0;
};

}  // namespace hyrax::sql
