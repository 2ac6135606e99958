#include "engine/catalog/catalog.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

Table& Catalog::createTable(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey) {
  if (tables_.count(name)) throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists");
  auto t = std::make_unique<Table>(name, std::move(columns), std::move(primaryKey));
  Table& ref = *t;
  tables_.emplace(std::move(name), std::move(t));
  return ref;
}

void Catalog::dropTable(const std::string& name) {
  if (!tables_.erase(name)) throw Error(sqlstate::UndefinedTable, "relation \"" + name + "\" does not exist");
}

Table* Catalog::findTable(const std::string& name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

std::vector<const Table*> Catalog::tables() const {
  std::vector<const Table*> r;
  for (auto& [n, t] : tables_) r.push_back(t.get());
  return r;
}

}  // namespace hyrax
