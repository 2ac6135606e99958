#pragma once
// COPY: bulk loading from and unloading to files or the client's streams, in PostgreSQL's text
// and csv formats. Loading is engine/load's; this binds the statement and formats output.
#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>

#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {

class Catalog;
class Table;

struct CopyContext {
  Catalog& catalog;
  std::istream* in = nullptr;   // COPY FROM STDIN reads here (nullptr: no client data)
  std::ostream* out = nullptr;  // COPY TO STDOUT writes here
  std::function<QueryResult(const ast::Select&)> runSelect;  // COPY (query) TO / COPY table TO
  std::function<void(const std::string&)> progress;          // notices on long loads
  // After COPY FROM appended rows [firstRow, end): constraints, indexes, undo log. On an error it
  // leaves the table as before the load and throws.
  std::function<void(Table&, uint64_t firstRow)> afterLoad;
  const std::atomic<bool>* cancel = nullptr;  // set: COPY FROM stops with 57014 (checked per block read)
  int64_t transactionTime = 0;                 // for DEFAULT now() columns COPY FROM leaves out
  uint32_t threads = 1;                        // SET threads: text and csv input parse on this many
};

QueryResult executeCopy(const ast::CopyStmt& stmt, const CopyContext& ctx);

}  // namespace hyrax
