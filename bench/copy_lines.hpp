#pragma once
// Loading a table over the wire as a user would: COPY FROM STDIN through libpqxx, in one
// transaction, from lines in COPY's text format made by the caller (whose data needs no escaping).
// libpqxx 6's stream_to takes only tuples of a fixed size, hence its older tablewriter.
#include <pqxx/pqxx>
#include <pqxx/tablewriter>

#include <cstdint>
#include <string>

namespace hyrax::bench {

// line(i, text) makes line i (i = 0..count-1) into `text`, or says false to leave it out.
template <class Line>
void copyLines(pqxx::connection& con, const std::string& table, uint64_t count, Line line) {
  pqxx::work tx(con);
  {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    pqxx::tablewriter out(tx, table);
#pragma GCC diagnostic pop
    std::string text;
    for (uint64_t i = 0; i < count; ++i)
      if (line(i, text)) out.write_raw_line(text);
    out.complete();
  }
  tx.commit();
}

}  // namespace hyrax::bench
