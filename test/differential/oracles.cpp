#include "test/differential/oracles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <csignal>
#include <unistd.h>

#include "bench/sqlite_db.hpp"
#include "sql/api/database.hpp"

namespace hyrax::differential {

namespace {

std::string currentStatement, currentId;

void onCrash(int sig) {
  // Only write(2) here: the process is going down.
  const char head[] = "\nCRASH at ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, currentId.data(), currentId.size());
  const char running[] = ": hyrax died (signal) running:\n";
  (void)!write(2, running, sizeof running - 1);
  (void)!write(2, currentStatement.data(), currentStatement.size());
  (void)!write(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

using Row = std::vector<std::string>;
using Rows = std::vector<Row>;

// One statement's outcome, its values in a form both engines share: NULL, integers, numbers
// with a fraction to 4 places, booleans as 1/0, text and dates as text.
struct Answer {
  bool ok = true;
  std::string state, message;  // when !ok
  Rows rows;
  std::vector<char> slt;  // the column types as a .slt query line spells them (I, R, T)
};

std::string number(double x) {
  char buf[64];
  if (x == std::floor(x) && std::fabs(x) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", x);
  else std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

Answer runHyrax(Connection& con, const std::string& sql) {
  Answer a;
  currentStatement = sql;  // what the crash handler prints
  try {
    QueryResult r = con.execute(sql);
    for (auto& c : r.columns())
      a.slt.push_back(c.type.isInteger() || c.type.id == TypeId::Bool ? 'I' : c.type.isNumeric() ? 'R' : 'T');
    for (uint64_t i = 0; i < r.rowCount(); ++i) {
      Row row;
      for (uint32_t c = 0; c < r.columns().size(); ++c) {
        Value v = r.value(i, c);
        const SqlType& t = v.type();
        if (v.isNull()) row.emplace_back("NULL");
        else if (t.id == TypeId::Bool) row.emplace_back(v.asBool() ? "1" : "0");
        else if (t.isInteger()) row.push_back(std::to_string(v.asInt()));
        else if (t.isNumeric()) row.push_back(number(v.toDouble()));
        else if (t.isString()) row.push_back(v.asString());
        else row.push_back(v.toString());
      }
      a.rows.push_back(std::move(row));
    }
  } catch (const Error& e) {
    a.ok = false;
    a.state = e.sqlstate();
    a.message = e.message();
  }
  return a;
}

Answer runSqlite(sqlite3* db, const std::string& sql) {
  Answer a;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    a.ok = false;
    a.message = sqlite3_errmsg(db);
    return a;
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    Row row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL: row.emplace_back("NULL"); break;
        case SQLITE_INTEGER: row.push_back(std::to_string(sqlite3_column_int64(st, c))); break;
        case SQLITE_FLOAT: row.push_back(number(sqlite3_column_double(st, c))); break;
        default: row.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, c))); break;
      }
    }
    a.rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    a.ok = false;
    a.message = sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  return a;
}

Rows sorted(Rows r) {
  std::sort(r.begin(), r.end());
  return r;
}
Rows distinct(Rows r) {
  r = sorted(std::move(r));
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

std::string show(const Rows& rows, size_t max = 20) {
  std::string s;
  for (size_t i = 0; i < rows.size() && i < max; ++i) {
    s += "    ";
    for (size_t c = 0; c < rows[i].size(); ++c) s += (c ? " | " : "") + (rows[i][c].empty() ? std::string("(empty)") : rows[i][c]);
    s += "\n";
  }
  if (rows.size() > max) s += "    ... (" + std::to_string(rows.size()) + " rows)\n";
  if (rows.empty()) s += "    (no rows)\n";
  return s;
}

std::string showError(const Answer& a) { return "error " + a.state + ": " + a.message; }

// Partial aggregates of TLP's three partitions combined into the whole's.
std::string combine(Query::Combine how, const Rows& parts) {
  bool any = false;
  long long acc = 0;
  for (auto& r : parts) {
    if (r.empty() || r[0] == "NULL") continue;
    long long v = std::stoll(r[0]);
    if (!any) acc = v;
    else if (how == Query::Combine::Min) acc = std::min(acc, v);
    else if (how == Query::Combine::Max) acc = std::max(acc, v);
    else acc += v;
    any = true;
  }
  if (!any) return how == Query::Combine::Count ? "0" : "NULL";
  return std::to_string(acc);
}

}  // namespace

void installCrashHandler() {
  signal(SIGSEGV, onCrash);
  signal(SIGABRT, onCrash);
  signal(SIGBUS, onCrash);
  signal(SIGFPE, onCrash);
}

const char* oracleName(Oracle o) {
  static const char* names[] = {"sqlite", "tlp", "norec"};
  return names[o];
}

uint64_t Stats::mismatches() const {
  uint64_t n = 0;
  for (auto& o : oracle) n += o.mismatches;
  return n;
}

struct Checker::Impl {
  std::unique_ptr<Database> db;
  std::unique_ptr<Connection> con;
  std::unique_ptr<bench::SqliteDb> lite;
};

Checker::Checker(bool sqlite, std::ostream& report) : impl_(std::make_unique<Impl>()), sqlite_(sqlite), report_(report) {}
Checker::~Checker() = default;

void Checker::load(const Schema& schema) {
  schema_ = schema;
  impl_->con.reset();
  impl_->db = std::make_unique<Database>();
  impl_->con = std::make_unique<Connection>(*impl_->db);
  impl_->lite = std::make_unique<bench::SqliteDb>();
  for (auto& st : schema.statements()) {
    impl_->con->execute(st.h);
    impl_->lite->exec(st.s);
  }
}

Checker::Verdict Checker::run(Oracle o, const Query& q, std::string& detail) {
  Connection& con = *impl_->con;
  auto hyraxFailed = [&](const Answer& a, const std::string& what) {
    if (a.state == "0A000") return Verdict::Unsupported;
    detail = what + ": hyrax " + showError(a) + "\n";
    return Verdict::Differs;
  };
  switch (o) {
    case kSqlite: {
      if (!sqlite_ || !q.sqlite) return Verdict::NotApplicable;
      Answer l = runSqlite(impl_->lite->handle(), q.sql.s);
      Answer h = runHyrax(con, q.sql.h);
      if (!h.ok && !l.ok) return Verdict::Skipped;
      if (!l.ok) return h.state == "0A000" ? Verdict::Unsupported : Verdict::Skipped;
      if (!h.ok) {
        Verdict v = hyraxFailed(h, "query");
        detail += "  SQLite:\n" + show(l.rows);
        return v;
      }
      Rows hr = q.ordered ? h.rows : sorted(h.rows), lr = q.ordered ? l.rows : sorted(l.rows);
      if (hr == lr) return Verdict::Same;
      detail = "  SQLite (" + q.sql.s + "):\n" + show(lr) + "  hyrax:\n" + show(hr);
      return Verdict::Differs;
    }
    case kTlp: {
      if (q.tlpCombine == Query::Combine::None) return Verdict::NotApplicable;
      Answer whole = runHyrax(con, q.tlpWhole.h);
      if (!whole.ok) return hyraxFailed(whole, "whole query");
      Answer parts = runHyrax(con, q.tlpParts.h);
      if (!parts.ok) return hyraxFailed(parts, "partitions (" + q.tlpParts.h + ")");
      Rows w, p;
      switch (q.tlpCombine) {
        case Query::Combine::Multiset: w = sorted(whole.rows), p = sorted(parts.rows); break;
        case Query::Combine::Set: w = distinct(whole.rows), p = distinct(parts.rows); break;
        default: w = whole.rows, p = {{combine(q.tlpCombine, parts.rows)}}; break;
      }
      if (w == p) return Verdict::Same;
      detail = "  whole query:\n" + show(w) + "  partitions (" + q.tlpParts.h + ")" +
               (q.tlpCombine >= Query::Combine::Count ? " combined" : "") + ":\n" + show(p);
      return Verdict::Differs;
    }
    case kNorec: {
      if (!q.norec) return Verdict::NotApplicable;
      Answer a = runHyrax(con, q.norecSql.h);
      if (!a.ok) return hyraxFailed(a, "NoREC statement");
      std::string counted = a.rows.at(0).at(0), summed = a.rows.at(0).at(1);
      if (summed == "NULL") summed = "0";
      if (counted == summed) return Verdict::Same;
      detail = "  " + q.norecSql.h + "\n  count(*) WHERE p = " + counted + ", sum(CASE WHEN p ...) = " + summed + "\n";
      return Verdict::Differs;
    }
    default: return Verdict::NotApplicable;
  }
}

int Checker::check(const Query& q, const std::string& id, bool reduce) {
  stats_.queries++;
  currentId = id;
  int found = 0;
  for (int i = 0; i < kOracles; ++i) {
    Oracle o = static_cast<Oracle>(i);
    std::string detail;
    Verdict v = run(o, q, detail);
    OracleStats& s = stats_.oracle[o];
    switch (v) {
      case Verdict::Same: s.checks++; break;
      case Verdict::Unsupported: s.unsupported++; break;
      case Verdict::Skipped: s.skipped++; break;
      case Verdict::NotApplicable: break;
      case Verdict::Differs:
        s.checks++;
        s.mismatches++;
        found++;
        reportMismatch(o, q, id, detail, reduce);
        break;
    }
  }
  return found;
}

// Reports a mismatch after removing every table the query does not name and every row whose
// removal keeps the mismatch (re-loading the data each time).
void Checker::reportMismatch(Oracle o, const Query& q, const std::string& id, const std::string& detail, bool reduce) {
  std::string finalDetail = detail;
  Schema original = schema_;
  if (reduce) {
    Schema s = schema_;
    auto named = [&](const std::string& table) {
      const std::string& sql = o == kSqlite ? q.sql.h : o == kTlp ? q.tlpParts.h : q.norecSql.h;
      return sql.find(" " + table + " AS ") != std::string::npos;
    };
    std::erase_if(s.tables, [&](const Table& t) { return !named(t.name); });
    auto still = [&](const Schema& candidate, std::string& d) {
      try {
        load(candidate);
      } catch (const std::exception&) {
        return false;
      }
      return run(o, q, d) == Verdict::Differs;
    };
    std::string d;
    if (still(s, d)) {
      finalDetail = d;
      for (auto& t : s.tables) {
        for (size_t r = t.rows.size(); r-- > 0;) {
          auto row = t.rows[r];
          t.rows.erase(t.rows.begin() + static_cast<long>(r));
          if (still(s, d)) finalDetail = d;
          else t.rows.insert(t.rows.begin() + static_cast<long>(r), row);
        }
      }
      schema_ = s;
    }
  }
  report_ << "MISMATCH (" << oracleName(o) << ") at " << id << "\n";
  report_ << "# schema and data" << (reduce ? " (reduced)" : "") << ":\n";
  for (auto& st : schema_.statements()) report_ << "statement ok\n" << st.h << "\n\n";
  report_ << "# query:\n" << q.sql.h << "\n";
  if (o == kSqlite) report_ << "# SQLite's spelling:\n" << q.sql.s << "\n";
  report_ << finalDetail << "\n";
  if (reduce) load(original);  // the next queries of this batch run on the whole data again
  schema_ = original;
}

}  // namespace hyrax::differential
