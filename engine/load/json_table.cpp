#include "engine/load/json_table.hpp"

#include "engine/load/file_source.hpp"
#include "engine/load/json_reader.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/storage/table.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

std::unique_ptr<Table> readJsonTable(const std::string& path, const std::string& tableName) {
  std::vector<JsonReader::Column> inferred;
  try {
    inferred = JsonReader::inferColumns(openFileSource(path));
  } catch (const Error& e) {  // the reader's errors name the line; say which file
    if (e.message().rfind("line ", 0) != 0) throw;  // opening or reading the file
    throw Error(e.sqlstate(), "read_json, " + path + " " + e.message());
  }
  if (inferred.empty())
    throw Error(sqlstate::InvalidParameter, "read_json, " + path + ": the file has no key with a value to make a column of");
  std::vector<ColumnDef> defs;
  std::vector<std::string> keys;
  LoadTarget target;
  for (auto& c : inferred) {
    defs.push_back({c.name, c.type});
    keys.push_back(c.name);
    target.columns.push_back(static_cast<uint32_t>(target.columns.size()));
  }
  auto table = std::make_unique<Table>(tableName, std::move(defs));
  target.table = table.get();
  target.source = path;
  JsonReader reader(openFileSource(path), keys, JsonReader::Options{false, true});
  try {
    loadRecords(target, reader, false);
  } catch (const Error& e) {  // "COPY <table>, <file> line n: ..." -> "read_json, <file> line n: ..."
    const std::string prefix = "COPY " + tableName;
    std::string m = e.message();
    if (m.rfind(prefix, 0) == 0) m = "read_json" + m.substr(prefix.size());
    throw Error(e.sqlstate(), m);
  }
  return table;
}

}  // namespace hyrax
