#include "sql/api/session_settings.hpp"

#include <cctype>
#include <cstdlib>
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <thread>

#include "engine/txn/undo_log.hpp"
#include "engine/types/text_format.hpp"
#include "sql/api/text_result.hpp"
#include "sql/semantic/system_catalog.hpp"
#include "engine/util/machine_cores.hpp"

namespace hyrax {

namespace {

// A setting's value that is a quantity: a whole number (at most `maxDigits` digits) and a unit
// (any case, a space allowed between), as PostgreSQL writes memory sizes and durations. `units`
// lists each unit (lower case; "" for a bare number) with its size; the result is the number
// times its unit's size, at most `max`.
struct Unit {
  const char* name;
  uint64_t size;
};
uint64_t parseQuantity(const std::string& text, const char* name, SourcePos pos, std::initializer_list<Unit> units,
                       size_t maxDigits, uint64_t max, const char* form, const char* unitList) {
  auto bad = [&](const std::string& why) {
    return Error(sqlstate::InvalidParameter, "invalid value for parameter \"" + std::string(name) + "\": \"" + text + "\"", pos)
        .withDetail(why);
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits) throw bad(form);
  if (i - digits > maxDigits) throw bad("The value is too large.");
  uint64_t n = std::strtoull(text.c_str() + digits, nullptr, 10);
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit;
  for (; i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])); ++i)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  for (const Unit& u : units) {
    if (unit != u.name) continue;
    if (i != text.size()) break;
    if (n > max / u.size) throw bad("The value is too large.");
    return n * u.size;
  }
  throw bad(std::string("Valid units are ") + unitList + ".");
}

// A memory size: B, kB, MB, GB, TB (1024-based), a bare number counting kB.
uint64_t parseMemorySize(const std::string& text, const char* name, SourcePos pos) {
  return parseQuantity(text, name, pos,
                       {{"b", 1}, {"", 1 << 10}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", uint64_t{1} << 40}},
                       15, uint64_t{1} << 62, "A memory size is a whole number of B, kB, MB, GB or TB, like '4GB'.",
                       "B, kB, MB, GB and TB");
}

// A duration in milliseconds: ms, s, min, h, d, a bare number counting ms; at most 2^31-1 ms, as
// in PostgreSQL.
uint64_t parseDuration(const std::string& text, const char* name, SourcePos pos) {
  return parseQuantity(text, name, pos, {{"", 1}, {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000}},
                       12, 2147483647, "A duration is a whole number of ms, s, min, h or d, like '100ms'.",
                       "ms, s, min, h and d");
}

// The largest unit that divides the duration: 1500 -> "1500ms", 60000 -> "1min", 0 -> "0".
std::string formatDuration(uint64_t ms) {
  if (ms == 0) return "0";
  for (auto [unit, size] : {std::pair<const char*, uint64_t>{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}})
    if (ms % size == 0) return std::to_string(ms / size) + unit;
  return std::to_string(ms) + "ms";
}

// A value that is one of a few words (any case): the word in lower case.
std::string oneOf(const std::string& v, const char* name, SourcePos pos, std::initializer_list<const char*> words) {
  std::string lower = text::lowerAscii(v);
  std::string list;
  for (const char* w : words) {
    if (lower == w) return lower;
    list += (list.empty() ? "" : ", ") + std::string(w);
  }
  throw Error(sqlstate::InvalidParameter, "invalid value for parameter \"" + std::string(name) + "\": \"" + v + "\"", pos)
      .withDetail("Available values: " + list + ".");
}

// A whole number from lo to hi, as its digits.
std::string wholeNumber(const std::string& v, const char* name, SourcePos pos, long lo, long hi, const char* detail) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi)
    throw Error(sqlstate::InvalidParameter, "invalid value for parameter \"" + std::string(name) + "\": \"" + v + "\"", pos)
        .withDetail(detail);
  return std::to_string(n);
}

[[noreturn]] void readOnly(const char* name, SourcePos pos) {
  throw Error("55P02", "parameter \"" + std::string(name) + "\" cannot be changed", pos);
}

