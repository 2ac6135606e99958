#include "engine/catalog/catalog.hpp"

#include "engine/util/error.hpp"

namespace hyrax {

Table& Catalog::createTable(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey) {
  if (tables_.count(name) || views_.count(name))
    throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists");
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

void Catalog::createView(const std::string& name, View view) {
  if (tables_.count(name) || views_.count(name))
    throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists");
  views_.emplace(name, std::move(view));
}

void Catalog::dropView(const std::string& name) {
  if (!views_.erase(name)) throw Error(sqlstate::UndefinedTable, "view \"" + name + "\" does not exist");
}

const Catalog::View* Catalog::findView(const std::string& name) const {
  auto it = views_.find(name);
  return it == views_.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::views() const {
  std::vector<std::string> r;
  for (auto& [n, v] : views_) r.push_back(n);
  return r;
}

std::vector<const Table*> Catalog::tables() const {
  std::vector<const Table*> r;
  for (auto& [n, t] : tables_) r.push_back(t.get());
  return r;
}

}  // namespace hyrax
