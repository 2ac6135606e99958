#include "bench/sqlfuzz/schema.hpp"

#include "engine/types/text_format.hpp"

#include <cstdio>

#include "bench/sqlfuzz/random.hpp"

namespace hyrax::bench::sqlfuzz {

const char* kindTypeName(Kind k) {
  switch (k) {
    case Kind::Int: return "INTEGER";
    case Kind::Big: return "BIGINT";
    case Kind::Dec: return "DECIMAL(12,2)";
    case Kind::Dbl: return "DOUBLE PRECISION";
    case Kind::Str: return "VARCHAR(20)";
    case Kind::Chr: return "CHAR(4)";
    case Kind::Date: return "DATE";
    case Kind::Bool: return "BOOLEAN";
  }
  return "INTEGER";
}

namespace {

const char* kPrefix[] = {"i", "b", "d", "f", "s", "c", "dt", "g"};

ColumnDef randomColumn(Rng& rng, Kind kind, int number) {
  ColumnDef c{std::string(kPrefix[static_cast<int>(kind)]) + std::to_string(number), kind, kindTypeName(kind)};
  if (kind == Kind::Dec) {
    int p = static_cast<int>(rng.range(6, 12)), s = static_cast<int>(rng.range(0, 4));
    c.type = "DECIMAL(" + std::to_string(p) + "," + std::to_string(s) + ")";
  } else if (kind == Kind::Chr) {
    c.type = "CHAR(" + std::to_string(rng.range(1, 8)) + ")";
  } else if (kind == Kind::Str) {
    c.type = "VARCHAR(" + std::to_string(rng.range(10, 24)) + ")";
  }
  return c;
}

// The number in a type's parentheses ("DECIMAL(9,2)" -> 9; its second with `second`).
int typeArg(const std::string& type, bool second = false) {
  size_t at = type.find(second ? ',' : '(');
  return at == std::string::npos ? 0 : std::atoi(type.c_str() + at + 1);
}

}  // namespace

// Days since 1970-01-01 as YYYY-MM-DD: the engine's own text form of a DATE.
std::string isoDate(int64_t days) { return text::formatDate(static_cast<int32_t>(days)); }


// A short string of letters that LIKE patterns meet (`_` and `%` among them), never longer than
// `maxLen`; for CHAR none ends in a blank (trailing blanks do not count there).
static std::string randomText(Rng& rng, int maxLen, bool isChar) {
  static const char kAlphabet[] = "aabbcAB x_%z";
  int len = static_cast<int>(rng.range(isChar ? 1 : 0, maxLen < 6 ? maxLen : 6));
  std::string s;
  for (int i = 0; i < len; ++i) s += kAlphabet[rng.next() % (sizeof kAlphabet - 1)];
  while (isChar && !s.empty() && s.back() == ' ') s.back() = 'q';
  return s;
}

std::string poolText(uint64_t entry, int maxLen, bool isChar) {
  Rng pool(entry);
  return randomText(pool, maxLen, isChar);
}

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// One value of column `c` in CSV, "" for NULL; `row` numbers the table's rows from 0.
std::string csvValue(Rng& rng, const ColumnDef& c, const Schema& schema, uint64_t row, uint64_t tableRows) {
  if (c.name == "id") return std::to_string(c.unique ? row + 1 : static_cast<uint64_t>(rng.skewed(static_cast<int64_t>(tableRows / 2))) + 1);
  if (rng.chance(0.1)) return "";
  if (c.references >= 0) {
    int64_t n = static_cast<int64_t>(schema.tables[static_cast<size_t>(c.references)].rows);
    return std::to_string(rng.chance(0.5) ? rng.skewed(n + n / 10) + 1 : rng.range(1, n + n / 10));
  }
  const bool common = rng.chance(0.6);  // from a small pool, skewed: duplicates and heavy hitters
  char buf[64];
  switch (c.kind) {
    case Kind::Int: return std::to_string(common ? rng.skewed(50) - 5 : rng.range(-100000, 1000000));
    case Kind::Big: return std::to_string(common ? rng.skewed(30) * 1000000007LL : rng.range(-1000000000000LL, 1000000000000LL));
    case Kind::Dec: {
      int p = typeArg(c.type), s = typeArg(c.type, true);
      int64_t limit = 1;
      for (int i = 0; i < p && i < 9; ++i) limit *= 10;  // unscaled values below 10^min(p, 9)
      int64_t unscaled = common ? rng.skewed(40) * (s ? 25 : 1) : rng.range(-(limit - 1), limit - 1);
      int64_t scale = 1;
      for (int i = 0; i < s; ++i) scale *= 10;
      int64_t whole = (unscaled < 0 ? -unscaled : unscaled) / scale, frac = (unscaled < 0 ? -unscaled : unscaled) % scale;
      std::snprintf(buf, sizeof buf, "%s%lld", unscaled < 0 ? "-" : "", static_cast<long long>(whole));
      std::string out = buf;
      if (s) {
        std::snprintf(buf, sizeof buf, ".%0*lld", s, static_cast<long long>(frac));
        out += buf;
      }
      return out;
    }
    case Kind::Dbl:  // multiples of 0.25: sums are exact in any order, so threads cannot change them
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(common ? rng.skewed(40) : rng.range(-4000000, 4000000)) / 4.0);
      return buf;
    case Kind::Str: {
      return quoted(poolText(common ? static_cast<uint64_t>(rng.skewed(30)) : rng.next(), typeArg(c.type), false));
    }
    case Kind::Chr: {
      return quoted(poolText(common ? static_cast<uint64_t>(rng.skewed(12)) : rng.next(), typeArg(c.type), true));
    }
    case Kind::Date: return isoDate(common ? 10957 + rng.skewed(400) : rng.range(-3650, 20000));
    case Kind::Bool: return rng.chance(0.6) ? "true" : "false";
  }
  return "";
}

}  // namespace