struct SettingDef {
  const char* name;
  const char* description;
  std::string (*defaultValue)();
  std::string (*normalize)(const std::string& value, SourcePos pos);  // throws 22023
  bool readOnly = false;  // SET is 55P02
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
     "Where a query outside a transaction block (or in a READ ONLY one) runs: 'snapshot' in a process forked "
     "from the executor, on a copy-on-write snapshot, while the executor goes on with other sessions' work; "
     "'inline' on the executor thread.",
     [] { return std::string("snapshot"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "analytics", pos, {"inline", "snapshot"}); }},
    {"compile_tier",
     "How queries become machine code: 'auto' starts a query expected to read many rows on cheap code and, "
     "once the work left outweighs the compile, compiles optimized code on a background thread that takes "
     "over the remaining morsels when it is ready; 'optimized' waits for the optimized code; 'cheap' never optimizes; 'adaptive' "
     "starts every query on cheap code, however small; 'interpreted' runs every query in the interpreter (where it "
     "can; cheap code elsewhere): tests and measurements.",
     [] { return std::string("auto"); },
     [](const std::string& v, SourcePos pos) {
       return oneOf(v, "compile_tier", pos, {"auto", "adaptive", "optimized", "cheap", "interpreted"});
     }},
    {"first_tier",
     "What an adaptive query (compile_tier auto or adaptive) runs first: 'interpreter' runs its first morsels "
     "in an interpreter of the generated code while its cheap code compiles on a background thread, which then "
     "takes over; 'cheap' compiles the cheap code before the first row.",
     [] { return std::string("interpreter"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "first_tier", pos, {"interpreter", "cheap"}); }},
    {"compile_parts",
     "How a query's cheap code is compiled: 'one' module before the first row; 'two' (when the query runs on "
     "fewer threads than there are cores) query_init and the first pipeline before the first row and the "
     "rest on a background thread meanwhile: the first row comes sooner (TPC-H SF 1, one thread: median "
     "3 ms instead of 9), but whole TPC-H runs measured slower end to end, for reasons not yet found.",
     [] { return std::string("one"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "compile_parts", pos, {"one", "two"}); }},
    {"cheap_regalloc",
     "How cheap code's registers are allocated: 'fast', LLVM's O0 allocator, keeps no value in a register "
     "beyond its block; 'greedy', LLVM's allocator for optimized code, keeps them across blocks: TPC-H's cheap "
     "code ran 1.5x faster for a compile three times as long, and adaptive queries ended no sooner "
     "(measurements).",
     [] { return std::string("fast"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "cheap_regalloc", pos, {"greedy", "fast"}); }},
    {"statement_cache",
     "Whether a statement sent again with the same text runs the plan and machine code of its first time "
     "('on'; while the schema is the same and no table it reads grew or shrank more than twofold; on "
     "snapshots from its third run, the second compiling it once in this process) or is compiled again "
     "('off': benchmarks of compile time).",
     [] { return std::string("on"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "statement_cache", pos, {"on", "off"}); }},
    {"threads",
     "How many threads one query's pipelines may run on, each taking morsels (table chunks) of the input "
     "in turn, and COPY FROM's text and csv input parses on, a chunk each in turn; 1 runs everything on the "
     "session's thread (COPY: one parsing thread beside it). Default: this machine's cores.",
     [] { return std::to_string(machineCores()); },
     [](const std::string& v, SourcePos pos) { return wholeNumber(v, "threads", pos, 1, 256, "A whole number from 1 to 256."); }},
    {"snapshot_max_age",
     "How old a snapshot a query may share with others' (it never misses the session's own writes); 0: only "
     "one that nothing has run on the executor since.",
     [] { return std::string("100ms"); },
     [](const std::string& v, SourcePos pos) { return formatDuration(parseDuration(v, "snapshot_max_age", pos)); }},
    {"analytics_nice",
     "The scheduling priority of the processes that run this session's queries on snapshots, as nice(1) "
     "counts it: 0 as the executor, up to 19 the lowest; 'idle': only a core nothing else wants "
     "(SCHED_IDLE), so the executor's transactions never wait for them.",
     [] { return std::string("idle"); },
     [](const std::string& v, SourcePos pos) {
       std::string lower = text::lowerAscii(v);
       if (lower == "idle") return lower;
       return wholeNumber(v, "analytics_nice", pos, 0, 19,
                          "idle, or a whole number from 0 (as the executor) to 19 (the lowest priority).");
     }},
    {"statement_timeout",
     "Cancels a statement that runs longer than this (57014); 0 waits for ever.",
     [] { return std::string("0"); },
     [](const std::string& v, SourcePos pos) { return formatDuration(parseDuration(v, "statement_timeout", pos)); }},
    // PostgreSQL's settings that clients set or read when they connect (psql, pgjdbc, psycopg).
    // Stored and shown; what they would change, hyrax does one way only (said in each).
    {"application_name",
     "The client's name for this session, as PostgreSQL keeps it: at most 63 bytes, characters other than "
     "printable ASCII as '?' (stored and shown; nothing else reads it yet).",
     [] { return std::string(); },
     [](const std::string& v, SourcePos) {
       std::string name = v.substr(0, 63);
       for (char& c : name)
         if (c < 32 || c > 126) c = '?';
       return name;
     }},
    {"extra_float_digits",
     "Accepted for PostgreSQL's clients and ignored: REAL and DOUBLE PRECISION print the shortest text that "
     "reads back as the same value, which is what PostgreSQL prints for 1 or more.",
     [] { return std::string("1"); },
     [](const std::string& v, SourcePos pos) {
       return wholeNumber(v, "extra_float_digits", pos, -15, 3, "A whole number from -15 to 3.");
     }},
    {"datestyle",
     "How dates print: ISO only (1998-12-01); the order part (MDY, DMY, YMD) is stored and shown but "
     "ISO input is read either way.",
     [] { return std::string("ISO, MDY"); },
     [](const std::string& v, SourcePos pos) {
       std::string lower = text::lowerAscii(v), order = "MDY";
       size_t start = 0;
       while (start <= lower.size()) {
         size_t end = lower.find(',', start);
         if (end == std::string::npos) end = lower.size();
         std::string item = lower.substr(start, end - start);
         while (!item.empty() && item.front() == ' ') item.erase(0, 1);
         while (!item.empty() && item.back() == ' ') item.pop_back();
         if (item == "iso") {  // the only output style
         } else if (item == "mdy" || item == "us" || item == "noneuropean") order = "MDY";
         else if (item == "dmy" || item == "euro" || item == "european") order = "DMY";
         else if (item == "ymd") order = "YMD";
         else
           throw Error(sqlstate::InvalidParameter, "invalid value for parameter \"DateStyle\": \"" + v + "\"", pos)
               .withDetail("hyrax prints dates in the ISO style only: ISO, with MDY, DMY or YMD.");
         start = end + 1;
       }
       return "ISO, " + order;
     }},
    {"client_encoding",
     "The encoding of text between client and server: UTF8 only (hyrax keeps and sends text as UTF-8).",
     [] { return std::string("UTF8"); },
     [](const std::string& v, SourcePos pos) {
       std::string lower = text::lowerAscii(v);
       if (lower == "utf8" || lower == "utf-8" || lower == "unicode") return std::string("UTF8");
       throw Error(sqlstate::InvalidParameter, "invalid value for parameter \"client_encoding\": \"" + v + "\"", pos)
           .withDetail("hyrax speaks UTF8 only.");
     }},
    {"search_path",
     "Accepted and stored; names are looked up in pg_catalog, then public, whatever it says.",
     [] { return std::string("\"$user\", public"); },
     [](const std::string& v, SourcePos) { return v; }},
    {"timezone",
     "Accepted and stored; hyrax has no time zones yet: TIMESTAMP is without one, and CURRENT_TIMESTAMP is UTC.",
     [] { return std::string("UTC"); },
     [](const std::string& v, SourcePos) { return v; }},
    {"standard_conforming_strings",
     "on: a backslash in '...' is an ordinary character (the only way hyrax reads strings).",
     [] { return std::string("on"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "standard_conforming_strings", pos, {"on"}); }},
    {"server_version",
     "The PostgreSQL version whose protocol and catalog hyrax answers with (read only).",
     [] { return std::string("15.0"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("server_version", pos); },
     true},
    {"intervalstyle",
     "How intervals print: postgres only (1 year 2 mons 3 days 04:05:06).",
     [] { return std::string("postgres"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "IntervalStyle", pos, {"postgres"}); }},
    {"default_transaction_read_only",
     "off only: a transaction is READ ONLY when BEGIN READ ONLY says so.",
     [] { return std::string("off"); },
     [](const std::string& v, SourcePos pos) { return oneOf(v, "default_transaction_read_only", pos, {"off"}); }},
    {"integer_datetimes",
     "on: dates and times are kept as whole numbers (read only).",
     [] { return std::string("on"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("integer_datetimes", pos); },
     true},
    {"in_hot_standby",
     "off: hyrax is no standby server (read only).",
     [] { return std::string("off"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("in_hot_standby", pos); },
     true},
    {"server_encoding",
     "The encoding of stored text (read only).",
     [] { return std::string("UTF8"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("server_encoding", pos); },
     true},
    {"transaction_isolation",
     "serializable: transactions run one after another on the executor (read only).",
     [] { return std::string("serializable"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("transaction_isolation", pos); },
     true},
    // The role: what the client logged in as (the server sets it at login), what current_user,
    // session_user and current_role return.
    {"session_authorization",
     "The role the session logged in as (the server's client's user; hyrax in the shell): current_user, "
     "session_user and current_role (read only: SET SESSION AUTHORIZATION is not supported).",
     [] { return std::string(sql::kRoleName); },
     [](const std::string&, SourcePos pos) -> std::string {
       throw Error(sqlstate::FeatureNotSupported, "SET SESSION AUTHORIZATION is not supported", pos);
     },
     true},
    {"is_superuser",
     "on for the built-in role hyrax, as pg_roles says (read only; hyrax checks no privileges yet).",
     [] { return std::string("on"); },
     [](const std::string&, SourcePos pos) -> std::string { readOnly("is_superuser", pos); },
     true},
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
  // A test hook, not a setting: adaptive compiles switch to optimized code after this many
  // morsels every time (the test suite runs the SELECT tests so), instead of when it is ready.
  if (const char* n = std::getenv("HYRAX_TEST_SWITCH_AFTER_MORSELS"))
    executionPolicy_.switchAfterMorsels = static_cast<uint32_t>(std::strtoul(n, nullptr, 10));
  refresh();
}

void SessionSettings::refresh() {
  memoryLimit_.bytes = parseMemorySize(values_.at("memory_limit"), "memory_limit", {});
  analyticsOnSnapshot_ = values_.at("analytics") == "snapshot";
  const std::string& tier = values_.at("compile_tier");
  executionPolicy_.tier = tier == "cheap"       ? codegen::CompileTier::Cheap
                        : tier == "optimized" ? codegen::CompileTier::Optimized
                        : tier == "adaptive"  ? codegen::CompileTier::Adaptive
                        : tier == "interpreted" ? codegen::CompileTier::Interpreted
                                              : codegen::CompileTier::Auto;
  executionPolicy_.interpretFirst = values_.at("first_tier") == "interpreter";
  executionPolicy_.twoParts = values_.at("compile_parts") == "two";
  executionPolicy_.greedyRegisterAllocator = values_.at("cheap_regalloc") == "greedy";
  statementCache_ = values_.at("statement_cache") == "on";
  executionPolicy_.threads = static_cast<uint32_t>(std::strtoul(values_.at("threads").c_str(), nullptr, 10));
  snapshotMaxAgeMs_ = parseDuration(values_.at("snapshot_max_age"), "snapshot_max_age", {});
  statementTimeoutMs_ = parseDuration(values_.at("statement_timeout"), "statement_timeout", {});
  const std::string& nice = values_.at("analytics_nice");
  analyticsIdle_ = nice == "idle";
  analyticsNice_ = analyticsIdle_ ? 19 : static_cast<int>(std::strtol(nice.c_str(), nullptr, 10));
}

std::vector<SettingDescription> SessionSettings::descriptions() {
  std::vector<SettingDescription> out;
  for (const SettingDef& s : kSettings) out.push_back({s.name, s.description, s.defaultValue(), s.readOnly});
  return out;
}

std::optional<std::string> SessionSettings::settingValue(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, std::string>> SessionSettings::values() const {
  return {values_.begin(), values_.end()};
}

void SessionSettings::restore(const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values)
    if (findSetting(name)) values_[name] = value;
  ++changes_;
  refresh();
}

bool SessionSettings::setInitial(const std::string& name, const std::string& value, bool checked) {
  const SettingDef* s = findSetting(text::lowerAscii(name));
  if (!s) return false;
  std::string v = checked ? s->normalize(value, {}) : value;
  initial_[s->name] = v;
  values_[s->name] = std::move(v);
  ++changes_;
  refresh();
  return true;
}

void SessionSettings::endTransaction(bool commit) {
  if (locals_.empty()) return;
  // A rollback put every value back already (the undo log); a commit leaves SET LOCAL's to undo.
  if (commit)
    for (auto& [name, value] : locals_) values_[name] = std::move(value);
  locals_.clear();
  ++changes_;
  refresh();
}

std::string SessionSettings::resetValue(const char* name) const {
  auto it = initial_.find(name);
  return it != initial_.end() ? it->second : findSetting(name)->defaultValue();
}

void SessionSettings::assign(const std::string& name, std::string value, UndoLog& undo, bool local) {
  // As PostgreSQL: SET LOCAL's value lasts until the transaction ends, then the one before it
  // comes back; a plain SET after it in the same transaction stays.
  // The undo (ROLLBACK, ROLLBACK TO a savepoint, a failed statement) puts back both the value and
  // whether a SET LOCAL's value before it was pending.
  auto pending = locals_.find(name);
  std::optional<std::string> wasLocal;
  if (pending != locals_.end()) wasLocal = pending->second;
  if (local) locals_.emplace(name, values_.at(name));
  else locals_.erase(name);
  std::string& slot = values_.at(name);
  if (slot == value && local == wasLocal.has_value()) return;
  undo.logAction([this, name, old = slot, wasLocal] {
    values_[name] = old;
    if (wasLocal) locals_[name] = *wasLocal;
    else locals_.erase(name);
    ++changes_;
    refresh();
  });
  slot = std::move(value);
  ++changes_;
  refresh();
}

QueryResult SessionSettings::apply(const ast::SettingStmt& stmt, UndoLog& undo, bool inBlock) {
  using Op = ast::SettingStmt::Op;
  switch (stmt.op) {
    case Op::Set: {
      const SettingDef& s = setting(stmt.name, stmt.namePos);
      assign(s.name, stmt.toDefault ? resetValue(s.name) : s.normalize(stmt.value, stmt.valuePos), undo, stmt.local);
      QueryResult r({}, {}, "SET");
      // Outside a block the statement is its transaction: the value ends with it, as PostgreSQL's.
      if (stmt.local && !inBlock) r.notices.push_back({"WARNING", "SET LOCAL can only be used in transaction blocks", "25P01"});
      return r;
    }
    case Op::Reset:
      if (stmt.name.empty()) {
        // Read-only settings keep their values (the session's role too, as PostgreSQL's RESET ALL).
        for (const SettingDef& s : kSettings)
          if (!s.readOnly) assign(s.name, resetValue(s.name), undo);
      } else {
        const SettingDef& s = setting(stmt.name, stmt.namePos);
        assign(s.name, resetValue(s.name), undo);
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
