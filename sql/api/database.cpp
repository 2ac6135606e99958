#include "engine/catalog/catalog.hpp"
#include "sql/api/database.hpp"

namespace hyrax {

Database::Database() : catalog_(std::make_unique<Catalog>()) {}
Database::~Database() = default;
Catalog& Database::catalog() { return *catalog_; }

}  // namespace hyrax
