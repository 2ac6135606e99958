#pragma once
// A portal of the extended query protocol: a prepared statement bound to its parameter values,
// run at its first Execute (or at Describe, for a statement whose columns are known only once it
// ran), its rows then handed out as Execute's row limits ask.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/copy_streams.hpp"
#include "sql/api/database.hpp"

namespace hyrax::server {

struct Portal {
  std::string statement;            // the prepared statement's name ("" the unnamed one)
  CopyUse copy;                     // a COPY FROM STDIN / TO STDOUT's use of the copy streams
  std::vector<Value> arguments;     // one per parameter, NULL Values for NULL
  std::vector<int16_t> formats;     // result column formats as Bind gave them (resolved once the columns are known)
  std::optional<QueryResult> result;  // once it ran
  uint64_t sent = 0;                // rows already sent by Executes
};

}  // namespace hyrax::server
