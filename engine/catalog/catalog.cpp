#include "engine/catalog/catalog.hpp"

#include "engine/index/index.hpp"
#include "engine/storage/constraints.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

Table& Catalog::createTable(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey) {
  bump();
  if (tables_.count(name) || views_.count(name) || sequences_.count(name))
    throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists");
  auto t = std::make_unique<Table>(name, std::move(columns), std::move(primaryKey));
  Table& ref = *t;
  assignOids(ref);
  tables_.emplace(std::move(name), std::move(t));
  return ref;
}

void Catalog::dropTable(const std::string& name) {
  bump();
  if (!tables_.erase(name)) throw Error(sqlstate::UndefinedTable, "relation \"" + name + "\" does not exist");
}

Table* Catalog::findTable(const std::string& name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

std::unique_ptr<Table> Catalog::detachTable(const std::string& name) {
  bump();
  auto it = tables_.find(name);
  if (it == tables_.end()) throw Error(sqlstate::UndefinedTable, "relation \"" + name + "\" does not exist");
  std::unique_ptr<Table> t = std::move(it->second);
  tables_.erase(it);
  return t;
}

void Catalog::attachTable(std::unique_ptr<Table> table) {
  bump();
  std::string name = table->name();
  assignOids(*table);
  tables_.emplace(std::move(name), std::move(table));
}

std::pair<Table*, Index*> Catalog::findIndex(const std::string& name) const {
  for (auto& [n, t] : tables_)
    if (Index* i = t->findIndex(name)) return {t.get(), i};
  return {nullptr, nullptr};
}

bool Catalog::nameTaken(const std::string& name) const {
  return tables_.count(name) || views_.count(name) || sequences_.count(name) || findIndex(name).second;
}

void Catalog::createSequence(std::shared_ptr<Sequence> sequence) {
  if (nameTaken(sequence->name))
    throw Error(sqlstate::DuplicateTable, "relation \"" + sequence->name + "\" already exists");
  bump();
  std::string name = sequence->name;
  objectOid(name);
  sequences_.emplace(std::move(name), std::move(sequence));
}

std::vector<std::shared_ptr<Sequence>> Catalog::sequences() const {
  std::vector<std::shared_ptr<Sequence>> out;
  for (auto& [n, s] : sequences_) out.push_back(s);
  return out;
}

uint32_t Catalog::objectOid(const std::string& key) const {
  auto [it, fresh] = oids_.emplace(key, nextOid_);
  if (fresh) ++nextOid_;
  return it->second;
}

// Constraints and defaults have names of their own only within their table: their keys say so.
uint32_t Catalog::constraintOid(const std::string& table, const std::string& constraint) const {
  return objectOid("constraint " + table + "." + constraint);
}

uint32_t Catalog::defaultOid(const std::string& table, const std::string& column) const {
  return objectOid("default " + table + "." + column);
}

uint32_t Catalog::routineOid(const std::string& routine) const { return objectOid("routine " + routine); }

uint32_t Catalog::roleOid(const std::string& role) const { return objectOid("role " + role); }

void Catalog::assignOids(const Table& table) {
  objectOid(table.name());
  for (auto& index : table.indexes()) {  // a new table's constraint indexes
    objectOid(index->name());
    if (index->unique()) constraintOid(table.name(), index->name());
  }
  for (auto& check : table.checks()) constraintOid(table.name(), check.name);
  for (auto& fk : table.foreignKeys()) constraintOid(table.name(), fk.name);
  for (auto& column : table.columns())
    if (column.defaultValue || column.defaultNow || column.defaultSequence) defaultOid(table.name(), column.name);
}

std::shared_ptr<Sequence> Catalog::findSequence(const std::string& name) const {
  auto it = sequences_.find(name);
  return it == sequences_.end() ? nullptr : it->second;
}

std::shared_ptr<Sequence> Catalog::detachSequence(const std::string& name) {
  auto it = sequences_.find(name);
  if (it == sequences_.end()) return nullptr;
  bump();
  auto s = std::move(it->second);
  sequences_.erase(it);
  return s;
}

Catalog::View Catalog::detachView(const std::string& name) {
  bump();
  auto it = views_.find(name);
  if (it == views_.end()) throw Error(sqlstate::UndefinedTable, "view \"" + name + "\" does not exist");
  View v = std::move(it->second);
  views_.erase(it);
  return v;
}

void Catalog::createView(const std::string& name, View view) {
  bump();
  if (tables_.count(name) || views_.count(name) || sequences_.count(name))
    throw Error(sqlstate::DuplicateTable, "relation \"" + name + "\" already exists");
  objectOid(name);
  views_.emplace(name, std::move(view));
}

void Catalog::dropView(const std::string& name) {
  bump();
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
