#pragma once
// A session's settings: SET name = value, SET name TO DEFAULT, RESET name | ALL, SHOW name | ALL.
// As in PostgreSQL, a SET inside a transaction block that is rolled back is undone with it.
// Settings are listed once (session_settings.cpp) with their description, default and the check
// that normalizes a value; an unknown name is 42704, a bad value 22023, each with its position.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/memory_budget.hpp"
#include "engine/runtime/session_values.hpp"
#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {

class UndoLog;

class SessionSettings : public SessionValues {
 public:
  SessionSettings();
  // current_setting(name) of a running query (the session installs itself for each statement).
  std::optional<std::string> settingValue(const std::string& name) const override;
  // Every setting: name, description, default, read-only (pg_settings, through the catalog).
  static std::vector<SettingDescription> descriptions();
  // `inBlock`: a transaction block is open (SET LOCAL outside one warns, as PostgreSQL does).
  QueryResult apply(const ast::SettingStmt& stmt, UndoLog& undo, bool inBlock);
  // The session's transaction ended (each statement outside a block is one): SET LOCAL's values
  // end with it.
  void endTransaction(bool commit);
  // Moves whenever a value may have changed (the server reports PostgreSQL's reported settings
  // only after it moved).
  uint64_t changes() const { return changes_; }

  // The memory one statement may use (installed for the statements the session runs).
  const MemoryLimit& memoryLimit() const { return memoryLimit_; }
  // SET compile_tier (installed for the statements the session runs, as memoryLimit).
  const codegen::ExecutionPolicy& executionPolicy() const { return executionPolicy_; }
  bool statementCache() const { return statementCache_; }  // SET statement_cache (sql/api/statement_cache.hpp)
  // SET analytics = 'snapshot' (the default): queries outside a transaction block run on a fork
  // snapshot (sql/api/snapshot.hpp); 'inline': on the executor thread.
  bool analyticsOnSnapshot() const { return analyticsOnSnapshot_; }
  double snapshotMaxAgeMs() const { return static_cast<double>(snapshotMaxAgeMs_); }
  uint64_t statementTimeoutMs() const { return statementTimeoutMs_; }  // 0: none
  int analyticsNice() const { return analyticsNice_; }  // a snapshot worker's nice(1) value
  bool analyticsIdle() const { return analyticsIdle_; }  // ... and SCHED_IDLE besides

  // A setting's value for this session from its start, which RESET and SET ... TO DEFAULT return
  // to (the server's login: the role, the startup packet's settings, as PostgreSQL takes them).
  // `checked`: the value is normalized as SET does it (22023 if bad); unchecked for read-only
  // ones. False when there is no setting of that name (any case).
  bool setInitial(const std::string& name, const std::string& value, bool checked);

  // Every setting's text, and setting them back (a snapshot worker takes its session's this way).
  std::vector<std::pair<std::string, std::string>> values() const;
  void restore(const std::vector<std::pair<std::string, std::string>>& values);

 private:
  void assign(const std::string& name, std::string value, UndoLog& undo, bool local = false);
  void refresh();  // the typed values from the texts
  std::string resetValue(const char* name) const;  // setInitial's value, else the default
  std::map<std::string, std::string> values_;  // name -> normalized text
  std::map<std::string, std::string> initial_;  // setInitial's values
  std::map<std::string, std::string> locals_;   // SET LOCAL's settings in this transaction: their values before it
  uint64_t changes_ = 0;
  MemoryLimit memoryLimit_{0};
  codegen::ExecutionPolicy executionPolicy_;
  bool statementCache_ = true;
  bool analyticsOnSnapshot_ = true;
  uint64_t snapshotMaxAgeMs_ = 0, statementTimeoutMs_ = 0;
  int analyticsNice_ = 0;
  bool analyticsIdle_ = false;
};

}  // namespace hyrax