Schema makeSchema(uint64_t seed, uint64_t bigRows) {
  Rng rng(seed, ~0ULL);
  Schema schema;
  const uint64_t rows[] = {bigRows, static_cast<uint64_t>(rng.range(2000, 10000)), static_cast<uint64_t>(rng.range(300, 1000)),
                           static_cast<uint64_t>(rng.range(100, 300))};
  for (size_t t = 0; t < 4; ++t) {
    TableDef table;
    table.name = "t" + std::to_string(t);
    table.rows = rows[t];
    table.primaryKey = t == 1 || t == 2 || (t == 0 && rng.chance(0.5));
    table.columns.push_back({"id", t == 0 ? Kind::Big : Kind::Int, t == 0 ? "BIGINT" : "INTEGER", t != 3});
    // Reference columns: t0 -> t1, t2; t1 -> t2; t3 -> t2 (a snowflake around t2).
    for (int r : t == 0 ? std::vector<int>{1, 2} : t == 2 ? std::vector<int>{} : std::vector<int>{2})
      table.columns.push_back({"r" + std::to_string(r), Kind::Int, "INTEGER", false, r});
    int number = 1;
    for (Kind k : kAllKinds) {
      int copies = t == 0 ? 1 + rng.chance(0.3) : rng.chance(0.65) ? 1 : 0;  // the big table has every kind
      for (int i = 0; i < copies; ++i) table.columns.push_back(randomColumn(rng, k, number++));
    }
    schema.tables.push_back(std::move(table));
  }
  return schema;
}

std::vector<std::string> Schema::createStatements() const {
  std::vector<std::string> out;
  for (const TableDef& t : tables) {
    std::string sql = "CREATE TABLE " + t.name + " (";
    for (size_t i = 0; i < t.columns.size(); ++i)
      sql += (i ? ", " : "") + t.columns[i].name + " " + t.columns[i].type + (i == 0 && t.primaryKey ? " PRIMARY KEY" : "");
    out.push_back(sql + ")");
  }
  return out;
}

std::string tableCsv(const Schema& schema, size_t t, uint64_t seed) {
  const TableDef& table = schema.tables[t];
  Rng rng(seed, 1000 + t);
  std::string out;
  for (uint64_t row = 0; row < table.rows; ++row) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c) out += ',';
      out += csvValue(rng, table.columns[c], schema, row, table.rows);
    }
    out += '\n';
  }
  return out;
}

}  // namespace hyrax::bench::sqlfuzz
