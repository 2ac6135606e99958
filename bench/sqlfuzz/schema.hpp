#pragma once
// The fuzzer's random schema and data, decided by the seed alone: 4 tables (one big enough that
// two threads split its scans, the others 100 to 10,000 rows) of INTEGER, BIGINT, DECIMAL(p,s),
// DOUBLE PRECISION, VARCHAR, CHAR(n), DATE and BOOLEAN columns, about a tenth of the values NULL,
// skewed and repeated values, a primary key on some tables, and reference columns (rN) holding
// the ids of table tN, so that joins along them stay near the size of their inputs.
#include <cstdint>
#include <string>
#include <vector>

namespace hyrax::bench::sqlfuzz {

// What an expression's value is, as the generator types it. Int and Big are one class for
// comparisons and set operations; Chr (CHAR(n)) is kept apart from Str, since comparing the two
// mixes blank-padded and plain semantics.
enum class Kind { Int, Big, Dec, Dbl, Str, Chr, Date, Bool };
constexpr Kind kAllKinds[] = {Kind::Int, Kind::Big, Kind::Dec, Kind::Dbl, Kind::Str, Kind::Chr, Kind::Date, Kind::Bool};
// Int and Big compare with each other; every other kind only with itself.
inline Kind kindClass(Kind k) { return k == Kind::Big ? Kind::Int : k; }
inline bool isNumeric(Kind k) { return k == Kind::Int || k == Kind::Big || k == Kind::Dec || k == Kind::Dbl; }
// The type a CAST(NULL AS ...) of this kind names.
const char* kindTypeName(Kind k);

struct ColumnDef {
  std::string name;
  Kind kind;
  std::string type;      // as CREATE TABLE spells it
  bool unique = false;   // no two rows share a value (ids): equality joins on it cannot grow
  int references = -1;   // the table whose ids it holds, or -1
};

struct TableDef {
  std::string name;
  std::vector<ColumnDef> columns;
  uint64_t rows = 0;
  bool primaryKey = false;  // `id` is its PRIMARY KEY
};

struct Schema {
  std::vector<TableDef> tables;
  std::vector<std::string> createStatements() const;
};

// Values both the data and the queries' literals draw from: the text of pool entry `entry` (so a
// literal often equals stored values), and a date as YYYY-MM-DD from days since 1970.
std::string poolText(uint64_t entry, int maxLen, bool isChar);
std::string isoDate(int64_t days);

// The schema of `seed`; table 0 has `bigRows` rows.
Schema makeSchema(uint64_t seed, uint64_t bigRows);
// Table `t`'s rows as CSV (empty unquoted field: NULL, quoted "": the empty string), as both
// engines' COPY ... (FORMAT csv) read it.
std::string tableCsv(const Schema& schema, size_t t, uint64_t seed);

}  // namespace hyrax::bench::sqlfuzz
