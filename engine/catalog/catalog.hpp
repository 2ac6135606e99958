#pragma once
// The catalog: tables and views by name (one namespace). Names are stored as the binder normalised them (unquoted
// identifiers lower-cased, quoted ones exact), so lookups here are exact.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/catalog/sequence.hpp"
#include "engine/storage/table.hpp"

namespace hyrax {

class Index;

// A stored routine as the binder sees it (sql/api/procedure registers the lookup).
struct RoutineSignature {
  std::vector<SqlType> params;
  std::vector<std::string> paramNames;
  SqlType result;
  bool procedure = false;
};

// A session setting as pg_settings lists it (sql/api/session_settings registers the list).
struct SettingDescription {
  std::string name, description, defaultValue;
  bool readOnly = false;
};

// A role as pg_roles lists it (sql/api/roles registers the list; no password, ever).
struct RoleDescription {
  std::string name;
  bool login = false, hasPassword = false;
};

class Catalog {
 public:
  // Stored routines by name: fills `out` and returns true when one exists. Set by the database.
  std::function<bool(const std::string& name, RoutineSignature& out)> findRoutine;
  // The stored routines' names, sorted (pg_proc). Set by the database.
  std::function<std::vector<std::string>()> routineNames;
  // The session settings there are (pg_settings; their values are each session's). Set by the database.
  std::function<std::vector<SettingDescription>()> settingDescriptions;
  // The roles made by CREATE ROLE, by name (pg_roles, pg_user). Set by the database.
  std::function<std::vector<RoleDescription>()> roleList;

  // Throws Error 42P07 when the name is taken.
  Table& createTable(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey = {});
  // Throws Error 42P01 when missing.
  void dropTable(const std::string& name);
  Table* findTable(const std::string& name) const;  // nullptr when missing
  // Takes a table out of the catalog and puts it back (a DROP TABLE that may still roll back).
  std::unique_ptr<Table> detachTable(const std::string& name);
  void attachTable(std::unique_ptr<Table> table);
  // The index of that name on any table; {nullptr, nullptr} when there is none. Index names share
  // one namespace with tables and views, as in PostgreSQL.
  std::pair<Table*, Index*> findIndex(const std::string& name) const;
  bool nameTaken(const std::string& name) const;  // a table, view, index or sequence has it

  // Sequences share the relations' namespace (42P07 on a clash). Held by shared pointers: compiled
  // code that calls nextval keeps its sequence alive (codegen's CodeConstants).
  void createSequence(std::shared_ptr<Sequence> sequence);
  std::shared_ptr<Sequence> findSequence(const std::string& name) const;  // null when missing
  std::shared_ptr<Sequence> detachSequence(const std::string& name);     // null when missing

  // Changes with every change of the schema (tables, views, indexes, constraints) and its undoing:
  // compiled statements kept for later (PREPARE) are compiled again when it moved.
  uint64_t version() const { return version_; }
  void bump() { ++version_; }
  std::vector<const Table*> tables() const;         // sorted by name

  // A view is its query's text (re-parsed wherever it is used) and its column names (empty: the
  // query's own).
  struct View {
    std::string sql;
    std::vector<std::string> columns;
  };
  // Throws Error 42P07 when the name is taken.
  void createView(const std::string& name, View view);
  void dropView(const std::string& name);         // Throws Error 42P01 when missing
  View detachView(const std::string& name);       // Throws Error 42P01 when missing
  const View* findView(const std::string& name) const;  // nullptr when missing
  std::vector<std::string> views() const;         // names, sorted
  std::vector<std::shared_ptr<Sequence>> sequences() const;  // sorted by name

  // PostgreSQL-style OIDs for pg_catalog (sql/semantic/system_catalog.cpp): each object takes the
  // next number from 16384, PostgreSQL's first OID for user objects, when it is created (a table
  // with its indexes, constraints and defaults, then views, sequences, indexes as they come), and
  // keeps it while the database lives; a name dropped and created again gets its old OID back.
  // Assigned on the executor, so a snapshot's queries see the same numbers as inline ones.
  uint32_t objectOid(const std::string& relationName) const;
  uint32_t constraintOid(const std::string& table, const std::string& constraint) const;
  uint32_t defaultOid(const std::string& table, const std::string& column) const;
  uint32_t routineOid(const std::string& routine) const;  // routines have a namespace of their own
  uint32_t roleOid(const std::string& role) const;        // so have roles (CREATE ROLE assigns it)
  // Gives `table`, its indexes, constraints and column defaults their OIDs now.
  void assignOids(const Table& table);
  static constexpr uint32_t kFirstUserOid = 16384;

 private:
  std::map<std::string, std::unique_ptr<Table>> tables_;
  std::map<std::string, View> views_;
  std::map<std::string, std::shared_ptr<Sequence>> sequences_;
  uint64_t version_ = 0;
  mutable std::map<std::string, uint32_t> oids_;
  mutable uint32_t nextOid_ = kFirstUserOid;
};

}  // namespace hyrax
