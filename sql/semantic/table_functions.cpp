// Table functions in FROM, and the system tables (pg_catalog, information_schema) made the same
// way. Table functions in FROM. read_json('file') reads a newline-delimited JSON file into a table the
// plan owns (plan::QueryPlan::ownedTables), made while binding: the optimizer sees a table with
// statistics like any other, and generated code scans it as any other. The file is read when the
// statement is planned (a prepared statement's at PREPARE).
#include "engine/load/json_table.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/text_format.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/system_catalog.hpp"

namespace hyrax::sql {

Table& SelectBinder::bindTableFunction(const ast::TableRef& ref) {
  if (text::lowerAscii(ref.name) != "read_json")
    throw Error(sqlstate::UndefinedFunction, "table function " + ref.name + "() does not exist", ref.pos);
  if (ref.args.size() != 1 || ref.args[0]->kind != ast::ExprKind::String)
    throw Error(sqlstate::InvalidParameter, "read_json takes one argument: the file name as a string literal", ref.pos);
  const std::string& path = ref.args[0]->text;
  const std::string name = "read_json('" + path + "')";
  for (auto& t : plan_.ownedTables)  // bound again (RetryBinding): the file was read already
    if (t->name() == name) return *t;
  try {
    plan_.ownedTables.push_back(readJsonTable(path, name));
  } catch (const Error& e) {
    throw Error(e.sqlstate(), e.message(), ref.args[0]->pos);
  }
  return *plan_.ownedTables.back();
}

Table* SelectBinder::systemTable(const std::string& schema, const std::string& name) {
  for (auto& t : plan_.ownedTables)  // bound again, or read twice (pg_class c, pg_class c2)
    if (t->name() == schema + "." + name) return t.get();
  std::unique_ptr<Table> t = makeSystemTable(catalog_, schema, name);
  if (!t) return nullptr;
  plan_.ownedTables.push_back(std::move(t));
  return plan_.ownedTables.back().get();
}

}  // namespace hyrax::sql
