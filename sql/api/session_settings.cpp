#include "sql/api/session_settings.hpp"

#include <cctype>
#include <cstdlib>

#include "engine/txn/undo_log.hpp"
#include "sql/api/text_result.hpp"

namespace hyrax {

namespace {

// A memory size as PostgreSQL writes one: a whole number and a unit (B, kB, MB, GB, TB; 1024-based;
// any case, a space allowed between), a bare number counting kB.
uint64_t parseMemorySize(const std::string& text, const char* name, SourcePos pos) {
  auto bad = [&](const std::string& why) {
    return Error(sqlstate::InvalidParameter, "invalid value for parameter \"" + std::string(name) + "\": \"" + text + "\"", pos)
        .withDetail(why);
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits) throw bad("A memory size is a whole number of B, kB, MB, GB or TB, like '4GB'.");
  if (i - digits > 15) throw bad("The size is too large.");
  uint64_t n = std::strtoull(text.c_str() + digits, nullptr, 10);
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit;
  for (; i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])); ++i)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  int shift = unit == "b" ? 0 : unit.empty() || unit == "kb" ? 10 : unit == "mb" ? 20 : unit == "gb" ? 30 : unit == "tb" ? 40 : -1;
  if (shift < 0 || i != text.size()) throw bad("Valid units are B, kB, MB, GB and TB.");
  if (n > (uint64_t{1} << (62 - shift))) throw bad("The size is too large.");
  return n << shift;
}

struct SettingDef {
  const char* name;
  const char* description;
  std::string (*defaultValue)();
  std::string (*normalize)(const std::string& value, SourcePos pos);  // throws 22023
};

const SettingDef kSettings[] = {
    {"memory_limit",
     "The most memory one statement's hash tables, sorts, strings and held results may take; past it the "
     "statement fails with 53200.",
     [] { return formatMemorySize(MemoryBudget::defaultLimit()); },
     [](const std::string& v, SourcePos pos) {
       uint64_t bytes = parseMemorySize(v, "memory_limit", pos);
       if (bytes < (uint64_t{1} << 20))
         throw Error(sqlstate::InvalidParameter, "memory_limit must be at least 1MB", pos);
       return formatMemorySize(bytes);
     }},
    {"analytics",
     "Where a SELECT outside a transaction block runs: 'inline' on the executor thread, or 'snapshot' in a "
     "process forked from it, on a copy-on-write snapshot, while the executor goes on with other sessions' work.",
     [] { return std::string("inline"); },
     [](const std::string& v, SourcePos pos) {
       std::string lower;
       for (char c : v) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
       if (lower != "inline" && lower != "snapshot")
         throw Error(sqlstate::InvalidParameter, "invalid value for parameter \"analytics\": \"" + v + "\"", pos)
             .withDetail("Available values: inline, snapshot.");
       return lower;
     }},
};

const SettingDef* findSetting(const std::string& name) {
  for (const SettingDef& s : kSettings)
    if (name == s.name) return &s;
  return nullptr;
}

const SettingDef& setting(const std::string& name, SourcePos pos) {
  const SettingDef* s = findSetting(name);
  if (!s) throw Error(sqlstate::UndefinedObject, "unrecognized configuration parameter \"" + name + "\"", pos);
  return *s;
}

}  // namespace

SessionSettings::SessionSettings() {
  for (const SettingDef& s : kSettings) values_[s.name] = s.defaultValue();
  refresh();
}

void SessionSettings::refresh() {
  memoryLimit_.bytes = parseMemorySize(values_.at("memory_limit"), "memory_limit", {});
  analyticsOnSnapshot_ = values_.at("analytics") == "snapshot";
}

void SessionSettings::assign(const std::string& name, std::string value, UndoLog& undo) {
  std::string& slot = values_.at(name);
  if (slot == value) return;
  undo.logAction([this, name, old = slot] {
    values_[name] = old;
    refresh();
  });
  slot = std::move(value);
  refresh();
}

QueryResult SessionSettings::apply(const ast::SettingStmt& stmt, UndoLog& undo) {
  using Op = ast::SettingStmt::Op;
  switch (stmt.op) {
    case Op::Set: {
      const SettingDef& s = setting(stmt.name, stmt.namePos);
      assign(s.name, stmt.toDefault ? s.defaultValue() : s.normalize(stmt.value, stmt.valuePos), undo);
      return QueryResult({}, {}, "SET");
    }
    case Op::Reset:
      if (stmt.name.empty()) {
        for (const SettingDef& s : kSettings) assign(s.name, s.defaultValue(), undo);
      } else {
        const SettingDef& s = setting(stmt.name, stmt.namePos);
        assign(s.name, s.defaultValue(), undo);
      }
      return QueryResult({}, {}, "RESET");
    case Op::Show:
      if (stmt.name.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const SettingDef& s : kSettings) rows.push_back({s.name, values_.at(s.name), s.description});
        return sql::textResult({"name", "setting", "description"}, rows, "SHOW");
      }
      const SettingDef& s = setting(stmt.name, stmt.namePos);
      return sql::textResult({s.name}, {{values_.at(s.name)}}, "SHOW");
  }
  throw Error(sqlstate::InternalError, "unknown setting statement");
}

}  // namespace hyrax
